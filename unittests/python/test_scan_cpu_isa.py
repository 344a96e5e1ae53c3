"""The CPU scan engine on every instruction set it runs (PADDLE_OPS_CPU_ISA forces each:
baseline = the generic per-element engine; sse4, avx2, avx512 (AVX3) = the Highway kernels of
kernels/funcs/simd/scan_*.cc in that target's lanes: 128-bit, 256-bit, and AVX3's 16 float lanes
for logcumsumexp's float32 row blocks): the accuracy rules of docs/spec.md §1-§2
(the tests of test_logcumsumexp_accuracy.py and test_cumsum_accuracy.py, run under each set),
results bitwise independent of the thread count on rows long enough for the three-phase split,
and each SIMD set against the generic engine within the float32 bound. A set this CPU lacks is
skipped, saying so (the flag would run a narrower path and the test would prove nothing)."""
import numpy as np
import pytest

import paddle_ops as paddle
import test_cumsum_accuracy as C
import test_logcumsumexp_accuracy as L
from test_cast_convert import require

ISAS = ['baseline', 'sse4', 'avx2', 'avx512']
MODES = [(False, False), (True, False), (False, True), (True, True)]


@pytest.fixture(autouse=True)
def _restore():
    saved = paddle.get_flags()
    threads = paddle.get_num_threads()
    yield
    paddle.set_flags(saved)
    paddle.set_num_threads(threads)


def use_isa(isa):
    if isa != 'baseline':
        require('avx2' if isa == 'sse4' else isa)  # sse4: asked only of CPUs with AVX2
    paddle.set_flags({'PADDLE_OPS_CPU_ISA': isa})


@pytest.mark.parametrize('isa', ISAS)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('exclusive,reverse', MODES)
def test_cumsum_never_worse_than_float64_loop(isa, dtype, exclusive, reverse):
    use_isa(isa)
    C.test_never_worse_than_float64_loop(dtype, exclusive, reverse, 'cpu')


@pytest.mark.parametrize('isa', ISAS)
@pytest.mark.parametrize('length', [20, 47, 1000, 1020, 4099])
def test_cumsum_row_block_pieces(isa, length):
    """Rows whose blocks end in each kind of piece (the AVX-512 32-step part, the AVX2 16-step
    part, a buffered tail of < 16 steps), cancelling data, both types, every mode; 3 rows (each
    its own task) and 7 (lengths of a multiple of 4: 4 rows as lanes, then 3 more)."""
    use_isa(isa)
    for dtype in ('float32', 'float64'):
        for rows in (3, 7):
            x = C.cancelling(rows * length, dtype, seed=length).reshape(rows, length)
            t = paddle.to_tensor(x.astype(dtype))
            for exclusive, reverse in MODES:
                out = paddle.cumsum(t, axis=1, exclusive=exclusive, reverse=reverse)
                C.check_scan(out.numpy().astype(np.float64), x, 1, exclusive, reverse, dtype)


@pytest.mark.parametrize('isa', ISAS)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_cumsum_columns(isa, dtype):
    """Columns: 24 (float64 in 8-lane groups too) and 264 (a task of 256 columns run in blocks
    by 8-lane groups, then 8 more), cancelling data, every mode."""
    use_isa(isa)
    for shape in [(1100, 24), (150, 264)]:
        x = C.cancelling(shape[0] * shape[1], dtype, seed=shape[1]).reshape(shape)
        t = paddle.to_tensor(x.astype(dtype))
        for exclusive, reverse in MODES:
            out = paddle.cumsum(t, axis=0, exclusive=exclusive, reverse=reverse)
            C.check_scan(out.numpy().astype(np.float64), x, 0, exclusive, reverse, dtype)


@pytest.mark.parametrize('isa', ISAS)
@pytest.mark.parametrize('exclusive,reverse', MODES)
def test_logcumsumexp_float32_relative_error_near_zero(isa, exclusive, reverse):
    use_isa(isa)
    L.test_float32_relative_error_near_zero(exclusive, reverse, 'cpu')


@pytest.mark.parametrize('isa', ISAS)
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16'])
def test_logcumsumexp_single_terms(isa, dtype):
    use_isa(isa)
    L.test_arange_first_output_is_zero(dtype, 'cpu')
    for head in (0, 7, 129, 1030):
        L.test_single_finite_term_after_neg_inf_head(dtype, 'cpu', head)


@pytest.mark.parametrize('isa', ISAS)
@pytest.mark.parametrize('op', ['logcumsumexp', 'cumsum'])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_thread_count_independent(isa, op, dtype):
    """A row past two chunks (65536 steps each): one thread streams it, two split it in three
    phases; the bits must not change. Rows of 16384 too (one task per row), and 2050 rows of 64
    (cumsum: groups of 4 rows as lanes spread over the threads, then 2 more)."""
    use_isa(isa)
    rng = np.random.default_rng(5)
    for shape in [(200003,), (6, 16384), (2050, 64)]:
        t = paddle.to_tensor(rng.standard_normal(shape).astype(dtype))
        outs = []
        for threads in (1, 2):
            paddle.set_num_threads(threads)
            outs.append(getattr(paddle, op)(t, axis=-1).numpy())
        np.testing.assert_array_equal(outs[0], outs[1], err_msg=f'{isa} {op} {shape}')


@pytest.mark.parametrize('isa', ['sse4', 'avx2', 'avx512'])
@pytest.mark.parametrize('exclusive,reverse', MODES)
def test_simd_against_generic(isa, exclusive, reverse):
    """float32 logcumsumexp rows and columns through `isa` and through the generic engine: within
    the 2.5e-7 * max(1, |ref|) bound of each other's float64 reference."""
    rng = np.random.default_rng(11)
    for shape, axis in [((4, 5000), 1), ((700, 9), 0), ((2, 131), 1)]:
        x = (rng.standard_normal(shape) * 3).astype(np.float32)
        ref = L.reference(x, axis, exclusive, reverse)
        t = paddle.to_tensor(x)
        got = {}
        for which in ('baseline', isa):
            use_isa(which)
            got[which] = paddle.logcumsumexp(t, axis=axis, exclusive=exclusive, reverse=reverse).numpy()
        for which, out in got.items():
            fin = np.isfinite(ref)
            assert (out[~fin] == ref[~fin]).all()
            err = np.abs(out[fin] - ref[fin]) / np.maximum(1, np.abs(ref[fin]))
            assert err.max() <= 2.5e-7, (which, shape, axis, err.max())


def test_avx512_blocks_run():
    """The flag really switches the row blocks: float32 logcumsumexp rows of 128-step blocks sum
    16 segments under avx512 and 8 under avx2, so the bits differ somewhere (within the float32
    bound of each other)."""
    require('avx512')
    x = np.random.default_rng(3).standard_normal((4, 8192)).astype(np.float32)
    t = paddle.to_tensor(x)
    out = {}
    for isa in ('avx2', 'avx512'):
        use_isa(isa)
        out[isa] = paddle.logcumsumexp(t, axis=1).numpy()
    assert not np.array_equal(out['avx2'], out['avx512'])
    ref = L.reference(x, 1, False, False)
    for isa, o in out.items():
        assert (np.abs(o - ref) / np.maximum(1, np.abs(ref))).max() <= 2.5e-7, isa
