"""Creating tensors."""
import builtins
import math
import numbers

import numpy as np

from .. import _C
from .. import _C_ops
from .._C import Tensor
from ..framework import (FLOATING, INTEGER, UNDEFINED, bfloat16, bool as _bool, convert_dtype, convert_place,
                         dtype_from_numpy, float32, int64)

__all__ = ["to_tensor", "full", "full_like", "zeros_like", "ones_like", "empty"]


def _default_dtype(data, arr):
    """Paddle's rule: Python floats become float32, Python ints int64; NumPy arrays keep theirs
    (a uint16 array holds bfloat16 bits, as in Paddle)."""
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        if arr.dtype == np.uint16:
            return bfloat16
        return dtype_from_numpy(arr.dtype)
    if arr.dtype.kind == "f":
        return float32
    if arr.dtype.kind in "iuO":  # O: Python ints beyond 64 bits (refused by _checked_array)
        return int64
    return dtype_from_numpy(arr.dtype)


def _is_int_value(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (builtins.bool, np.bool_))


def _all_ints(data):
    """A Python int, or a (nested) list or tuple of them only."""
    if isinstance(data, (list, tuple)):
        return all(_all_ints(v) for v in data)
    return _is_int_value(data)


def _range_error(value, dt, what):
    info = np.iinfo(_C.numpy_dtype_of(dt))
    return OverflowError(f"{what}: the value {value} is out of range for {dt} [{info.min}, {info.max}]")


def _checked_array(arr, dt, what="to_tensor(): argument 'data'"):
    """`arr` as a C-contiguous array of dtype `dt`'s NumPy transfer type, refusing what would
    wrap as NumPy 2 refuses it: an integer out of the target's range is an OverflowError,
    NaN or inf into an integer type a ValueError (a float out of range, an OverflowError;
    in-range floats truncate toward zero). A uint16 array into bfloat16 keeps its bits."""
    if arr.dtype == object:  # NumPy keeps Python ints beyond 64 bits as objects
        flat = arr.reshape(-1)
        if not all(_is_int_value(v) for v in flat):
            raise TypeError(f"{what}: data of kind {arr.dtype} cannot become a Tensor")
        if dt == _bool:
            arr = (arr != 0).astype(np.bool_)
        elif dt not in FLOATING:
            raise _range_error(max(flat, key=lambda v: abs(int(v))), dt, what)
        else:
            arr = arr.astype(np.float64)
    np_dt = np.dtype(_C.numpy_dtype_of(dt))
    if dt == bfloat16 and arr.dtype == np.uint16:
        np_dt = arr.dtype
    elif dt == bfloat16 and arr.dtype.kind in "iuf" and arr.dtype.itemsize > 2 and arr.dtype != np.float32:
        # Rounded once: float32 rounded to odd here, then to bfloat16 (nearest even) by the
        # tensor's conversion (going through float32 by nearest would round twice).
        arr = _float32_round_to_odd(arr)
    elif np_dt.kind in "iu" and arr.size and not np.can_cast(arr.dtype, np_dt):
        info = np.iinfo(np_dt)
        if arr.dtype.kind == "f":
            bad = ~np.isfinite(arr)
            if bad.any():
                raise ValueError(f"{what}: cannot convert {arr[bad].reshape(-1)[0]} to the integer type {dt}")
            lo, hi = arr.min().item(), arr.max().item()
            if math.trunc(lo) < info.min or math.trunc(hi) > info.max:
                raise _range_error(lo if math.trunc(lo) < info.min else hi, dt, what)
        else:
            lo, hi = int(arr.min()), int(arr.max())
            if lo < info.min or hi > info.max:
                raise _range_error(lo if lo < info.min else hi, dt, what)
    return np.require(arr.astype(np_dt, copy=False), requirements="C")  # keeps 0-D as 0-D


def _float32_round_to_odd(arr):
    """float32 values of `arr` (float64 or wider, or integers, which long double holds exactly on
    x86-64) rounded to odd: truncated toward zero, the last bit set where the value is inexact.
    float32 has 16 more bits than bfloat16, so rounding this to bfloat16 (nearest even) gives
    the nearest bfloat16 of the exact value, as a single rounding does; NaN and infinities
    stay as they are, and a value past float32's range becomes its largest finite value with the
    bit set (which then rounds to inf, as the value does)."""
    src = arr.astype(np.longdouble) if arr.dtype.kind in "iu" else arr
    with np.errstate(over="ignore", invalid="ignore"):
        f = np.asarray(src.astype(np.float32))
        back = f.astype(src.dtype)
        inexact = (back != src) & ~np.isnan(src)
        f = np.where(inexact & (np.abs(back) > np.abs(src)), np.nextafter(f, np.float32(0)), f)
    return (f.view(np.uint32) | inexact.astype(np.uint32)).view(np.float32)


def _is_ml_bfloat16(dt):
    """ml_dtypes.bfloat16 (NumPy sees a 2-byte opaque type named bfloat16), without importing
    ml_dtypes."""
    return dt.kind == "V" and dt.itemsize == 2 and dt.name == "bfloat16" and dt.fields is None


def _bfloat16_bits_to_float32(bits):
    """float32 values of bfloat16 bit patterns (a uint16 array): the bits become the high half."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _native_array(arr):
    """(arr, is_bfloat16): `arr` in the machine's byte order (a big-endian array is converted,
    never read as if native), and an ml_dtypes.bfloat16 array as its uint16 bit patterns."""
    if _is_ml_bfloat16(arr.dtype):
        return arr.view(np.uint16), True
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr, False


def _data_array(data, what):
    """(arr, is_bfloat16): `data` (a number, a (nested) list or tuple, a NumPy array) as a NumPy
    array in the machine's byte order (_native_array), Python ints beyond 64 bits kept as Python
    ints (an object array, which _checked_array refuses or converts); TypeError for another type
    or complex data, ValueError for ragged lists. `what` names the argument in the messages."""
    if isinstance(data, (str, bytes)) or (not isinstance(data, (numbers.Number, np.ndarray, np.generic, list, tuple))):
        raise TypeError(f"{what} must be a number, a list, a tuple or a NumPy array, but got {type(data).__name__}")
    try:
        arr = np.asarray(data)
    except ValueError as e:
        raise ValueError(f"{what}: cannot make a rectangular array from the data: {e}") from None
    if arr.dtype.kind == "c":
        raise TypeError(f"{what}: complex data ({arr.dtype}) is not supported")
    arr, ml_bfloat16 = _native_array(arr)
    if (arr.dtype.kind == "f" and not isinstance(data, (np.ndarray, np.generic)) and arr.size
            and np.abs(arr).max() >= 2.0 ** 63 and _all_ints(data)):
        arr = np.array(data, dtype=object)  # NumPy made floats of ints beyond int64: keep them ints
    if arr.dtype.kind not in "biufO":
        raise TypeError(f"{what}: data of kind {arr.dtype} cannot become a Tensor")
    return arr, ml_bfloat16


def _array_to_tensor(arr, ml_bfloat16, dt, place, what):
    """A tensor of dtype `dt` on `place` holding _data_array's `arr`, converted as to_tensor
    converts (_checked_array: nothing wraps; uint16 or ml_dtypes.bfloat16 into bfloat16 keep
    their bits)."""
    if ml_bfloat16 and dt != bfloat16:
        arr = _bfloat16_bits_to_float32(arr)  # exact: every bfloat16 is a float32
    return _C.tensor_from_numpy(_checked_array(arr, dt, what), dt, place)


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """Create a Tensor from a Python scalar, a (nested) list, a NumPy array or a Tensor.

    Args:
        data: the values. Complex data raises TypeError. A NumPy array in either byte order
            (a big-endian one is converted); an ``ml_dtypes.bfloat16`` array becomes a bfloat16
            tensor, as does a uint16 array (bfloat16 bit patterns, as in Paddle). A Tensor is
            copied, as in Paddle: new memory, detached from its graph (a leaf with
            stop_gradient=True unless `stop_gradient=False`).
        dtype: the element type (a dtype object such as paddle_ops.float32, or its name).
            Default: the NumPy array's own dtype; float32 for Python floats, int64 for ints.
        place: 'cpu', 'gpu', 'gpu:N' or a Place. Default: the current device (set_device).
        stop_gradient: False makes the tensor a leaf that receives gradients in .grad.

    Example:
        >>> import numpy as np
        >>> import paddle_ops
        >>> x = paddle_ops.to_tensor([[1., 2.], [3., 4.]], stop_gradient=False)
        >>> x.shape, x.dtype, x.stop_gradient
        ([2, 2], paddle.float32, False)
        >>> paddle_ops.to_tensor(np.array([1, 2], dtype='>i4')).numpy()   # big-endian: converted
        array([1, 2], dtype=int32)
    """
    if not isinstance(stop_gradient, (bool, np.bool_)):
        raise TypeError(f"to_tensor(): argument 'stop_gradient' must be a bool, but got {type(stop_gradient).__name__}")
    target_place = convert_place(place)
    from ..static.framework import Variable  # here: paddle_ops.static imports this module
    if isinstance(data, Variable):
        # Static mode: a new Variable of the Program holding data's value (converted to dtype).
        t = data
        if dtype is not None and convert_dtype(dtype) != t.dtype:
            t = _C_ops.cast(t, convert_dtype(dtype))
        t = _C_ops.reshape(t, t.shape)
    elif isinstance(data, Tensor):
        # As Paddle: a copy (new memory, on target_place, in dtype), detached from data's graph: a
        # leaf with stop_gradient=True unless asked otherwise.
        t = data.detach()
        if dtype is not None and convert_dtype(dtype) != t.dtype:
            t = _C_ops.cast(t, convert_dtype(dtype))
            if t.place != target_place:
                t = t._copy_to(target_place)
        else:
            t = t._copy_to(target_place) if t.place != target_place else t._clone()
    else:
        what = "to_tensor(): argument 'data'"
        arr, ml_bfloat16 = _data_array(data, what)
        dt = convert_dtype(dtype) if dtype is not None else (bfloat16 if ml_bfloat16 else _default_dtype(data, arr))
        t = _array_to_tensor(arr, ml_bfloat16, dt, target_place, what)
    if not stop_gradient:
        t.stop_gradient = False  # an integer tensor takes it too, as in Paddle; no gradient reaches it
    return t


def _check_fill(fill_value, dtype, op):
    """A fill value for `dtype`: a number (TypeError otherwise) that an integer dtype can hold
    without wrapping (as to_tensor: OverflowError out of range, ValueError for NaN or inf)."""
    if isinstance(fill_value, (str, bytes)) or not isinstance(fill_value, (numbers.Number, np.generic)):
        raise TypeError(f"{op}(): argument 'fill_value' must be a number, but got {type(fill_value).__name__}")
    if dtype in INTEGER and not isinstance(fill_value, complex):
        _checked_array(np.asarray(fill_value), dtype, f"{op}(): argument 'fill_value'")


def full(shape, fill_value, dtype=None, place=None, name=None):
    """A tensor of `shape` (a list of ints, or one int) filled with `fill_value`. dtype defaults
    to bool for a bool, int64 for an int and float32 for a float (as Paddle 3); fill values as
    in full_like.

    Example:
        >>> import paddle_ops
        >>> paddle_ops.full([2, 3], 7).numpy()
        array([[7, 7, 7],
               [7, 7, 7]])
    """
    if dtype is None:
        if isinstance(fill_value, (builtins.bool, np.bool_)):
            dtype = _bool
        elif _is_int_value(fill_value):
            dtype = int64
        else:
            dtype = float32
    dtype = convert_dtype(dtype, "full(): argument 'dtype'")
    if isinstance(shape, numbers.Integral) and not isinstance(shape, (builtins.bool, np.bool_)):
        shape = [shape]
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(d, numbers.Integral) and not isinstance(d, (builtins.bool, np.bool_)) and d >= 0 for d in shape):
        raise TypeError(f"full(): argument 'shape' must be a list of non-negative ints, but got {shape!r}")
    shape = [int(d) for d in shape]
    _check_fill(fill_value, dtype, "full")
    return _C_ops.full_like(empty(shape, dtype, place), fill_value, dtype)


def full_like(x, fill_value, dtype=None, name=None):
    """A tensor of x's shape (and dtype unless given) filled with fill_value, a number the dtype
    can hold: into an integer dtype, a value out of its range is an OverflowError and NaN or inf
    a ValueError (as to_tensor); a finite value that overflows a float dtype a ValueError.

    Example:
        >>> import paddle_ops
        >>> x = paddle_ops.to_tensor([[1., 2.]])
        >>> paddle_ops.full_like(x, -0.5).numpy(), paddle_ops.zeros_like(x, 'int32').numpy()
        (array([[-0.5, -0.5]], dtype=float32), array([[0, 0]], dtype=int32))
    """
    _check_fill(fill_value, convert_dtype(dtype) if dtype is not None else getattr(x, "dtype", None), "full_like")
    return _C_ops.full_like(x, fill_value, convert_dtype(dtype) if dtype is not None else UNDEFINED)


def zeros_like(x, dtype=None, name=None):
    """Zeros of x's shape, in x's dtype unless `dtype` is given (full_like(x, 0, dtype))."""
    return full_like(x, 0, dtype)


def ones_like(x, dtype=None, name=None):
    """Ones of x's shape, in x's dtype unless `dtype` is given (full_like(x, 1, dtype)).

    Example:
        >>> import paddle_ops
        >>> paddle_ops.ones_like(paddle_ops.to_tensor([1, 2, 3])).numpy()
        array([1, 1, 1])
    """
    return full_like(x, 1, dtype)


def empty(shape, dtype="float32", place=None, name=None):
    """An uninitialized tensor of `shape` (a list of ints) on `place` (default: the current device)."""
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise TypeError(f"empty(): argument 'shape' must be a list of non-negative ints, but got {shape!r}")
    return _C.empty(list(shape), convert_dtype(dtype), convert_place(place))
