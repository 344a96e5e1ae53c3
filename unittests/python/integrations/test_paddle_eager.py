"""paddle_ops.integrations.paddle in Paddle's dynamic graph: values against real Paddle's own ops,
NumPy float64 and paddle_ops' own API (the same kernels: bit for bit), gradients through
paddle.grad and backward() against NumPy and finite differences, errors by type, zero copies
(the kernel reads and writes Paddle's memory) and the exported symbols of the extension and of
the runtime library it links."""
import shutil
import subprocess
import sys

import numpy as np
import pytest

from integration_checks import SHARED_CHECKS, error_of
from paddle_setup import _build, _runtime, paddle, paddle_ops, po

RNG = np.random.default_rng(7)


def pt(a, stop_gradient=True):
    t = paddle.to_tensor(a)
    t.stop_gradient = stop_gradient
    return t


def np_logcumsumexp(x, axis, exclusive=False, reverse=False):
    """float64 reference: logaddexp.accumulate (on the flipped axis for reverse), shifted by one
    step with -inf coming in for exclusive."""
    flip = (lambda a: np.flip(a, axis)) if reverse else (lambda a: a)
    out = flip(np.logaddexp.accumulate(flip(np.asarray(x, np.float64)), axis=axis))
    if not exclusive:
        return out
    out = np.moveaxis(out, axis, -1)
    pad = np.full(out.shape[:-1] + (1,), -np.inf)
    return np.moveaxis(np.concatenate([out[..., 1:], pad] if reverse else [pad, out[..., :-1]], axis=-1), -1, axis)


# ---- values ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_logcumsumexp_matches_paddle_and_numpy(dtype, axis):
    x = RNG.standard_normal((4, 37)).astype(dtype) * 5
    ours = po.logcumsumexp(pt(x), axis=axis)
    theirs = paddle.logcumsumexp(pt(x), axis=axis)
    assert isinstance(ours, paddle.Tensor) and ours.dtype == theirs.dtype and ours.shape == theirs.shape
    ref = np_logcumsumexp(x.ravel() if axis is None else x, 0 if axis is None else axis)
    tol = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(ours.numpy(), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=10 * tol, atol=10 * tol)


@pytest.mark.parametrize("exclusive,reverse", [(True, False), (False, True), (True, True)])
def test_logcumsumexp_exclusive_reverse_match_numpy(exclusive, reverse):
    x = RNG.standard_normal((3, 50))
    ours = po.logcumsumexp(pt(x), axis=1, exclusive=exclusive, reverse=reverse).numpy()
    np.testing.assert_allclose(ours, np_logcumsumexp(x, 1, exclusive, reverse), rtol=1e-13, atol=1e-13)


def test_logcumsumexp_is_paddle_ops_own_kernel_bit_for_bit():
    x = RNG.standard_normal((5, 300)).astype("float32") * 20
    ours = po.logcumsumexp(pt(x), axis=1, reverse=True).numpy()
    own = paddle_ops.logcumsumexp(paddle_ops.to_tensor(x), axis=1, reverse=True).numpy()
    np.testing.assert_array_equal(ours, own)


def test_logcumsumexp_dtype_argument_and_integer_promotion():
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    assert po.logcumsumexp(pt(x), axis=1).dtype == paddle.float32
    out = po.logcumsumexp(pt(x), 1, "float64")  # Paddle's order: (x, axis, dtype)
    assert out.dtype == paddle.float64
    np.testing.assert_allclose(out.numpy(), np_logcumsumexp(x, 1), rtol=1e-14)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_cumsum_matches_paddle(dtype, axis):
    x = (RNG.standard_normal((6, 41)) * 100).astype(dtype)
    ours = po.cumsum(pt(x), axis=axis)
    theirs = paddle.cumsum(pt(x), axis=axis)
    assert ours.shape == theirs.shape
    # Paddle widens int32 to int64 (axis=None); paddle_ops keeps the input's type (spec §2).
    assert ours.dtype == (pt(x).dtype if dtype == "int32" else theirs.dtype)
    ref = np.cumsum(x.astype(np.float64).ravel() if axis is None else x.astype(np.float64), axis=axis or 0)
    if dtype.startswith("int"):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    else:
        np.testing.assert_allclose(ours.numpy(), ref, rtol=1e-6 if dtype == "float32" else 1e-13, atol=1e-4)


def test_cumsum_exclusive_reverse():
    x = np.arange(10.0)
    np.testing.assert_array_equal(po.cumsum(pt(x), 0, exclusive=True).numpy(), np.concatenate([[0], np.cumsum(x)[:-1]]))
    np.testing.assert_array_equal(po.cumsum(pt(x), 0, reverse=True).numpy(), np.cumsum(x[::-1])[::-1])


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_repeat_interleave_matches_paddle(dtype):
    x = np.arange(12).reshape(3, 4).astype(dtype)
    for repeats, axis in [(2, 0), (3, 1), (2, None)]:
        ours = po.repeat_interleave(pt(x), repeats, axis=axis)
        theirs = paddle.repeat_interleave(pt(x), repeats, axis=axis)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    counts = np.array([0, 3, 1, 2])
    ours = po.repeat_interleave(pt(x), pt(counts), axis=1)
    theirs = paddle.repeat_interleave(pt(x), pt(counts), axis=1)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    np.testing.assert_array_equal(ours.numpy(), np.repeat(x, counts, axis=1))
    sized = po.repeat_interleave(pt(x), pt(counts), axis=1, output_size=6)
    np.testing.assert_array_equal(sized.numpy(), np.repeat(x, counts, axis=1))
    np.testing.assert_array_equal(po.repeat_interleave(pt(x), [1, 0, 2], axis=0).numpy(),
                                  np.repeat(x, [1, 0, 2], axis=0))


def np_pscan(a, x, h0=None, reverse=False):
    a = np.broadcast_to(a[..., None] if a.ndim == 2 else a, x.shape)
    y = np.empty_like(x)
    ts = range(x.shape[1] - 1, -1, -1) if reverse else range(x.shape[1])
    h = h0
    for t in ts:
        h = x[:, t] if h is None else a[:, t] * h + x[:, t]
        y[:, t] = h
    return y


@pytest.mark.parametrize("reverse", [False, True])
def test_pscan_matches_numpy(reverse):
    a, x, h0 = RNG.uniform(0.5, 1, (2, 9, 3)), RNG.standard_normal((2, 9, 3)), RNG.standard_normal((2, 3))
    np.testing.assert_allclose(po.pscan(pt(a), pt(x), reverse=reverse).numpy(), np_pscan(a, x, None, reverse),
                               rtol=1e-12)
    np.testing.assert_allclose(po.pscan(pt(a), pt(x), pt(h0), reverse=reverse).numpy(),
                               np_pscan(a, x, h0, reverse), rtol=1e-12)
    a2 = RNG.uniform(0.5, 1, (2, 9))
    np.testing.assert_allclose(po.pscan(pt(a2), pt(x)).numpy(), np_pscan(a2, x), rtol=1e-12)


def test_right_flood_values_and_index():
    x = np.array([[0., 1., 0., 0., 3., 0.], [2., 0., np.nan, 5., 0., 0.]])
    out, index = po.right_flood(pt(x), return_index=True)
    np.testing.assert_array_equal(out.numpy()[0], [0., 1., 1., 1., 3., 3.])
    np.testing.assert_array_equal(index.numpy()[0], [-1, 1, 1, 1, 4, 4])
    assert index.dtype == paddle.int64
    back = po.right_flood(pt(x), reverse=True, hole="nan")
    np.testing.assert_array_equal(back.numpy()[1], [2., 0., 5., 5., 0., 0.])
    own = paddle_ops.right_flood(paddle_ops.to_tensor(x), axis=0).numpy()
    np.testing.assert_array_equal(po.right_flood(pt(x), axis=0).numpy(), own)


def np_gla(q, k, v, gk, scale, h0=None):
    B, H, T, K = q.shape
    h = np.zeros((B, H, K, v.shape[-1])) if h0 is None else h0.astype(np.float64)
    o = np.empty(v.shape)
    for t in range(T):
        h = h * np.exp(gk[:, :, t])[..., None] + k[:, :, t, :, None] * v[:, :, t, None, :]
        o[:, :, t] = np.einsum("bhk,bhkv->bhv", q[:, :, t] * scale, h)
    return o, h


@pytest.mark.parametrize("head_first", [True, False])
def test_gla_matches_recurrence_and_own_api(head_first):
    B, H, T, K, V = 1, 2, 11, 4, 3
    q, k, gk = (RNG.standard_normal((B, H, T, K)) for _ in range(3))
    gk = -np.abs(gk) / 4
    v = RNG.standard_normal((B, H, T, V))
    h0 = RNG.standard_normal((B, H, K, V)).astype(np.float32)
    ref_o, ref_h = np_gla(q, k, v, gk, K ** -0.5, h0)
    lay = (lambda a: a) if head_first else (lambda a: np.ascontiguousarray(a.transpose(0, 2, 1, 3)))
    o, fs = po.gla(*(pt(lay(a)) for a in (q, k, v, gk)), initial_state=pt(h0), output_final_state=True,
                   head_first=head_first)
    np.testing.assert_allclose(o.numpy(), lay(ref_o), rtol=1e-6, atol=1e-6)
    assert fs.dtype == paddle.float32 and fs.shape == [B, H, K, V]
    np.testing.assert_allclose(fs.numpy(), ref_h, rtol=1e-5, atol=1e-5)
    o2, none = po.gla(*(pt(lay(a)) for a in (q, k, v, gk)), scale=0.3, head_first=head_first)
    assert none is None
    own, _ = paddle_ops.gla(*(paddle_ops.to_tensor(lay(a)) for a in (q, k, v, gk)), scale=0.3, head_first=head_first)
    np.testing.assert_array_equal(o2.numpy(), own.numpy())


def test_gla_varlen_and_float32_gate_match_own_api():
    """cu_seqlens (int64) and a float32 gk beside float16 q, k, v through real Paddle's eager
    autograd: values and gradients equal paddle_ops' own (the same kernels)."""
    q, k, v = (RNG.standard_normal((1, 9, 2, 4)).astype(np.float16) for _ in range(3))
    gk = (-np.abs(RNG.standard_normal((1, 9, 2, 4))) / 4).astype(np.float32)
    h0 = RNG.standard_normal((2, 2, 4, 4)).astype(np.float32)
    cu = np.array([0, 5, 9])
    outs = []
    for mod, make in ((po, lambda a: pt(a, stop_gradient=False)),
                      (paddle_ops, lambda a: paddle_ops.to_tensor(a, stop_gradient=False))):
        ts = [make(a) for a in (q, k, v, gk, h0)]
        cu_t = pt(cu) if mod is po else paddle_ops.to_tensor(cu)
        o, s = mod.gla(*ts[:4], initial_state=ts[4], head_first=False, cu_seqlens=cu_t, output_final_state=True)
        o32 = o.astype("float32")
        ((o32 * o32).sum() + s.sum()).backward()
        outs.append([o.numpy(), s.numpy()] + [t.grad.numpy() for t in ts])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


def test_raw_ops_are_generated_for_every_exportable_yaml_op():
    names = set(dir(po.ops))
    assert {"logcumsumexp", "cumsum", "pscan", "right_flood", "repeat_interleave",
            "repeat_interleave_with_tensor_index", "gla"} <= names
    x = RNG.standard_normal((3, 4))
    np.testing.assert_allclose(po.ops.add(pt(x), pt(x)).numpy(), 2 * x)
    np.testing.assert_array_equal(po.ops.cumsum(pt(x), 1).numpy(), po.cumsum(pt(x), 1).numpy())  # YAML defaults


# ---- gradients ---------------------------------------------------------------------------------

def numeric_grad(f, x, w, eps=1e-6):
    g = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        i = it.multi_index
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        # (an exclusive head is -inf whatever x is: it adds nothing)
        g[i] = (np.sum(np.nan_to_num(f(xp), neginf=0) * w) - np.sum(np.nan_to_num(f(xm), neginf=0) * w)) / (2 * eps)
    return g


CASES = {
    "logcumsumexp": lambda t: po.logcumsumexp(t, axis=1, reverse=True),
    "logcumsumexp_excl": lambda t: po.logcumsumexp(t, axis=0, exclusive=True),
    "cumsum": lambda t: po.cumsum(t, axis=1, exclusive=True),
    "cumsum_flat": lambda t: po.cumsum(t),
    "right_flood": lambda t: po.right_flood(t * (t > 0).astype(t.dtype), axis=1),
    "repeat_interleave": lambda t: po.repeat_interleave(t, 2, axis=1),
    "repeat_interleave_tensor": lambda t: po.repeat_interleave(t, paddle.to_tensor([2, 0, 1, 3, 1]), axis=1),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_grad_matches_finite_differences(case):
    fn = CASES[case]
    x = RNG.standard_normal((3, 5))
    w = RNG.standard_normal(fn(pt(x)).shape)
    xt = pt(x, stop_gradient=False)
    (g,) = paddle.grad((fn(xt) * pt(w)).sum(), xt)
    num = numeric_grad(lambda a: fn(pt(a)).numpy(), x, w)
    np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-6)


def test_logcumsumexp_grad_matches_paddle_backward():
    x = RNG.standard_normal((4, 30)).astype("float32")
    a, b = pt(x, False), pt(x, False)
    po.logcumsumexp(a, axis=1).sum().backward()
    paddle.logcumsumexp(b, axis=1).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_pscan_grad_all_inputs():
    a, x, h0 = RNG.uniform(0.5, 1, (2, 6, 3)), RNG.standard_normal((2, 6, 3)), RNG.standard_normal((2, 3))
    w = RNG.standard_normal(x.shape)
    at, xt, ht = pt(a, False), pt(x, False), pt(h0, False)
    ga, gx, gh = paddle.grad((po.pscan(at, xt, ht) * pt(w)).sum(), [at, xt, ht])
    np.testing.assert_allclose(ga.numpy(), numeric_grad(lambda v: np_pscan(v, x, h0), a, w), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gx.numpy(), numeric_grad(lambda v: np_pscan(a, v, h0), x, w), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gh.numpy(), numeric_grad(lambda v: np_pscan(a, x, v), h0, w), rtol=1e-6, atol=1e-7)
    at2, xt2 = pt(a, False), pt(x, False)  # no initial state: a[:, 0] is unused, its gradient 0
    ga2, _ = paddle.grad((po.pscan(at2, xt2) * pt(w)).sum(), [at2, xt2])
    np.testing.assert_array_equal(ga2.numpy()[:, 0], 0)


def test_gla_grad_float64_matches_finite_differences():
    B, H, T, K, V = 1, 1, 5, 3, 2
    q, k, gk = (RNG.standard_normal((B, H, T, K)) for _ in range(3))
    gk = -np.abs(gk) / 4
    v = RNG.standard_normal((B, H, T, V))
    w = RNG.standard_normal((B, H, T, V))
    ts = [pt(a, False) for a in (q, k, v, gk)]
    o, _ = po.gla(*ts, scale=0.5)
    grads = paddle.grad((o * pt(w)).sum(), ts)
    args = [q, k, v, gk]
    for i, g in enumerate(grads):
        def f(val, i=i):
            a = list(args)
            a[i] = val
            return np_gla(*a, 0.5)[0]
        np.testing.assert_allclose(g.numpy(), numeric_grad(f, args[i], w), rtol=1e-5, atol=1e-6)


# ---- errors ------------------------------------------------------------------------------------

def test_errors_keep_their_python_type():
    x = pt(np.zeros((2, 3), np.float32))
    with pytest.raises(IndexError, match="axis"):
        po.logcumsumexp(x, axis=5)
    with pytest.raises(TypeError, match="axis"):
        po.logcumsumexp(x, axis=1.5)
    with pytest.raises(ValueError):
        po.repeat_interleave(x, pt(np.array([1, -1, 2])), axis=1)
    with pytest.raises(TypeError):
        po.pscan(pt(np.ones((2, 3), np.float64)), pt(np.ones((2, 3, 1), np.float32)))
    with pytest.raises(ValueError, match="hole"):
        po.right_flood(x, hole="one")
    with pytest.raises(TypeError):
        po.cumsum(np.zeros(3))


# repeat_interleave's and gla's argument checks are paddle_ops' own (tensor/manipulation.py,
# tensor/attention.py): each bad call, given Paddle's tensors or paddle_ops' own, fails alike.
@pytest.mark.parametrize("case", sorted(SHARED_CHECKS))
def test_argument_checks_are_paddle_ops_own(case):
    ours = error_of(lambda: SHARED_CHECKS[case](paddle_ops.to_tensor, paddle_ops))
    theirs = error_of(lambda: SHARED_CHECKS[case](pt, po))
    assert ours is not None and ours[0] in (TypeError, ValueError), ours
    assert theirs == ours

# ---- zero copy and symbols --------------------------------------------------------------------

def _last_pointers():
    ins, outs = _runtime.last_pointers()  # the runtime instance the extension loaded
    return ins + [0] * 16, outs + [0] * 16


@pytest.fixture(params=["paddle_ops", "paddle"])
def output_allocation(request):
    before = po.get_output_allocation()
    po.set_output_allocation(request.param)
    try:
        yield request.param
    finally:
        po.set_output_allocation(before)


def test_kernels_read_and_write_paddles_memory(output_allocation):
    assert po.get_output_allocation() == output_allocation
    x = pt(RNG.standard_normal((8, 100)).astype("float32"), stop_gradient=False)
    y = po.logcumsumexp(x, axis=1)
    ins, outs = _last_pointers()
    assert ins[0] == x.data_ptr() and outs[0] == y.data_ptr()  # no copy in, none out
    (g,) = paddle.grad(y.sum(), x)
    ins, outs = _last_pointers()  # the grad kernel: x, out, out_grad in place, x_grad out
    assert ins[0] == x.data_ptr() and ins[1] == y.data_ptr() and outs[0] == g.data_ptr()
    np.testing.assert_array_equal(y.numpy(), paddle_ops.logcumsumexp(paddle_ops.to_tensor(x.numpy()), axis=1).numpy())
    xi = pt(np.arange(6, dtype=np.int64))
    r = po.repeat_interleave(xi, pt(np.array([1, 2, 0, 3, 1, 1])))  # shape known only after the kernel
    ins, outs = _last_pointers()
    assert ins[1] != 0 and outs[0] == r.data_ptr()  # Paddle took over paddle_ops' buffer
    np.testing.assert_array_equal(r.numpy(), np.repeat(np.arange(6), [1, 2, 0, 3, 1, 1]))
    del r  # the deleter gives the buffer back to paddle_ops


def test_empty_and_zero_d_tensors(output_allocation):
    e = po.logcumsumexp(pt(np.zeros((3, 0), np.float32)), axis=1)
    assert e.shape == [3, 0] and e.dtype == paddle.float32
    assert po.cumsum(pt(np.zeros((0, 4))), axis=0).shape == [0, 4]
    assert po.repeat_interleave(pt(np.zeros((2, 3))), pt(np.array([0, 0, 0])), axis=1).shape == [2, 0]
    z = po.logcumsumexp(pt(np.float64(2.5)), axis=0)
    assert z.shape == [] and float(z) == 2.5
    with pytest.raises(ValueError):
        po.set_output_allocation("numpy")


def _defined_dynamic_symbols(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    return sorted(line.split()[-1] for line in out.splitlines() if line.strip())


@pytest.mark.skipif(shutil.which("nm") is None, reason="nm (binutils) is not installed")
def test_only_the_entry_points_are_exported():
    runtime = _defined_dynamic_symbols(_runtime.library_path())
    assert runtime and all(s.startswith(("po_jax_", "po_runtime_")) for s in runtime), runtime
    ext = _defined_dynamic_symbols(_build.extension_library())
    assert all(s.startswith("PyInit_") for s in ext), ext  # nothing of ours, nothing of Paddle's


# ---- issue 31: what the Paddle front says and refuses -------------------------------------------

@pytest.mark.parametrize("op", ["logcumsumexp", "cumsum", "gla"])
def test_double_backward_raises_a_clear_error(op):
    """create_graph=True, then a gradient of the gradient: our NotImplementedError text, not
    Paddle's "does not appear in the backward graph" nor a silent None (allow_unused)."""
    x = pt(RNG.standard_normal(6).astype(np.float32), stop_gradient=False)
    y = po.gla(*(x.reshape([1, 1, 6, 1]) for _ in range(4)))[0] if op == "gla" else getattr(po, op)(x)
    g, = paddle.grad(y.sum(), x, create_graph=True)
    with pytest.raises(Exception, match=r"second derivative .*not supported") as info:
        paddle.grad(g.sum(), x)
    assert "NotImplementedError" in str(info.value)


def test_unknown_dtypes_are_refused_not_cast():
    """Paddle's complex tensors, and dtype= outside an op's dtypes, are TypeErrors, as in
    paddle_ops (the Paddle front cast them before: cumsum(complex64) gave int64)."""
    z = paddle.to_tensor(np.array([1 + 1j, 2 + 0j], np.complex64))
    x = pt(np.array([0.5, 1.7], np.float32))
    for call in (lambda: po.cumsum(z), lambda: po.logcumsumexp(z), lambda: po.logcumsumexp(x, dtype="int32"),
                 lambda: po.cumsum(x, dtype="uint8"), lambda: po.cumsum(x, 0, "uint8")):
        with pytest.raises(TypeError, match="dtype"):
            call()


def test_axis_beyond_32_bits_is_our_index_error():
    """issue 32 item 7: axis=2**40 through the Paddle front was Paddle's C++ text."""
    with pytest.raises(IndexError, match=r"cumsum\(\): axis is out of range .* but got 1099511627776"):
        po.cumsum(pt(np.zeros((2, 3), np.float32)), axis=2 ** 40)


def test_from_dlpack_of_a_paddle_tensor_shares_its_memory():
    """paddle_ops.from_dlpack(paddle.Tensor): Paddle 3.3 gives (kDLCPU, None) as its device."""
    x = pt(np.arange(6, dtype=np.float32).reshape(2, 3))
    t = paddle_ops.from_dlpack(x)
    np.testing.assert_array_equal(t.numpy(), x.numpy())
    assert t.data_ptr() == x.data_ptr()


def test_import_prints_nothing_once_built():
    """No Paddle build noise (the ccache warning, its doubled INFO lines) on an import of the
    front whose extension is built (it is, by this module's import)."""
    r = subprocess.run([sys.executable, "-c", "from paddle_ops.integrations import paddle"], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and r.stderr == "", (r.stdout, r.stderr)


def test_first_build_says_one_line_unless_quiet(tmp_path, monkeypatch, capfd):
    """The first import's build (here Paddle's cpp_extension.load stood in for) prints one line of
    ours: what it builds, about how long, where it is cached; nothing with PADDLE_OPS_QUIET=1.
    Paddle's own talk during it goes nowhere."""
    import paddle.utils.cpp_extension as cpp_extension

    def fake_load(**kwargs):
        print("Compiling user custom op, it will cost a few seconds.....")  # as Paddle's does
        return "module"
    monkeypatch.setattr(cpp_extension, "load", fake_load)
    for quiet, lines in (("0", 1), ("1", 0)):
        monkeypatch.setattr(_build, "cache_dir", lambda q=quiet: str(tmp_path / q))
        saved = paddle_ops.get_flags("PADDLE_OPS_QUIET")
        paddle_ops.set_flags({"PADDLE_OPS_QUIET": quiet})
        try:
            assert _build.load() == "module"
        finally:
            paddle_ops.set_flags(saved)
        out, err = capfd.readouterr()
        assert out == "", out
        said = [line for line in err.splitlines() if line]
        assert len(said) == lines, err
        if lines:
            assert said[0].startswith("paddle_ops.integrations.paddle: building its custom operators against Paddle ")
            assert str(tmp_path / quiet) in said[0] and "about " in said[0]
