"""The generated operator functions (one per entry of api_yaml/ops.yaml).

Each takes every YAML argument positionally, checks its Python type, records autograd and
runs the C++ API. The public functions in paddle_ops.tensor are thin wrappers over these.
"""
from ._C import ops as _ops

for _name in dir(_ops):
    if not _name.startswith("__"):
        globals()[_name] = getattr(_ops, _name)
del _name
