"""Shape and dtype changes."""
from .. import _C_ops
from .._C import Tensor
from ..framework import convert_dtype


def _check_tensor(x, op, arg="x"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{arg}' must be a Tensor, but got {type(x).__name__}")


def reshape(x, shape, name=None):
    """x with a new shape of the same number of elements (one entry may be -1; 0 keeps x's dim)."""
    _check_tensor(x, "reshape")
    if isinstance(shape, Tensor):
        shape = [int(v) for v in shape.numpy().reshape(-1)]
    return _C_ops.reshape(x, list(shape) if isinstance(shape, (list, tuple)) else shape)


def cast(x, dtype):
    """x converted to `dtype` (float -> int truncates toward zero; 16-bit floats round to nearest even)."""
    _check_tensor(x, "cast")
    dtype = convert_dtype(dtype, "cast(): argument 'dtype'")
    return _C_ops.cast(x, dtype)
