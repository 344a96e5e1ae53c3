"""Shape and dtype changes, and repeat_interleave."""
import builtins
import numbers

import numpy as np

from .. import _C_ops
from .._C import Tensor
from ..framework import convert_dtype

__all__ = ["reshape", "cast", "repeat_interleave"]


def _check_tensor(x, op, arg="x"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{arg}' must be a Tensor, but got {type(x).__name__}")


def _int_axis(x, axis, op):
    """An int axis for an op's 32-bit attribute: a non-int is a TypeError; one beyond 32 bits an
    IndexError (the attribute would narrow 2^32 to 0; InferMeta checks the rest of the range)."""
    if isinstance(axis, (builtins.bool, np.bool_)) or not isinstance(axis, int) and not hasattr(axis, "__index__"):
        raise TypeError(f"{op}(): argument 'axis' must be int, but got {type(axis).__name__}")
    axis = int(axis.__index__())
    if not -2 ** 31 <= axis < 2 ** 31:
        ndim = len(x.shape)
        r = max(ndim, 1)
        raise IndexError(f"{op}(): axis is out of range for a {ndim}-D tensor: expected it to be in range of "
                         f"[{-r}, {r}), but got {axis}")
    return axis


def reshape(x, shape, name=None):
    """x with a new shape of the same number of elements (one entry may be -1; 0 keeps x's dim).

    Example:
        >>> import paddle_ops
        >>> x = paddle_ops.to_tensor([[1, 2, 3], [4, 5, 6]])
        >>> paddle_ops.reshape(x, [0, 3, -1]).shape
        [2, 3, 1]
    """
    _check_tensor(x, "reshape")
    if isinstance(shape, Tensor):
        shape = [int(v) for v in shape.numpy().reshape(-1)]
    return _C_ops.reshape(x, list(shape) if isinstance(shape, (list, tuple)) else shape)


def cast(x, dtype):
    """x converted to `dtype` (float -> int truncates toward zero; 16-bit floats round to nearest even).

    Example:
        >>> import paddle_ops
        >>> paddle_ops.cast(paddle_ops.to_tensor([-1.5, 2.7]), 'int64').numpy()
        array([-1,  2])
        >>> b = paddle_ops.cast(paddle_ops.to_tensor([1.00390625]), 'bfloat16')   # nearest even
        >>> b.astype('float32').numpy(), b.numpy()   # its value, and its bits (numpy(), as Paddle)
        (array([1.], dtype=float32), array([16256], dtype=uint16))
    """
    _check_tensor(x, "cast")
    dtype = convert_dtype(dtype, "cast(): argument 'dtype'")
    return _C_ops.cast(x, dtype)


def _is_int(v):
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (builtins.bool, np.bool_))


def _check_bool(v, op, arg):
    if not isinstance(v, (builtins.bool, np.bool_)):
        raise TypeError(f"{op}(): argument '{arg}' must be a bool, but got {type(v).__name__}")


def _repeat_interleave_repeats(x, repeats, axis, output_size, tensor_types):
    """repeat_interleave's checks of `repeats` and `output_size` (x flattened and axis an int
    already), shared with paddle_ops.integrations.paddle (tensor_types: its tensor classes).
    Returns repeats as an int, a tensor (an instance of tensor_types: its dtype and shape are
    checked by the op's InferMeta), or an int64 NumPy array of counts when it came as a list,
    tuple or array (the caller makes it a tensor of its kind)."""
    if output_size is not None and not _is_int(output_size):
        raise TypeError(f"repeat_interleave(): argument 'output_size' must be an int or None, "
                        f"but got {type(output_size).__name__}")
    if isinstance(repeats, (list, tuple)) and repeats and all(_is_int(v) for v in repeats):
        # Python ints beyond int64 (NumPy would make floats or objects of them): a negative count
        # is the kernel's ValueError, a larger one the sum's.
        ints = [int(v) for v in repeats]
        low, high = min(ints), max(ints)
        if low < 0 and (low < -2**63 or high > 2**63 - 1):
            raise ValueError(f"repeat_interleave: repeats must be non-negative, but repeats[{ints.index(low)}] is {low}")
        if high > 2**63 - 1:
            raise ValueError(f"repeat_interleave(): the sum of repeats is more than 2**63 - 1 "
                             f"(repeats[{ints.index(high)}] is {high})")
        repeats = np.array(ints, np.int64)
    if isinstance(repeats, (list, tuple, np.ndarray)):
        values = np.asarray(repeats)
        if values.dtype.kind not in "iu" and values.size:
            raise TypeError(f"repeat_interleave(): argument 'repeats' must hold integers, but got {values.dtype}")
        if values.size and values.max() > (2**63 - 1) // values.size \
                and sum(int(v) for v in values.flat) > 2**63 - 1:  # (the GPU trusts output_size)
            raise ValueError("repeat_interleave(): the sum of repeats is more than 2**63 - 1")
        return values.astype(np.int64)
    if isinstance(repeats, tensor_types):
        return repeats
    if not _is_int(repeats):
        raise TypeError(f"repeat_interleave(): argument 'repeats' must be an int or a Tensor of int32 or "
                        f"int64, but got {type(repeats).__name__}")
    if output_size is not None and -max(len(x.shape), 1) <= axis < max(len(x.shape), 1):
        n = x.shape[axis] if x.shape else 1
        if n >= 0 and n * int(repeats) != output_size:  # (static mode: n may be unknown, -1)
            raise ValueError(f"repeat_interleave(): output_size must be the sum of repeats ({n * int(repeats)}), "
                             f"but got {output_size}")
    return int(repeats)


def repeat_interleave(x, repeats, axis=None, name=None, *, output_size=None):
    """Repeat each slice of `x` along `axis`: ``repeat_interleave([a, b], [2, 1]) = [a, a, b]``
    (NumPy's ``np.repeat``; Paddle's and torch's ``repeat_interleave``).

    Args:
        x (Tensor): float16, bfloat16, float32, float64, int32 or int64.
        repeats (int|Tensor|list): the number of copies: one int for every slice, or an int32
            or int64 tensor (or a list of ints) with one count per slice along `axis` (a single
            count is broadcast). Counts must be >= 0 (ValueError); zero drops the slice.
            Non-integer repeats raise TypeError.
        axis (int, optional): the axis to repeat along. None (default) flattens x first and
            returns a 1-D tensor.
        output_size (int, optional, keyword): the total number of slices of the result (the
            sum of the counts). With a tensor of counts the output length is otherwise only
            known after a device-to-host copy of their sum; given, no copy is made. On the CPU
            it is checked against the counts (ValueError); on the GPU it is trusted: a wrong
            value gives a wrong result (outputs past the true total repeat the last slice,
            and negative counts go undetected).

    A tensor of counts runs seed 003's stream decompaction: the exclusive cumsum of the
    counts, a scatter of each slice's index to its first output (slices with count 0 write
    nothing), an index flood (right_flood's scan on indices, never on the data, so zeros in x
    are data) and a gather. The gradient is a segment sum of out_grad (deterministic).

    Example:
        >>> import paddle_ops
        >>> x = paddle_ops.to_tensor([[1, 2], [3, 4]])
        >>> paddle_ops.repeat_interleave(x, 2, axis=0).numpy()
        array([[1, 2],
               [1, 2],
               [3, 4],
               [3, 4]])
        >>> paddle_ops.repeat_interleave(x, paddle_ops.to_tensor([0, 3]), axis=1).numpy()
        array([[2, 2, 2],
               [4, 4, 4]])
    """
    _check_tensor(x, "repeat_interleave")
    if axis is None:
        x = reshape(x, [-1])
        axis = 0
    axis = _int_axis(x, axis, "repeat_interleave")
    repeats = _repeat_interleave_repeats(x, repeats, axis, output_size, Tensor)
    if isinstance(repeats, np.ndarray):
        from .creation import to_tensor
        repeats = to_tensor(repeats, place=x.place)
    if isinstance(repeats, Tensor):
        return _C_ops.repeat_interleave_with_tensor_index(
            x, repeats, axis, -1 if output_size is None else int(output_size))
    return _C_ops.repeat_interleave(x, repeats, axis)
