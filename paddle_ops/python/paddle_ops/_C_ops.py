"""The generated operator functions (one per entry of api_yaml/ops.yaml).

Each takes every YAML argument positionally, checks its Python type, records autograd and
runs the C++ API. The public functions in paddle_ops.tensor are thin wrappers over these.

This module is also the one switch between the two modes: in dynamic mode its functions are
the native ones (_C.ops, run at once); paddle_ops.enable_static() replaces every one of them
by a builder that appends the op to the current Program (paddle_ops.static), and
disable_static() puts the native ones back. The wrappers look the function up here at each
call, so every op, present or added to the YAML later, follows the mode with no code of its own.
"""
from ._C import ops as _ops

DYNAMIC_FUNCTIONS = {_name: getattr(_ops, _name) for _name in dir(_ops) if not _name.startswith("__")}
globals().update(DYNAMIC_FUNCTIONS)


def _install(functions):
    """Make `functions` (name -> callable, one per generated op) the _C_ops functions."""
    missing = set(DYNAMIC_FUNCTIONS) - set(functions)
    if missing:
        raise RuntimeError(f"_C_ops: no function given for {sorted(missing)}")
    globals().update(functions)
