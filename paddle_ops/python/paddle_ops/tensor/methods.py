"""Tensor methods and operators, attached to the native Tensor class (as Paddle patches its
eager Tensor)."""
import numpy as np

from .. import autograd
from .._C import Tensor
from ..framework import convert_place
from . import creation, manipulation, math


def _backward(self, grad_tensor=None, retain_graph=False):
    """Accumulate d(self)/d(leaf) into every leaf's .grad (grad_tensor defaults to ones)."""
    autograd.backward([self], None if grad_tensor is None else [grad_tensor], retain_graph)


def _repr(self):
    body = np.array2string(self.numpy(), separator=", ", prefix="       ")
    return (f"Tensor(shape={self.shape}, dtype={self.dtype}, place={self.place}, "
            f"stop_gradient={self.stop_gradient},\n       {body})")


def _item(self):
    if self.size != 1:
        raise ValueError(f"item(): only a tensor of one element can be converted, this one has {self.size}")
    return self.numpy().reshape(-1)[0].item()


def _to(self, place):
    return self._copy_to(convert_place(place))


def _array(self, dtype=None, copy=None):
    """NumPy's __array__ protocol (NumPy 2 passes copy=): the data always come out as a new array."""
    if copy is False:
        raise ValueError("a Tensor cannot be viewed as a NumPy array without a copy (copy=False)")
    a = self.numpy()
    return a.astype(dtype, copy=False) if dtype is not None else a


def _rebuild_tensor(data, dtype_name, place_name, stop_gradient):
    """The inverse of _reduce_ex: pickle and copy call it to rebuild a Tensor."""
    t = creation.to_tensor(data, dtype=dtype_name, place=place_name)
    if not stop_gradient:
        t.stop_gradient = False
    return t


def _reduce_ex(self, protocol):
    """pickle (every protocol) and copy.copy / copy.deepcopy: the values as a NumPy array (float32
    for bfloat16, which holds them exactly), the dtype, the place ('gpu:N' comes back on device N)
    and stop_gradient. The copy is a new leaf: no grad, no autograd history."""
    return (_rebuild_tensor, (self.numpy(), self.dtype.name_str, self.place.short_string(), self.stop_gradient))


def _deepcopy(self, memo):
    fn, args = _reduce_ex(self, 4)
    new = fn(*args)
    memo[id(self)] = new
    return new


def _clear_grad(self, set_to_zero=True):
    """Paddle's clear_grad / clear_gradient: .grad becomes zeros of its shape (set_to_zero=True,
    the default) or None. A tensor taken from .grad before keeps its values."""
    g = self.grad
    if g is None or not set_to_zero:
        self._reset_grad()
    else:
        self._set_grad(creation.zeros_like(g))


def _no_out(op, out):
    if out is not None:
        raise TypeError(f"{op}(): argument 'out' is not supported (NumPy passes it as None)")


def _len(self):
    if not self.shape:
        raise TypeError("len() of a 0-D tensor")
    return self.shape[0]


METHODS = {
    "backward": _backward,
    "__repr__": _repr,
    "__str__": _repr,
    "item": _item,
    "tolist": lambda self: self.numpy().tolist(),
    "__array__": _array,
    "__len__": _len,
    "__float__": lambda self: float(_item(self)),
    "__int__": lambda self: int(_item(self)),
    "astype": lambda self, dtype: manipulation.cast(self, dtype),
    "cast": lambda self, dtype: manipulation.cast(self, dtype),
    "reshape": lambda self, shape, name=None: manipulation.reshape(self, shape),
    # `out` lets np.sum(t) / np.mean(t) call these (NumPy passes out=None).
    "sum": lambda self, axis=None, dtype=None, keepdim=False, name=None, out=None:
        _no_out("sum", out) or math.sum(self, axis, dtype, keepdim),
    "mean": lambda self, axis=None, keepdim=False, name=None, dtype=None, out=None:
        _no_out("mean", out) or math.mean(self if dtype is None else self.astype(dtype), axis, keepdim),
    "clear_grad": _clear_grad,
    "clear_gradient": _clear_grad,
    "__reduce_ex__": _reduce_ex,
    "__deepcopy__": _deepcopy,
    "logcumsumexp": lambda self, axis=None, exclusive=False, reverse=False, dtype=None, name=None:
        math.logcumsumexp(self, axis, exclusive, reverse, dtype),
    "cumsum": lambda self, axis=None, exclusive=False, reverse=False, dtype=None, name=None:
        math.cumsum(self, axis, exclusive, reverse, dtype),
    "right_flood": lambda self, axis=-1, reverse=False, hole='zero', return_index=False, name=None:
        math.right_flood(self, axis, reverse, hole, return_index),
    "repeat_interleave": lambda self, repeats, axis=None, name=None, *, output_size=None:
        manipulation.repeat_interleave(self, repeats, axis, output_size=output_size),
    "__add__": lambda self, o: math.add(self, o),
    "__radd__": lambda self, o: math.add(o, self),
    "__sub__": lambda self, o: math.subtract(self, o),
    "__rsub__": lambda self, o: math.subtract(o, self),
    "__mul__": lambda self, o: math.multiply(self, o),
    "__rmul__": lambda self, o: math.multiply(o, self),
    "__neg__": lambda self: math.multiply(self, -1),
    "to": _to,
    "cpu": lambda self: self._copy_to(convert_place("cpu")),
    "cuda": lambda self, device_id=0: self._copy_to(convert_place(f"gpu:{device_id}")),
    "zeros_like": lambda self: creation.zeros_like(self),
}


def install():
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    Tensor.__array_priority__ = 100
    Tensor.__hash__ = object.__hash__
