"""Math ops: the scans (logcumsumexp, cumsum, pscan, right_flood) and the elementwise arithmetic and reductions.

The scans' argument rules are the signature layer's (paddle_ops/_front.py, from api_yaml/):
each public scan is its docstring and one call."""
from __future__ import annotations

import builtins
import numbers

import numpy as np

from .. import _C_ops
from .._C import Tensor
from ..framework import (FLOATING, INTEGER, UNDEFINED, DataType, bfloat16, bool as _bool, convert_dtype, float16,
                         float32, float64, int32, int64)
from .._front_native import front
from .._typing import DTypeLike, Literal, overload
from .manipulation import _check_tensor, cast

__all__ = ["logcumsumexp", "cumsum", "pscan", "right_flood", "add", "subtract", "multiply", "sum", "mean"]


@overload
def logcumsumexp(x: Tensor, axis: int | None = None, exclusive: bool = False, reverse: bool = False,
                 dtype: DTypeLike | None = None, name: str | None = None) -> Tensor: ...
@overload
def logcumsumexp(x: Tensor, axis: int | None, dtype: DTypeLike, name: str | None = None) -> Tensor: ...
def logcumsumexp(x, axis=None, exclusive=False, reverse=False, dtype=None, name=None):
    r"""The logarithm of the cumulative sum of exponentials along `axis`.

    .. math::
        out_i = \log \sum_{j \le i} \exp(x_j)

    computed without overflow (a running max and rescaled sum; float32 accumulates in
    float64, so rows of 2^26 elements stay within about 2 ulp).

    Args:
        x (Tensor): float16, bfloat16, float32 or float64. Integer and bool inputs are
            promoted to float32.
        axis (int, optional): the axis to scan. None (default) scans the flattened tensor
            and returns a 1-D result.
        exclusive (bool): sum over j < i instead of j <= i; the first output is -inf (the log
            of an empty sum; Paddle's own kernel writes the lowest finite float there).
        reverse (bool): scan from the end: sum over j >= i (j > i if exclusive).
        dtype (str|dtype, optional): cast x to this floating dtype first; the output has it.
            An integer dtype raises TypeError. Paddle's order ``logcumsumexp(x, axis, dtype)``
            works too: a dtype in third position is read as `dtype` (a dtype is never a bool).

    Returns:
        Tensor: same shape as x (1-D with x.size elements when axis is None).

    Special values: -inf inputs add nothing (a prefix of only -inf gives -inf, never NaN);
    +inf gives +inf from there on; a NaN makes the rest of its row NaN.

    Example:
        >>> import paddle_ops
        >>> x = paddle_ops.to_tensor([[1., 2.], [3., 4.]])
        >>> paddle_ops.logcumsumexp(x, axis=1).numpy()
        array([[1.       , 2.3132617],
               [3.       , 4.3132615]], dtype=float32)
    """
    return front.logcumsumexp(x, axis, exclusive, reverse, dtype, name)


@overload
def cumsum(x: Tensor, axis: int | Tensor | None = None, exclusive: bool = False, reverse: bool = False,
           dtype: DTypeLike | None = None, name: str | None = None) -> Tensor: ...
@overload
def cumsum(x: Tensor, axis: int | Tensor | None, dtype: DTypeLike, name: str | None = None) -> Tensor: ...
def cumsum(x, axis=None, exclusive=False, reverse=False, dtype=None, name=None):
    r"""The cumulative sum along `axis`: out_i = sum_{j <= i} x_j.

    Floating types accumulate in float64 (with compensated summation) and round once;
    integers accumulate exactly in their own type.

    Args:
        x (Tensor): float16, bfloat16, float32, float64, int32 or int64; bool, uint8, int8
            and int16 are promoted to int64 (as NumPy and torch do).
        axis (int, optional): the axis to scan; None (default) scans the flattened tensor. A
            one-element integer Tensor is taken too (as in Paddle).
        exclusive (bool): sum over j < i (the first output is 0).
        reverse (bool): scan from the end.
        dtype (str|dtype, optional): cast x to this dtype first. As for logcumsumexp, Paddle's
            order ``cumsum(x, axis, dtype)`` works too.

    Example:
        >>> import paddle_ops
        >>> paddle_ops.cumsum(paddle_ops.to_tensor([1, 2, 3])).numpy()
        array([1, 3, 6])
    """
    return front.cumsum(x, axis, exclusive, reverse, dtype, name)


def pscan(a: Tensor, x: Tensor, initial_state: Tensor | None = None, reverse: bool = False,
          name: str | None = None) -> Tensor:
    r"""The first-order linear recurrence along the second axis of `x` (a parallel scan).

    .. math::
        Y_t = A_t \odot Y_{t-1} + X_t, \qquad Y_{-1} = \text{initial\_state}

    computed by an associative scan over (gate, value) pairs, directly: exact for negative
    and zero gates and for any length, where the log-space form
    :math:`X + e^{V} \odot \text{cumsum}(e^{W} \odot X)` of the seed overflows once a row's
    :math:`|\sum_t \log A_t|` passes about 88 (float32; e.g. gates in (0, 1) at T of about 128).
    float16, bfloat16 and float32 accumulate in float32, float64 in float64.

    Args:
        a (Tensor): the gates, [N, T] (one per step, broadcast over D) or [N, T, D].
        x (Tensor): the inputs, [N, T, D]; float16, bfloat16, float32 or float64.
        initial_state (Tensor, optional): [N, D], the state before the first step. None
            (default): no state, so Y_0 = X_0 (a[:, 0] is then unused and gets gradient 0).
        reverse (bool): run from t = T-1 down: Y_t = A_t * Y_{t+1} + X_t, with
            Y_T = initial_state.

    a and initial_state must have x's dtype. To scan along the last axis of tensors of
    shape [..., T] (one recurrence per row), reshape them to a = [M, T] and x = [M, T, 1].

    Returns:
        Tensor: Y, shape and dtype of x. Differentiable in a, x and initial_state.

    The seed's convention shifts the gates by one step: Y_0 = X_0,
    :math:`Y_t = A_{t-1} Y_{t-1} + X_t`. That is this op with the gates
    [1, A_0, ..., A_{T-2}] (the first is unused without an initial state):

        >>> import numpy as np
        >>> import paddle_ops
        >>> A, X = np.random.rand(2, 5), np.random.rand(2, 5, 3)   # the seed's A [N, T], X [N, T, D]
        >>> gates = np.concatenate([np.ones_like(A[:, :1]), A[:, :-1]], axis=1)
        >>> Y = paddle_ops.pscan(paddle_ops.to_tensor(gates), paddle_ops.to_tensor(X)).numpy()
        >>> ref = X.copy()
        >>> for t in range(1, 5):
        ...     ref[:, t] += A[:, t - 1, None] * ref[:, t - 1]
        >>> bool(np.allclose(Y, ref))
        True

    Example:
        >>> import paddle_ops
        >>> a = paddle_ops.to_tensor([[0.5, 0.5, 0.5]])
        >>> x = paddle_ops.to_tensor([[[1.], [1.], [1.]]])
        >>> paddle_ops.pscan(a, x).numpy()[0, :, 0]
        array([1.  , 1.5 , 1.75], dtype=float32)
    """
    return front.pscan(a, x, initial_state, reverse, name)


@overload
def right_flood(x: Tensor, axis: int = -1, reverse: bool = False, hole: str = 'zero',
                return_index: Literal[False] = False, name: str | None = None) -> Tensor: ...
@overload
def right_flood(x: Tensor, axis: int = -1, reverse: bool = False, hole: str = 'zero', *,
                return_index: Literal[True], name: str | None = None) -> tuple[Tensor, Tensor]: ...
@overload
def right_flood(x: Tensor, axis: int, reverse: bool, hole: str, return_index: Literal[True],
                name: str | None = None) -> tuple[Tensor, Tensor]: ...
def right_flood(x, axis=-1, reverse=False, hole='zero', return_index=False, name=None):
    r"""Fill the holes of `x` along `axis` with the last value before them (seed 003's
    "right flood"; pandas' ``ffill`` with ``hole='nan'``).

    .. math::
        out_i = x_{t(i)}, \qquad t(i) = \max\{\, j \le i : x_j \text{ is not a hole} \,\}

    One scan with the associative, idempotent operator
    :math:`a \oplus b = b` if b is not a hole, else a (the state is the source index, so the
    result is an exact copy of source elements, in every dtype).

    Args:
        x (Tensor): float16, bfloat16, float32, float64, int32 or int64.
        axis (int): the axis to fill along (default -1). A 0-D x takes 0 or -1.
        reverse (bool): fill from the right instead (backward fill): t(i) is the first
            non-hole at or after i.
        hole (str): 'zero' (default; +0 and -0 are holes) or 'nan' (any NaN is a hole;
            floating x only).
        return_index (bool): also return t as an int64 tensor of x's shape: the index along
            `axis` of each output's source, -1 where there is none.

    Leading holes (no non-hole before them) stay as they are (bit for bit) and have index -1.

    Returns:
        Tensor, or (Tensor, Tensor) when return_index: out (x's shape and dtype) and the
        index. out is differentiable: x_grad[j] is the sum of out_grad over the outputs filled
        from j (computed without atomics: deterministic); holes, leading ones included, get 0.

    Example:
        >>> import paddle_ops
        >>> x = paddle_ops.to_tensor([1., 0., 0., 3., 0., 6., 0., 0.])
        >>> paddle_ops.right_flood(x).numpy()
        array([1., 1., 1., 3., 3., 6., 6., 6.], dtype=float32)
        >>> paddle_ops.right_flood(paddle_ops.to_tensor([0, 0, 3, 0, 3]), return_index=True)[1].numpy()
        array([-1, -1,  2,  2,  4])
    """
    return front.right_flood(x, axis, reverse, hole, return_index, name)


def _promote(x, y, op):
    """Make x and y Tensors of one dtype (Python scalars take the tensor's dtype)."""
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        raise TypeError(f"{op}(): argument 'x' or 'y' must be a Tensor, but got {type(x).__name__} and "
                        f"{type(y).__name__}")
    if not isinstance(y, Tensor):
        y = _scalar_like(y, x, op, "y")
    if not isinstance(x, Tensor):
        x = _scalar_like(x, y, op, "x")
    if x.dtype != y.dtype:
        order = [_bool, *INTEGER, float16, bfloat16, float32, float64]
        xf, yf = x.dtype in FLOATING, y.dtype in FLOATING
        if xf and not yf:
            target = x.dtype
        elif yf and not xf:
            target = y.dtype
        elif {x.dtype, y.dtype} == {float16, bfloat16}:
            target = float32
        else:
            target = max(x.dtype, y.dtype, key=order.index)
        x = x if x.dtype == target else cast(x, target)
        y = y if y.dtype == target else cast(y, target)
    return x, y


def _scalar_like(v, t, op, arg):
    from .creation import to_tensor
    if isinstance(v, builtins.bool) or not isinstance(v, (int, float)) and not hasattr(v, "__float__"):
        raise TypeError(f"{op}(): argument '{arg}' must be a Tensor or a number, but got {type(v).__name__}")
    dt = t.dtype
    if isinstance(v, float) and dt not in FLOATING:
        dt = float32
    return to_tensor(v, dtype=dt, place=t.place)


def add(x, y, name=None):
    """x + y with NumPy broadcasting; a Python number takes the tensor's dtype (a float into an
    integer tensor gives float32), two tensors of different dtypes meet in the wider one.

    Example:
        >>> import paddle_ops
        >>> x = paddle_ops.to_tensor([[1., 2.], [3., 4.]])
        >>> paddle_ops.add(x, paddle_ops.to_tensor([10., 20.])).numpy()
        array([[11., 22.],
               [13., 24.]], dtype=float32)
    """
    x, y = _promote(x, y, "add")
    return _C_ops.add(x, y)


def subtract(x, y, name=None):
    """x - y with NumPy broadcasting (dtypes as in add).

    Example:
        >>> import paddle_ops
        >>> paddle_ops.subtract(paddle_ops.to_tensor([5, 7]), 2).numpy()
        array([3, 5])
    """
    x, y = _promote(x, y, "subtract")
    return _C_ops.subtract(x, y)


def multiply(x, y, name=None):
    """x * y with NumPy broadcasting (dtypes as in add).

    Example:
        >>> import paddle_ops
        >>> paddle_ops.multiply(paddle_ops.to_tensor([1., 2.]), paddle_ops.to_tensor([[3.], [4.]])).numpy()
        array([[3., 6.],
               [4., 8.]], dtype=float32)
    """
    x, y = _promote(x, y, "multiply")
    return _C_ops.multiply(x, y)


def _axes(axis):
    if axis is None:
        return []
    if isinstance(axis, numbers.Integral) and not isinstance(axis, builtins.bool):  # int, numpy.int64, ...
        return [int(axis)]
    if isinstance(axis, (list, tuple)):
        return list(axis)
    raise TypeError(f"axis must be an int, a list of ints or None, but got {type(axis).__name__}")


def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001
    """The sum over `axis` (an int, a list of ints, or None for all axes), in `dtype` when given;
    keepdim keeps the summed axes with size 1. bool and int32 sums are int64.

    Example:
        >>> import paddle_ops
        >>> x = paddle_ops.to_tensor([[1, 2], [3, 4]], dtype='int32')
        >>> paddle_ops.sum(x).item(), paddle_ops.sum(x).dtype
        (10, paddle.int64)
        >>> paddle_ops.sum(x, axis=1, keepdim=True).numpy()
        array([[3],
               [7]])
    """
    _check_tensor(x, "sum")
    dt = convert_dtype(dtype) if dtype is not None else UNDEFINED
    return _C_ops.sum(x, _axes(axis), dt, keepdim)


def mean(x, axis=None, keepdim=False, name=None):
    """The mean over `axis` (all axes when None); floating types only."""
    _check_tensor(x, "mean")
    if x.dtype not in FLOATING:
        raise TypeError(f"mean(): x must be a floating tensor, but got {x.dtype}")
    return _C_ops.mean(x, _axes(axis), keepdim)
