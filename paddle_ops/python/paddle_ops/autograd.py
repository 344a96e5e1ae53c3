"""Autograd entry points: paddle_ops.grad, Tensor.backward and no_grad."""
import contextlib

import numpy as np

from . import _C
from ._C import Tensor


def _as_list(x, what):
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (list, tuple)) and all(isinstance(t, Tensor) for t in x):
        return list(x)
    raise TypeError(f"{what} must be a Tensor or a list of Tensors, but got {type(x).__name__}")


def _grad_list(grad_outputs, n):
    if grad_outputs is None:
        return None
    if isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs]
    if not isinstance(grad_outputs, (list, tuple)):
        raise TypeError(f"grad_outputs must be a Tensor, a list of Tensors/None or None, "
                        f"but got {type(grad_outputs).__name__}")
    if len(grad_outputs) != n:
        raise ValueError(f"grad_outputs has {len(grad_outputs)} entries but there are {n} outputs")
    return list(grad_outputs)


def _flag(value, what, allow_none=False):
    """A bool argument (a NumPy bool too); None only where it means 'the default'."""
    if value is None and allow_none:
        return False
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be a bool{' or None' if allow_none else ''}, "
                        f"but got {type(value).__name__}")
    return bool(value)


def _no_grad_list(no_grad_vars):
    if no_grad_vars is None:
        return []
    if isinstance(no_grad_vars, Tensor):
        return [no_grad_vars]
    if isinstance(no_grad_vars, (list, tuple, set)):
        for i, t in enumerate(no_grad_vars):
            if not isinstance(t, Tensor):
                raise TypeError(f"no_grad_vars must hold only Tensors, but an entry is "
                                f"{type(t).__name__}" + ("" if isinstance(no_grad_vars, set) else f" (index {i})"))
        return list(no_grad_vars)
    raise TypeError(f"no_grad_vars must be None, a Tensor or a list/tuple/set of Tensors, "
                    f"but got {type(no_grad_vars).__name__}")


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """Gradients of `outputs` with respect to `inputs`, returned (not accumulated into .grad).

    grad_outputs defaults to ones. retain_graph keeps the graph for another backward pass
    (default: False). Inputs the outputs do not depend on raise ValueError unless
    allow_unused=True, which returns None for them. No gradient flows through the tensors of
    no_grad_vars (a Tensor or a list/tuple/set of them): for this call they are constants.
    create_graph (higher-order gradients) is not supported.
    """
    outs = _as_list(outputs, "outputs")
    ins = _as_list(inputs, "inputs")
    grads = _grad_list(grad_outputs, len(outs))
    retain = _flag(retain_graph, "retain_graph", allow_none=True)
    if _flag(create_graph, "create_graph"):
        raise NotImplementedError("paddle_ops.grad: create_graph=True (higher-order gradients) is not supported")
    if not _flag(only_inputs, "only_inputs"):
        raise NotImplementedError("paddle_ops.grad: only_inputs=False is not supported (as in Paddle)")
    unused = _flag(allow_unused, "allow_unused")
    cut = _no_grad_list(no_grad_vars)
    return _C.run_grad(outs, ins, grads, retain, unused, cut)


def backward(tensors, grad_tensors=None, retain_graph=False):
    """Accumulate the gradients of `tensors` into the .grad of the leaves they depend on."""
    outs = _as_list(tensors, "tensors")
    grads = _grad_list(grad_tensors, len(outs))
    _C.run_backward(outs, grads, _flag(retain_graph, "retain_graph", allow_none=True))


@contextlib.contextmanager
def no_grad():
    """Within this block, ops record no gradient history."""
    prev = _C.is_grad_enabled()
    _C.set_grad_enabled(False)
    try:
        yield
    finally:
        _C.set_grad_enabled(prev)


def is_grad_enabled():
    return bool(_C.is_grad_enabled())
