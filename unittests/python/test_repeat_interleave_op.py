"""repeat_interleave: docs/spec.md §4, seed 003's purpose (stream decompaction), as in Paddle.

The generic OpInfo checks (int and tensor counts, every axis and axis=None, zero counts,
zero-valued data, a single broadcast count, output_size, int32 counts, long rows, gradients,
errors, determinism, static mode, CPU vs GPU) run from test_op_db.py; the tests
below compare with np.repeat on more inputs, show the cases the seed's value flood gets wrong,
and check output_size, the gradient (a segment sum) and the errors that depend on the place.
"""

import numpy as np
import pytest

import paddle_ops as paddle
from op_db import OP_DB, repeat_interleave_grad_ref
from op_test import (FLOAT_DTYPES, INT_DTYPES, available_places, check_grad_fd, skip_under_asan,
                     make_tensor, tensor_values)

OP = OP_DB['repeat_interleave']
PLACES = available_places()
ALL = FLOAT_DTYPES + INT_DTYPES


def counts(values, place, dtype='int64'):
    return make_tensor(np.asarray(values), dtype, place)


@pytest.mark.parametrize('place', PLACES)
def test_seed_decompaction_and_where_the_value_flood_fails(place):
    """The seed's example ([1, 3, 6] with counts [3, 2, 3]) and the two inputs its
    scatter-then-flood-the-values version gets wrong: a zero count (its scatter writes that
    slice at its neighbour's start) and a zero in the data (its flood takes it for a hole)."""
    x = make_tensor([1.0, 3.0, 6.0], 'float32', place)
    np.testing.assert_array_equal(paddle.repeat_interleave(x, counts([3, 2, 3], place)).numpy(),
                                  [1, 1, 1, 3, 3, 6, 6, 6])
    x = make_tensor([1.0, 0.0, 5.0, 6.0], 'float32', place)
    c = [2, 3, 0, 2]
    got = paddle.repeat_interleave(x, counts(c, place)).numpy()
    np.testing.assert_array_equal(got, np.repeat([1.0, 0.0, 5.0, 6.0], c))  # [1 1 0 0 0 6 6]
    # The seed's way, for contrast: scatter the values, flood them (zeros are holes).
    starts = np.concatenate([[0], np.cumsum(c)[:-1]])
    scattered = np.zeros(sum(c))
    for v, s, r in zip([1.0, 0.0, 5.0, 6.0], starts, c):
        if s < len(scattered):
            scattered[s] = v
    seed = paddle.right_flood(paddle.to_tensor(scattered)).numpy()
    assert not np.array_equal(seed, got)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ALL)
def test_matches_np_repeat(dtype, place):
    rng = np.random.default_rng(10)
    x = rng.integers(-3, 4, size=(4, 6, 5))  # many zeros among the data
    xt = make_tensor(x, dtype, place)
    xv = tensor_values(xt)
    for axis in (None, 0, 1, 2, -1, -3):
        n = x.size if axis is None else x.shape[axis]
        for c in (rng.integers(0, 4, size=n), np.zeros(n, dtype=np.int64), np.full(n, 5)):
            for cdt in ('int32', 'int64'):
                out = paddle.repeat_interleave(xt, counts(c, place, cdt), axis=axis)
                np.testing.assert_array_equal(tensor_values(out), np.repeat(xv, c, axis=axis),
                                              'axis=%s counts=%s' % (axis, c))
        for r in (0, 1, 3):
            np.testing.assert_array_equal(tensor_values(paddle.repeat_interleave(xt, r, axis=axis)),
                                          np.repeat(xv, r, axis=axis))


@pytest.mark.parametrize('place', PLACES)
def test_output_size(place):
    x = make_tensor(np.arange(12.0).reshape(3, 4), 'float32', place)
    c = counts([2, 0, 3, 1], place)
    expected = np.repeat(np.arange(12.0).reshape(3, 4), [2, 0, 3, 1], axis=1)
    np.testing.assert_array_equal(paddle.repeat_interleave(x, c, axis=1, output_size=6).numpy(), expected)
    np.testing.assert_array_equal(paddle.repeat_interleave(x, 2, axis=0, output_size=6).numpy(),
                                  np.repeat(np.arange(12.0).reshape(3, 4), 2, axis=0))
    with pytest.raises(TypeError, match='output_size'):
        paddle.repeat_interleave(x, c, axis=1, output_size=6.0)


@pytest.mark.parametrize('place', PLACES)
def test_negative_count(place):
    """A negative count is data: found when the kernel sums the counts (on the GPU in the
    same copy that brings the total), so in static mode at run time, not at build time."""
    x = make_tensor(np.ones((2, 3)), 'float32', place)
    with pytest.raises(ValueError, match=r'repeats.*non-negative'):
        paddle.repeat_interleave(x, counts([1, -2], place), axis=0)
    with pytest.raises(ValueError, match=r'repeats.*non-negative'):
        paddle.repeat_interleave(x, counts([-1], place), axis=1)


def test_wrong_output_size_is_checked_on_the_cpu():
    """On the CPU the counts are at hand, so a wrong output_size is a ValueError; on the GPU it
    is trusted (checking it would need the device-to-host copy it exists to save)."""
    x = make_tensor(np.ones((3, 4)), 'float32')
    with pytest.raises(ValueError, match=r'output_size.*\b6\b.*\b7\b'):
        paddle.repeat_interleave(x, counts([2, 0, 3, 1], 'cpu'), axis=1, output_size=7)
    with pytest.raises(ValueError, match=r'non-negative.*repeats\[1\] is -3'):
        paddle.repeat_interleave(x, counts([2, -3, 3, 1], 'cpu'), axis=1, output_size=3)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('shape, axis', [((5000,), 0), ((3, 4500), 1), ((2300, 3), 0), ((2, 2100, 64), 1)])
def test_many_tiles_and_counts_above_255(shape, axis, place):
    """Several of the GPU's tiles of 2048 slices (a line's and rows'), one tile holding a count
    above 255 (that tile reads its counts again instead of their byte copy), a last count of 0,
    int32 and int64 counts, with and without output_size: np.repeat, bit for bit."""
    rng = np.random.default_rng(29)
    x = rng.standard_normal(shape).astype(np.float32)
    n = shape[axis]
    c = rng.integers(0, 4, size=n)
    c[n // 3] = 300
    c[-1] = 0
    expected = np.repeat(x, c, axis=axis)
    for cdt in ('int32', 'int64'):
        xt, ct = make_tensor(x, 'float32', place), counts(c, place, cdt)
        np.testing.assert_array_equal(paddle.repeat_interleave(xt, ct, axis=axis).numpy(), expected)
        np.testing.assert_array_equal(
            paddle.repeat_interleave(xt, ct, axis=axis, output_size=int(c.sum())).numpy(), expected)


@pytest.mark.parametrize('place', PLACES)
def test_many_tiles_past_the_device_scan_threshold(place):
    """From 512 tiles of 2048 slices on the GPU scans the tile sums with CUB's device scan
    instead of one block (kernels/gpu/repeat_interleave_tiles.cuh): 514 tiles here, a line of x
    and two lines of it, a count above 255, int32 and int64 counts and a broadcast count, with
    and without output_size: np.repeat, bit for bit; a negative count and an overflowing sum in
    the last tiles still raise."""
    rng = np.random.default_rng(31)
    n = 1024 * 2048 // 2 + 3000
    x = rng.standard_normal((2, n)).astype(np.float32)
    c = rng.integers(0, 4, size=n)
    c[n - 1500] = 300
    for xs, axis in ((x[0], 0), (x, 1)):
        expected = np.repeat(xs, c, axis=axis)
        xt = make_tensor(xs, 'float32', place)
        for cdt in ('int32', 'int64'):
            ct = counts(c, place, cdt)
            np.testing.assert_array_equal(paddle.repeat_interleave(xt, ct, axis=axis).numpy(), expected)
            np.testing.assert_array_equal(
                paddle.repeat_interleave(xt, ct, axis=axis, output_size=int(c.sum())).numpy(), expected)
    xt = make_tensor(x[0], 'float32', place)
    np.testing.assert_array_equal(paddle.repeat_interleave(xt, counts([2], place)).numpy(), np.repeat(x[0], 2))
    bad = c.copy()
    bad[n - 7] = -1
    with pytest.raises(ValueError, match=r'repeats.*non-negative'):
        paddle.repeat_interleave(xt, counts(bad, place))
    big = np.full(n, 1 << 50, dtype=np.int64)  # the sum passes 2**63 in the fifth tile
    with pytest.raises(ValueError, match=r'2\*\*63 - 1'):
        paddle.repeat_interleave(paddle.empty([n, 0], 'float32', place=place), counts(big, place), axis=0)


@pytest.mark.skipif('gpu' not in PLACES, reason='the GPU trusts output_size; the CPU checks it (test above)')
def test_gpu_output_size_is_trusted():
    """docs/spec.md §4: on the GPU outputs past the true total repeat the last slice, an
    output_size below it cuts the output, and a negative count counts as 0 (undetected)."""
    xv = np.arange(1.0, 6.0, dtype=np.float32)
    x = make_tensor(xv, 'float32', 'gpu')
    c = [2, 0, 1, 3, 0]
    full = np.repeat(xv, c)
    np.testing.assert_array_equal(paddle.repeat_interleave(x, counts(c, 'gpu'), output_size=8).numpy(),
                                  np.concatenate([full, [xv[-1]] * 2]))
    np.testing.assert_array_equal(paddle.repeat_interleave(x, counts(c, 'gpu'), output_size=4).numpy(), full[:4])
    np.testing.assert_array_equal(
        paddle.repeat_interleave(x, counts([2, -1, 1, 0, 1], 'gpu'), output_size=4).numpy(),
        [xv[0], xv[0], xv[2], xv[4]])


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_gradient_is_a_segment_sum(dtype, place):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((3, 7, 4))
    for axis in (None, 0, 1, 2):
        n = x.size if axis is None else x.shape[axis]
        for reps in (rng.integers(0, 4, size=n), 2, 0):
            xt = make_tensor(x, dtype, place, stop_gradient=False)
            r = counts(reps, place) if isinstance(reps, np.ndarray) else reps
            out = paddle.repeat_interleave(xt, r, axis=axis)
            g = make_tensor(rng.standard_normal(out.shape), dtype, place)
            out.backward(g)
            ref = repeat_interleave_grad_ref(tensor_values(xt), None, tensor_values(g), reps, axis)
            tol = {'float64': 1e-12, 'float32': 1e-6}.get(dtype, 1e-2)
            np.testing.assert_allclose(tensor_values(xt.grad), ref.astype(np.float64), rtol=tol, atol=tol,
                                       err_msg='axis=%s repeats=%s' % (axis, reps))


@pytest.mark.parametrize('place', PLACES)
def test_long_rows_and_a_long_run(place):
    rng = np.random.default_rng(12)
    x = rng.standard_normal(300007).astype(np.float32)
    c = rng.integers(0, 4, size=x.size)
    xt = make_tensor(x, 'float32', place, stop_gradient=False)
    out = paddle.repeat_interleave(xt, counts(c, place))
    np.testing.assert_array_equal(out.numpy(), np.repeat(x, c))
    out.backward(make_tensor(np.ones(out.shape), 'float32', place))
    np.testing.assert_array_equal(xt.grad.numpy(), c.astype(np.float32))
    # One slice repeated 2^20 times among empty ones: one segment spanning the whole output.
    c = np.zeros(100, dtype=np.int64)
    c[37] = 1 << 20
    xt = make_tensor(np.arange(100.0), 'float64', place, stop_gradient=False)
    out = paddle.repeat_interleave(xt, counts(c, place))
    assert out.shape == [1 << 20] and (out.numpy() == 37.0).all()
    out.sum().backward()
    assert xt.grad.numpy()[37] == float(1 << 20) and xt.grad.numpy().sum() == float(1 << 20)


@pytest.mark.parametrize('place', PLACES)
def test_list_repeats_and_method(place):
    x = make_tensor([[1, 2], [3, 4]], 'int64', place)
    np.testing.assert_array_equal(paddle.repeat_interleave(x, [1, 2], axis=0).numpy(), [[1, 2], [3, 4], [3, 4]])
    np.testing.assert_array_equal(x.repeat_interleave(2).numpy(), [1, 1, 2, 2, 3, 3, 4, 4])
    with pytest.raises(TypeError, match='repeats'):
        paddle.repeat_interleave(x, [1.0, 2.0], axis=0)
    with pytest.raises(TypeError, match='repeats'):
        paddle.repeat_interleave(x, 'two', axis=0)


# ---- peak memory of the tensor form (issue 17 item 10) ----------------------------------------

PEAK_CHILD = """
import sys
import numpy as np
import paddle_ops as paddle
n, c = 1 << 22, 16                        # x: 16 MiB of float32; out: 2**26 floats = 256 MiB
x = paddle.to_tensor(np.arange(n, dtype=np.float32))
reps = paddle.to_tensor(np.full(n, c, np.int64))
def status(key):
    with open('/proc/self/status') as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith(key))
def start():  # the resident size now, the peak (VmHWM) reset to it
    with open('/proc/self/clear_refs', 'w') as f:
        f.write('5')
    return status('VmRSS:')
if sys.argv[1] == 'forward':
    before = start()
    out = paddle.repeat_interleave(x, reps, axis=0)
    peak = status('VmHWM:') - before
    assert out.shape == [n * c]
    o = out.numpy()
    assert o[0] == 0 and o[c] == 1 and o[-1] == n - 1
    print(peak, n * c * 4, n * 8)
else:  # the gradient, given out_grad: x_grad (16 MiB) and the starts
    x.stop_gradient = False
    out = paddle.repeat_interleave(x, reps, axis=0)
    g = paddle.ones_like(out)
    before = start()
    (xg,) = paddle.grad([out], [x], grad_outputs=[g])
    peak = status('VmHWM:') - before
    assert float(xg.numpy()[0]) == c and float(xg.numpy()[-1]) == c
    print(peak, n * 4, n * 8)
"""


@skip_under_asan
@pytest.mark.parametrize('direction', ['forward', 'gradient'])
def test_tensor_counts_peak_memory_is_output_plus_input_cpu(direction):
    """The forward's peak is the output plus O(input) (the starts, 8 bytes a count), with no
    per-output scratch: before, an int64 index per output slice made it 3x a float32 output.
    Measured in a fresh process (the peak resident size VmHWM, reset before the call), the CPU
    allocator's cache off so nothing earlier is reused. (The GPU kernel allocates O(input) too: a byte
    per count and 20 bytes per tile of 2048, and the output; the GPU allocator exposes no peak
    statistic to assert on.) The gradient, given
    out_grad, likewise allocates x_grad and the starts alone on the CPU (the GPU's likewise: the starts, no marker)."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, PADDLE_OPS_CPU_CACHE_MB='0', OMP_NUM_THREADS='2')
    r = subprocess.run([sys.executable, '-c', PEAK_CHILD, direction], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    peak, out_bytes, starts_bytes = map(int, r.stdout.split())
    slack = 32 << 20  # the interpreter, page rounding, thread stacks
    assert peak <= out_bytes + starts_bytes + slack, (peak / 2**20, out_bytes / 2**20, starts_bytes / 2**20)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('inner', [1, 3, 31, 32, 33, 100])
def test_gradient_many_slices_long_runs_zero_counts(inner, place):
    """The tensor-count gradient against NumPy on every row width the GPU splits at (a warp per
    slice below 32 elements, a thread per element from 32): thousands of slices, most counts 0-3
    with a third of them 0, a few runs of thousands, and zero counts at both ends; random
    out_grad, two outer rows; the same bits when run again (no atomics)."""
    rng = np.random.default_rng(100 + inner)
    n = 3000 if inner < 32 else 300
    c = rng.integers(0, 4, size=n)
    c[rng.random(n) < 0.33] = 0
    c[:2] = 0
    c[-3:] = 0
    for j in rng.choice(np.arange(2, n - 3), size=3, replace=False):
        c[j] = int(rng.integers(1000, 5000)) if inner < 32 else int(rng.integers(200, 700))
    x = rng.standard_normal((2, n, inner))
    M = int(c.sum())
    g = rng.standard_normal((2, M, inner))
    ref = np.zeros_like(x)
    np.add.at(ref, (slice(None), np.repeat(np.arange(n), c)), g)
    for dtype, tol in (('float64', 1e-12), ('float32', 1e-5)):
        grads = []
        for _ in range(2):
            xt = make_tensor(x, dtype, place, stop_gradient=False)
            out = paddle.repeat_interleave(xt, counts(c, place), axis=1)
            assert out.shape == [2, M, inner]
            out.backward(make_tensor(g, dtype, place))
            grads.append(xt.grad.numpy())
        np.testing.assert_allclose(grads[0].astype(np.float64), ref, rtol=tol, atol=tol * np.sqrt(c.max()),
                                   err_msg='%s inner=%d' % (dtype, inner))
        assert (grads[0][:, c == 0] == 0).all()
        np.testing.assert_array_equal(grads[0], grads[1])
