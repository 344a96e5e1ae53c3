"""Creating tensors."""
import numbers

import numpy as np

from .. import _C
from .. import _C_ops
from .._C import Tensor
from ..framework import UNDEFINED, FLOATING, convert_dtype, convert_place, dtype_from_numpy, float32, int64

__all__ = ["to_tensor", "full_like", "zeros_like", "ones_like", "empty"]


def _default_dtype(data, arr):
    """Paddle's rule: Python floats become float32, Python ints int64; NumPy arrays keep theirs."""
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        return dtype_from_numpy(arr.dtype)
    if arr.dtype.kind == "f":
        return float32
    if arr.dtype.kind in "iu":
        return int64
    return dtype_from_numpy(arr.dtype)


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """Create a Tensor from a Python scalar, a (nested) list, a NumPy array or a Tensor.

    Args:
        data: the values. Complex data raises TypeError.
        dtype: the element type (a dtype object such as paddle_ops.float32, or its name).
            Default: the NumPy array's own dtype; float32 for Python floats, int64 for ints.
        place: 'cpu', 'gpu', 'gpu:N' or a Place. Default: the current device (set_device).
        stop_gradient: False makes the tensor a leaf that receives gradients in .grad.

    Example:
        >>> x = paddle_ops.to_tensor([[1., 2.], [3., 4.]], stop_gradient=False)
    """
    if not isinstance(stop_gradient, (bool, np.bool_)):
        raise TypeError(f"to_tensor(): argument 'stop_gradient' must be a bool, but got {type(stop_gradient).__name__}")
    target_place = convert_place(place)
    if isinstance(data, Tensor):
        t = data
        if dtype is not None and convert_dtype(dtype) != t.dtype:
            t = _C_ops.cast(t, convert_dtype(dtype))
        t = t._copy_to(target_place) if t.place != target_place else _C_ops.reshape(t, t.shape)
    else:
        if isinstance(data, (str, bytes)) or (not isinstance(data, (numbers.Number, np.ndarray, np.generic, list, tuple))):
            raise TypeError(f"to_tensor: data must be a number, a list, a tuple or a NumPy array, "
                            f"but got {type(data).__name__}")
        try:
            arr = np.asarray(data)
        except ValueError as e:
            raise ValueError(f"to_tensor: cannot make a rectangular array from data: {e}") from None
        if arr.dtype.kind == "c":
            raise TypeError(f"to_tensor: complex data ({arr.dtype}) is not supported")
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"to_tensor: data of kind {arr.dtype} cannot become a Tensor")
        dt = convert_dtype(dtype) if dtype is not None else _default_dtype(data, arr)
        np_dt = np.dtype(_C.numpy_dtype_of(dt))
        arr = np.require(arr.astype(np_dt, copy=False), requirements="C")  # keeps 0-D as 0-D
        t = _C.tensor_from_numpy(arr, dt, target_place)
    if not stop_gradient:
        if t.dtype not in FLOATING:
            raise TypeError(f"to_tensor: only floating-point tensors can have stop_gradient=False, got {t.dtype}")
        t.stop_gradient = False
    return t


def full_like(x, fill_value, dtype=None, name=None):
    """A tensor of x's shape (and dtype unless given) filled with fill_value (a number that the
    dtype can hold: ValueError otherwise)."""
    if isinstance(fill_value, (str, bytes)) or not isinstance(fill_value, (numbers.Number, np.generic)):
        raise TypeError(f"full_like(): argument 'fill_value' must be a number, but got {type(fill_value).__name__}")
    return _C_ops.full_like(x, fill_value, convert_dtype(dtype) if dtype is not None else UNDEFINED)


def zeros_like(x, dtype=None, name=None):
    return full_like(x, 0, dtype)


def ones_like(x, dtype=None, name=None):
    return full_like(x, 1, dtype)


def empty(shape, dtype="float32", place=None, name=None):
    """An uninitialized tensor of `shape` (a list of ints) on `place` (default: the current device)."""
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise TypeError(f"empty(): argument 'shape' must be a list of non-negative ints, but got {shape!r}")
    return _C.empty(list(shape), convert_dtype(dtype), convert_place(place))
