"""Tensor methods and operators, attached to the native Tensor class (as Paddle patches its
eager Tensor)."""
import numpy as np

from .. import autograd
from .._C import Tensor
from .._front_native import front
from ..framework import FLOATING, bfloat16, convert_place, float32, int32, int64
from . import creation, manipulation, math


_NEGATABLE = tuple(FLOATING) + (int32, int64)


def _values(t):
    """A NumPy array of t's values: numpy(), but a bfloat16 tensor's as float32 (exact) rather than
    its bits."""
    return (t.astype(float32) if t.dtype == bfloat16 else t).numpy()


def backward(self, grad_tensor=None, retain_graph=False):
    """Accumulate d(self)/d(leaf) into the .grad of every leaf that self depends on.

    Args:
        grad_tensor (Tensor, optional): the gradient flowing into self, of self's shape;
            ones of that shape when None.
        retain_graph (bool): keep the graph so that backward can run through it again.

    Example:
        >>> import paddle_ops
        >>> x = paddle_ops.to_tensor([1., 2., 3.], stop_gradient=False)
        >>> paddle_ops.cumsum(x).sum().backward()
        >>> x.grad.numpy()
        array([3., 2., 1.], dtype=float32)
    """
    autograd.backward([self], None if grad_tensor is None else [grad_tensor], retain_graph)


def __repr__(self):
    """The shape, dtype, place, stop_gradient and values, as Paddle prints a Tensor.

    Example:
        >>> import paddle_ops
        >>> paddle_ops.to_tensor([1., 2.])
        Tensor(shape=[2], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
               [1., 2.])
    """
    body = np.array2string(_values(self), separator=", ", prefix="       ")
    return (f"Tensor(shape={self.shape}, dtype={self.dtype}, place={self.place}, "
            f"stop_gradient={self.stop_gradient},\n       {body})")


def item(self):
    """The value of a one-element tensor as a Python number (ValueError for any other size).

    Example:
        >>> import paddle_ops
        >>> paddle_ops.to_tensor([[2.5]]).item()
        2.5
    """
    if self.size != 1:
        raise ValueError(f"item(): only a tensor of one element can be converted, this one has {self.size}")
    return _values(self).reshape(-1)[0].item()


def tolist(self):
    """numpy().tolist(), as Paddle: (nested) Python lists of the values (of a bfloat16 tensor, its
    uint16 bits, as numpy() gives them; its values: t.astype('float32').tolist()).

    Example:
        >>> import paddle_ops
        >>> paddle_ops.to_tensor([[1, 2], [3, 4]]).tolist()
        [[1, 2], [3, 4]]
    """
    return self.numpy().tolist()


def __array__(self, dtype=None, copy=None):
    """NumPy's __array__ protocol (NumPy 2 passes copy=): numpy() as a new array (a bfloat16
    tensor's uint16 bits, as Paddle's np.array(t)); copy=False is a ValueError (use
    np.from_dlpack for a view of CPU memory).

    Example:
        >>> import numpy as np
        >>> import paddle_ops
        >>> np.asarray(paddle_ops.to_tensor([1., 2.]), dtype=np.float64)
        array([1., 2.])
    """
    if copy is False:
        raise ValueError("a Tensor cannot be viewed as a NumPy array without a copy (copy=False)")
    a = self.numpy()
    return a.astype(dtype, copy=False) if dtype is not None else a


def __len__(self):
    """The size of the first dimension (TypeError for a 0-D tensor)."""
    if not self.shape:
        raise TypeError("len() of a 0-D tensor")
    return self.shape[0]


def __bool__(self):
    """bool(t), as NumPy and Paddle: the truth of a one-element tensor's value (of any shape:
    `[0.0]` is False, NaN is True); a ValueError for any other number of elements, whose truth
    value is ambiguous (reduce it first, e.g. with paddle.sum, or compare its size).

    Example:
        >>> import paddle_ops
        >>> bool(paddle_ops.to_tensor([0.0])), bool(paddle_ops.sum(paddle_ops.to_tensor([1, 2])))
        (False, True)
    """
    if self.size != 1:
        raise ValueError(f"the truth value of a Tensor with {self.size} elements (shape {self.shape}) is "
                         "ambiguous: bool() takes a tensor of exactly one element")
    return bool(item(self))


def __float__(self):
    """float(t) of a one-element tensor."""
    return float(item(self))


def __int__(self):
    """int(t) of a one-element tensor (a float truncates toward zero)."""
    return int(item(self))


def astype(self, dtype):
    """self converted to `dtype` (paddle_ops.cast).

    Example:
        >>> import paddle_ops
        >>> paddle_ops.to_tensor([1.7, -1.7]).astype('int32').numpy()
        array([ 1, -1], dtype=int32)
    """
    return manipulation.cast(self, dtype)


def cast(self, dtype):
    """self converted to `dtype` (paddle_ops.cast); the same as astype."""
    return manipulation.cast(self, dtype)


def reshape(self, shape, name=None):
    """self with a new shape of the same size (paddle_ops.reshape; one entry may be -1).

    Example:
        >>> import paddle_ops
        >>> paddle_ops.to_tensor([1, 2, 3, 4]).reshape([2, -1]).shape
        [2, 2]
    """
    return manipulation.reshape(self, shape)


def sum(self, axis=None, dtype=None, keepdim=False, name=None, out=None):  # noqa: A001
    """The sum over `axis` (paddle_ops.sum). `out` is there for np.sum(t), which passes None.

    Example:
        >>> import paddle_ops
        >>> paddle_ops.to_tensor([[1., 2.], [3., 4.]]).sum(axis=0).numpy()
        array([4., 6.], dtype=float32)
    """
    _no_out("sum", out)
    return math.sum(self, axis, dtype, keepdim)


def mean(self, axis=None, keepdim=False, name=None, dtype=None, out=None):
    """The mean over `axis` (paddle_ops.mean), in `dtype` when given. `out` is there for
    np.mean(t), which passes None.

    Example:
        >>> import paddle_ops
        >>> paddle_ops.to_tensor([[1., 2.], [3., 4.]]).mean().item()
        2.5
    """
    _no_out("mean", out)
    return math.mean(self if dtype is None else self.astype(dtype), axis, keepdim)


def clear_grad(self, set_to_zero=True):
    """Paddle's clear_grad / clear_gradient: .grad becomes zeros of its shape (set_to_zero=True,
    the default) or None. A tensor taken from .grad before keeps its values.

    Example:
        >>> import paddle_ops
        >>> x = paddle_ops.to_tensor([1., 2.], stop_gradient=False)
        >>> x.sum().backward()
        >>> x.clear_grad()
        >>> x.grad.numpy()
        array([0., 0.], dtype=float32)
    """
    g = self.grad
    if g is None or not set_to_zero:
        self._reset_grad()
    else:
        self._set_grad(creation.zeros_like(g))


def _rebuild_tensor(data, dtype_name, place_name, stop_gradient):
    """The inverse of __reduce_ex__: pickle and copy call it to rebuild a Tensor."""
    t = creation.to_tensor(data, dtype=dtype_name, place=place_name)
    if not stop_gradient:
        t.stop_gradient = False
    return t


def __reduce_ex__(self, protocol):
    """pickle (every protocol) and copy.copy / copy.deepcopy: numpy() (bfloat16 as its uint16 bits,
    so every bit pattern, signalling NaNs included, comes back as it was), the dtype, the place
    ('gpu:N' comes back on device N) and stop_gradient. The copy is a new leaf: no grad, no
    autograd history. (A pickle of an older version, bfloat16 as float32 values, still loads.)

    Example:
        >>> import pickle
        >>> import paddle_ops
        >>> pickle.loads(pickle.dumps(paddle_ops.to_tensor([1, 2]))).numpy()
        array([1, 2])
    """
    return (_rebuild_tensor, (self.numpy(), self.dtype.name_str, self.place.short_string(), self.stop_gradient))


def __deepcopy__(self, memo):
    """copy.deepcopy: a new leaf with the same values, dtype, place and stop_gradient."""
    fn, args = __reduce_ex__(self, 4)
    new = fn(*args)
    memo[id(self)] = new
    return new


def _no_out(op, out):
    if out is not None:
        raise TypeError(f"{op}(): argument 'out' is not supported (NumPy passes it as None)")


def logcumsumexp(self, axis=None, exclusive=False, reverse=False, dtype=None, name=None):
    """paddle_ops.logcumsumexp(self, ...): log(cumsum(exp(self))) along `axis`, without overflow.

    Example:
        >>> import numpy as np
        >>> import paddle_ops
        >>> np.exp(paddle_ops.to_tensor([0., 0., 0., 0.]).logcumsumexp().numpy())
        array([1., 2., 3., 4.], dtype=float32)
    """
    return front.logcumsumexp(self, axis, exclusive, reverse, dtype, name)


def cumsum(self, axis=None, exclusive=False, reverse=False, dtype=None, name=None):
    """paddle_ops.cumsum(self, ...): the running sum along `axis` (flattened when None).

    Example:
        >>> import paddle_ops
        >>> paddle_ops.to_tensor([[1, 2], [3, 4]]).cumsum(axis=1, reverse=True).numpy()
        array([[3, 2],
               [7, 4]])
    """
    return front.cumsum(self, axis, exclusive, reverse, dtype, name)


def right_flood(self, axis=-1, reverse=False, hole='zero', return_index=False, name=None):
    """paddle_ops.right_flood(self, ...): each hole (a zero, or NaN) takes the last value before it.

    Example:
        >>> import paddle_ops
        >>> paddle_ops.to_tensor([0, 5, 0, 7, 0]).right_flood().numpy()
        array([0, 5, 5, 7, 7])
    """
    return front.right_flood(self, axis, reverse, hole, return_index, name)


def repeat_interleave(self, repeats, axis=None, name=None, *, output_size=None):
    """paddle_ops.repeat_interleave(self, ...): each slice along `axis` repeated (np.repeat).

    Example:
        >>> import paddle_ops
        >>> paddle_ops.to_tensor([1, 2]).repeat_interleave(paddle_ops.to_tensor([2, 3])).numpy()
        array([1, 1, 2, 2, 2])
    """
    return front.repeat_interleave(self, repeats, axis, name, output_size=output_size)


def __add__(self, other):
    """self + other (a Tensor or a Python number; NumPy broadcasting)."""
    return math.add(self, other)


def __radd__(self, other):
    """other + self, for a number (or array) on the left."""
    return math.add(other, self)


def __sub__(self, other):
    """self - other (a Tensor or a Python number; NumPy broadcasting)."""
    return math.subtract(self, other)


def __rsub__(self, other):
    """other - self, for a number (or array) on the left."""
    return math.subtract(other, self)


def __mul__(self, other):
    """self * other (a Tensor or a Python number; NumPy broadcasting).

    Example:
        >>> import paddle_ops
        >>> (2 * paddle_ops.to_tensor([1., 2.]) - 1).numpy()
        array([1., 3.], dtype=float32)
    """
    return math.multiply(self, other)


def __rmul__(self, other):
    """other * self, for a number (or array) on the left."""
    return math.multiply(other, self)


def __neg__(self):
    """-self: every element negated (self * -1), for float16, bfloat16, float32, float64, int32 and
    int64 (int32 and int64 wrap as two's complement at their minimum). Another dtype is a
    TypeError naming it: a bool or unsigned tensor has no negation (NumPy refuses bool and wraps
    uint8, which the rule that nothing wraps refuses here), and int8/int16 have no kernel; cast
    first (``x.astype('int32')``)."""
    if self.dtype not in _NEGATABLE:
        raise TypeError(f"unary -: a Tensor of dtype {self.dtype} cannot be negated (float16, bfloat16, float32, "
                        f"float64, int32 and int64 can); cast it first, e.g. x.astype('int32')")
    return math.multiply(self, -1)


def to(self, place):
    """A copy of self on `place` ('cpu', 'gpu', 'gpu:N' or a Place).

    Example:
        >>> import paddle_ops
        >>> paddle_ops.to_tensor([1.]).to('cpu').place
        Place(cpu)
    """
    return self._copy_to(convert_place(place))


def cpu(self):
    """A copy of self in CPU memory."""
    return self._copy_to(convert_place("cpu"))


def cuda(self, device_id=0):
    """A copy of self on GPU `device_id` (ValueError in a build without CUDA)."""
    return self._copy_to(convert_place(f"gpu:{device_id}"))


def zeros_like(self):
    """Zeros of self's shape and dtype, on self's place."""
    return creation.zeros_like(self)


# Every function above except the helpers (_no_out, _rebuild_tensor), under its own name, and
# Paddle's other names for two of them.
METHODS = {name: fn for name, fn in list(globals().items())
           if callable(fn) and getattr(fn, "__module__", None) == __name__ and name not in ("_no_out", "_rebuild_tensor")}
METHODS["__str__"] = __repr__
METHODS["clear_gradient"] = clear_grad


def install():
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    Tensor.__array_priority__ = 100
    Tensor.__hash__ = object.__hash__
