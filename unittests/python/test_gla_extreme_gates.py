"""gla with gates at the edge of what docs/spec.md §5 allows: -inf (a channel that forgets
completely, e.g. log(sigmoid(x)) underflowing) and huge finite ones (-1e30, -3e4), beside
ordinary small gates in the same chunk.

Every CPU form (chunked and recurrent, flag PADDLE_OPS_GLA_CPU) and every GPU path (flag
PADDLE_OPS_GLA_GPU, and 'sm90': PADDLE_OPS_GLA_GPU=chunked with the sm_90a backward,
PADDLE_OPS_GLA_GPU_BWD=sm90, for 16-bit inputs; run when a GPU is present, skipped with the
reason otherwise) must stay
within §5's relative RMS bounds of the float64 recurrence, for o, final_state and every
gradient: no NaN, and no small gate lost beside a huge one in a chunk's cumulative decay
(before: the chunked CPU form gave NaN for half its outputs at a -inf gate, from
exp(-inf - (-inf)), and was off by 1e-2 at -1e30, whose double sum swallowed the small gates
after it). The reference is test_gla_op.py's float64 recurrence, on the inputs rounded to the
dtype under test (a float16 -1e30 is -inf).
"""

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import available_places, cast_np, make_tensor, tensor_values
from test_cast_convert import require
from test_gla_op import assert_rel_rms, gla_grad_ref, gla_ref, rounded

PLACES = available_places()
GPU_PATHS = ('chunked', 'recurrent', 'sm90')
# (place, path): the CPU forms always, the GPU paths when a GPU is present.
RUNS = [('cpu', 'chunked'), ('cpu', 'recurrent')] + [
    pytest.param('gpu', p, marks=pytest.mark.skipif('gpu' not in PLACES, reason='needs a GPU (the GPU gla paths)'))
    for p in GPU_PATHS]
# -inf; huge finite gates (-1e30 is -inf in float16); past the CPU chunked form's gate floor
# (-1e4); a gate whose exp underflows float but not double; an ordinary strong one.
GATES = (-np.inf, -1e30, -3e4, -1e4, -200.0, -20.0)


@pytest.fixture
def on_path():
    """on_path(place, path, dtype): select the gla path of that place for one test (flags restored
    after it); a GPU path this build does not have skips, saying so ('sm90' with a dtype it does
    not take is deselected: not_applicable below)."""
    saved = paddle.get_flags()

    def select(place, path, dtype):
        if path == 'sm90':
            paddle.set_flags({'PADDLE_OPS_GLA_GPU': 'chunked', 'PADDLE_OPS_GLA_GPU_BWD': 'sm90'})
            return
        name = 'PADDLE_OPS_GLA_CPU' if place == 'cpu' else 'PADDLE_OPS_GLA_GPU'
        try:
            paddle.set_flags({name: path})
        except ValueError:
            pytest.skip(f'{name} has no path {path!r} in this build')

    yield select
    paddle.set_flags(saved)


def not_applicable(item):
    """'sm90' with a dtype it does not take, known at collection (conftest.py deselects it)."""
    params = item.callspec.params
    if params.get('path') == 'sm90' and params.get('dtype') not in ('float16', 'bfloat16'):
        return 'PADDLE_OPS_GLA_GPU_BWD=sm90 changes only the backward of 16-bit inputs'
    return None


def probe_inputs(gate):
    """The outside probe's case: q = k = v = rand(1, 1, 32, 128), gk = 0 except one gate at
    step 5, channel 0 (the chunked CPU form from T = 32, Dk = 128)."""
    rng = np.random.default_rng(0)
    q = rng.random((1, 1, 32, 128))
    g = np.zeros_like(q)
    g[0, 0, 5, 0] = gate
    return q, q.copy(), q.copy(), g, None


def mixed_inputs(gate, head_first=True):
    """Small logsigmoid-like gates (B = 1, H = 2, T = 100: three full chunks and a partial one,
    Dk = 128, Dv = 48) with `gate` at: step 0 (acting on the initial state), step 5, inside the
    second 16-step half of a chunk (17), a chunk's last and the next chunk's first step (31, 32),
    a run of steps (40-47), every step of one channel, and every channel of one step (70)."""
    rng = np.random.default_rng(7)
    B, H, T, Dk, Dv = 1, 2, 100, 128, 48
    q, k = rng.standard_normal((B, H, T, Dk)), rng.standard_normal((B, H, T, Dk))
    v = rng.standard_normal((B, H, T, Dv))
    g = np.log(1 / (1 + np.exp(-rng.standard_normal((B, H, T, Dk))))) / 16
    h0 = rng.standard_normal((B, H, Dk, Dv))
    g[:, 0, 0, 3] = gate
    g[:, :, 5, 0] = gate
    g[:, 1, 17, 1] = gate
    g[:, :, [31, 32], 2] = gate
    g[:, 0, 40:48, 4] = gate
    g[:, 1, :, 5] = gate
    g[:, 0, 70, :] = gate
    if not head_first:
        q, k, v, g = (np.swapaxes(x, 1, 2).copy() for x in (q, k, v, g))
    return q, k, v, g, h0


def check(q, k, v, g, h0, dtype, place, head_first=True):
    """o, final_state and every gradient of sum(o * do) + sum(final_state * dfinal) within
    §5's bound of the float64 recurrence (finite everywhere)."""
    q, k, v, g = rounded(dtype, q, k, v, g)
    h0 = None if h0 is None else cast_np(h0, 'float32').astype(np.float64)
    ts = [make_tensor(x, dtype, place, stop_gradient=False) for x in (q, k, v, g)]
    h = None if h0 is None else make_tensor(h0, 'float32', place, stop_gradient=False)
    o, fs = paddle.gla(*ts, initial_state=h, output_final_state=True, head_first=head_first)
    scale = q.shape[-1] ** -0.5
    o_ref, fs_ref, _ = gla_ref(q, k, v, g, scale, h0, head_first)
    state_dtype = 'float32' if dtype == 'float64' else dtype
    assert_rel_rms(tensor_values(o), o_ref, dtype, 'o')
    assert_rel_rms(tensor_values(fs), fs_ref, state_dtype, 'final_state')
    rng = np.random.default_rng(1)
    do = cast_np(rng.standard_normal(o_ref.shape), dtype).astype(np.float64)
    dfinal = cast_np(rng.standard_normal(fs_ref.shape), 'float32').astype(np.float64)
    loss = (o * make_tensor(do, dtype, place)).sum() + (fs * make_tensor(dfinal, 'float32', place)).sum()
    inputs = ts + ([] if h is None else [h])
    grads = paddle.grad([loss], inputs)
    refs = gla_grad_ref(q, k, v, g, scale, do, dfinal, h0, head_first)
    for name, grad, ref in zip(('q', 'k', 'v', 'gk'), grads, refs):
        assert_rel_rms(tensor_values(grad), ref, dtype, name + '_grad')
    if h is not None:
        assert_rel_rms(tensor_values(grads[4]), refs[4], state_dtype, 'initial_state_grad')


@pytest.mark.parametrize('place,path', RUNS)
@pytest.mark.parametrize('dtype', ['float32', 'float16', 'bfloat16', 'float64'])
@pytest.mark.parametrize('gate', GATES, ids=str)
def test_probe_case(gate, dtype, place, path, on_path):
    """The probe's case on every path: NaN for 2048 of 4096 outputs at -inf before, and at
    -1e30 (float16: -inf); -20 was already exact."""
    on_path(place, path, dtype)
    check(*probe_inputs(gate), dtype, place)


@pytest.mark.parametrize('place,path', RUNS)
@pytest.mark.parametrize('dtype', ['float32', 'float16', 'bfloat16', 'float64'])
@pytest.mark.parametrize('gate', GATES, ids=str)
def test_gates_beside_small_ones(gate, dtype, place, path, on_path):
    """Extreme gates placed around and inside the chunks, beside small ones: 2.6e-3 (float32,
    -1e30) off before, from the small gates lost in the cumulative decay."""
    on_path(place, path, dtype)
    check(*mixed_inputs(gate), dtype, place)


@pytest.mark.parametrize('place,path', RUNS)
@pytest.mark.parametrize('dtype', ['float32', 'bfloat16'])
def test_gates_layout_bthd(dtype, place, path, on_path):
    """The same in the [B, T, H, D] layout (head_first=False), with -inf."""
    on_path(place, path, dtype)
    check(*mixed_inputs(-np.inf, head_first=False), dtype, place, head_first=False)


@pytest.mark.parametrize('path', ['chunked', 'recurrent'])
def test_huge_gate_same_as_inf_cpu(path, on_path):
    """On the CPU a huge gate leaves everything exactly as a -inf one does (its factor is 0
    either way, and the chunked form's floor keeps the small gates after it): the float32
    results at -1e30 and at -inf are bitwise equal, forward and every gradient."""
    on_path('cpu', path, 'float32')
    results = []
    for gate in (-np.inf, -1e30):
        q, k, v, g, h0 = mixed_inputs(gate)
        ts = [make_tensor(x, 'float32', 'cpu', stop_gradient=False) for x in (q, k, v, g)]
        h = make_tensor(h0, 'float32', 'cpu', stop_gradient=False)
        o, fs = paddle.gla(*ts, initial_state=h, output_final_state=True)
        grads = paddle.grad([o.sum() + (fs * fs).sum()], ts + [h])
        results.append([tensor_values(x) for x in [o, fs] + list(grads)])
    for name, a, b in zip(('o', 'final_state', 'q', 'k', 'v', 'gk', 'initial_state'), *results):
        assert np.isfinite(a).all(), name
        np.testing.assert_array_equal(a, b, err_msg=name)


@pytest.mark.parametrize('isa', ['baseline', 'avx2', 'avx512'])
@pytest.mark.parametrize('dtype', ['float32', 'bfloat16'])
@pytest.mark.parametrize('gate', (-np.inf, -1e30), ids=str)
def test_chunked_cpu_each_isa(gate, dtype, isa, on_path):
    """The chunked CPU form on every instruction set it is built for (flag PADDLE_OPS_CPU_ISA; a
    set this CPU lacks skips, saying so): the gate floor is in each build."""
    if isa != 'baseline':
        require(isa)
    on_path('cpu', 'chunked', dtype)
    paddle.set_flags({'PADDLE_OPS_CPU_ISA': isa})
    check(*mixed_inputs(gate), dtype, 'cpu')


# One unit in the last place of each dtype (relative), for the cut comparisons in 16 bits.
ULP = {'float32': 1e-6, 'bfloat16': 2.0 ** -7, 'float16': 2.0 ** -10}


@pytest.mark.parametrize('place,path', RUNS)
@pytest.mark.parametrize('dtype', ['float32', 'bfloat16', 'float16'])
@pytest.mark.parametrize('gate', (-np.inf, -1e30), ids=str)
def test_zero_factor_gate_cuts_the_gradient(gate, dtype, place, path, on_path):
    """A gate whose factor is 0 on every channel of a step t0 (here -inf or -1e30, with small Dk,
    where gk_grad is most sensitive: 2 in float32, 8 in the 16-bit types, the least the sm_90a
    backward takes) cuts the recurrence: nothing at or after t0 depends on the steps before it. So
    the gradients of the steps before t0 equal those of the same loss with do zeroed from t0 on
    (no final-state term; in float32 to 1e-6, in 16 bits to one unit in the last place), gk_grad
    is exactly 0 at t0, and it matches the float64 reference around the gate (before: the reverse
    sum of gk_grad reached 0 at the gate only through cancellation, and that rounding, 3.5e-9
    here, stayed in every earlier step)."""
    on_path(place, path, dtype)
    rng = np.random.default_rng(11)
    B, H, T, Dv, t0 = 1, 2, 36, 8, 20
    Dk = 2 if dtype == 'float32' else 8
    q, k = rng.uniform(-0.25, 0.25, (B, H, T, Dk)), rng.uniform(-0.25, 0.25, (B, H, T, Dk))
    v = rng.uniform(-0.25, 0.25, (B, H, T, Dv))
    g = -np.abs(rng.uniform(-1, 1, (B, H, T, Dk))) / 16
    g[:, :, t0, :] = gate
    h0 = rng.uniform(-0.25, 0.25, (B, H, Dk, Dv))
    q, k, v, g = rounded(dtype, q, k, v, g)
    h0 = cast_np(h0, 'float32').astype(np.float64)
    do = cast_np(rng.standard_normal(v.shape), dtype).astype(np.float64)
    cut = do.copy()
    cut[:, :, t0:] = 0.0

    def grads(dout, with_final):
        ts = [make_tensor(x, dtype, place, stop_gradient=False) for x in (q, k, v, g)]
        h = make_tensor(h0, 'float32', place, stop_gradient=False)
        o, fs = paddle.gla(*ts, initial_state=h, output_final_state=True)
        loss = (o * make_tensor(dout, dtype, place)).sum() + ((fs * fs).sum() if with_final else 0.0)
        return [tensor_values(x) for x in paddle.grad([loss], ts + [h])]

    full, before = grads(do, True), grads(cut, False)
    for name, a, b in zip(('q', 'k', 'v', 'gk', 'initial_state'), full, before):
        a_, b_ = (a, b) if name == 'initial_state' else (a[:, :, :t0], b[:, :, :t0])
        np.testing.assert_allclose(a_, b_, rtol=ULP[dtype], atol=1e-9 * np.abs(b_).max(), err_msg=name)
    assert np.all(full[3][:, :, t0] == 0.0), full[3][:, :, t0]
    # and against the float64 reference
    _, fs_ref, _ = gla_ref(q, k, v, g, Dk ** -0.5, h0)
    refs = gla_grad_ref(q, k, v, g, Dk ** -0.5, do, 2 * fs_ref, h0)
    for name, got, ref in zip(('q', 'k', 'v', 'gk', 'initial_state'), full, refs):
        assert_rel_rms(got, ref, dtype, name + '_grad')
