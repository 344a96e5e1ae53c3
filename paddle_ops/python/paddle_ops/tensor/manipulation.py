"""Shape and dtype changes, and repeat_interleave."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import _C_ops
from .._C import Tensor
from .._front import not_a_tensor
from .._front_native import NATIVE, front
from ..framework import convert_dtype

__all__ = ["reshape", "cast", "repeat_interleave"]


def _check_tensor(x, op, arg="x"):
    if not isinstance(x, Tensor):
        raise TypeError(not_a_tensor(NATIVE, x, op, arg))


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


def repeat_interleave(x: Tensor, repeats: int | Tensor | Sequence[int] | np.ndarray, axis: int | None = None,
                      name: str | None = None, *, output_size: int | None = None) -> Tensor:
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
    return front.repeat_interleave(x, repeats, axis, name, output_size=output_size)
