"""paddle_ops.integrations.jax: the ops through XLA's FFI (jax.ffi.ffi_call) with custom_vjp.

Values bitwise against paddle_ops' own API (every dtype the op takes) and against NumPy float64;
jax.grad / jax.vjp against central finite differences in float64 (jax_enable_x64 on in this
module); jax.jit of a block of logcumsumexp, pscan and gla against eager; jax.vmap; no copies
(the kernels read and write XLA's buffers); bad input raising paddle_ops' exception types at
trace time. Every test runs on the CPU and, where JAX sees a GPU and paddle_ops is a CUDA
build, on the GPU.

JAX is not installed in CI: the module skips there. Run it with a Python that has JAX, e.g.
    PYTHONPATH=build/python <python with jax> -m pytest unittests/python/integrations/test_jax_ops.py
"""
import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed (CI installs no JAX; these tests run where "
                                        "it is: pip install jax)")
import jax.numpy as jnp  # noqa: E402

import paddle_ops as paddle  # noqa: E402
from paddle_ops import _C  # noqa: E402
from paddle_ops.integrations import jax as pj  # noqa: E402
from integration_checks import SHARED_CHECKS, error_of  # noqa: E402

FLOATS = ["float16", "bfloat16", "float32", "float64"]


@pytest.fixture(autouse=True, scope="module")
def x64():
    """float64 arrays (and int64 outputs) need JAX's 64-bit mode; restored after the module."""
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", old)


def _places():
    out = [pytest.param("cpu", id="cpu")]
    why = None
    if not paddle.is_compiled_with_cuda():
        why = "paddle_ops is built without CUDA"
    else:
        try:
            jax.devices("gpu")
        except RuntimeError:
            why = "JAX sees no GPU (a CPU-only jaxlib or no device)"
    out.append(pytest.param("gpu", id="gpu", marks=pytest.mark.skipif(why is not None, reason=why or "")))
    return out


PLACES = _places()


def put(x, place, dtype=None):
    """A JAX array on `place` (from NumPy)."""
    x = np.asarray(x)
    if dtype is not None:
        x = x.astype(jnp.dtype(dtype))
    return jax.device_put(x, jax.devices(place)[0])


def ours(x, place):
    """The same values as a paddle_ops Tensor on `place`."""
    t = paddle.to_tensor(np.asarray(x))
    return t.cuda() if place == "gpu" else t


def rng(seed=0):
    return np.random.RandomState(seed)


def gla_inputs(r, B=1, H=2, T=9, D=4):
    q, k, v = (r.randn(B, H, T, D) for _ in range(3))
    gk = -0.3 * r.rand(B, H, T, D)
    s0 = r.randn(B, H, D, D).astype(np.float32)  # float32 for every input dtype (docs/spec.md §5)
    return q, k, v, gk, s0


def cases(r):
    """(name, jax function of arrays, paddle_ops function of Tensors, NumPy float64 inputs)."""
    x = r.randn(3, 7)
    a, xs, h0 = 0.2 + 0.8 * r.rand(2, 6, 3), r.randn(2, 6, 3), r.randn(2, 3)
    holes = np.array([[1.5, 0, 0, -2, 0, 3, 0]])
    q, k, v, gk, s0 = gla_inputs(r)
    return [
        ("logcumsumexp", lambda x: pj.logcumsumexp(x, axis=1), lambda x: paddle.logcumsumexp(x, axis=1), [x]),
        ("logcumsumexp-rev-flat", lambda x: pj.logcumsumexp(x, reverse=True),
         lambda x: paddle.logcumsumexp(x, reverse=True), [x]),
        ("logcumsumexp-excl", lambda x: pj.logcumsumexp(x, axis=0, exclusive=True),
         lambda x: paddle.logcumsumexp(x, axis=0, exclusive=True), [x]),
        ("cumsum", lambda x: pj.cumsum(x, axis=1, exclusive=True, reverse=True),
         lambda x: paddle.cumsum(x, axis=1, exclusive=True, reverse=True), [x]),
        ("pscan", lambda a, x: pj.pscan(a, x), lambda a, x: paddle.pscan(a, x), [a, xs]),
        ("pscan-h0-rev", lambda a, x, h: pj.pscan(a, x, h, reverse=True),
         lambda a, x, h: paddle.pscan(a, x, h, reverse=True), [a, xs, h0]),
        ("right_flood", lambda x: pj.right_flood(x), lambda x: paddle.right_flood(x), [holes]),
        ("right_flood-rev", lambda x: pj.right_flood(x, reverse=True)[..., ::-1],
         lambda x: paddle.right_flood(x, reverse=True).numpy()[..., ::-1], [holes]),
        ("repeat_interleave", lambda x: pj.repeat_interleave(x, 2, axis=1),
         lambda x: paddle.repeat_interleave(x, 2, axis=1), [x]),
        ("repeat_interleave-counts", lambda x: pj.repeat_interleave(x, [2, 0, 1], axis=0),
         lambda x: paddle.repeat_interleave(
             x, paddle.to_tensor(np.array([2, 0, 1]), place=x.place), axis=0), [x]),
        ("gla", lambda q, k, v, g: pj.gla(q, k, v, g, scale=0.5)[0],
         lambda q, k, v, g: paddle.gla(q, k, v, g, scale=0.5)[0], [q, k, v, gk]),
    ]


CASES = cases(rng())
CASE_IDS = [c[0] for c in CASES]


def np_of(y):
    return np.asarray(y.numpy() if hasattr(y, "numpy") and not isinstance(y, np.ndarray) else y)


def test_every_yaml_op_is_exposed():
    """Each forward op of api_yaml/ but the tensor arithmetic JAX has is a function of pj.ops,
    with its grad op in the table; the attribute-chosen outputs have their variants."""
    import json
    helpers = {"add", "subtract", "multiply", "sum", "mean", "reshape", "cast", "full_like"}
    names = set(dir(pj.ops))
    for s in json.loads(_C.static.op_specs()):
        if s["is_backward"] or s["name"] in helpers:
            continue
        assert s["name"] in names
        entry = next(e for e in pj.OPS if e["name"] == s["name"])
        assert (entry["backward"] or {}).get("op") == (s["backward"] or {}).get("op")
    assert {"right_flood_with_index", "gla_with_final_state"} <= names
    assert not names & helpers


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_bitwise_against_paddle_ops(case, dtype, place):
    """The JAX path runs the same kernel: bitwise paddle_ops' own result, for every dtype the
    op takes (a dtype paddle_ops refuses is refused by the JAX path too, with the same type)."""
    _, fj, fo, ins = case
    try:
        ref = np_of(fo(*[ours(np.asarray(x).astype(jnp.dtype(dtype)), place) for x in ins]))
    except (TypeError, ValueError, NotImplementedError, RuntimeError) as e:
        with pytest.raises(type(e)):
            fj(*[put(x, place, dtype) for x in ins])
        return
    got = np.asarray(fj(*[put(x, place, dtype) for x in ins]))
    if got.dtype == jnp.bfloat16:  # paddle_ops' Tensor.numpy() gives bfloat16 as its uint16 bits (Paddle's)
        assert ref.dtype == np.uint16
        got = got.view(np.uint16)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    assert np.array_equal(got.view(np.uint8), np.ascontiguousarray(ref).view(np.uint8))


def gla_ref(q, k, v, gk, s0, scale):
    """The recurrent form in NumPy float64: S_t = diag(exp(gk_t)) S_{t-1} + k_t^T v_t, o_t = scale q_t S_t."""
    B, H, T, D = q.shape
    S = s0.astype(np.float64).copy()
    o = np.zeros_like(q)
    for t in range(T):
        S = np.exp(gk[:, :, t, :])[..., None] * S + k[:, :, t, :, None] * v[:, :, t, None, :]
        o[:, :, t] = scale * np.einsum("bhd,bhde->bhe", q[:, :, t], S)
    return o, S


@pytest.mark.parametrize("place", PLACES)
def test_against_numpy_float64(place):
    r = rng(1)
    x = r.randn(4, 50) * 30
    np.testing.assert_allclose(np.asarray(pj.logcumsumexp(put(x, place), axis=1)),
                               np.logaddexp.accumulate(x, axis=1), rtol=1e-14, atol=0)
    np.testing.assert_allclose(np.asarray(pj.cumsum(put(x, place), axis=0)), np.cumsum(x, axis=0),
                               rtol=1e-13, atol=1e-12)
    i = np.arange(-50, 50)
    assert np.array_equal(np.asarray(pj.cumsum(put(i, place))), np.cumsum(i))
    a, xs, h0 = 0.1 + r.rand(2, 5, 3), r.randn(2, 5, 3), r.randn(2, 3)
    h, ref = h0, []
    for t in range(5):
        h = a[:, t] * h + xs[:, t]
        ref.append(h)
    np.testing.assert_allclose(np.asarray(pj.pscan(put(a, place), put(xs, place), put(h0, place))),
                               np.stack(ref, 1), rtol=1e-12)
    out, index = pj.right_flood(put([0., 2, 0, 0, 5, 0], place), return_index=True)
    assert np.asarray(out).tolist() == [0, 2, 2, 2, 5, 5] and np.asarray(index).tolist() == [-1, 1, 1, 1, 4, 4]
    assert np.asarray(index).dtype == np.int64
    flooded = pj.right_flood(put([1., np.nan, 3, np.nan], place), hole="nan")
    assert np.asarray(flooded).tolist() == [1, 1, 3, 3]
    np.testing.assert_array_equal(np.asarray(pj.repeat_interleave(put(x, place), [0, 2, 1, 3], axis=0)),
                                  np.repeat(x, [0, 2, 1, 3], axis=0))
    np.testing.assert_array_equal(np.asarray(pj.repeat_interleave(put(x[:2, :3], place), 2)),
                                  np.repeat(x[:2, :3], 2))  # axis None: flattened
    q, k, v, gk, s0 = gla_inputs(r)
    o, hT = pj.gla(*[put(t, place) for t in (q, k, v, gk, s0)][:4], scale=0.5, initial_state=put(s0, place),
                   output_final_state=True)
    o_ref, s_ref = gla_ref(q, k, v, gk, s0, 0.5)
    np.testing.assert_allclose(np.asarray(o), o_ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.asarray(hT), s_ref, rtol=1e-5, atol=1e-6)  # the state is float32
    assert pj.gla(*[put(t, place) for t in (q, k, v, gk)])[1] is None


def _fd_check(f, args, r, eps=1e-6, rtol=1e-6):
    """<vjp(w), u> against the central difference (f(x + eps u) - f(x - eps u)) / (2 eps) . w,
    for a random direction u of every input and a random cotangent w (float64)."""
    y, vjp = jax.vjp(f, *args)
    w = jnp.where(jnp.isfinite(y), jnp.asarray(r.randn(*y.shape)), 0.0)  # exclusive scans start at -inf
    grads = vjp(w)
    for i, x in enumerate(args):
        u = jnp.asarray(r.randn(*x.shape))
        plus = [a + eps * u if j == i else a for j, a in enumerate(args)]
        minus = [a - eps * u if j == i else a for j, a in enumerate(args)]
        fd = float(jnp.vdot(jnp.where(w != 0, f(*plus) - f(*minus), 0.0), w)) / (2 * eps)
        an = float(jnp.vdot(grads[i], u))
        assert abs(an - fd) <= rtol * max(1.0, abs(fd)), (i, an, fd)


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_vjp_against_finite_differences(case, place):
    name, fj, _, ins = case
    r = rng(2)
    args = [put(x, place) for x in ins]
    if name.startswith("right_flood"):
        pytest.skip("right_flood is piecewise constant in x (its holes move under any perturbation of "
                    "a zero): its gradient is checked against its definition in test_right_flood_grad")
    _fd_check(fj, args, r)


@pytest.mark.parametrize("place", PLACES)
def test_right_flood_grad(place):
    """Each output's cotangent goes to the element it was copied from."""
    x = put([[1.5, 0, 0, -2, 0, 3, 0]], place)
    w = np.arange(1.0, 8.0)[None]
    _, vjp = jax.vjp(lambda x: pj.right_flood(x), x)
    assert np.asarray(vjp(jnp.asarray(w))[0]).tolist() == [[1 + 2 + 3, 0, 0, 4 + 5, 0, 6 + 7, 0]]


@pytest.mark.parametrize("place", PLACES)
def test_grad_of_initial_states_and_gla(place):
    r = rng(3)
    a, xs, h0 = put(0.2 + r.rand(2, 5, 3), place), put(r.randn(2, 5, 3), place), put(r.randn(2, 3), place)
    _fd_check(lambda a, x, h: pj.pscan(a, x, h), [a, xs, h0], r)
    q, k, v, gk, _ = (put(t, place) for t in gla_inputs(r))
    _fd_check(lambda q, k, v, g: pj.gla(q, k, v, g, scale=0.7, head_first=True)[0], [q, k, v, gk], r)
    # jax.grad through a final state
    g = jax.grad(lambda q: pj.gla(q, k, v, gk, output_final_state=True)[1].sum())(q)
    assert g.shape == q.shape and bool(jnp.all(jnp.isfinite(g)))
    # integer counts take no cotangent
    counts = put(np.array([1, 0, 2]), place)
    gx = jax.grad(lambda x: pj.repeat_interleave(x, counts, axis=0, output_size=3).sum())(put(r.randn(3, 2), place))
    assert np.asarray(gx).tolist() == [[1, 1], [0, 0], [2, 2]]


@pytest.mark.parametrize("place", PLACES)
def test_gla_varlen_grad_matches_own_api(place):
    """cu_seqlens (int32, an empty sequence) through jax.grad and jax.jit: per-sequence final
    states, gradients into q, k, v, gk and the initial states equal paddle_ops' own (the same
    kernels), the offsets taking no cotangent."""
    r = rng(5)
    q, k, v = (r.randn(1, 10, 2, 4).astype(np.float32) for _ in range(3))
    gk = (-np.abs(r.randn(1, 10, 2, 4)) / 4).astype(np.float32)
    h0 = r.randn(3, 2, 4, 4).astype(np.float32)
    cu = np.array([0, 3, 3, 10], np.int32)

    def loss(q, k, v, gk, h0):
        o, s = pj.gla(q, k, v, gk, initial_state=h0, head_first=False, cu_seqlens=put(cu, place),
                      output_final_state=True)
        return (o ** 2).sum() + (s * s).sum()

    args = [put(t, place) for t in (q, k, v, gk, h0)]
    grads = jax.grad(loss, argnums=(0, 1, 2, 3, 4))(*args)
    jitted = jax.jit(jax.grad(loss, argnums=(0, 1, 2, 3, 4)))(*args)
    ts = [ours(t, place) for t in (q, k, v, gk, h0)]  # the same place: the same kernels
    for t in ts:
        t.stop_gradient = False
    o, s = paddle.gla(*ts[:4], initial_state=ts[4], head_first=False, cu_seqlens=ours(cu, place),
                      output_final_state=True)
    ((o * o).sum() + (s * s).sum()).backward()
    for a, b, t in zip(grads, jitted, ts):
        np.testing.assert_allclose(np.asarray(a), t.grad.numpy(), rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def block(x, a, q, k, v, gk):
    """A small layer: a log-space prefix, a gated recurrence over it, gated linear attention."""
    s = pj.logcumsumexp(x, axis=1)
    h = pj.pscan(jax.nn.sigmoid(a), jnp.tanh(s))
    o, state = pj.gla(q, k + h.mean(), v, gk, scale=0.5, output_final_state=True)
    return o.sum() + state.sum() + h.sum()


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_jit_block_matches_eager(dtype, place):
    r = rng(4)
    q, k, v, gk, _ = gla_inputs(r)
    args = [put(t, place, dtype) for t in (r.randn(2, 6, 3), r.randn(2, 6, 3), q, k, v, gk)]
    eager = block(*args)
    jitted = jax.jit(block)(*args)
    assert np.array_equal(np.asarray(eager), np.asarray(jitted))
    g_eager = jax.grad(block, argnums=(0, 1, 2))(*args)
    g_jit = jax.jit(jax.grad(block, argnums=(0, 1, 2)))(*args)
    # not bitwise: XLA fuses JAX's own elementwise gradients (sigmoid, tanh, mean) differently
    # under jit; our kernels are the same calls
    for a, b in zip(g_eager, g_jit):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5 if dtype == "float32" else 1e-12)
    text = jax.jit(block).lower(*args).as_text()
    assert text.count("paddle_ops") >= 3  # the ops are FFI custom calls in the compiled program


@pytest.mark.parametrize("place", PLACES)
def test_vmap(place):
    x = put(rng(5).randn(4, 3, 6), place)
    got = jax.vmap(lambda r: pj.logcumsumexp(r, axis=1))(x)
    ref = jnp.stack([pj.logcumsumexp(x[i], axis=1) for i in range(4)])
    assert np.array_equal(np.asarray(got), np.asarray(ref))


def test_no_copies():
    """The kernels read XLA's input buffer and write its output buffer (CPU)."""
    x = put(rng(6).randn(64, 128).astype(np.float32), "cpu")
    y = pj.logcumsumexp(x, axis=1)
    ins, outs = pj.last_pointers()
    assert ins[0] == x.unsafe_buffer_pointer()
    assert outs[0] == y.unsafe_buffer_pointer()


@pytest.fixture
def on_cpu():
    """JAX's default device is the CPU for the test: the CPU kernels' behaviour it checks (a wrong
    output_size is an error there, the GPU trusts it; the thread count and the CPU gla flag)."""
    with jax.default_device(jax.devices("cpu")[0]):
        yield


def test_bad_input(on_cpu):
    x = jnp.ones((3, 4), jnp.float32)
    with pytest.raises(IndexError, match="axis"):
        pj.logcumsumexp(x, axis=2)
    with pytest.raises(TypeError, match="exclusive"):
        pj.cumsum(x, axis=1, exclusive=1)
    with pytest.raises(TypeError, match="axis"):
        pj.cumsum(x, axis=1.5)
    with pytest.raises(ValueError, match="3-D"):
        pj.pscan(x, x)
    with pytest.raises(ValueError):
        pj.pscan(jnp.ones((2, 3, 4)), jnp.ones((2, 3, 5)))
    with pytest.raises(TypeError, match="dtype"):
        pj.logcumsumexp(jnp.ones((3,), jnp.complex64))
    with pytest.raises(TypeError, match="must be a jax.Array"):
        pj.logcumsumexp(object())
    with pytest.raises(ValueError):
        pj.right_flood(x, hole="one")
    with pytest.raises(TypeError, match="scale"):
        pj.gla(*(jnp.ones((1, 1, 2, 2)),) * 4, scale="0.5")
    with pytest.raises(ValueError, match="4-D"):
        pj.gla(x, x, x, x)
    with pytest.raises(ValueError, match="output_size"):
        jax.jit(lambda x, c: pj.repeat_interleave(x, c, axis=0))(x, jnp.array([1, 1, 1]))
    with pytest.raises(TypeError, match="repeats"):
        pj.repeat_interleave(x, 1.5)
    # inside jit the same checks run at trace time
    with pytest.raises(IndexError):
        jax.jit(lambda x: pj.logcumsumexp(x, axis=-3))(x)
    with pytest.raises(ValueError, match="non-negative"):
        pj.repeat_interleave(x, [1, -1, 1], axis=0)
    # a count that does not add up to output_size: the kernel's error, raised by XLA, re-raised
    # with its type in an eager call; inside jax.jit it stays XLA's error, with our message
    with pytest.raises(ValueError, match="output_size must be the sum of repeats"):
        np.asarray(pj.repeat_interleave(x, jnp.array([1, 1, 1]), axis=0, output_size=4))
    f = jax.jit(lambda x, c: pj.repeat_interleave(x, c, axis=0, output_size=4))
    with pytest.raises(jax.errors.JaxRuntimeError, match=r"\[paddle_ops:ValueError\] repeat_interleave"):
        np.asarray(f(x, jnp.array([1, 1, 1])))


# repeat_interleave's and gla's argument checks are paddle_ops' own (tensor/manipulation.py,
# tensor/attention.py): each bad call, given JAX arrays or paddle_ops' tensors, fails alike (type
# and message).
@pytest.mark.parametrize("case", sorted(SHARED_CHECKS))
def test_argument_checks_are_paddle_ops_own(case):
    ours = error_of(lambda: SHARED_CHECKS[case](paddle.to_tensor, paddle))
    theirs = error_of(lambda: SHARED_CHECKS[case](jnp.asarray, pj))
    assert ours is not None and ours[0] in (TypeError, ValueError), ours
    assert theirs == ours


def test_int64_output_needs_x64():
    jax.config.update("jax_enable_x64", False)
    try:
        with pytest.raises(TypeError, match="jax_enable_x64"):
            pj.right_flood(jnp.ones((4,), jnp.float32), return_index=True)
        assert np.asarray(pj.right_flood(jnp.array([1.0, 0.0], jnp.float32))).tolist() == [1.0, 1.0]
    finally:
        jax.config.update("jax_enable_x64", True)


@pytest.mark.parametrize("place", PLACES)
def test_stream_order_in_a_chain(place):
    """XLA's work before the op, ours, and XLA's after it, on a large array in one program: a
    missing order (GPU: our stream and XLA's) would read or hand back unfinished buffers."""
    x = put(rng(7).randn(64, 1 << 14).astype(np.float32), place)

    def chain(x):
        y = pj.logcumsumexp(x * 2.0 + 1.0, axis=1)
        return pj.cumsum(y - y[:, :1], axis=1) * 0.5

    got = np.asarray(jax.jit(chain)(x))
    y = paddle.logcumsumexp(ours(np.asarray(x) * 2.0 + 1.0, place), axis=1).numpy()
    ref = paddle.cumsum(ours(y - y[:, :1], place), axis=1).numpy() * 0.5
    assert np.array_equal(got, ref)


@pytest.mark.parametrize("place", PLACES)
def test_empty_and_0d(place):
    """Empty inputs (XLA may pass no memory) and 0-D inputs give paddle_ops' shapes."""
    e = put(np.zeros((0, 3)), place)
    assert pj.logcumsumexp(e, axis=1).shape == (0, 3)
    assert jax.grad(lambda x: pj.logcumsumexp(x, axis=1).sum())(e).shape == (0, 3)
    assert pj.repeat_interleave(put(np.zeros((0, 2)), place), [], axis=0).shape == (0, 2)
    s = put(np.float32(2.0), place)
    ref = paddle.logcumsumexp(ours(np.float32(2.0), place)).numpy()
    assert np.array_equal(np.asarray(pj.logcumsumexp(s)), ref)
    assert float(jax.grad(lambda x: pj.logcumsumexp(x).sum())(s)) == 1.0
    assert np.asarray(pj.cumsum(put(np.array([True, False, True]), place))).tolist() == [1, 1, 2]


def test_handler_library_build_and_cache(tmp_path, monkeypatch):
    """The FFI handlers compile into the cache folder once, export only the two handlers, and a
    compiler that cannot run is an ImportError that says so."""
    import os
    import subprocess
    from paddle_ops.integrations.jax import _build
    monkeypatch.setenv("PADDLE_OPS_EXTENSION_DIR", str(tmp_path))
    path = _build.handler_library()
    assert path.startswith(str(tmp_path / "jax_ffi")) and os.path.exists(path)
    stamp = os.stat(path).st_mtime_ns
    assert _build.handler_library() == path and os.stat(path).st_mtime_ns == stamp  # cached, not rebuilt
    nm = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True)
    if nm.returncode == 0:
        assert {ln.split()[-1] for ln in nm.stdout.splitlines() if ln.strip()} == {"PoJaxCpu", "PoJaxCuda"}
    monkeypatch.setenv("PADDLE_OPS_EXTENSION_DIR", str(tmp_path / "other"))
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-compiler"))
    with pytest.raises(ImportError, match="could not run"):
        _build.handler_library()


def test_thread_count_and_flags_reach_the_runtime(on_cpu):
    """paddle.set_num_threads and paddle.set_flags reach the runtime library the handlers call (its
    own copy of the kernels) at each op, also in a program jit-compiled before they changed, and
    a flag that changes a kernel's result changes it as in paddle_ops' own API."""
    from paddle_ops.integrations import _runtime
    x = rng(12).randn(64, 4096).astype(np.float32)  # above the CPU kernels' parallel threshold
    f = jax.jit(lambda x: pj.logcumsumexp(x, axis=1))
    flags = paddle.get_flags()
    try:
        results = []
        for n in (3, 1, 2):
            paddle.set_num_threads(n)
            results.append(np.asarray(f(x)))
            assert _runtime.last_num_threads() == n
        for r in results[1:]:
            np.testing.assert_array_equal(r, results[0])
        r = rng(13)
        q, k, v = (r.randn(1, 2, 64, 128).astype(np.float32) for _ in range(3))
        gk = (-0.1 * np.abs(r.randn(1, 2, 64, 128))).astype(np.float32)
        got, want = {}, {}
        for path in ("chunked", "recurrent"):
            paddle.set_flags({"PADDLE_OPS_GLA_CPU": path})
            got[path] = np.asarray(pj.gla(q, k, v, gk)[0])
            assert _runtime.get_flags() == paddle.get_flags()
            want[path] = paddle.gla(*(paddle.to_tensor(a) for a in (q, k, v, gk)))[0].numpy()
            np.testing.assert_array_equal(got[path], want[path])
        assert not np.array_equal(want["chunked"], want["recurrent"])  # the flag does change the result
    finally:
        paddle.set_num_threads(0)
        paddle.set_flags({"PADDLE_OPS_GLA_CPU": flags["PADDLE_OPS_GLA_CPU"]})


@pytest.mark.parametrize("op", ["logcumsumexp", "pscan"])
def test_double_backward_raises(on_cpu, op):
    """A second derivative through a paddle_ops op is refused (issue 31: a clear error on every
    front): JAX says its FFI call cannot be differentiated, naming our target."""
    if op == "pscan":
        f = lambda x: pj.pscan(x, x).sum()  # noqa: E731
        x = jnp.full((2, 3, 1), 0.5, jnp.float32)
    else:
        f = lambda x: pj.logcumsumexp(x).sum()  # noqa: E731
        x = jnp.ones(3, jnp.float32)
    with pytest.raises(ValueError, match="paddle_ops.*cannot be differentiated"):
        jax.grad(lambda x: jax.grad(f)(x).sum())(x)
