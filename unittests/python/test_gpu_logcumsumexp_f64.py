"""float64 logcumsumexp on the GPU at the edges of its block tiles and warp rows (issue 29;
kernels/gpu/logcumsumexp_f64_tiles.cuh: a thread block a tile of 4096 steps, float64 terms
exp(x - tile max) summed in float64 and one log per output, the carry from the engine's tree
look-back; taken, where built with PO_LSE_F64_ROWS=1, by rows of 2^18 steps or more and rows of
2^16 or more where at most 128, fewer than 2048 rows; with PO_LSE_F64_WARP=1 the same arithmetic
a warp tile of 256 steps for many rows, a warp each, and for the single pass's warp segments,
(2047, 4096)). The shapes sit on both sides of each edge,
and every row holds what sends a tile to the generic per-element states: a leading run of -inf
and a single finite term (docs/spec.md §1: that term, bit for bit), a value far below the rest, a
rise of 40 over the carry (more than the tiles' span of 16), +inf and NaN. Held to §1's float64
bound, 1e-14 * max(1, |ref|), against a long double reference, in every exclusive/reverse mode,
two runs bitwise equal. The same tests hold on the generic path (PO_LSE_F64_ROWS=0). Without a
GPU every test skips, saying so."""

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import gpu_available, make_tensor, tensor_values
from test_logcumsumexp_accuracy import crossing_data

pytestmark = pytest.mark.skipif(not gpu_available(), reason='needs a GPU (the GPU scan engine)')

DIRECTIONS = [(False, False), (True, False), (False, True), (True, True)]
EDGES = [((65535,), 0), ((65536,), 0), ((128, 65536), 1), ((129, 65536), 1), ((2, 262147), 1), ((2047, 4096), 1),
         ((2048, 4098), 1), ((2049, 1031), 1), ((4099, 3), 0)]


def lse_long(x, axis, exclusive, reverse):
    """logcumsumexp in long double (NumPy's logaddexp.accumulate), and per output how many finite
    terms its prefix holds (capped at 2) and the first of them."""
    a = np.moveaxis(np.asarray(x, np.longdouble), axis, -1)
    if reverse:
        a = a[..., ::-1]
    with np.errstate(invalid='ignore'):
        r = np.logaddexp.accumulate(a, axis=-1)
    fin = np.isfinite(a)
    count = np.minimum(np.cumsum(fin, axis=-1), 2)
    first_idx = np.argmax(fin, axis=-1)
    first = np.take_along_axis(a, first_idx[..., None], axis=-1)
    first = np.broadcast_to(first, a.shape)
    if exclusive:
        pad = lambda v, f: np.concatenate([np.full(v.shape[:-1] + (1,), f, v.dtype), v[..., :-1]], axis=-1)
        r, count = pad(r, -np.inf), pad(count, 0)
    if reverse:
        r, count, first = r[..., ::-1], count[..., ::-1], first[..., ::-1]
    back = lambda v: np.moveaxis(v, -1, axis)
    return back(r), back(count), back(first).astype(np.float64)


def check_f64(x, axis, exclusive, reverse):
    fn = lambda t: paddle.logcumsumexp(t, axis=axis, exclusive=exclusive, reverse=reverse)
    t = make_tensor(x, 'float64', 'gpu')
    out, again = tensor_values(fn(t)), tensor_values(fn(t))
    assert np.array_equal(out.view(np.uint8), again.view(np.uint8)), 'two runs differ in a bit'
    ref, count, first = lse_long(x, axis, exclusive, reverse)
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(out), nan)
    assert np.array_equal(np.isposinf(out), np.isposinf(ref))
    assert np.array_equal(np.isneginf(out), np.isneginf(ref))
    one = (count == 1) & ~nan & ~np.isposinf(ref)
    assert np.array_equal(out[one].view(np.uint64), first[one].view(np.uint64)), 'a single term not exact'
    fin = np.isfinite(ref)
    r = ref[fin]
    err = np.abs(out[fin].astype(np.longdouble) - r) / np.maximum(1, np.abs(r))
    worst = int(np.argmax(err)) if err.size else 0
    assert err.size == 0 or err[worst] <= 1e-14, f'error {float(err[worst]):.3g} x max(1, |ref|) at ref {float(r[worst])!r}'


def awkward(shape, axis, seed):
    rng = np.random.default_rng(seed)
    x = 2 * rng.standard_normal(shape)
    xs = np.moveaxis(x, axis, -1)
    n = xs.shape[-1]
    a = min(9000, n // 4)  # a run of -inf across tiles, then the only finite term up to a + 100
    xs[..., :a] = -np.inf
    xs[..., a] = 3.25
    xs[..., a + 1:a + 100] = -np.inf
    xs[..., min(30000, n // 2)] = -400.0
    xs[..., min(50000, 3 * n // 4)] += 40.0  # a rise past the tiles' span over their carry
    return x


@pytest.mark.parametrize('shape,axis', EDGES)
@pytest.mark.parametrize('exclusive,reverse', DIRECTIONS)
def test_logcumsumexp_float64_block_tile_edges(shape, axis, exclusive, reverse):
    check_f64(awkward(shape, axis, 64), axis, exclusive, reverse)


# Outputs crossing 0 after many tiles (each row's sum of exponentials nears 1 at its end): those
# outputs stand on every earlier tile's aggregate, and §1's bound is absolute there.
CROSSING = [((2, 70000), 1), ((262147,), 0), ((2, 2**20 + 1), 1)]


@pytest.mark.parametrize('shape,axis', CROSSING)
@pytest.mark.parametrize('exclusive,reverse', DIRECTIONS)
def test_logcumsumexp_float64_block_tiles_near_zero(shape, axis, exclusive, reverse):
    x = crossing_data(shape, axis, np.random.default_rng(64)).astype(np.float64)
    check_f64(x, axis, exclusive, reverse)


# Special values in long rows: +inf (every later output +inf), NaN (every later output NaN),
# 40 % -inf holes, and values spread over -1000 .. 1000 (tiles wider than any span).
@pytest.mark.parametrize('exclusive,reverse', DIRECTIONS)
def test_logcumsumexp_float64_block_tiles_specials(exclusive, reverse):
    rng = np.random.default_rng(65)
    n = 2**16 + 2
    x = rng.standard_normal((4, n))
    x[0, 40000] = np.inf
    x[1, 50001] = np.nan
    x[2, rng.uniform(size=n) < 0.4] = -np.inf
    x[3] = rng.uniform(-1000, 1000, n)
    check_f64(x, 1, exclusive, reverse)


# A 1-D tensor of 2^22 (1024 tiles: a deep look-back tree), values near 1e4 (outputs far from 0)
# and a slow ramp (the carry's max overtaken by every tile, within the span).
@pytest.mark.parametrize('exclusive,reverse', [(False, False), (True, True)])
def test_logcumsumexp_float64_block_tiles_long(exclusive, reverse):
    rng = np.random.default_rng(66)
    n = 2**22
    check_f64(1e4 + 5 * rng.standard_normal(n), 0, exclusive, reverse)
    check_f64(1e-3 * np.arange(n, dtype=np.float64), 0, exclusive, reverse)
