"""logcumsumexp: docs/spec.md §1.

The generic OpInfo checks (every dtype, shape, axis, exclusive/reverse combination, dtype
argument, gradients, errors, places) run from test_op_db.py; the tests below pin
down the behaviour docs/spec.md states explicitly.
"""

import math

import numpy as np
import pytest

import paddle_ops as paddle
from op_db import EXCLUSIVE_REVERSE, OP_DB, logcumsumexp_grad_ref, logcumsumexp_ref
from op_test import (FLOAT_DTYPES, GRAD_TOLERANCES, SampleInput,
                     assert_close, available_places, check_grad_ref,
                     dtype_name, expect_axis_out_of_range, make_tensor, numpy_values, tensor_values)

OP = OP_DB['logcumsumexp']
PLACES = available_places()
INF = np.inf
NAN = np.nan


def logcumsumexp(values, dtype='float64', place='cpu', **kwargs):
    return paddle.logcumsumexp(make_tensor(values, dtype, place), **kwargs)


def check_against_reference(out, x_values, dtype, msg='', **kwargs):
    """out (a Tensor of `dtype`) equals the long double reference of x_values."""
    expected = logcumsumexp_ref(np.asarray(x_values, dtype=np.longdouble), **kwargs)
    assert dtype_name(out.dtype) == dtype
    assert_close(numpy_values(out), expected, dtype, OP.tolerance(dtype), msg=msg or str(kwargs))


def backward_with(values, out_grad, dtype, place, **kwargs):
    """(x, out, g) after out.backward(g) for x = values."""
    x = make_tensor(values, dtype, place, stop_gradient=False)
    out = paddle.logcumsumexp(x, **kwargs)
    g = make_tensor(out_grad, dtype, place)
    out.backward(g)
    return x, out, g


def grad_reference(x, out, g, **kwargs):
    ld = np.longdouble
    return logcumsumexp_grad_ref(tensor_values(x).astype(ld), tensor_values(out).astype(ld),
                                 tensor_values(g).astype(ld), **kwargs)


# ------------------------------------------------------------------------------------------
# Values
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('exclusive,reverse,expected', [
    (False, False, [0, math.log(2), math.log(3), math.log(4)]),
    (True, False, [-INF, 0, math.log(2), math.log(3)]),
    (False, True, [math.log(4), math.log(3), math.log(2), 0]),
    (True, True, [math.log(3), math.log(2), 0, -INF]),
])
def test_known_values(place, exclusive, reverse, expected):
    out = logcumsumexp([0.0, 0.0, 0.0, 0.0], 'float64', place, axis=0, exclusive=exclusive,
                       reverse=reverse)
    assert_close(out.numpy(), np.array(expected), 'float64', OP.tolerance('float64'))


@pytest.mark.parametrize('place', PLACES)
def test_readme_values(place):
    out = logcumsumexp([[1.0, 2.0], [3.0, 4.0]], 'float32', place, axis=1, reverse=True)
    expected = [[math.log(math.e + math.e ** 2), 2.0], [math.log(math.e ** 3 + math.e ** 4), 4.0]]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize('place', PLACES)
def test_axis_none_flattens_in_c_order(place):
    values = np.arange(6.0).reshape(2, 3) / 3
    out = logcumsumexp(values, 'float64', place)
    assert out.shape == [6]
    flat = logcumsumexp(values.reshape(-1), 'float64', place, axis=0)
    assert np.array_equal(out.numpy(), flat.numpy())
    check_against_reference(out, values.reshape(-1), 'float64', axis=0)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_zero_d(dtype, place):
    x = make_tensor(1.5, dtype, place)
    assert x.shape == []
    flat = paddle.logcumsumexp(x)
    assert flat.shape == [1] and float(numpy_values(flat)[0]) == 1.5
    for axis in (0, -1):
        out = paddle.logcumsumexp(x, axis=axis)
        assert out.shape == [] and float(numpy_values(out)) == 1.5
        assert dtype_name(out.dtype) == dtype
        excl = paddle.logcumsumexp(x, axis=axis, exclusive=True)
        assert excl.shape == [] and float(numpy_values(excl)) == -INF
    for axis in (1, -2):
        expect_axis_out_of_range(lambda: paddle.logcumsumexp(x, axis=axis), axis, 0)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('shape,axis,out_shape', [
    ((0,), 0, [0]), ((0,), None, [0]), ((0,), -1, [0]),
    ((2, 0, 3), 0, [2, 0, 3]), ((2, 0, 3), 1, [2, 0, 3]), ((2, 0, 3), -1, [2, 0, 3]),
    ((2, 0, 3), None, [0]),
])
def test_zero_size(shape, axis, out_shape, place):
    x = make_tensor(np.zeros(shape), 'float32', place, stop_gradient=False)
    out = paddle.logcumsumexp(x, axis=axis, exclusive=True)
    assert out.shape == out_shape and out.numpy().size == 0
    assert out.dtype == paddle.float32
    out.sum().backward()
    assert x.grad is not None and x.grad.shape == list(shape)


# ------------------------------------------------------------------------------------------
# Overflow, special values, wide ranges, long rows
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('exclusive,reverse', EXCLUSIVE_REVERSE)
@pytest.mark.parametrize('dtype,start', [
    ('float32', 10000), ('float64', 10000), ('float32', -10024), ('float64', -10024),
    ('float32', 80), ('float16', 100), ('float16', -124), ('bfloat16', 100),
])
def test_no_overflow(dtype, start, exclusive, reverse, place):
    """exp(x) overflows (or underflows) in the type; the op must not."""
    values = np.arange(start, start + 24, dtype=np.float64)
    out = logcumsumexp(values, dtype, place, axis=0, exclusive=exclusive, reverse=reverse)
    got = tensor_values(out)
    edge = (-1 if reverse else 0) if exclusive else None
    finite = np.delete(got, edge) if edge is not None else got
    assert np.isfinite(finite).all(), got
    check_against_reference(out, values, dtype, axis=0, exclusive=exclusive, reverse=reverse)


@pytest.mark.parametrize('place', PLACES)
def test_no_overflow_closed_form(place):
    """out[i] = 10000 + log((e^(i+1) - 1) / (e - 1)) for x = arange(10000, 10024)."""
    out = logcumsumexp(np.arange(10000, 10024), 'float64', place, axis=0)
    i = np.arange(24, dtype=np.longdouble)
    expected = 10000 + np.log(np.expm1(i + 1) / np.expm1(np.longdouble(1)))
    assert_close(out.numpy(), expected, 'float64', OP.tolerance('float64'))
    out32 = logcumsumexp(np.arange(10000, 10024), 'float32', place, axis=0)
    assert_close(out32.numpy(), expected, 'float32', OP.tolerance('float32'))


SPECIAL_ROWS = [
    ('all -inf', [-INF, -INF, -INF, -INF]),
    ('-inf prefix', [-INF, -INF, 1.0, -INF, 2.0]),
    ('+inf', [1.0, INF, 2.0, -INF, 3.0]),
    ('-inf then +inf', [-INF, INF, -INF]),
    ('+inf then nan', [INF, NAN, 1.0]),
    ('nan then +inf', [0.5, NAN, INF]),
    ('nan first', [NAN, 1.0, 2.0]),
    ('-inf around nan', [-INF, NAN, -INF]),
]


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
@pytest.mark.parametrize('exclusive,reverse', EXCLUSIVE_REVERSE)
@pytest.mark.parametrize('name,row', SPECIAL_ROWS, ids=[n for n, _ in SPECIAL_ROWS])
def test_special_values(name, row, exclusive, reverse, dtype, place):
    """-inf adds nothing (a prefix of only -inf gives -inf, never NaN); +inf gives +inf from
    there on; NaN makes every later output NaN. assert_close requires NaN and +-inf in
    exactly the reference's places."""
    out = logcumsumexp(row, dtype, place, axis=0, exclusive=exclusive, reverse=reverse)
    check_against_reference(out, row, dtype, msg=name, axis=0, exclusive=exclusive,
                            reverse=reverse)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_special_values_spelled_out(dtype, place):
    got = tensor_values(logcumsumexp([-INF, -INF, 1.0, -INF], dtype, place, axis=0))
    assert got[0] == -INF and got[1] == -INF and not np.isnan(got).any()
    assert got[2] == pytest.approx(1.0, rel=1e-2) and got[3] == got[2]
    got = tensor_values(logcumsumexp([-INF] * 3, dtype, place, axis=0, exclusive=True))
    assert (got == -INF).all(), got
    got = tensor_values(logcumsumexp([1.0, INF, 2.0, -INF], dtype, place, axis=0))
    assert got[0] == pytest.approx(1.0, rel=1e-2) and (got[1:] == INF).all(), got
    got = tensor_values(logcumsumexp([1.0, NAN, 2.0], dtype, place, axis=0))
    assert np.isfinite(got[0]) and np.isnan(got[1:]).all(), got


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
@pytest.mark.parametrize('axis', [0, 1, -1])
def test_nan_poisons_only_its_row(axis, dtype, place):
    rng = np.random.default_rng(3)
    values = rng.standard_normal((5, 6))
    values[2, 3] = NAN
    x = make_tensor(values, dtype, place)
    out_tensor = paddle.logcumsumexp(x, axis=axis)
    out = tensor_values(out_tensor)
    poisoned = np.zeros(values.shape, dtype=bool)
    if axis == 0:
        poisoned[2:, 3] = True
    else:
        poisoned[2, 3:] = True
    assert np.array_equal(np.isnan(out), poisoned), out
    check_against_reference(out_tensor, tensor_values(x), dtype, axis=axis)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
@pytest.mark.parametrize('axis', [0, 1, None])
def test_exclusive_first_element_is_neg_inf(axis, dtype, place):
    """The first exclusive output is -inf (log of an empty sum), not the lowest float."""
    values = np.random.default_rng(4).standard_normal((3, 5))
    fwd = tensor_values(logcumsumexp(values, dtype, place, axis=axis, exclusive=True))
    rev = tensor_values(logcumsumexp(values, dtype, place, axis=axis, exclusive=True,
                                     reverse=True))
    if axis is None:
        first, last = fwd[0:1], rev[-1:]
        rest = np.concatenate([fwd[1:], rev[:-1]])
    else:
        first = np.take(fwd, 0, axis=axis)
        last = np.take(rev, -1, axis=axis)
        n = values.shape[axis]
        rest = np.concatenate([np.take(fwd, range(1, n), axis=axis).ravel(),
                               np.take(rev, range(n - 1), axis=axis).ravel()])
    assert (first == -INF).all() and (last == -INF).all(), (first, last)
    assert np.isfinite(rest).all()


WIDE_LENGTH = 4096 + 17


def wide_range_rows(rng):
    """Rows mixing -1000..1000, plus rows built to defeat a block-max rescaling: a long run
    near -1000 (whose sums underflow once rescaled by a later max of +1000), then +1000."""
    n = WIDE_LENGTH
    uniform = rng.uniform(-1000, 1000, n)
    trap = np.concatenate([-1000 + rng.standard_normal(300), [1000.0],
                           rng.uniform(-1000, 1000, n - 301)])
    small_then_big = np.concatenate([rng.standard_normal(n - 1), [900.0]])
    return np.stack([uniform, trap, -trap, np.sort(uniform), np.sort(uniform)[::-1],
                     small_then_big])


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('layout', ['rows', 'columns', 'flat'])
@pytest.mark.parametrize('exclusive,reverse', EXCLUSIVE_REVERSE)
def test_wide_range_accuracy(layout, exclusive, reverse, dtype, place):
    rows = wide_range_rows(np.random.default_rng(5))
    if dtype == 'float32':
        rows = rows.astype(np.float32).astype(np.float64)
    if layout == 'rows':
        values, axis = rows, 1
    elif layout == 'columns':
        values, axis = np.ascontiguousarray(rows.T), 0
    else:
        values, axis = rows[1], None
    out = logcumsumexp(values, dtype, place, axis=axis, exclusive=exclusive, reverse=reverse)
    check_against_reference(out, values, dtype, axis=axis, exclusive=exclusive,
                            reverse=reverse)


@pytest.mark.parametrize('place', PLACES)
def test_long_row_float32_accuracy(place):
    """docs/spec.md: float32 max |out - ref64| <= 2.5e-7 * max(1, |ref|) on a 2^24-element row
    (a float32 running accumulator is off by ~1 here)."""
    n = 1 << 24
    x32 = np.random.default_rng(6).standard_normal(n, dtype=np.float32)
    out = paddle.logcumsumexp(make_tensor(x32, 'float32', place), axis=0)
    assert out.shape == [n] and out.dtype == paddle.float32
    got = out.numpy()
    del out
    x64 = x32.astype(np.float64)
    del x32
    # With randn data the row's range is modest, so shifting by the max and summing in
    # float64 is exact to ~1e-9, far below the float32 bound being tested.
    top = x64.max()
    np.subtract(x64, top, out=x64)
    np.exp(x64, out=x64)
    np.cumsum(x64, out=x64)
    np.log(x64, out=x64)
    x64 += top
    ref = x64
    assert np.isfinite(got).all()
    error = np.abs(got - ref) / np.maximum(1.0, np.abs(ref))
    worst = int(np.argmax(error))
    print('\nlogcumsumexp float32 row of 2^24 on %s: max |out-ref64|/max(1,|ref|) = %.3g '
          '(limit 2.5e-7) at %d (out=%r ref=%r)' % (place, error[worst], worst,
                                                     float(got[worst]), ref[worst]))
    assert error[worst] <= 2.5e-7


# ------------------------------------------------------------------------------------------
# dtypes
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['int32', 'int64', 'bool'])
def test_integer_input_promotes_to_float32(dtype, place):
    values = np.array([[1, 0, 3], [2, 5, 1]]) if dtype != 'bool' else \
        np.array([[True, False, True], [False, True, True]])
    x = make_tensor(values, dtype, place)
    out = paddle.logcumsumexp(x, axis=1)
    assert out.dtype == paddle.float32
    check_against_reference(out, values.astype(np.float64), 'float32', axis=1)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype_arg', ['float64', paddle.float64])
def test_dtype_arg_casts_before_computing(dtype_arg, place):
    # 1 + 2^-30 is not a float32, but x is: the output is the float64 result of the float32
    # values, accurate to float64's tolerance.
    values = np.array([1.0, 1.0 + 2 ** -20, -3.25, 7.0], dtype=np.float32)
    out = paddle.logcumsumexp(make_tensor(values, 'float32', place), axis=0, dtype=dtype_arg)
    assert out.dtype == paddle.float64
    check_against_reference(out, values.astype(np.float64), 'float64', axis=0)


@pytest.mark.parametrize('place', PLACES)
def test_dtype_arg_to_half(place):
    values = np.linspace(-3, 3, 11)
    for target in ('float16', 'bfloat16'):
        out = paddle.logcumsumexp(make_tensor(values, 'float64', place), axis=0, dtype=target)
        assert dtype_name(out.dtype) == target
        x_cast = tensor_values(make_tensor(values, 'float64', place).astype(target))
        check_against_reference(out, x_cast, target, axis=0)


# ------------------------------------------------------------------------------------------
# Gradients
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
@pytest.mark.parametrize('exclusive,reverse', EXCLUSIVE_REVERSE)
def test_grad_at_neg_inf_is_zero(exclusive, reverse, dtype, place):
    """docs/spec.md: the gradient is finite where x = -inf, and 0 there (torch gives NaN)."""
    values = np.array([[-INF, 1.0, -INF, 2.0, -INF],
                       [-INF, -INF, -INF, -INF, -INF],
                       [0.5, -INF, -INF, -1.0, 3.0]])
    g = np.array([[1.0, -2.0, 0.5, 1.5, -1.0]] * 3)
    x, out, gt = backward_with(values, g, dtype, place, axis=1, exclusive=exclusive,
                               reverse=reverse)
    grad = tensor_values(x.grad)
    assert np.isfinite(grad).all(), grad
    assert (grad[values == -INF] == 0).all(), grad
    expected = grad_reference(x, out, gt, axis=1, exclusive=exclusive, reverse=reverse)
    tol = GRAD_TOLERANCES[dtype] * max(1.0, float(np.abs(expected).max()))
    assert np.abs(grad - expected).max() <= tol, (grad, expected)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
@pytest.mark.parametrize('exclusive,reverse', EXCLUSIVE_REVERSE)
def test_grad_mixed_sign_out_grad(exclusive, reverse, dtype, place):
    """out_grad of both signs, including sums that nearly cancel."""
    rng = np.random.default_rng(8)
    values = rng.standard_normal((3, 40))
    alternating = np.where(np.arange(40) % 2 == 0, 1.0, -1.0)
    g = np.stack([alternating, rng.standard_normal(40), alternating * rng.uniform(1, 1.01, 40)])
    sample = SampleInput(values, dict(axis=1, exclusive=exclusive, reverse=reverse))
    x, out, gt = backward_with(values, g, dtype, place, **sample.kwargs)
    expected = grad_reference(x, out, gt, **sample.kwargs)
    grad = tensor_values(x.grad)
    tol = GRAD_TOLERANCES[dtype] * max(1.0, float(np.abs(expected).max()))
    assert np.abs(grad - expected).max() <= tol, (grad - expected)
    # and the random-out_grad check the generic tests use
    check_grad_ref(OP, sample, dtype, place, rng)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('exclusive,reverse', EXCLUSIVE_REVERSE)
def test_grad_large_magnitude(exclusive, reverse, dtype, place):
    """|x| up to 1e4: exp(x) overflows, exp(x - out) does not; the gradient stays finite."""
    rng = np.random.default_rng(9)
    values = np.stack([rng.uniform(-1e4, 1e4, 64),
                       np.concatenate([np.arange(10000, 10032), -np.arange(10000, 10032)]),
                       np.concatenate([-np.arange(10000, 10032), np.arange(10000, 10032)]),
                       np.full(64, -1e4)])
    g = rng.standard_normal(values.shape)
    kwargs = dict(axis=1, exclusive=exclusive, reverse=reverse)
    x, out, gt = backward_with(values, g, dtype, place, **kwargs)
    grad = tensor_values(x.grad)
    assert np.isfinite(grad).all(), grad
    expected = grad_reference(x, out, gt, **kwargs)
    tol = GRAD_TOLERANCES[dtype] * max(1.0, float(np.abs(expected).max()))
    assert np.abs(grad - expected).max() <= tol, (grad, expected)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('exclusive,reverse', EXCLUSIVE_REVERSE)
def test_grad_through_small_gates(exclusive, reverse, place):
    """float32 lines whose first two outputs jump by 7.5, 12, 16 and 20, out_grad only at the
    end: x[0]'s gradient passes one gate of exp(-jump). A gate taken as 1 + expm1 in float keeps
    expm1's absolute error (~6e-8: all of a gate of 2e-9); taken as exp it keeps its relative
    accuracy (the CPU's SIMD gates and the GPU's below 1/2). Each element within 1e-5 of the
    reference's sum of |out_grad| terms (the GPU tests' measure, test_gpu_scan_engine.py)."""
    rng = np.random.default_rng(43)
    x = (2 * rng.standard_normal((4, 600))).astype(np.float32)
    for r, jump in enumerate([7.5, 12.0, 16.0, 20.0]):
        x[r, :2] = [4.0 - jump, 4.0]
    g = np.zeros_like(x)
    g[:, -1] = 1.0
    if reverse:  # the same lines in the forward's order
        x, g = x[:, ::-1].copy(), g[:, ::-1].copy()
    kwargs = dict(axis=1, exclusive=exclusive, reverse=reverse)
    xt, out, gt = backward_with(x, g, 'float32', place, **kwargs)
    grad = tensor_values(xt.grad).astype(np.float64)
    ref = grad_reference(xt, out, gt, **kwargs).astype(np.float64)
    mag = grad_reference(xt, out, make_tensor(np.abs(g), 'float32', place), **kwargs).astype(np.float64)
    err = np.abs(grad - ref) / np.maximum(mag, 1e-30)
    worst = np.unravel_index(np.argmax(err), err.shape)
    assert err[worst] <= 1e-5, f'error {err[worst]:.3g} at {worst}: grad {grad[worst]!r}, ref {ref[worst]!r}'


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('reverse', [False, True])
@pytest.mark.parametrize('axis', [0, 1])
def test_grad_of_sum_adds_up_to_length(axis, reverse, place):
    """With out_grad = 1 every inclusive output's softmax weights sum to one, so the
    gradient summed along the axis equals the axis length."""
    values = np.random.default_rng(10).standard_normal((6, 33)) * 5
    x = make_tensor(values, 'float64', place, stop_gradient=False)
    paddle.logcumsumexp(x, axis=axis, reverse=reverse).sum().backward()
    totals = tensor_values(x.grad).sum(axis=axis)
    np.testing.assert_allclose(totals, values.shape[axis], rtol=1e-12)


# ------------------------------------------------------------------------------------------
# Errors and the Tensor method
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('dtype_arg', ['int32', 'int64', paddle.int32, paddle.int64])
def test_integer_dtype_arg_raises(dtype_arg):
    with pytest.raises(TypeError, match='(?i)dtype'):
        paddle.logcumsumexp(make_tensor([1.0, 2.0], 'float32'), dtype=dtype_arg)


@pytest.mark.parametrize('place', PLACES)
def test_tensor_method(place):
    values = np.random.default_rng(11).standard_normal((3, 4, 5))
    x = make_tensor(values, 'float32', place)
    for kwargs in [{}, dict(axis=1), dict(axis=-1, exclusive=True, reverse=True),
                   dict(axis=0, dtype='float64')]:
        via_method = x.logcumsumexp(**kwargs)
        via_function = paddle.logcumsumexp(x, **kwargs)
        assert via_method.dtype == via_function.dtype
        assert via_method.shape == via_function.shape
        assert np.array_equal(via_method.numpy(), via_function.numpy()), kwargs
    # positional axis, as in Paddle
    assert np.array_equal(x.logcumsumexp(2).numpy(), paddle.logcumsumexp(x, 2).numpy())
