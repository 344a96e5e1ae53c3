"""Switching between dynamic (eager) and static graph mode."""
from .. import _C_ops
from .op_builder import static_functions

_state = {"static": False, "functions": None}


def enable_static():
    """Static graph mode: public API calls append ops to the current Program (see
    paddle_ops.static) instead of running; Executor.run computes the values."""
    if _state["functions"] is None:
        _state["functions"] = static_functions(_C_ops.DYNAMIC_FUNCTIONS)
    _C_ops._install(_state["functions"])
    _state["static"] = True


def disable_static(place=None):
    """Back to dynamic (eager) mode, the default. A `place` given (as Paddle's tests pass one)
    becomes the current device, as set_device(place); None leaves the device as it is."""
    if place is not None:
        from ..device import set_device
        set_device(place)
    _C_ops._install(_C_ops.DYNAMIC_FUNCTIONS)
    _state["static"] = False


def in_dynamic_mode():
    """True in dynamic (eager) mode, False after enable_static()."""
    return not _state["static"]


def in_static_mode():
    return _state["static"]
