"""The GPU scan engine v3 (issue 29) from Python: the single pass of segmented rows and its
look-back, the cumsum fast tiles (one inf/NaN check per tile, outputs rounded through the
nearest double) and the lean logcumsumexp outputs (|out| >= 4), on shapes that take each
strategy: 1-D and few long rows (the single pass), many rows (a warp each), short rows (4 and
16 lanes a row; power-of-two lengths staged in shared memory, a thread a run), columns. Each result is held to the CPU kernels or a float64 reference and is
compared bitwise with a second run. Without a GPU every test skips, saying so."""

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import gpu_available, make_tensor, tensor_values
from test_logcumsumexp_accuracy import crossing_data
from test_logcumsumexp_accuracy import reference as lse_reference

pytestmark = pytest.mark.skipif(not gpu_available(), reason='needs a GPU (the GPU scan engine)')

# (shape, axis): 1-D and few long rows take the single pass (warp segments; float32
# logcumsumexp the block tiles, below), many rows a warp each, short rows 4 or 16 lanes a row;
# power-of-two rows of 4 to 512 steps are staged (a
# thread a row of up to 64 steps, several threads a longer row; a last block of fewer rows); then
# columns: few lines in one pass (scan_columns.cuh: inner 7 without vector accesses; inner 96
# with them, 3 tiles across by 33 segments), more in three phases (2048 lines by 10 segments).
SHAPES = [((300007,), 0), ((3, 100003), 1), ((2100, 301), 1), ((517, 61), 1), ((1001, 13), 1),
          ((5, 1001, 7), 1), ((1001, 64), 1), ((3, 111, 16), 2), ((300, 256), 1), ((70, 4), 1),
          ((2, 4099, 96), 1), ((600, 2048), 0)]


def with_specials(shape, seed):
    """N(0, 2) values with -inf, +inf and NaN in a few places (each its own tile's fallback)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32) * 2
    flat = x.reshape(-1)
    n = flat.size
    flat[n // 3] = -np.inf
    flat[n // 2] = np.inf
    flat[(3 * n) // 4] = np.nan
    return x


def run_gpu_twice(fn, x, dtype):
    t = make_tensor(x, dtype, 'gpu')
    a, b = tensor_values(fn(t)), tensor_values(fn(t))
    assert np.array_equal(a.view(np.uint8), b.view(np.uint8)), 'two runs differ in a bit'
    return a


@pytest.mark.parametrize('shape,axis', SHAPES)
@pytest.mark.parametrize('dtype', ['float32', 'float16'])
@pytest.mark.parametrize('exclusive,reverse', [(False, False), (True, True)])
def test_cumsum_tiles_match_cpu_with_specials(shape, axis, dtype, exclusive, reverse):
    # Normal float32 values sum exactly in a double-double, so the CPU's and the GPU's outputs are
    # both the correctly rounded exact prefix: bitwise equal, inf and NaN where the CPU has them.
    x = with_specials(shape, 1)
    fn = lambda t: paddle.cumsum(t, axis=axis, exclusive=exclusive, reverse=reverse)
    gpu = run_gpu_twice(fn, x, dtype)
    cpu = tensor_values(fn(make_tensor(x, dtype, 'cpu')))
    np.testing.assert_array_equal(gpu, cpu)


@pytest.mark.parametrize('shape,axis', SHAPES)
def test_cumsum_tiles_finite_rows_match_cpu(shape, axis):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(shape) * 10.0 ** rng.uniform(-3, 3, shape)).astype(np.float32)
    fn = lambda t: paddle.cumsum(t, axis=axis)
    np.testing.assert_array_equal(run_gpu_twice(fn, x, 'float32'), tensor_values(fn(make_tensor(x, 'float32', 'cpu'))))


def check_lse_float32_within_spec(x, axis, exclusive, reverse):
    """GPU float32 logcumsumexp of x, run twice (bitwise equal), within docs/spec.md §1 of the
    float64 reference: relative 2.5e-7 where |ref| >= 0.5, 1e-6 where 1e-6 <= |ref| < 0.5, -inf
    where it is -inf."""
    fn = lambda t: paddle.logcumsumexp(t, axis=axis, exclusive=exclusive, reverse=reverse)
    out = run_gpu_twice(fn, x, 'float32').astype(np.float64)
    ref = lse_reference(x, axis, exclusive, reverse)
    assert np.array_equal(np.isneginf(out), np.isneginf(ref))
    fin = np.isfinite(ref) & (np.abs(ref) >= 1e-6)
    rel = np.abs(out[fin] - ref[fin]) / np.abs(ref[fin])
    bound = np.where(np.abs(ref[fin]) >= 0.5, 2.5e-7, 1e-6)
    worst = np.argmax(rel / bound)
    assert rel[worst] <= bound[worst], f'relative error {rel[worst]:.3g} at ref {ref[fin][worst]!r}'


@pytest.mark.parametrize('shape,axis', SHAPES)
@pytest.mark.parametrize('center', [0.0, -30.0, 12.0])
@pytest.mark.parametrize('exclusive,reverse', [(False, False), (True, True)])
def test_logcumsumexp_float32_within_spec(shape, axis, center, exclusive, reverse):
    # center -30: every output far below 0 (the lean outputs without the precise path), 12: far
    # above it, 0: outputs that cross 0 (precise, fast and lean tiles in one row).
    rng = np.random.default_rng(3)
    x = (center + 2 * rng.standard_normal(shape)).astype(np.float32)
    check_lse_float32_within_spec(x, axis, exclusive, reverse)


# Staged short rows of every element size: 2-byte (float16, bfloat16 above), 4-byte (int32),
# 8-byte (int64, float64: 32 steps a thread, so 64 and 128 steps are two and four runs).
STAGED = [((1001, 64), 1), ((3, 111, 16), 2), ((300, 128), 1), ((70, 4), 1)]
DIRECTIONS = [(False, False), (True, False), (False, True), (True, True)]


def scan_reference(x, axis, exclusive, reverse, step, empty, dtype):
    """A left fold `step(acc, x_k)` along axis in `dtype` (exclusive: `empty` first)."""
    a = np.moveaxis(np.asarray(x).astype(dtype), axis, -1)
    if reverse:
        a = a[..., ::-1]
    r = np.empty_like(a)
    acc = np.full(a.shape[:-1], empty, dtype)
    for k in range(a.shape[-1]):
        if not exclusive:
            acc = step(acc, a[..., k])
        r[..., k] = acc
        if exclusive:
            acc = step(acc, a[..., k])
    if reverse:
        r = r[..., ::-1]
    return np.moveaxis(r, -1, axis)


def cumsum_reference(x, axis, exclusive, reverse, dtype=None):
    return scan_reference(x, axis, exclusive, reverse, np.add, 0, dtype or np.asarray(x).dtype)


def lse_reference_long(x, axis, exclusive, reverse):
    """logcumsumexp in long double (x86: 64-bit mantissa), a running log-add-exp."""
    def step(acc, v):
        m = np.maximum(acc, v)
        with np.errstate(invalid='ignore'):
            r = m + np.log(np.exp(acc - m) + np.exp(v - m))
        return np.where(np.isneginf(m), m, r)
    return scan_reference(x, axis, exclusive, reverse, step, -np.inf, np.longdouble).astype(np.float64)


@pytest.mark.parametrize('shape,axis', STAGED)
@pytest.mark.parametrize('dtype', ['int32', 'int64'])
@pytest.mark.parametrize('exclusive,reverse', DIRECTIONS)
def test_integer_cumsum_staged_rows_exact(shape, axis, dtype, exclusive, reverse):
    rng = np.random.default_rng(4)
    x = rng.integers(-(2 ** 30), 2 ** 30, shape).astype(dtype)  # int32 prefixes wrap, as they must
    fn = lambda t: paddle.cumsum(t, axis=axis, exclusive=exclusive, reverse=reverse)
    out = run_gpu_twice(fn, x, dtype)
    np.testing.assert_array_equal(out, cumsum_reference(x, axis, exclusive, reverse).astype(np.int64))


@pytest.mark.parametrize('shape,axis', STAGED)
@pytest.mark.parametrize('exclusive,reverse', DIRECTIONS)
def test_float64_staged_rows_within_spec(shape, axis, exclusive, reverse):
    # docs/spec.md: cumsum within 1e-14 of the running sum of |x|; logcumsumexp within
    # 1e-14 * max(1, |ref|).
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape) * 2
    cs = run_gpu_twice(lambda t: paddle.cumsum(t, axis=axis, exclusive=exclusive, reverse=reverse), x, 'float64')
    ref = cumsum_reference(x, axis, exclusive, reverse, np.longdouble)
    mag = cumsum_reference(np.abs(x), axis, exclusive, reverse, np.longdouble)
    assert np.all(np.abs(cs - ref) <= 1e-14 * np.maximum(mag, 1e-300))
    lse = run_gpu_twice(lambda t: paddle.logcumsumexp(t, axis=axis, exclusive=exclusive, reverse=reverse), x,
                        'float64')
    lref = lse_reference_long(x, axis, exclusive, reverse)
    assert np.array_equal(np.isneginf(lse), np.isneginf(lref))
    fin = np.isfinite(lref)
    assert np.all(np.abs(lse[fin] - lref[fin]) <= 1e-14 * np.maximum(1.0, np.abs(lref[fin])))


# logcumsumexp's and cumsum's row-count target (ScanPolicy::kWarpRowsFrom, their tiles'
# kRowTarget): 1023 rows of 3001 steps keep the warp segments and their look-back, 1024 rows take
# a warp each. Both sides, every exclusive/reverse mode: float32 cumsum bitwise the CPU's (with
# inf and NaN), int64 cumsum exact, float32 and float64 logcumsumexp within docs/spec.md §1 /
# 1e-14; float64 cumsum (which keeps the engine's default target, rows of both shapes in
# segments) within 1e-14 beside them; two runs bitwise equal.
ROW_TARGET_EDGES = [((1023, 3001), 1), ((1024, 3001), 1)]


@pytest.mark.parametrize('shape,axis', ROW_TARGET_EDGES)
@pytest.mark.parametrize('exclusive,reverse', DIRECTIONS)
def test_row_count_target_edges(shape, axis, exclusive, reverse):
    fn = lambda op: (lambda t: op(t, axis=axis, exclusive=exclusive, reverse=reverse))
    x = with_specials(shape, 7)
    np.testing.assert_array_equal(run_gpu_twice(fn(paddle.cumsum), x, 'float32'),
                                  tensor_values(fn(paddle.cumsum)(make_tensor(x, 'float32', 'cpu'))))
    ints = np.random.default_rng(8).integers(-(2 ** 40), 2 ** 40, shape)
    np.testing.assert_array_equal(run_gpu_twice(fn(paddle.cumsum), ints, 'int64'),
                                  cumsum_reference(ints, axis, exclusive, reverse).astype(np.int64))
    x = (2 * np.random.default_rng(9).standard_normal(shape)).astype(np.float32)
    check_lse_float32_within_spec(x, axis, exclusive, reverse)
    x64 = x.astype(np.float64)
    lse = run_gpu_twice(fn(paddle.logcumsumexp), x64, 'float64')
    lref = lse_reference_long(x64, axis, exclusive, reverse)
    assert np.array_equal(np.isneginf(lse), np.isneginf(lref))
    fin = np.isfinite(lref)
    assert np.all(np.abs(lse[fin] - lref[fin]) <= 1e-14 * np.maximum(1.0, np.abs(lref[fin])))
    cs = run_gpu_twice(fn(paddle.cumsum), x64, 'float64')
    mag = cumsum_reference(np.abs(x64), axis, exclusive, reverse, np.longdouble)
    ref = cumsum_reference(x64, axis, exclusive, reverse, np.longdouble)
    assert np.all(np.abs(cs - ref) <= 1e-14 * np.maximum(mag, 1e-300))


# float32 logcumsumexp's block tiles (kernels/funcs/gpu/scan_block_rows.cuh with
# logcumsumexp_tiles.cuh's LseBlockTile: a thread block a tile of 8192 steps, a look-back over
# inclusive prefixes) take rows of 2^18 steps or more, and rows of 2^16 or more where at most 128;
# other rows keep the warp segments. Shapes on both sides of each edge and a length off the
# vector width, with a leading run of -inf (the single-term rule across tiles) and a value far
# below the rest (a tile on the exact path), in every exclusive/reverse mode: held to docs/spec.md
# §1 against the float64 reference, two runs bitwise equal.
BLOCK_EDGES = [((65535,), 0), ((65536,), 0), ((128, 65536), 1), ((129, 65536), 1), ((2, 262147), 1)]


@pytest.mark.parametrize('shape,axis', BLOCK_EDGES)
@pytest.mark.parametrize('exclusive,reverse', DIRECTIONS)
def test_logcumsumexp_float32_block_tile_edges(shape, axis, exclusive, reverse):
    rng = np.random.default_rng(5)
    x = (2 * rng.standard_normal(shape)).astype(np.float32)
    x[..., :9000] = -np.inf
    x[..., 30000] = -400.0
    check_lse_float32_within_spec(x, axis, exclusive, reverse)


# Rows whose outputs near 0 come after many block tiles (crossing_data: each row's sum of
# exponentials nears 1 at its end): those outputs stand on every earlier tile's aggregate. The
# first block tiles summed float32 terms in every tile and missed spec §1's 1e-6 of |ref| there
# (test_logcumsumexp_accuracy.py's (2, 70000), relative 2.6e-3 on the H200); a tile whose own
# total is below 0.5 now sums float64 terms (LseBlockTile::PreciseSums).
BLOCK_CROSSING = [((2, 70000), 1), ((262147,), 0), ((2, 2**20 + 1), 1)]


@pytest.mark.parametrize('shape,axis', BLOCK_CROSSING)
@pytest.mark.parametrize('exclusive,reverse', DIRECTIONS)
def test_logcumsumexp_float32_block_tiles_near_zero(shape, axis, exclusive, reverse):
    x = crossing_data(shape, axis, np.random.default_rng(29))
    check_lse_float32_within_spec(x, axis, exclusive, reverse)


def lse_grad_float32_gpu_twice(x, g, axis, exclusive, reverse):
    """x.grad of the GPU float32 logcumsumexp under out.backward(g), run twice (bitwise equal);
    returns (out, x_grad) as float64."""
    runs = []
    for _ in range(2):
        t = make_tensor(x, 'float32', 'gpu', stop_gradient=False)
        out = paddle.logcumsumexp(t, axis=axis, exclusive=exclusive, reverse=reverse)
        out.backward(make_tensor(g, 'float32', 'gpu'))
        runs.append((tensor_values(out), tensor_values(t.grad)))
    assert np.array_equal(runs[0][1].view(np.uint8), runs[1][1].view(np.uint8)), 'two runs differ in a bit'
    return runs[0][0].astype(np.float64), runs[0][1].astype(np.float64)


def lse_grad_reference(x, out, g, axis, exclusive, reverse):
    """docs/spec.md §1's gradient in float64 on the given outputs: x_grad[i] = sum over the
    outputs j that x[i] feeds of g[j] exp(x[i] - out[j]), as exp(x - c) times a reverse
    cumulative sum of g exp(c - out) (c the line's largest output; outputs of -inf feed only
    x = -inf, whose gradient is 0). Returns (ref, mag), mag the same sum of |g|."""
    xs, os, gs = (np.moveaxis(np.asarray(a, np.float64), axis, -1) for a in (x, out, g))
    if reverse:
        xs, os, gs = xs[..., ::-1], os[..., ::-1], gs[..., ::-1]
    fin = np.isfinite(os)
    c = np.max(np.where(fin, os, -np.inf), axis=-1, keepdims=True)
    w = np.where(fin, np.exp(c - np.where(fin, os, c)), 0.0)

    def rev_cumsum(v):
        s = np.cumsum(v[..., ::-1], axis=-1)[..., ::-1]
        if exclusive:  # the outputs after the element
            s = np.concatenate([s[..., 1:], np.zeros_like(s[..., :1])], axis=-1)
        return s

    f = np.where(np.isneginf(xs), 0.0, np.exp(xs - c))
    ref, mag = f * rev_cumsum(gs * w), f * rev_cumsum(np.abs(gs) * w)
    if reverse:
        ref, mag = ref[..., ::-1], mag[..., ::-1]
    return np.moveaxis(ref, -1, axis), np.moveaxis(mag, -1, axis)


def check_lse_grad_float32(x, g, axis, exclusive, reverse):
    """The GPU float32 gradient of logcumsumexp (x, out_grad g), run twice (bitwise equal), held to
    1e-5 (op_test's float32 gradient tolerance) of the same sum of |out_grad| against the float64
    reference on the GPU's outputs, and 0 exactly where x is -inf."""
    out, grad = lse_grad_float32_gpu_twice(x, g, axis, exclusive, reverse)
    ref, mag = lse_grad_reference(x, out, g, axis, exclusive, reverse)
    assert np.all(grad[np.isneginf(x)] == 0.0)
    err = np.abs(grad - ref) / np.maximum(mag, 1e-30)
    worst = np.unravel_index(np.argmax(err), err.shape)
    assert err[worst] <= 1e-5, f'error {err[worst]:.3g} of the |out_grad| sum at {worst}, ref {ref[worst]!r}'


def grad_edge_data(shape, axis, crossing, rng):
    """x and out_grad for a gradient edge test: crossing data (outputs near 0 after many tiles), or
    N(0, 2) with a leading run of -inf (gradient 0; at most half the line) and a value far below
    the rest (a tile's wide range); out_grad N(0, 1), both signs."""
    if crossing:
        x = crossing_data(shape, axis, rng)
    else:
        L = shape[axis]
        x = np.moveaxis((2 * rng.standard_normal(shape)).astype(np.float32), axis, -1)
        x[..., :min(9000, L // 2)] = -np.inf
        x[..., min(30000, (3 * L) // 4)] = -400.0
        x = np.moveaxis(x, -1, axis)
    return x, rng.standard_normal(shape).astype(np.float32)


# float32 logcumsumexp's gradient on the block tiles (kernels/gpu/logcumsumexp_grad_rows.cuh's
# LseGradBlockTile): out_grad staged in shared memory (kStash) for the rows the forward's rule
# takes (2^18 steps or more, 2^16 or more where at most 128 rows), in registers for every other
# row of 8192 steps or more (below: second block tile); the others keep the warp segments'
# telescoped tiles. Shapes on both sides of each edge of the forward's rule ((65535,) and
# (129, 65536) take the second tile) and a length off the vector width, with a leading run of -inf
# (gradient 0), a value far below the rest, out_grad of both signs, and crossing data (outputs
# near 0 after many tiles), in every exclusive/reverse mode; held to 1e-5 (op_test's float32
# gradient tolerance) of the same sum of |out_grad| against the float64 reference on the GPU's
# outputs, two runs bitwise.
GRAD_BLOCK_EDGES = [((65535,), 0), ((65536,), 0), ((128, 65536), 1), ((129, 65536), 1), ((2, 262147), 1)]


@pytest.mark.parametrize('shape,axis', GRAD_BLOCK_EDGES + BLOCK_CROSSING)
@pytest.mark.parametrize('exclusive,reverse', DIRECTIONS)
def test_logcumsumexp_float32_grad_block_tiles(shape, axis, exclusive, reverse):
    x, g = grad_edge_data(shape, axis, (shape, axis) in BLOCK_CROSSING, np.random.default_rng(31))
    check_lse_grad_float32(x, g, axis, exclusive, reverse)


# The gradient's second block tile (logcumsumexp_tiles.cuh's BlockTile2 and LseGradBlock2RowsFor,
# taken through scan_launch.cuh's TileBlockRows2): float32 rows of 8192 steps or more that the
# forward's rule leaves, whatever their count, the rows a warp each took before included (3072
# rows and more: the engine's target for the gradient). Lengths on both sides of 8192 at 129
# rows (8188 keeps the warp segments; 8192: one tile a row, no look-back; 8196: a second tile of
# 4 steps), lengths off the vector width (8195, 16387, 20001), few rows (3, 20001), 3072 rows
# (the engine's other branch) at the edge, and crossing data on both branches (16387: three
# tiles a row); every exclusive/reverse mode, the 3072-row shapes (25M elements) in two.
GRAD_BLOCK2_EDGES = [((129, 8188), 1), ((129, 8192), 1), ((129, 8196), 1), ((300, 8195), 1), ((3, 20001), 1),
                     ((3072, 8192), 1)]
GRAD_BLOCK2_CROSSING = [((200, 16387), 1), ((3072, 8196), 1)]


def grad_block2_params():
    for shape, axis in GRAD_BLOCK2_EDGES + GRAD_BLOCK2_CROSSING:
        modes = DIRECTIONS if shape[0] < 3072 else [(False, False), (True, True)]
        for exclusive, reverse in modes:
            yield pytest.param(shape, axis, exclusive, reverse, (shape, axis) in GRAD_BLOCK2_CROSSING,
                               id=f'{shape}-{axis}-excl{int(exclusive)}-rev{int(reverse)}')


@pytest.mark.parametrize('shape,axis,exclusive,reverse,crossing', list(grad_block2_params()))
def test_logcumsumexp_float32_grad_second_block_tile(shape, axis, exclusive, reverse, crossing):
    x, g = grad_edge_data(shape, axis, crossing, np.random.default_rng(37))
    check_lse_grad_float32(x, g, axis, exclusive, reverse)


def small_gates_data(shape, axis, jumps, reverse, seed):
    """x ~ N(0, 2) whose lines along axis start (in the forward's order) with 4 - jump, 4 (one
    jump a line, in the order of the other axes), and out_grad 0 but at each line's last output:
    the first element's gradient is a gate exp(-jump) times the rest. reverse: the same lines in
    the forward's order (flipped along axis)."""
    rng = np.random.default_rng(seed)
    x = (2 * rng.standard_normal(shape)).astype(np.float32)
    g = np.zeros(shape, np.float32)
    lines_x, lines_g = np.moveaxis(x, axis, -1), np.moveaxis(g, axis, -1)  # views
    lines_x[..., 0] = 4.0 - np.asarray(jumps, np.float32)
    lines_x[..., 1] = 4.0
    lines_g[..., -1] = 1.0
    if reverse:
        x, g = np.flip(x, axis).copy(), np.flip(g, axis).copy()
    return x, g


# Gates far below 1 on the block tiles (LseGradRowMath::Exp in logcumsumexp_grad_rows.cuh): at
# a line's start (the forward's order) a term larger by 7.5, 12 and 20 takes over (gates 6e-4,
# 6e-6, 2e-9), and out_grad is 0 but at the last output, so the first element's gradient is that
# gate times the rest. As 1 + expm1f such a gate kept expm1f's absolute error (~3e-8: 5e-5, 5e-3
# of the gradient; past a jump of 17 the gate was 0); the gates below 1/2 take expf. (3, 20001)
# takes the second block tile (the line's start in the last of three tiles), (1, 65536) the
# first (kStash).
@pytest.mark.parametrize('shape', [(3, 20001), (1, 65536)])
@pytest.mark.parametrize('exclusive,reverse', DIRECTIONS)
def test_logcumsumexp_float32_grad_small_gates(shape, exclusive, reverse):
    jumps = [7.5, 12.0, 20.0] if shape[0] == 3 else [20.0]  # one a row
    x, g = small_gates_data(shape, 1, jumps, reverse, 43)
    check_lse_grad_float32(x, g, 1, exclusive, reverse)


# float32 logcumsumexp's gradient on columns (inner > 1), all through the op's column thread steps
# (logcumsumexp_tiles.cuh's GpuTileScan<LogcumsumexpGradOp>::Thread: logcumsumexp_grad_rows.cuh's
# LseGradColumns where built with PO_LSE_GRAD_COLS=1, else the telescoped chunks): the three
# column phases (1024 to 262143 lines: segment totals, their scan, the segments again; lines off
# the vector width and the 256-thread blocks, lengths off the 8-step chunk and the segment, a
# middle axis), one segment a line (262144 lines or more: ColumnScanKernel<0>) and the one pass
# over few lines (scan_columns.cuh's ThreadColumnSteps); N(0, 2) with a leading run of -inf and a
# value far below the rest, or crossing data; every exclusive/reverse mode.
GRAD_COLUMNS = [((2048, 1031), 0, False), ((3, 700, 401), 1, False), ((13, 262147), 0, False), ((5003, 101), 0, False),
                ((1500, 1030), 0, True), ((4, 600, 300), 1, True)]


@pytest.mark.parametrize('shape,axis,crossing', GRAD_COLUMNS)
@pytest.mark.parametrize('exclusive,reverse', DIRECTIONS)
def test_logcumsumexp_float32_grad_columns(shape, axis, crossing, exclusive, reverse):
    x, g = grad_edge_data(shape, axis, crossing, np.random.default_rng(41))
    check_lse_grad_float32(x, g, axis, exclusive, reverse)


# Gates far below 1 on columns (LseGradColMath / LseGradRowMath: expf below 1/2): at each
# column's start (the forward's order) a term larger by 7.5, 12 or 20 takes over, out_grad 0 but
# at the last output; the three phases ((3000, 1030): 47 segments a line) and the one pass
# ((3000, 96)).
@pytest.mark.parametrize('shape', [(3000, 1030), (3000, 96)])
@pytest.mark.parametrize('exclusive,reverse', DIRECTIONS)
def test_logcumsumexp_float32_grad_columns_small_gates(shape, exclusive, reverse):
    jumps = np.array([7.5, 12.0, 20.0], np.float32)[np.arange(shape[1]) % 3]  # one a column
    x, g = small_gates_data(shape, 0, jumps, reverse, 47)
    check_lse_grad_float32(x, g, 0, exclusive, reverse)
