"""The torch front: paddle_ops' public ops on torch tensors, with paddle_ops' signatures, by the
one signature layer (paddle_ops/_front.py). Each op runs the torch op of its output set
(torch.ops.paddle_ops.<op>, ``<op>_with_<output>``), so autograd, torch.compile and autocast see
the registered ops."""
import torch

import paddle_ops as _paddle_ops

from ... import _front
from ._generated import NAMESPACE, OPS


class _TorchAdapter(_front.Adapter):
    tensor_types, tensor_kind, framework = (torch.Tensor,), "torch.Tensor", "torch"

    def dtype(self, t):
        return str(t.dtype).replace("torch.", "")

    def dtype_name(self, v):
        return str(v).replace("torch.", "") if isinstance(v, torch.dtype) else None

    def cast(self, t, dtype):
        return t.to(getattr(torch, dtype))

    def flatten(self, t):
        return t.reshape(-1)

    def counts(self, values, like):
        return torch.as_tensor(values, device=like.device)

    def item(self, t):
        return int(t.item())

    def run(self, op, args):
        entry, targs = _front.table_call(OPS, op, args)
        return _front.table_outputs(entry, getattr(getattr(torch.ops, NAMESPACE), entry["name"])(*targs))


_TORCH = _TorchAdapter()
# logcumsumexp, cumsum, pscan, right_flood, repeat_interleave, gla: paddle_ops' signatures
__all__ = _front.define(_TORCH, globals(), _paddle_ops)
