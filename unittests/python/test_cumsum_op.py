"""cumsum: docs/spec.md §2 (the same axis/flatten/exclusive/reverse rules as logcumsumexp;
integers accumulate exactly; the gradient is the reverse cumsum of out_grad).

The generic OpInfo checks run from test_op_db.py; the tests below spell out the rest.
"""

import numpy as np
import pytest

import paddle_ops as paddle
from op_db import EXCLUSIVE_REVERSE, OP_DB
from op_test import (FLOAT_DTYPES, available_places, expect_axis_out_of_range,
                     dtype_name, make_tensor, tensor_values)

OP = OP_DB['cumsum']
PLACES = available_places()
NUMERIC_DTYPES = FLOAT_DTYPES + ('int32', 'int64')


def cumsum(values, dtype, place='cpu', **kwargs):
    return paddle.cumsum(make_tensor(values, dtype, place), **kwargs)


KNOWN = [
    (False, False, [1, 3, 6, 10]),
    (True, False, [0, 1, 3, 6]),
    (False, True, [10, 9, 7, 4]),
    (True, True, [9, 7, 4, 0]),
]


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', NUMERIC_DTYPES)
@pytest.mark.parametrize('exclusive,reverse,expected', KNOWN)
def test_known_values(exclusive, reverse, expected, dtype, place):
    out = cumsum([1, 2, 3, 4], dtype, place, axis=0, exclusive=exclusive, reverse=reverse)
    assert dtype_name(out.dtype) == dtype
    assert tensor_values(out).tolist() == expected


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('exclusive,reverse,expected', KNOWN)
def test_known_gradients(exclusive, reverse, expected, place):
    """x_grad is the cumsum of out_grad in the other direction: with out_grad [1, 10, 100,
    1000] each x[i] collects the out_grad of the outputs it feeds."""
    x = make_tensor([1.0, 2.0, 3.0, 4.0], 'float64', place, stop_gradient=False)
    out = paddle.cumsum(x, axis=0, exclusive=exclusive, reverse=reverse)
    out.backward(make_tensor([1.0, 10.0, 100.0, 1000.0], 'float64', place))
    feeds = {(False, False): [1111, 1110, 1100, 1000], (True, False): [1110, 1100, 1000, 0],
             (False, True): [1, 11, 111, 1111], (True, True): [0, 1, 11, 111]}
    assert tensor_values(x.grad).tolist() == feeds[(exclusive, reverse)]
    assert out.numpy().tolist() == expected


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('exclusive,reverse', EXCLUSIVE_REVERSE)
def test_int64_exact_for_large_values(exclusive, reverse, place):
    """Sums past 2^53 are exact: no detour through float64."""
    values = np.array([2 ** 52 + 1, 2 ** 52 + 3, -(2 ** 51) + 5, 2 ** 60 + 7, 1, -(2 ** 61) + 11,
                       3], dtype=np.int64)
    out = cumsum(values, 'int64', place, axis=0, exclusive=exclusive, reverse=reverse)
    assert out.dtype == paddle.int64
    expected = OP.ref(values, axis=0, exclusive=exclusive, reverse=reverse)
    assert np.array_equal(out.numpy(), expected), (out.numpy(), expected)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('exclusive,reverse', EXCLUSIVE_REVERSE)
def test_int32_exact_for_large_values(exclusive, reverse, place):
    """int32 stays int32 and is exact up to the type's range (no float32 detour: these sums
    are not float32 numbers)."""
    values = np.array([[2 ** 30 - 1, 2 ** 29 + 7, -(2 ** 30) + 3, 2 ** 28 + 1, 5]] * 2,
                      dtype=np.int32)
    values[1] = values[1][::-1]
    out = cumsum(values, 'int32', place, axis=1, exclusive=exclusive, reverse=reverse)
    assert out.dtype == paddle.int32
    expected = OP.ref(values.astype(np.int64), axis=1, exclusive=exclusive, reverse=reverse)
    assert np.abs(expected).max() < 2 ** 31
    assert np.array_equal(out.numpy().astype(np.int64), expected), (out.numpy(), expected)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['int32', 'int64'])
def test_long_integer_row_exact(dtype, place):
    n = (1 << 20) + 3
    values = np.arange(1, n + 1, dtype=np.int64) % 1000 - 400
    out = cumsum(values, dtype, place, axis=0, reverse=True)
    assert np.array_equal(out.numpy().astype(np.int64), np.cumsum(values[::-1])[::-1])


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('reverse', [False, True])
def test_long_float32_row_of_ones_exact(reverse, place):
    """Partial sums of ones are integers < 2^24: exact in float32 in any summation order."""
    n = (1 << 20) + 3
    out = cumsum(np.ones(n), 'float32', place, axis=0, reverse=reverse)
    expected = np.arange(1, n + 1, dtype=np.float32)
    assert np.array_equal(out.numpy(), expected[::-1] if reverse else expected)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['bool', 'int8', 'uint8', 'int16'])
def test_small_integer_types_promote_to_int64(dtype, place):
    """bool/int8/uint8/int16 accumulate in int64: 100 + 100 + 100 does not wrap."""
    values = np.array([True, False, True, True]) if dtype == 'bool' else \
        np.array([100, 100, 100, 27])
    x = make_tensor(values, dtype, place)
    out = paddle.cumsum(x, axis=0)
    assert out.dtype == paddle.int64
    assert out.numpy().tolist() == np.cumsum(values.astype(np.int64)).tolist()


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype_arg', ['int64', paddle.int64])
def test_dtype_arg_widens_int32(dtype_arg, place):
    values = np.array([2 ** 30, 2 ** 30, 2 ** 30, -5], dtype=np.int32)
    out = paddle.cumsum(make_tensor(values, 'int32', place), axis=0, dtype=dtype_arg)
    assert out.dtype == paddle.int64
    assert out.numpy().tolist() == np.cumsum(values.astype(np.int64)).tolist()


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype_arg', ['float64', paddle.float64])
def test_dtype_arg_casts_before_summing(dtype_arg, place):
    """1 + 2^-30 rounds to 1 in float32; summed in float64 it does not."""
    values = np.array([1.0, 2.0 ** -30, 2.0 ** -30], dtype=np.float32)
    out = paddle.cumsum(make_tensor(values, 'float32', place), axis=0, dtype=dtype_arg)
    assert out.dtype == paddle.float64
    assert out.numpy().tolist() == [1.0, 1.0 + 2.0 ** -30, 1.0 + 2.0 ** -29]


@pytest.mark.parametrize('place', PLACES)
def test_int_input_float_dtype_arg(place):
    out = paddle.cumsum(make_tensor([3, -1, 4], 'int64', place), dtype='float32')
    assert out.dtype == paddle.float32
    assert out.numpy().tolist() == [3.0, 2.0, 6.0]


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_nan_and_inf_propagate(dtype, place):
    got = tensor_values(cumsum([1.0, np.nan, 2.0], dtype, place, axis=0))
    assert got[0] == 1.0 and np.isnan(got[1:]).all()
    got = tensor_values(cumsum([1.0, np.inf, 2.0, -np.inf], dtype, place, axis=0))
    assert got[0] == 1.0 and got[1] == np.inf and got[2] == np.inf and np.isnan(got[3])
    got = tensor_values(cumsum([[1.0, 2.0], [np.nan, 3.0]], dtype, place, axis=1))
    assert got[0].tolist() == [1.0, 3.0] and np.isnan(got[1]).all()


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', NUMERIC_DTYPES)
def test_zero_d(dtype, place):
    x = make_tensor(5, dtype, place)
    flat = paddle.cumsum(x)
    assert flat.shape == [1] and tensor_values(flat).tolist() == [5]
    for axis in (0, -1):
        out = paddle.cumsum(x, axis=axis)
        assert out.shape == [] and tensor_values(out).item() == 5
        assert tensor_values(paddle.cumsum(x, axis=axis, exclusive=True)).item() == 0
    for axis in (1, -2):
        expect_axis_out_of_range(lambda: paddle.cumsum(x, axis=axis), axis, 0)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', NUMERIC_DTYPES)
@pytest.mark.parametrize('shape,axis,out_shape', [
    ((0,), 0, [0]), ((0,), None, [0]), ((3, 0), 1, [3, 0]), ((3, 0), 0, [3, 0]),
    ((0, 4), -1, [0, 4]), ((0, 4), None, [0]),
])
def test_zero_size(shape, axis, out_shape, dtype, place):
    out = cumsum(np.zeros(shape), dtype, place, axis=axis, reverse=True)
    assert out.shape == out_shape and out.numpy().size == 0
    assert dtype_name(out.dtype) == dtype


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['float32', 'int32', 'int64'])
def test_tensor_method(dtype, place):
    values = np.arange(24).reshape(2, 3, 4) - 10
    x = make_tensor(values, dtype, place)
    for kwargs in [{}, dict(axis=1), dict(axis=-1, exclusive=True, reverse=True)]:
        via_method = x.cumsum(**kwargs)
        via_function = paddle.cumsum(x, **kwargs)
        assert via_method.dtype == via_function.dtype
        assert np.array_equal(via_method.numpy(), via_function.numpy()), kwargs
        expected = OP.ref(values.astype(np.int64), **kwargs)
        assert np.array_equal(tensor_values(via_method), expected), kwargs
