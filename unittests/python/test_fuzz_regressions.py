"""Regressions of what the fuzzer (unittests/fuzz) and the bad-input table found, on every place."""
import numpy as np
import pytest

import paddle_ops as paddle
from op_test import available_places


@pytest.mark.parametrize("place", available_places())
@pytest.mark.parametrize("exclusive", [False, True])
def test_logcumsumexp_grad_finite_next_to_pos_inf(place, exclusive):
    """A +inf input made exp(inf - inf) = NaN gates that poisoned every gradient of its row;
    the finite inputs' gradients are finite (those after the +inf: 0)."""
    x = paddle.to_tensor(np.array([1.0, 2.0, np.inf, 3.0, -np.inf], np.float32), place=place, stop_gradient=False)
    y = paddle.logcumsumexp(x, exclusive=exclusive)
    w = np.array([0.5, -2.0, 0.0, 0.0, 0.0], np.float32)  # only the finite outputs matter
    (y * paddle.to_tensor(w, place=place)).sum().backward()
    g = x.grad.numpy()
    o = np.logaddexp.accumulate(np.array([1.0, 2.0], np.float64))
    if exclusive:  # out[1] = x[0], out[0] = -inf: x[0] feeds out[1] only
        expected = np.array([-2.0, 0.0, np.nan, 0.0, 0.0])
    else:
        expected = np.array([0.5 + -2.0 * np.exp(1.0 - o[1]), -2.0 * np.exp(2.0 - o[1]), np.nan, 0.0, 0.0])
    finite = np.isfinite(expected)
    np.testing.assert_allclose(g[finite], expected[finite], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("axis", [2 ** 32, -2 ** 32 - 1, 2 ** 40])
def test_cumsum_huge_axis_is_index_error(axis):
    """axis = 2^32 was narrowed to a 32-bit 0 and silently scanned axis 0."""
    x = paddle.to_tensor(np.ones((2, 3), np.float32))
    with pytest.raises(IndexError, match=str(axis)):
        paddle.cumsum(x, axis=axis)
    with pytest.raises(IndexError, match=str(axis)):
        paddle.logcumsumexp(x, axis=axis)


@pytest.mark.parametrize("value", [1e30, -1e300, float("nan"), float("inf")])
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
def test_full_like_float_out_of_integer_range(value, dtype):
    """A float fill value beyond int64 went through an undefined float -> int64 conversion.
    As NumPy 2: OverflowError out of range, ValueError for NaN and inf (spec §8)."""
    x = paddle.to_tensor(np.ones(3, dtype))
    with pytest.raises(OverflowError if np.isfinite(value) else ValueError, match="fill_value"):
        paddle.full_like(x, value)
    np.testing.assert_array_equal(paddle.full_like(x, 7).numpy(), np.full(3, 7, dtype))


def test_cast_dtype_none_is_type_error():
    """dtype=None became float64 (NumPy's np.dtype(None))."""
    with pytest.raises(TypeError, match="dtype"):
        paddle.cast(paddle.to_tensor([1.0]), None)


def test_to_tensor_stop_gradient_must_be_bool():
    """stop_gradient='no' was truthy: silently kept stop_gradient=True."""
    with pytest.raises(TypeError, match="stop_gradient"):
        paddle.to_tensor([1.0], stop_gradient="no")
