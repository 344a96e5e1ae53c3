"""cumsum accuracy (docs/spec.md §2, issue 17 item 6): every floating cumsum, forward and
gradient, on every place and strategy, is never less accurate than a left-to-right float64
loop rounded once to the output type.

The oracle is exact: every input is a dyadic rational, so each prefix is summed exactly as a
Python integer (the values scaled by 2^1074), and each output is compared elementwise with

    |ours - exact| <= |round_to_dtype(loop64) - exact|

where loop64 is NumPy's sequential float64 accumulate (np.add.accumulate adds left to right).
For float64 inputs the loop is that float64 accumulate itself. The data cancel on purpose:
[B, -B, 1] patterns (the tree-ordered SIMD prefix lost the 1), long rows past one CPU chunk
(65536 steps, so that long rows run the three-phase split on 2 threads) and random terms of
20 orders of magnitude with their negatives nearby.
"""

import fractions
import itertools

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import available_places, make_tensor, tensor_values

PLACES = available_places()
FLOATS = ('float32', 'float64', 'float16', 'bfloat16')
SCALE = 1074  # 2^-1074 is the smallest float64 (and every smaller type's values are multiples of it)


def backends(place):
    """The GPU scan backends to run on a place ('engine' and thrust's reference, spec §11)."""
    return ['engine', 'thrust'] if place == 'gpu' else [None]


def strategies(place):
    """Sets each strategy of a place in turn: on the CPU 1 and 2 threads (a row past one chunk
    then runs the three-phase split), on the GPU each scan backend."""
    for backend in backends(place):
        if backend:
            paddle.set_flags({'PADDLE_OPS_GPU_SCAN': backend})
        for threads in ([1, 2] if place == 'cpu' else [None]):
            if threads:
                paddle.set_num_threads(threads)
            yield backend, threads


@pytest.fixture(autouse=True)
def _restore_settings():
    saved = paddle.get_flags(['PADDLE_OPS_GPU_SCAN'])
    threads = paddle.get_num_threads()
    yield
    paddle.set_flags(saved)
    paddle.set_num_threads(threads)


def round_bf16(a):
    """float64 values rounded once (to nearest even) to bfloat16, as float64: through a float32
    rounded to odd, so that no tie is rounded twice."""
    a = np.asarray(a, np.float64)
    f = a.astype(np.float32)
    bits = f.view(np.uint32).astype(np.int64)
    inexact = (f.astype(np.float64) != a) & np.isfinite(a)
    away = np.abs(a) > np.abs(f.astype(np.float64))
    bits = bits + np.where(inexact & ((bits & 1) == 0), np.where(away, 1, -1), 0)
    u = bits.astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32).astype(np.float64)


def round_to(a, dtype):
    if dtype == 'bfloat16':
        return round_bf16(a)
    return np.asarray(a, np.float64).astype(dtype).astype(np.float64)


def representable(a, dtype):
    """a (float64) made exactly representable in dtype (so make_tensor rounds nothing)."""
    return round_to(a, dtype)


def exact_int(v):
    n, d = float(v).as_integer_ratio()
    return n * ((1 << SCALE) // d)


def check_line(ours, x, dtype, exclusive):
    """One line in scan order: ours (float64 values of the output) against the exact prefix."""
    exact = list(itertools.accumulate(exact_int(v) for v in x))
    loop = np.add.accumulate(np.asarray(x, np.float64))
    if exclusive:
        exact = [0] + exact[:-1]
        loop = np.concatenate([[0.0], loop[:-1]])
    loop = round_to(loop, dtype)
    for i, (o, lp, e) in enumerate(zip(ours, loop, exact)):
        err = abs(exact_int(o) - e)
        if err > abs(exact_int(lp) - e):
            raise AssertionError('%s step %d: ours %r, float64 loop rounded %r, exact %r' %
                                 (dtype, i, o, lp, float(fractions.Fraction(e, 1 << SCALE))))


def check_scan(ours, x, axis, exclusive, reverse, dtype):
    """Every line of an N-D scan along `axis`."""
    o = np.moveaxis(np.asarray(ours, np.float64), axis, -1).reshape(-1, x.shape[axis])
    xs = np.moveaxis(x, axis, -1).reshape(-1, x.shape[axis])
    for orow, xrow in zip(o, xs):
        if reverse:
            orow, xrow = orow[::-1], xrow[::-1]
        check_line(orow, xrow, dtype, exclusive)


def cancelling(n, dtype, seed):
    """Random terms over 20 orders of magnitude (fewer for the 16-bit types), each followed
    within a few steps by its negative, and [B, -B, 1] runs: prefixes cancel to small values."""
    rng = np.random.default_rng(seed)
    hi = {'float16': 2, 'bfloat16': 20}.get(dtype, 20)
    lo = {'float16': -3, 'bfloat16': -10}.get(dtype, -10)
    v = rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(lo, hi, n)
    v = representable(v.astype(np.float32).astype(np.float64), dtype)
    x = np.empty(n)
    half = n // 2
    x[0::2][:half] = v[:half]
    x[1::2][:half] = -np.roll(v[:half], 1)  # the negative of the term two steps back
    if n % 2:
        x[-1] = v[-1]
    big = representable(np.float64(2.0 ** hi), dtype)
    for k in range(0, n - 3, 97):
        x[k:k + 3] = [big, -big, 1.0]
    return x


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOATS)
def test_big_minus_big_plus_one(dtype, place):
    """The issue's case: [B, -B, 1] gives [B, 0, 1] (float32 gave [1e20, 0, 0])."""
    big = {'float16': 16384.0}.get(dtype, 1e20)
    big = float(representable(np.float64(big), dtype))
    for backend in backends(place):
        if backend:
            paddle.set_flags({'PADDLE_OPS_GPU_SCAN': backend})
        out = tensor_values(paddle.cumsum(make_tensor([big, -big, 1.0], dtype, place)))
        assert out.tolist() == [big, 0.0, 1.0], (backend, out)
        # the gradient: grad_outputs [1, -B, B] flow back as the reverse cumsum [1, 0, B]
        x = make_tensor([1.0, 2.0, 3.0], dtype, place, stop_gradient=False)
        (dx,) = paddle.grad([paddle.cumsum(x)], [x],
                            grad_outputs=[make_tensor([1.0, -big, big], dtype, place)])
        assert tensor_values(dx).tolist() == [1.0, 0.0, big], (backend, dx)


# Layouts: one long row past a CPU chunk, rows, and columns (axis 0).
LONG = [((70000,), 0), ((3, 70000), -1), ((70000, 3), 0)]
SHORT = [((5000,), 0), ((4, 1300), 1), ((1300, 5), 0)]


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOATS)
@pytest.mark.parametrize('exclusive,reverse', [(False, False), (True, False), (False, True), (True, True)])
def test_never_worse_than_float64_loop(dtype, exclusive, reverse, place):
    layouts = LONG if dtype == 'float32' else SHORT
    for k, (shape, axis) in enumerate(layouts):
        x = cancelling(int(np.prod(shape)), dtype, seed=100 + k).reshape(shape)
        t = make_tensor(x, dtype, place)
        for _ in strategies(place):
            out = paddle.cumsum(t, axis=axis, exclusive=exclusive, reverse=reverse)
            check_scan(tensor_values(out), x, axis, exclusive, reverse, dtype)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOATS)
@pytest.mark.parametrize('exclusive,reverse', [(False, False), (True, True)])
def test_gradient_never_worse_than_float64_loop(dtype, exclusive, reverse, place):
    """x_grad is the cumsum of grad_outputs against the scan's direction: the same rule."""
    shape, axis = ((70000,), 0) if dtype == 'float32' else ((3, 4000), 1)
    g = cancelling(int(np.prod(shape)), dtype, seed=7).reshape(shape)
    x = make_tensor(np.zeros(shape), dtype, place, stop_gradient=False)
    gt = make_tensor(g, dtype, place)
    for _ in strategies(place):
        out = paddle.cumsum(x, axis=axis, exclusive=exclusive, reverse=reverse)
        (dx,) = paddle.grad([out], [x], grad_outputs=[gt])
        check_scan(tensor_values(dx), g, axis, exclusive, not reverse, dtype)


def test_oracle_rejects_the_tree_ordered_sum():
    """The oracle fails a plain double prefix in the SIMD's tree order on [B, -B, 1] (what the
    kernel did): so the tests above can fail."""
    x = np.array([1e20, -1e20, 1.0, 0.0])
    tree = [x[0], x[0] + x[1], x[0] + (x[1] + x[2])]  # (t1 + t2) + t0, as PrefixSum4 added
    with pytest.raises(AssertionError):
        check_line(np.float32(tree).astype(np.float64), x[:3], 'float32', False)
