"""gla: docs/spec.md §5, chunked gated linear attention (seed 002), forward and backward.

Every check runs against a float64 NumPy recurrent reference written here (the step-by-step
recurrence of the seed, storing every state; its backward differentiates that loop step by
step, independently of the kernels' reverse-cumulative-sum form), on the inputs rounded to
the dtype under test, with the relative RMS error of docs/spec.md (4e-3 for the 16-bit types, 1e-5
for float32; float64 tighter). The shapes are awkward on purpose: T of 1, 15, 16, 63 and 130
(around and between the GPU's chunk sizes), D not a power of two, both layouts.
"""

import subprocess

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import FLOAT_DTYPES, available_places, cast_np, make_tensor, tensor_values

PLACES = available_places()
# Relative RMS error allowed against the float64 reference, per dtype (docs/spec.md §5).
REL_RMS = {'float16': 4e-3, 'bfloat16': 4e-3, 'float32': 1e-5, 'float64': 1e-10}


@pytest.fixture
def set_flag():
    """set_flag(name, value): paddle.set_flags for one test; every flag is restored after it."""
    saved = paddle.get_flags()
    yield lambda name, value: paddle.set_flags({name: value})
    paddle.set_flags(saved)


@pytest.fixture(autouse=True, params=['chunked', 'recurrent'])
def cpu_path(request, set_flag):
    """Every test runs on both CPU paths (the flag PADDLE_OPS_GLA_CPU; float64 always takes the
    recurrent one). Tests of the GPU place, and those without a place, run once (the switch is
    CPU-only: not_applicable below deselects the rest)."""
    set_flag('PADDLE_OPS_GLA_CPU', request.param)
    return request.param


# The GPU backwards to run the GPU tests on (flag PADDLE_OPS_GLA_GPU_BWD): the chunked kernels, and,
# where there is a GPU, the sm_90a backward (the default: 16-bit inputs on an sm_90a device; the
# chunked kernels take every other call, so the tests of other dtypes run once).
GPU_BWD = ['chunked'] + (['sm90'] if 'gpu' in PLACES else [])


@pytest.fixture(autouse=True, params=GPU_BWD, ids=lambda p: f'bwd_{p}')
def gpu_bwd(request, set_flag):
    """The tests of the GPU place (and those named test_gpu_*) run on each GPU backward; with
    'sm90' only those of a 16-bit dtype (the others would repeat the 'chunked' run):
    not_applicable below deselects the rest."""
    set_flag('PADDLE_OPS_GLA_GPU_BWD', request.param)
    return request.param


def not_applicable(item):
    """The flag combinations the two fixtures above do not apply to: conftest.py deselects them
    at collection and counts them by reason."""
    params = item.callspec.params
    place = params.get('place')
    if params.get('cpu_path') == 'recurrent' and place != 'cpu':
        return 'PADDLE_OPS_GLA_CPU only selects the CPU path'
    if params.get('gpu_bwd') == 'sm90':
        if not (place == 'gpu' or item.name.startswith('test_gpu_')):
            return 'PADDLE_OPS_GLA_GPU_BWD only selects the GPU backward'
        if params.get('dtype') not in ('float16', 'bfloat16'):
            return 'PADDLE_OPS_GLA_GPU_BWD=sm90 changes only the backward of 16-bit inputs'
    return None


# ------------------------------------------------------------------------------------------
# The float64 reference
# ------------------------------------------------------------------------------------------

def to_head_first(x, head_first):
    return x if head_first else np.swapaxes(x, 1, 2)


def gla_ref(q, k, v, g, scale, h0=None, head_first=True):
    """(o, final_state, states) of the recurrence in float64; inputs in the given layout.
    states[:, :, t] is h_t (h_{-1} is h0)."""
    q, k, v, g = (to_head_first(np.asarray(x, np.float64), head_first) for x in (q, k, v, g))
    B, H, T, Dk = q.shape
    Dv = v.shape[-1]
    h = np.zeros((B, H, Dk, Dv)) if h0 is None else np.asarray(h0, np.float64).copy()
    o = np.zeros((B, H, T, Dv))
    states = np.zeros((B, H, T, Dk, Dv))
    for t in range(T):
        h = h * np.exp(g[:, :, t])[..., None] + k[:, :, t, :, None] * v[:, :, t, None, :]
        states[:, :, t] = h
        o[:, :, t] = np.einsum('bhi,bhij->bhj', q[:, :, t] * scale, h)
    return to_head_first(o, head_first), h, states


def gla_grad_ref(q, k, v, g, scale, do, dfinal=None, h0=None, head_first=True):
    """(dq, dk, dv, dg, dh0) of sum(o * do) + sum(final_state * dfinal), by differentiating
    the loop step by step: h_t = a_t h_{t-1} + k_t v_t^T, o_t = scale q_t h_t."""
    _, _, states = gla_ref(q, k, v, g, scale, h0, head_first)
    q, k, v, g, do = (to_head_first(np.asarray(x, np.float64), head_first) for x in (q, k, v, g, do))
    B, H, T, Dk = q.shape
    Dv = v.shape[-1]
    h_init = np.zeros((B, H, Dk, Dv)) if h0 is None else np.asarray(h0, np.float64)
    dS = np.zeros((B, H, Dk, Dv)) if dfinal is None else np.asarray(dfinal, np.float64).copy()
    dq, dk, dv, dg = (np.zeros_like(x) for x in (q, k, v, g))
    for t in range(T - 1, -1, -1):
        dS = dS + scale * q[:, :, t, :, None] * do[:, :, t, None, :]
        dq[:, :, t] = scale * np.einsum('bhij,bhj->bhi', states[:, :, t], do[:, :, t])
        dk[:, :, t] = np.einsum('bhij,bhj->bhi', dS, v[:, :, t])
        dv[:, :, t] = np.einsum('bhij,bhi->bhj', dS, k[:, :, t])
        prev = states[:, :, t - 1] if t > 0 else h_init
        a = np.exp(g[:, :, t])
        dg[:, :, t] = np.sum(dS * prev, axis=-1) * a
        dS = dS * a[..., None]
    back = lambda x: to_head_first(x, head_first)  # noqa: E731
    return back(dq), back(dk), back(dv), back(dg), dS


def rel_rms(actual, expected):
    actual, expected = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    if expected.size == 0:
        return 0.0
    denom = np.sqrt(np.mean(expected ** 2))
    err = np.sqrt(np.mean((actual - expected) ** 2))
    return err / denom if denom > 0 else err


def assert_rel_rms(actual, expected, dtype, what):
    assert np.isfinite(actual).all(), f'{what}: non-finite values'
    err = rel_rms(actual, expected)
    assert err <= REL_RMS[dtype], f'{what} ({dtype}): relative RMS error {err:.3g} > {REL_RMS[dtype]:g}'


def make_inputs(B, H, T, Dk, Dv, head_first=True, seed=0, g_low=-1.0, with_h0=True):
    """q, k, v, g (float64, in the layout) and h0: g in [g_low, 0] as logsigmoid-like decays."""
    rng = np.random.default_rng(seed)
    shape = lambda D: (B, H, T, D) if head_first else (B, T, H, D)  # noqa: E731
    q = rng.standard_normal(shape(Dk))
    k = rng.standard_normal(shape(Dk))
    v = rng.standard_normal(shape(Dv))
    g = rng.uniform(g_low, 0.0, size=shape(Dk))
    h0 = rng.standard_normal((B, H, Dk, Dv)) if with_h0 else None
    return q, k, v, g, h0


def run_gla(q, k, v, g, h0, dtype, place, scale=None, head_first=True, output_final_state=True,
            requires_grad=False):
    ts = [make_tensor(x, dtype, place, stop_gradient=not requires_grad) for x in (q, k, v, g)]
    h = None if h0 is None else make_tensor(h0, 'float32', place, stop_gradient=not requires_grad)
    o, fs = paddle.gla(*ts, scale=scale, initial_state=h, output_final_state=output_final_state,
                       head_first=head_first)
    return o, fs, ts, h


def rounded(dtype, *xs):
    return [None if x is None else cast_np(x, dtype).astype(np.float64) for x in xs]


# ------------------------------------------------------------------------------------------
# Values and gradients on awkward shapes
# ------------------------------------------------------------------------------------------

SHAPES = [
    # (B, H, T, Dk, Dv)
    (1, 1, 1, 8, 8),
    (2, 1, 15, 5, 7),
    (1, 2, 16, 16, 16),
    (2, 2, 63, 33, 20),
    (1, 2, 130, 24, 40),
]


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
@pytest.mark.parametrize('shape', SHAPES, ids=lambda s: 'B%dH%dT%dDk%dDv%d' % s)
@pytest.mark.parametrize('head_first', [True, False])
def test_forward_and_grads(shape, head_first, dtype, place):
    B, H, T, Dk, Dv = shape
    q, k, v, g, h0 = make_inputs(B, H, T, Dk, Dv, head_first, seed=T * 7 + Dk)
    check_values_and_grads(q, k, v, g, h0, dtype, place, head_first)


def check_values_and_grads(q, k, v, g, h0, dtype, place, head_first):
    """o, final_state and every gradient of sum(o * do) + sum(final_state * dfinal) against the
    float64 reference, the inputs rounded to dtype first."""
    B, H, Dk, Dv = h0.shape
    q, k, v, g = rounded(dtype, q, k, v, g)
    h0 = cast_np(h0, 'float32').astype(np.float64)
    o, fs, ts, h = run_gla(q, k, v, g, h0, dtype, place, head_first=head_first, requires_grad=True)
    scale = Dk ** -0.5
    o_ref, fs_ref, _ = gla_ref(q, k, v, g, scale, h0, head_first)
    assert o.dtype == ts[0].dtype and list(o.shape) == list(v.shape)
    assert fs.dtype == paddle.float32 and list(fs.shape) == [B, H, Dk, Dv]
    assert_rel_rms(tensor_values(o), o_ref, dtype, 'o')
    assert_rel_rms(tensor_values(fs), fs_ref, 'float32' if dtype == 'float64' else dtype, 'final_state')

    rng = np.random.default_rng(1)
    do = cast_np(rng.standard_normal(o_ref.shape), dtype).astype(np.float64)
    dfinal = cast_np(rng.standard_normal(fs_ref.shape), 'float32').astype(np.float64)
    loss = (o * make_tensor(do, dtype, place)).sum() + (fs * make_tensor(dfinal, 'float32', place)).sum()
    loss.backward()
    refs = gla_grad_ref(q, k, v, g, scale, do, dfinal, h0, head_first)
    for name, t, ref in zip(('q', 'k', 'v', 'gk'), ts, refs[:4]):
        assert t.grad is not None and t.grad.dtype == t.dtype, name
        assert_rel_rms(tensor_values(t.grad), ref, dtype, name + '_grad')
    assert h.grad.dtype == paddle.float32
    assert_rel_rms(tensor_values(h.grad), refs[4], 'float32' if dtype == 'float64' else dtype,
                   'initial_state_grad')


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_no_initial_state_no_final_state(dtype, place):
    """Without initial_state the state starts at 0 and gk_0 gets gradient 0; final_state is
    None unless asked for, and the backward then has no final_state_grad."""
    q, k, v, g, _ = make_inputs(2, 3, 40, 12, 10, seed=5, with_h0=False)
    q, k, v, g = rounded(dtype, q, k, v, g)
    o, fs, ts, _ = run_gla(q, k, v, g, None, dtype, place, scale=0.3, output_final_state=False,
                           requires_grad=True)
    assert fs is None
    o_ref, _, _ = gla_ref(q, k, v, g, 0.3)
    assert_rel_rms(tensor_values(o), o_ref, dtype, 'o')
    o.sum().backward()
    refs = gla_grad_ref(q, k, v, g, 0.3, np.ones_like(o_ref))
    for name, t, ref in zip(('q', 'k', 'v', 'gk'), ts, refs[:4]):
        assert_rel_rms(tensor_values(t.grad), ref, dtype, name + '_grad')
    np.testing.assert_array_equal(tensor_values(ts[3].grad)[:, :, 0], 0.0)


@pytest.mark.parametrize('place', PLACES)
def test_only_final_state_used(place):
    """A loss of the final state alone: o gets no gradient (zeros stand in for it)."""
    q, k, v, g, h0 = make_inputs(1, 2, 20, 6, 9, seed=11)
    o, fs, ts, h = run_gla(q, k, v, g, h0, 'float64', place, requires_grad=True)
    (fs * fs).sum().backward()
    _, fs_ref, _ = gla_ref(q, k, v, g, 6 ** -0.5, h0)
    refs = gla_grad_ref(q, k, v, g, 6 ** -0.5, np.zeros(v.shape), 2 * fs_ref, h0)
    np.testing.assert_allclose(tensor_values(ts[0].grad), 0.0)
    for name, t, ref in zip(('k', 'v', 'gk'), ts[1:], refs[1:4]):
        assert rel_rms(tensor_values(t.grad), ref) < 1e-6, name
    assert rel_rms(tensor_values(h.grad), refs[4]) < 1e-6


def check_forward_and_grads(q, k, v, g, h0, scale, dtype, place, do_seed=None):
    """o and final_state against the reference, then every gradient: of sum(o) + sum(final_state),
    or (do_seed given) of sum(o * do) for a random do rounded to dtype."""
    state_dtype = 'float32' if dtype == 'float64' else dtype
    o, fs, ts, h = run_gla(q, k, v, g, h0, dtype, place, requires_grad=True)
    o_ref, fs_ref, _ = gla_ref(q, k, v, g, scale, h0)
    assert_rel_rms(tensor_values(o), o_ref, dtype, 'o')
    assert_rel_rms(tensor_values(fs), fs_ref, state_dtype, 'final_state')
    if do_seed is None:
        (o.sum() + fs.sum()).backward()
        refs = gla_grad_ref(q, k, v, g, scale, np.ones_like(o_ref), np.ones_like(fs_ref), h0)
    else:
        do = cast_np(np.random.default_rng(do_seed).standard_normal(o_ref.shape), dtype).astype(np.float64)
        (o * make_tensor(do, dtype, place)).sum().backward()
        refs = gla_grad_ref(q, k, v, g, scale, do, None, h0)
    for name, t, ref in zip(('q', 'k', 'v', 'gk'), ts, refs[:4]):
        assert_rel_rms(tensor_values(t.grad), ref, dtype, name + '_grad')
    assert_rel_rms(tensor_values(h.grad), refs[4], state_dtype, 'initial_state_grad')


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_strong_decays(dtype, place):
    """Log decays down to -40 per step (exp(-40) ~ 4e-18; a chunk's cumulative decay reaches
    exp(-2500)): no overflow or NaN anywhere, and the values still match. A kernel that
    divides by a cumulative decay (exp(-G)) overflows here."""
    q, k, v, g, h0 = make_inputs(1, 2, 130, 20, 12, seed=3, g_low=-40.0)
    g[:, :, ::7] = 0.0      # and some steps that keep everything
    g[:, :, 50:60] = -40.0  # a run of the strongest decay
    q, k, v, g = rounded(dtype, q, k, v, g)
    h0 = cast_np(h0, 'float32').astype(np.float64)
    check_forward_and_grads(q, k, v, g, h0, 20 ** -0.5, dtype, place)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('gates', [(-4.5, -3.5), (-12.0, -8.0)], ids=['g4', 'g10'])
def test_dense_strong_gates_float32(gates, place):
    """float32 with every gate strongly decayed (uniform in [-4.5, -3.5] or [-12, -8]) over dense
    inputs, T over two 64-step chunks: every gradient within 1e-5. gk_grad summed as a reverse
    cumulative sum across chunks cancels its final term against k * k_grad and missed by 6e-5
    and 9e-3 on the GPU's chunked kernels (before they summed each chunk from its states)."""
    q, k, v, g, h0 = make_inputs(2, 2, 150, 64, 48, seed=11)
    g = np.random.default_rng(12).uniform(*gates, size=g.shape)
    q, k, v, g = rounded('float32', q, k, v, g)
    h0 = cast_np(h0, 'float32').astype(np.float64)
    check_forward_and_grads(q, k, v, g, h0, 64 ** -0.5, 'float32', place, do_seed=13)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('through', ['o', 'final_state'])
def test_finite_differences_float64(through, place):
    """Every gradient against central differences of the op itself in float64: of sum(o * do)
    (exact float64, a small step), and of sum(final_state * dfinal) (final_state is float32,
    so a larger step and tolerance)."""
    B, H, T, Dk, Dv = 1, 2, 9, 3, 4
    q, k, v, g, h0 = make_inputs(B, H, T, Dk, Dv, seed=21)
    h0 = cast_np(h0, 'float32').astype(np.float64)
    rng = np.random.default_rng(2)
    do = rng.standard_normal(v.shape)
    dfinal = cast_np(rng.standard_normal(h0.shape), 'float32').astype(np.float64)
    eps, rtol = (1e-6, 1e-6) if through == 'o' else (1e-3, 2e-3)

    def loss(q_, k_, v_, g_, h_):
        o, fs, _, _ = run_gla(q_, k_, v_, g_, h_, 'float64', place, scale=0.7)
        if through == 'o':
            return float(np.sum(tensor_values(o) * do))
        return float(np.sum(tensor_values(fs) * dfinal))

    o, fs, ts, h = run_gla(q, k, v, g, h0, 'float64', place, scale=0.7, requires_grad=True)
    if through == 'o':
        (o * make_tensor(do, 'float64', place)).sum().backward()
    else:
        (fs * make_tensor(dfinal, 'float32', place)).sum().backward()
    grads = [tensor_values(t.grad) for t in ts] + [tensor_values(h.grad)]
    args = [q, k, v, g, h0]
    for a, name in enumerate(('q', 'k', 'v', 'gk', 'initial_state')):
        for idx in list(np.ndindex(args[a].shape))[::3]:
            plus, minus = [y.copy() for y in args], [y.copy() for y in args]
            plus[a][idx] += eps
            minus[a][idx] -= eps
            if a == 4:  # the state is float32: step between float32 values
                plus[a], minus[a] = (cast_np(x, 'float32').astype(np.float64) for x in (plus[a], minus[a]))
            fd = (loss(*plus) - loss(*minus)) / (plus[a][idx] - minus[a][idx])
            assert abs(grads[a][idx] - fd) <= rtol * (1 + abs(fd)), (name, idx, grads[a][idx], fd)


# ------------------------------------------------------------------------------------------
# The seed's shape at reduced batch, the GPU's chunk boundaries, and determinism
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
@pytest.mark.parametrize('dims', [(64, 64), (128, 256), (256, 256), (100, 72)], ids=str)
def test_head_sizes(dims, dtype, place):
    """The head sizes of docs/spec.md (Dk = Dv in {64, 128, 256}, the seed's 128 x 256) and an odd
    pair, with T = 200 (several GPU chunks and a partial last one)."""
    Dk, Dv = dims
    T = 200 if place == 'gpu' else 70   # the CPU reference is the recurrent loop: keep it short
    q, k, v, g, h0 = make_inputs(1, 2, T, Dk, Dv, seed=Dk + Dv, g_low=-0.5)
    q, k, v, g = rounded(dtype, q, k, v, g)
    h0 = cast_np(h0, 'float32').astype(np.float64)
    check_forward_and_grads(q, k, v, g, h0, Dk ** -0.5, dtype, place, do_seed=4)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['bfloat16', 'float32'])
def test_deterministic(dtype, place):
    q, k, v, g, h0 = make_inputs(2, 2, 150, 32, 48, seed=9)
    first = second = None
    for run in range(2):
        o, fs, ts, h = run_gla(q, k, v, g, h0, dtype, place, requires_grad=True)
        (o.sum() + fs.sum()).backward()
        vals = [tensor_values(o), tensor_values(fs)] + [tensor_values(t.grad) for t in ts] + [tensor_values(h.grad)]
        if run == 0:
            first = vals
        else:
            second = vals
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('place', PLACES)
def test_zero_length(place):
    """T = 0: o is empty, the final state is the initial state, and its gradient passes through."""
    q, k, v, g, h0 = make_inputs(2, 2, 0, 4, 3, seed=1)
    o, fs, ts, h = run_gla(q, k, v, g, h0, 'float32', place, requires_grad=True)
    assert list(o.shape) == [2, 2, 0, 3]
    np.testing.assert_array_equal(tensor_values(fs), cast_np(h0, 'float32'))
    (fs * 2.0).sum().backward()
    np.testing.assert_array_equal(tensor_values(h.grad), 2.0)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dims', [(0, 5), (4, 0)], ids=['Dk0', 'Dv0'])
def test_zero_size_head_dims(dims, place):
    """Dk = 0 or Dv = 0, on both CPU paths (forced chunked too; the fuzzer found the chunked form
    addressing a row of zero columns): o is zeros (or empty), the state empty, every gradient zeros."""
    Dk, Dv = dims
    q, k, v, g, h0 = make_inputs(1, 2, 40, Dk, Dv, seed=2)
    o, fs, ts, h = run_gla(q, k, v, g, h0, 'float32', place, requires_grad=True)
    assert list(o.shape) == [1, 2, 40, Dv] and list(fs.shape) == [1, 2, Dk, Dv]
    np.testing.assert_array_equal(tensor_values(o), 0.0)
    grads = paddle.grad([o.sum()], ts + [h], allow_unused=True)
    for grad in grads:
        assert grad is None or not tensor_values(grad).any()


GPU_CHUNKED_DIMS = [
    # (B, H, T, Dk, Dv, head_first): the seed's head sizes; Dk = Dv = 64 in [B, T, H, D]; D not a
    # multiple of 8 (the scalar fallback of the chunked kernels' 16-byte loads); Dk = Dv = 256 (4
    # tiles, past the sm_90a kernels' Dk <= 128: the chunked kernels take every dtype there).
    (1, 2, 200, 128, 256, True),
    (2, 1, 130, 64, 64, False),
    (1, 3, 70, 36, 20, True),
    (1, 1, 129, 256, 256, True),
]


@pytest.mark.skipif('gpu' not in PLACES, reason='needs a GPU (the chunked GPU kernels)')
@pytest.mark.parametrize('dtype', ['bfloat16', 'float16', 'float32'])
@pytest.mark.parametrize('dims', GPU_CHUNKED_DIMS, ids=lambda d: 'B%dH%dT%dDk%dDv%d_%s' % (d[:5] + (
    'hf' if d[5] else 'bthd',)))
def test_gpu_chunked_shapes(dims, dtype, set_flag):
    """The GPU path PADDLE_OPS_GLA_GPU=chunked (the default) against the float64 reference on
    shapes that exercise the chunked kernels' tiles and loads: o, final_state and every
    gradient."""
    set_flag('PADDLE_OPS_GLA_GPU', 'chunked')
    B, H, T, Dk, Dv, head_first = dims
    q, k, v, g, h0 = make_inputs(B, H, T, Dk, Dv, head_first, seed=T + Dk)
    check_values_and_grads(q, k, v, g, h0, dtype, 'gpu', head_first)


@pytest.mark.skipif('gpu' not in PLACES, reason='needs a GPU (the GPU path switch)')
def test_gpu_path_switch_rejects_unknown(set_flag):
    with pytest.raises(ValueError, match='PADDLE_OPS_GLA_GPU'):
        set_flag('PADDLE_OPS_GLA_GPU', 'fast')
    assert paddle.get_flags('PADDLE_OPS_GLA_GPU') == {'PADDLE_OPS_GLA_GPU': 'chunked'}
    q, k, v, g, h0 = make_inputs(1, 1, 8, 8, 8)
    run_gla(q, k, v, g, h0, 'float32', 'gpu')


@pytest.mark.skipif('gpu' not in PLACES, reason='needs a GPU (compares the two GPU paths)')
@pytest.mark.parametrize('dtype', ['bfloat16', 'float32'])
def test_gpu_chunked_matches_gpu_recurrent(dtype, set_flag):
    """The chunked GPU kernels against the recurrent form on the same device
    (PADDLE_OPS_GLA_GPU=recurrent), forward and every gradient."""
    q, k, v, g, h0 = make_inputs(2, 2, 150, 40, 72, head_first=False, seed=13)
    results = {}
    for path in ('chunked', 'recurrent'):
        set_flag('PADDLE_OPS_GLA_GPU', path)
        o, fs, ts, h = run_gla(q, k, v, g, h0, dtype, 'gpu', head_first=False, requires_grad=True)
        grads = paddle.grad([o.sum() + (fs * fs).sum()], ts + [h])
        results[path] = [tensor_values(x) for x in [o, fs] + list(grads)]
    for name, a, b in zip(('o', 'final_state', 'q', 'k', 'v', 'gk', 'initial_state'), results['chunked'],
                          results['recurrent']):
        err = rel_rms(a, b)
        assert err <= 2 * REL_RMS[dtype], f'{name}: chunked vs recurrent relative RMS {err:.3g}'


# The shared memory per block of sm_86/sm_89 (A10, RTX 30xx/40xx, L4, L40): 99 KB.
SM86_SMEM = 99 * 1024


@pytest.mark.skipif('gpu' not in PLACES,
                    reason='needs a GPU (runs the chunked kernels of a 99 KB device through '
                           'PADDLE_OPS_GLA_GPU_SMEM_LIMIT; the host emulation of test_gla_chunk.cc checks '
                           'their bits without one)')
@pytest.mark.parametrize('dtype', ['bfloat16', 'float16', 'float32'])
@pytest.mark.parametrize('dims', GPU_CHUNKED_DIMS, ids=lambda d: 'B%dH%dT%dDk%dDv%d_%s' % (d[:5] + (
    'hf' if d[5] else 'bthd',)))
def test_gpu_small_smem_limit(dims, dtype, gpu_bwd, set_flag):
    """PADDLE_OPS_GLA_GPU_SMEM_LIMIT=101376 (a testing aid) makes the kernels' choices those of
    an sm_86/sm_89 device: the intra kernel with q and k unstaged, the dq/dk kernel with its
    operand tiles in global memory, and no sm_90a kernel. Forward and backward against the
    float64 reference; the gradients bit for bit those of the usual kernels where both runs take
    the chunked backward (and o and final_state too in float32, whose forward is chunked on
    every device)."""
    set_flag('PADDLE_OPS_GLA_GPU', 'chunked')
    B, H, T, Dk, Dv, head_first = dims
    q, k, v, g, h0 = make_inputs(B, H, T, Dk, Dv, head_first, seed=T + Dv)
    q, k, v, g = rounded(dtype, q, k, v, g)
    h0 = cast_np(h0, 'float32').astype(np.float64)
    usual, _ = gla_grads(q, k, v, g, h0, dtype, 'gpu', head_first)
    set_flag('PADDLE_OPS_GLA_GPU_SMEM_LIMIT', SM86_SMEM)
    assert paddle.get_flags('PADDLE_OPS_GLA_GPU_SMEM_LIMIT') == {'PADDLE_OPS_GLA_GPU_SMEM_LIMIT': SM86_SMEM}
    small, refs = gla_grads(q, k, v, g, h0, dtype, 'gpu', head_first)
    o_ref, fs_ref, _ = gla_ref(q, k, v, g, Dk ** -0.5, h0, head_first)
    names = ('o', 'final_state', 'q_grad', 'k_grad', 'v_grad', 'gk_grad', 'initial_state_grad')
    for name, got, ref in zip(names, small, [o_ref, fs_ref] + list(refs)):
        assert_rel_rms(got, ref, dtype, name)
    same = names if dtype == 'float32' else names[2:] if gpu_bwd == 'chunked' else ()
    for name, got, want in zip(names, small, usual):
        if name in same:
            assert got.tobytes() == want.tobytes(), f'{name}: not the same bits as the usual kernels'
    with pytest.raises(ValueError, match='PADDLE_OPS_GLA_GPU_SMEM_LIMIT'):
        set_flag('PADDLE_OPS_GLA_GPU_SMEM_LIMIT', '99KB')


def gpu_compute_capability():
    """(major, minor) of the first GPU by nvidia-smi, or None where it cannot say."""
    try:
        r = subprocess.run(['nvidia-smi', '--query-gpu=compute_cap', '--format=csv,noheader'],
                           capture_output=True, text=True, timeout=120)
        major, minor = r.stdout.split()[0].split('.')
        return int(major), int(minor)
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return None


def gla_grads(q, k, v, g, h0, dtype, place, head_first):
    """o, final_state and every gradient of sum(o * do) + sum(final_state * dfinal), as arrays,
    and the float64 references of the gradients."""
    o, fs, ts, h = run_gla(q, k, v, g, h0, dtype, place, head_first=head_first, requires_grad=True)
    rng = np.random.default_rng(3)
    do = cast_np(rng.standard_normal(o.shape), dtype).astype(np.float64)
    dfinal = cast_np(rng.standard_normal(fs.shape), 'float32').astype(np.float64)
    loss = (o * make_tensor(do, dtype, place)).sum() + (fs * make_tensor(dfinal, 'float32', place)).sum()
    grads = paddle.grad([loss], ts + [h])
    refs = gla_grad_ref(q, k, v, g, q.shape[-1] ** -0.5, do, dfinal, h0, head_first)
    return [tensor_values(x) for x in [o, fs] + list(grads)], refs


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
def test_sm90_backward_flag(dtype, place, set_flag):
    """PADDLE_OPS_GLA_GPU_BWD: a bad value is a ValueError naming the flag and leaves it as it was;
    'sm90' changes nothing on the CPU, nor the forward anywhere (bitwise). On the GPU both
    backwards are within §5's bound of the float64 reference (a shape the sm_90a backward takes:
    Dk, Dv multiples of 8, [B, T, H, D], T not a multiple of its chunk); on a device of compute
    capability 9.x the sm90 gradients differ from the chunked kernels' (so its kernels ran: a
    build without them, or a call they refuse, would give the chunked kernels' bits), elsewhere
    they are the chunked kernels' bit for bit."""
    before = paddle.get_flags('PADDLE_OPS_GLA_GPU_BWD')
    for bad in ('SM90', 'sm90a', 'recurrent'):
        with pytest.raises(ValueError, match="PADDLE_OPS_GLA_GPU_BWD='%s'.*accepted values" % bad):
            set_flag('PADDLE_OPS_GLA_GPU_BWD', bad)
    assert paddle.get_flags('PADDLE_OPS_GLA_GPU_BWD') == before
    q, k, v, g, h0 = make_inputs(2, 2, 150, 64, 120, head_first=False, seed=17)
    q, k, v, g = rounded(dtype, q, k, v, g)
    h0 = cast_np(h0, 'float32').astype(np.float64)
    results = {}
    for bwd in ('chunked', 'sm90'):
        set_flag('PADDLE_OPS_GLA_GPU_BWD', bwd)
        results[bwd], refs = gla_grads(q, k, v, g, h0, dtype, place, head_first=False)
        for name, got, ref in zip(GRAD_NAMES[2:], results[bwd][2:], refs):
            assert_rel_rms(got, ref, dtype, f'{name}_grad ({bwd})')
    for name, a, b in zip(GRAD_NAMES[:2], results['chunked'], results['sm90']):
        np.testing.assert_array_equal(a, b, err_msg=name)
    same = [np.array_equal(a, b) for a, b in zip(results['chunked'][2:], results['sm90'][2:])]
    cc = gpu_compute_capability() if place == 'gpu' else None
    if place == 'cpu' or (cc is not None and cc[0] != 9):
        assert all(same), dict(zip(GRAD_NAMES[2:], same))
    elif cc is not None:
        assert not all(same), ('PADDLE_OPS_GLA_GPU_BWD=sm90 gave the chunked kernels\' gradients on a cc %d.%d '
                               'device: the sm_90a backward did not run (a build without CuTe/CUTLASS or '
                               'without sm_90a code?)' % cc)


def gla_forward_ref(q, k, v, g, scale, h0=None, head_first=True):
    """(o, final_state) of the recurrence in float64, as gla_ref without keeping every state
    (for long T)."""
    q, k, v, g = (to_head_first(np.asarray(x, np.float64), head_first) for x in (q, k, v, g))
    B, H, T, Dk = q.shape
    Dv = v.shape[-1]
    h = np.zeros((B, H, Dk, Dv)) if h0 is None else np.asarray(h0, np.float64).copy()
    o = np.zeros((B, H, T, Dv))
    for t in range(T):
        h = h * np.exp(g[:, :, t])[..., None] + k[:, :, t, :, None] * v[:, :, t, None, :]
        o[:, :, t] = np.einsum('bhi,bhij->bhj', q[:, :, t] * scale, h)
    return to_head_first(o, head_first), h


# (B, H, T, Dk, Dv, with initial and final state): few heads, which the sm_90a forward splits into
# segments of whole chunks under PADDLE_OPS_GLA_GPU_FWD=auto (B*H*ceil(Dv/64) CTAs below half the
# SMs, T of 8 chunks or more; on 132 SMs: 65 segments of one chunk, the last of 4 steps; 11
# segments of 3 chunks, the last of 2 chunks and 52 steps; 16 segments of one chunk with Dk != Dv
# and Dv off the tile of 128; 10 segments of one chunk, Dv = 136).
SPLIT_DIMS = [
    (1, 2, 4100, 128, 128, True),
    (1, 8, 2100, 128, 128, True),
    (2, 1, 1000, 64, 192, False),
    (1, 3, 600, 128, 136, True),
]


@pytest.mark.skipif('gpu' not in PLACES, reason='needs a GPU (the sm_90a forward and its launch plans)')
@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
@pytest.mark.parametrize('head_first', [True, False], ids=['hf', 'bthd'])
@pytest.mark.parametrize('dims', SPLIT_DIMS, ids=lambda d: 'B%dH%dT%dDk%dDv%d_%s' % (d[:5] + (
    'states' if d[5] else 'nostates',)))
def test_sm90_forward_split(dims, head_first, dtype, set_flag):
    """PADDLE_OPS_GLA_GPU_FWD: o and final_state within §5's bound of the float64 recurrence under
    both launch plans of the sm_90a forward (auto: T split into segments on these shapes; plain:
    one CTA per head and Dv tile over T), and within the bound of each other. On a device of
    compute capability 9.x the two final states differ (so the split ran: a build without sm_90a
    code would give the chunked kernels' bits under both); elsewhere both plans are the chunked
    kernels', bit for bit."""
    B, H, T, Dk, Dv, states = dims
    # Gates in [-0.01, 0]: a segment's start state still weighs in at the end of T (with gates in
    # [-1, 0] everything but the last ~50 steps decays below float32's resolution, and the final
    # states of both plans came out bitwise equal on the H200, 2026-11-30).
    q, k, v, g, h0 = make_inputs(B, H, T, Dk, Dv, head_first, seed=T + Dv, g_low=-0.01, with_h0=states)
    q, k, v, g = rounded(dtype, q, k, v, g)
    h0 = None if h0 is None else cast_np(h0, 'float32').astype(np.float64)
    o_ref, fs_ref = gla_forward_ref(q, k, v, g, Dk ** -0.5, h0, head_first)
    results = {}
    for plan in ('auto', 'plain'):
        set_flag('PADDLE_OPS_GLA_GPU_FWD', plan)
        o, fs, _, _ = run_gla(q, k, v, g, h0, dtype, 'gpu', head_first=head_first, output_final_state=states)
        assert_rel_rms(tensor_values(o), o_ref, dtype, f'o ({plan})')
        results[plan] = [tensor_values(o)]
        if states:
            assert_rel_rms(tensor_values(fs), fs_ref, dtype, f'final_state ({plan})')
            results[plan].append(tensor_values(fs))
        else:
            assert fs is None
    for name, a, b in zip(GRAD_NAMES[:2], results['auto'], results['plain']):
        err = rel_rms(a, b)
        assert err <= REL_RMS[dtype], f'{name}: auto vs plain relative RMS {err:.3g}'
    cc = gpu_compute_capability()
    if cc is not None and cc[0] != 9:
        for name, a, b in zip(GRAD_NAMES[:2], results['auto'], results['plain']):
            np.testing.assert_array_equal(a, b, err_msg=name)
    elif cc is not None and states:
        assert not np.array_equal(results['auto'][1], results['plain'][1]), (
            'PADDLE_OPS_GLA_GPU_FWD=auto gave the final state of plain on a cc %d.%d device: the split did not '
            'run (a build without sm_90a code?)' % cc)


@pytest.mark.skipif('gpu' not in PLACES, reason='needs a GPU (the sm_90a forward and its launch plans)')
@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
def test_sm90_forward_split_extreme_gates(dtype, set_flag):
    """The split (B1 H2 T1100 D128: 18 segments of one chunk on an H100 or H200) with -inf gates on
    every channel at the first step of a segment (its decay, and so the state carried into the
    next segment, exactly 0), -1e30 gates inside one, and a channel of -20 gates throughout (the
    element-wise mode in every chunk): o and final_state within §5's bound of the float64
    recurrence under both plans."""
    q, k, v, g, h0 = make_inputs(1, 2, 1100, 128, 128, seed=51)
    g[:, :, 320, :] = -np.inf
    g[:, 0, 100:110, 3] = -1e30
    g[:, 1, :, 5] = -20.0
    q, k, v, g = rounded(dtype, q, k, v, g)
    h0 = cast_np(h0, 'float32').astype(np.float64)
    o_ref, fs_ref = gla_forward_ref(q, k, v, g, 128 ** -0.5, h0)
    for plan in ('auto', 'plain'):
        set_flag('PADDLE_OPS_GLA_GPU_FWD', plan)
        o, fs, _, _ = run_gla(q, k, v, g, h0, dtype, 'gpu')
        assert_rel_rms(tensor_values(o), o_ref, dtype, f'o ({plan})')
        assert_rel_rms(tensor_values(fs), fs_ref, dtype, f'final_state ({plan})')

@pytest.mark.skipif('gpu' not in PLACES, reason='needs a GPU (the sm_90a forward and its launch plans)')
@pytest.mark.parametrize('dtype', ['bfloat16', 'float16'])
def test_sm90_forward_split_not_taken(dtype, set_flag):
    """A call the split leaves alone is bitwise the same under both plans: B4 H16 D128 (128 CTAs at
    Dv tiles of 64, half an H100's or H200's SMs or more: one launch over T is faster there)."""
    q, k, v, g, h0 = make_inputs(4, 16, 600, 128, 128, seed=21)
    results = {}
    for plan in ('auto', 'plain'):
        set_flag('PADDLE_OPS_GLA_GPU_FWD', plan)
        o, fs, _, _ = run_gla(q, k, v, g, h0, dtype, 'gpu')
        results[plan] = [tensor_values(x) for x in (o, fs)]
    for name, a, b in zip(GRAD_NAMES[:2], results['auto'], results['plain']):
        assert np.isfinite(a).all(), name
        np.testing.assert_array_equal(a, b, err_msg=name)

def grads_both(q, k, v, g, h0, dtype, head_first=True, threads=None):
    """o, final_state and every gradient of sum(o * do) + sum(final_state^2) on the CPU."""
    saved = paddle.get_num_threads()
    if threads is not None:
        paddle.set_num_threads(threads)
    try:
        o, fs, ts, h = run_gla(q, k, v, g, h0, dtype, 'cpu', head_first=head_first, requires_grad=True)
        do = np.random.default_rng(5).standard_normal(o.shape)
        loss = (o * make_tensor(do, dtype, 'cpu')).sum() + (fs * fs).sum()
        grads = paddle.grad([loss], ts + [h])
        return [tensor_values(x) for x in [o, fs] + list(grads)]
    finally:
        paddle.set_num_threads(saved)


GRAD_NAMES = ('o', 'final_state', 'q', 'k', 'v', 'gk', 'initial_state')


@pytest.mark.parametrize('dtype', ['bfloat16', 'float16', 'float32'])
@pytest.mark.parametrize('shape', [(2, 3, 200, 40, 72), (1, 2, 129, 17, 9), (1, 1, 64, 128, 128)],
                         ids=lambda s: 'B%dH%dT%dDk%dDv%d' % s)
def test_cpu_chunked_matches_cpu_recurrent(shape, dtype, set_flag, cpu_path):
    """The chunked CPU form against the recurrent one on the same inputs, forward and every
    gradient (several chunks, partial last chunks and secondary chunks, layout [B, T, H, D])."""
    if cpu_path == 'recurrent':
        pytest.skip('compares both paths itself')
    B, H, T, Dk, Dv = shape
    q, k, v, g, h0 = make_inputs(B, H, T, Dk, Dv, head_first=False, seed=T + Dk)
    results = {}
    for path in ('chunked', 'recurrent'):
        set_flag('PADDLE_OPS_GLA_CPU', path)
        results[path] = grads_both(q, k, v, g, h0, dtype, head_first=False)
    for name, a, b in zip(GRAD_NAMES, results['chunked'], results['recurrent']):
        assert np.isfinite(a).all(), name
        err = rel_rms(a, b)
        assert err <= 2 * REL_RMS[dtype], f'{name}: chunked vs recurrent relative RMS {err:.3g}'
    # The two paths round differently in float32: the switch must really change the path.
    if dtype == 'float32':
        assert not all(np.array_equal(a, b) for a, b in zip(results['chunked'], results['recurrent']))


def test_cpu_path_switch(set_flag, cpu_path):
    """On auto (the default), the chunked form runs for T >= 32 and Dk >= 128, the recurrent one otherwise
    (bitwise the same as asking for that path); a bad value raises ValueError."""
    if cpu_path == 'recurrent':
        pytest.skip('sets the switch itself')
    for T, Dk, default in ((31, 128, 'recurrent'), (32, 128, 'chunked'), (100, 160, 'chunked'),
                           (100, 127, 'recurrent')):
        q, k, v, g, h0 = make_inputs(1, 2, T, Dk, 10, seed=T)
        set_flag('PADDLE_OPS_GLA_CPU', 'auto')
        unset = grads_both(q, k, v, g, h0, 'float32')
        set_flag('PADDLE_OPS_GLA_CPU', default)
        chosen = grads_both(q, k, v, g, h0, 'float32')
        for name, a, b in zip(GRAD_NAMES, unset, chosen):
            np.testing.assert_array_equal(a, b, err_msg=f'T={T} Dk={Dk} {name}')
        set_flag('PADDLE_OPS_GLA_CPU', 'recurrent' if default == 'chunked' else 'chunked')
        other = grads_both(q, k, v, g, h0, 'float32')
        assert not all(np.array_equal(a, b) for a, b in zip(unset, other)), f'T={T} Dk={Dk}'
    before = paddle.get_flags(['PADDLE_OPS_GLA_CPU'])
    with pytest.raises(ValueError, match='PADDLE_OPS_GLA_CPU'):
        set_flag('PADDLE_OPS_GLA_CPU', 'fast')
    assert paddle.get_flags(['PADDLE_OPS_GLA_CPU']) == before


@pytest.mark.parametrize('dtype', ['bfloat16', 'float32'])
def test_cpu_thread_count_independent(dtype, cpu_path):
    """Bitwise the same results with 1 and 3 CPU threads (5 heads: uneven shares)."""
    q, k, v, g, h0 = make_inputs(1, 5, 150, 24, 20, seed=11)
    one = grads_both(q, k, v, g, h0, dtype, threads=1)
    three = grads_both(q, k, v, g, h0, dtype, threads=3)
    for name, a, b in zip(GRAD_NAMES, one, three):
        np.testing.assert_array_equal(a, b, err_msg=name)


@pytest.mark.parametrize('place', PLACES)
def test_static_mode_matches_dynamic(place):
    """The same call in a static program (unknown batch dim), forward and every gradient of
    sum(o) + sum(final_state), bitwise equal to dynamic mode."""
    q, k, v, g, h0 = (x.astype(np.float32) for x in make_inputs(2, 2, 70, 6, 5, seed=8))
    o, fs, ts, h = run_gla(q, k, v, g, h0, 'float32', place, requires_grad=True)
    dyn = [o, fs] + list(paddle.grad([o.sum() + fs.sum()], ts + [h]))
    dyn = [tensor_values(x) for x in dyn]
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            xs = [paddle.static.data(n, [-1, 2, 70, d], 'float32') for n, d in zip('qkvg', (6, 6, 5, 6))]
            hs = paddle.static.data('h0', [-1, 2, 6, 5], 'float32')
            so, sfs = paddle.gla(*xs, initial_state=hs, output_final_state=True)
            assert list(so.shape) == [-1, 2, 70, 5] and list(sfs.shape) == [-1, 2, 6, 5]
            grads = paddle.static.gradients([paddle.sum(so) + paddle.sum(sfs)], xs + [hs])
        res = paddle.static.Executor(place).run(main, feed=dict(q=q, k=k, v=v, g=g, h0=h0),
                                                fetch_list=[so, sfs] + grads)
    finally:
        paddle.disable_static()
    for name, a, b in zip(('o', 'final_state', 'q', 'k', 'v', 'gk', 'initial_state'), res, dyn):
        np.testing.assert_array_equal(np.asarray(a, np.float64), b, err_msg=name)


# ------------------------------------------------------------------------------------------
# Errors
# ------------------------------------------------------------------------------------------

def test_shape_errors():
    q = paddle.to_tensor(np.zeros((2, 3, 5, 4), np.float32))
    v = paddle.to_tensor(np.zeros((2, 3, 5, 6), np.float32))
    bad_k = paddle.to_tensor(np.zeros((2, 3, 4, 4), np.float32))
    with pytest.raises(ValueError, match=r"k must have shape \[2, 3, 5, 4\].*q of shape \[2, 3, 5, 4\]"):
        paddle.gla(q, bad_k, v, q)
    with pytest.raises(ValueError, match=r"gk must have shape"):
        paddle.gla(q, q, v, bad_k)
    bad_v = paddle.to_tensor(np.zeros((2, 3, 4, 6), np.float32))
    with pytest.raises(ValueError, match=r"v must have shape \[2, 3, 5, 6\].*got v of shape \[2, 3, 4, 6\]"):
        paddle.gla(q, q, bad_v, q)
    with pytest.raises(ValueError, match=r"q must be a 4-D tensor"):
        paddle.gla(paddle.to_tensor(np.zeros((3, 5, 4), np.float32)), q, v, q, scale=1.0)
    h_bad = paddle.to_tensor(np.zeros((2, 3, 6, 4), np.float32))
    with pytest.raises(ValueError, match=r"initial_state must have shape \[2, 3, 4, 6\]"):
        paddle.gla(q, q, v, q, initial_state=h_bad)
    # [B, T, H, D]: the same tensors read as B=2, T=3, H=5.
    with pytest.raises(ValueError, match=r"\[B, T, H, D\]|k must have shape \[2, 3, 5, 4\]"):
        paddle.gla(q, bad_k, v, q, head_first=False)


def test_dtype_errors():
    q = paddle.to_tensor(np.zeros((1, 1, 3, 2), np.float32))
    q64 = paddle.to_tensor(np.zeros((1, 1, 3, 2), np.float64))
    with pytest.raises(TypeError, match=r"k must have the dtype of q \(float32\), but got float64"):
        paddle.gla(q, q64, q, q)
    with pytest.raises(TypeError, match=r"'q' must be float16, bfloat16, float32 or float64"):
        paddle.gla(paddle.to_tensor(np.zeros((1, 1, 3, 2), np.int64)), q, q, q)
    with pytest.raises(TypeError, match=r"initial_state' must be float32"):
        paddle.gla(q, q, q, q, initial_state=paddle.to_tensor(np.zeros((1, 1, 2, 2))))
    with pytest.raises(TypeError, match=r"'v' must be a Tensor"):
        paddle.gla(q, q, np.zeros((1, 1, 3, 2)), q)
    with pytest.raises(TypeError, match=r"'scale' must be a float"):
        paddle.gla(q, q, q, q, scale='0.5')
