"""paddle_ops' own front: the signature layer's adapter for paddle_ops.Tensor (and the static
graph's Variables, which are Tensors). The public functions of paddle_ops.tensor and the Tensor
methods are each one call of ``front.<op>`` with their parameters in order (the layer's function
for the op: the common case at once, anything else through ``_front.call``)."""
import types

from . import _C, _C_ops
from . import _front
from ._C import DataType, Tensor

_NAMES = {_C.dtype_from_string(n): n for n in _front.DTYPES}


class NativeAdapter(_front.Adapter):
    tensor_types = (Tensor,)

    def dtype(self, t):
        d = t.dtype
        name = _NAMES.get(d)
        return name if name is not None else str(d)

    dtype_attribute = "_dtype_code"  # int(t.dtype), without making a DataType object

    def dtype_keys(self, names):
        return {int(d) for d, n in _NAMES.items() if n in names}

    def dtype_name(self, v):
        return _NAMES.get(v) if isinstance(v, DataType) else None

    def cast(self, t, dtype):
        return _C_ops.cast(t, _C.dtype_from_string(dtype))

    def flatten(self, t):
        return _C_ops.reshape(t, [-1])

    def counts(self, values, like):
        from .tensor.creation import to_tensor
        return to_tensor(values, place=like.place)

    def run(self, op, args):
        out = getattr(_C_ops, op)(*args)  # looked up at each call: enable_static() swaps _C_ops
        return list(out) if isinstance(out, (tuple, list)) else [out]


NATIVE = NativeAdapter()
# paddle_ops.<op>'s body: front.<op>(its parameters), the layer's function of the op
front = types.SimpleNamespace(**_front.functions(NATIVE))


def call(op, arguments):
    """paddle_ops.<op> by the signature layer's rules read from the table for every call
    (_front.call, what front.<op> does for anything but the common case), with the parameters by
    name."""
    return _front.call(NATIVE, op, arguments)
