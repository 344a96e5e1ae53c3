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


def _array(self, dtype=None):
    a = self.numpy()
    return a.astype(dtype) if dtype is not None else a


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
    "sum": lambda self, axis=None, dtype=None, keepdim=False, name=None: math.sum(self, axis, dtype, keepdim),
    "mean": lambda self, axis=None, keepdim=False, name=None: math.mean(self, axis, keepdim),
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
