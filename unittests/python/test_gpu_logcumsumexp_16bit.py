"""float16/bfloat16 logcumsumexp on the GPU scan engine's fast paths (the lean16 arithmetic of
kernels/gpu/logcumsumexp_tiles.cuh, LseFast::Exp16/Lean16): the block tiles (1-D and few long
rows, on both sides of LseBlockRowsFor's edges, lengths on and off the 16-byte vector of 8
elements), the row groups (4096 rows and more), the warp segments (fewer rows, shorter), the
staged short rows (power-of-two lengths up to 512), the striped short rows (other lengths up to
64), the three-phase columns and the one-pass columns. Each result is run twice (bitwise equal)
and held to docs/spec.md §1 against a float64 reference from the exact 16-bit inputs: the tests'
16-bit bound (op_test's DEFAULT_TOLERANCES: |out - round(ref)| <= 2.5e-7 max(1, |ref|) + one ulp),
and one ulp of ref itself wherever |ref| >= 1e-6; a prefix of one finite term gives that term bit
for bit; -inf, +inf and NaN where the reference has them. Without a GPU every test skips."""

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import DEFAULT_TOLERANCES, assert_close, cast_np, gpu_available, make_tensor, tensor_values, ulp
from test_logcumsumexp_accuracy import crossing_data
from test_logcumsumexp_accuracy import reference as lse_reference

pytestmark = pytest.mark.skipif(not gpu_available(), reason='needs a GPU (the GPU scan engine)')

DTYPES = ['float16', 'bfloat16']
DIRECTIONS = [(False, False), (True, False), (False, True), (True, True)]

# (shape, axis) and the path it takes.
PATHS = [
    ((65535,), 0),          # 1-D below 2^16: warp segments
    ((65536,), 0),          # 1-D at 2^16: block tiles (one row)
    ((128, 65536), 1),      # block tiles (at most 128 rows of 2^16)
    ((129, 65536), 1),      # warp segments (129 rows of 2^16)
    ((2, 262147), 1),       # block tiles, length off the vector (scalar accesses)
    ((3, 262152), 1),       # block tiles, length a multiple of 8 (16-byte accesses)
    ((4096, 600), 1),       # row groups (a warp a row)
    ((300, 20000), 1),      # warp segments
    ((1001, 64), 1),        # staged rows, a thread a row
    ((300, 512), 1),        # staged rows, 8 threads a row
    ((70, 4), 1),           # staged rows, shortest
    ((517, 61), 1),         # striped short rows (16 lanes a row)
    ((1001, 13), 1),        # striped short rows (4 lanes a row)
    ((600, 2048), 0),       # three-phase columns
    ((5, 1001, 7), 1),      # one-pass columns, no vector accesses
    ((2, 4099, 96), 1),     # one-pass columns
]


def lse16_gpu_twice(x, dtype, axis, exclusive, reverse):
    """GPU logcumsumexp of x in dtype, run twice (bitwise equal); float64 values."""
    t = make_tensor(x, dtype, 'gpu')
    fn = lambda: paddle.logcumsumexp(t, axis=axis, exclusive=exclusive, reverse=reverse)
    a, b = tensor_values(fn()), tensor_values(fn())
    assert np.array_equal(a.view(np.uint8), b.view(np.uint8)), 'two runs differ in a bit'
    return a


def check_lse16(x, dtype, axis, exclusive, reverse):
    xs = cast_np(x, dtype)  # the exact 16-bit inputs
    out = lse16_gpu_twice(xs, dtype, axis, exclusive, reverse)
    ref = lse_reference(xs, axis, exclusive, reverse)
    assert_close(out, ref, dtype, DEFAULT_TOLERANCES[dtype], msg=f'{dtype} {x.shape} axis {axis}')
    fin = np.isfinite(ref) & (np.abs(ref) >= 1e-6)
    err = np.abs(out[fin] - ref[fin]) / ulp(ref[fin], dtype)
    if err.size:
        worst = int(np.argmax(err))
        assert err[worst] <= 1.0, f'{err[worst]:.3g} ulp at ref {ref[fin][worst]!r}, out {out[fin][worst]!r}'
    return out


@pytest.mark.parametrize('shape,axis', PATHS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('center', [0.0, -30.0, 12.0])
@pytest.mark.parametrize('exclusive,reverse', [(False, False), (True, True)])
def test_logcumsumexp_16bit_within_one_ulp(shape, axis, dtype, center, exclusive, reverse):
    # center 0: outputs crossing 0 (precise, float-float and lean16 groups in one line); -30: far
    # below 0 (lean16 from -kLean16Neg); 12: far above.
    rng = np.random.default_rng(16)
    x = center + 2 * rng.standard_normal(shape)
    check_lse16(x, dtype, axis, exclusive, reverse)


@pytest.mark.parametrize('shape,axis', PATHS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('exclusive,reverse', DIRECTIONS)
def test_logcumsumexp_16bit_near_zero(shape, axis, dtype, exclusive, reverse):
    # Each line's sum of exponentials crosses 1 late (outputs near 0 stand on many earlier tiles'
    # sums), float16 subnormal outputs included.
    check_lse16(crossing_data(shape, axis, np.random.default_rng(17)), dtype, axis, exclusive, reverse)


@pytest.mark.parametrize('shape,axis', PATHS)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('exclusive,reverse', [(False, False), (True, True)])
def test_logcumsumexp_16bit_specials_and_single_terms(shape, axis, dtype, exclusive, reverse):
    # A head of -inf with one finite term inside (outputs up to the next finite term are that term,
    # bit for bit), -inf runs, one +inf and one NaN late in the tensor (every later output of
    # their lines +inf / NaN).
    rng = np.random.default_rng(18)
    x = 2 * rng.standard_normal(shape)
    a = np.moveaxis(x, axis, -1)
    n = a.shape[-1]
    head = min(n, 40)
    a[..., :head] = -np.inf
    if head > 20:
        a[..., 11] = rng.uniform(-0.01, 0.01, a.shape[:-1])  # a fine ulp; below later maxima
    if n > 200:
        a[..., n // 2:n // 2 + 150] = -np.inf
    # +inf and NaN past the head (at step 3n/4 and 7n/8, at least `head`) of the lines 3/4 and 7/8
    # of the way through, so the single-term prefixes checked below hold in every line.
    lead = a.shape[:-1]
    lines = int(np.prod(lead))
    for frac, val in ((3 / 4, np.inf), (7 / 8, np.nan)):
        a[np.unravel_index(int(frac * lines), lead) + (min(n - 1, max(head, int(frac * n))),)] = val
    out = check_lse16(x, dtype, axis, exclusive, reverse)
    if head > 20 and not reverse:  # the single-term prefixes: steps 11 .. head-1 (12 .. head exclusive)
        o = np.moveaxis(out, axis, -1)
        term = cast_np(a[..., 11], dtype)
        lo, hi = (12, head + 1) if exclusive else (11, head)
        assert np.array_equal(o[..., lo:hi], np.repeat(term[..., None], hi - lo, axis=-1))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('exclusive,reverse', DIRECTIONS)
def test_logcumsumexp_16bit_wide_range(dtype, exclusive, reverse):
    # Magnitudes far from 0 (float16 to a few thousand, bfloat16 to 1e5): the lean16 terms'
    # rounding of R log2(e) grows with |R|, bounded by |out| + 80 (LseFast's lean16 comment).
    rng = np.random.default_rng(19)
    scale = 300.0 if dtype == 'float16' else 1e4
    for shape, axis in [((262152,), 0), ((4096, 256), 1), ((1001, 64), 1), ((600, 2048), 0)]:
        check_lse16(scale * rng.standard_normal(shape), dtype, axis, exclusive, reverse)
