"""paddle_ops kernels as PyTorch custom ops: ``torch.ops.paddle_ops.<op>``.

Importing this module registers every op of api_yaml/ (except the tensor arithmetic torch has
already) with ``torch.library``: ``custom_op`` (the kernel, on CPU and CUDA tensors),
``register_fake`` (shapes and dtypes from the op's own InferMeta, so torch.compile and
FakeTensor tracing work) and ``register_autograd`` (the YAML grad op, itself a torch op).
The table of ops, schemas and argument mappings is generated at build time from the YAML by
tools/codegen/gen_torch.py (``_generated.py``); this file holds no per-op code.

Tensors cross by DLPack without copies (a non-contiguous input is made contiguous first);
on CUDA the exchange follows the DLPack stream rules: torch's current stream's pending work
is ordered before our stream and our work before torch's current stream, with events, not
host synchronization (our kernels run on our own stream of the device; docs/usage.md).

Example:
    >>> import torch
    >>> import paddle_ops.integrations.torch  # registers torch.ops.paddle_ops.*
    >>> x = torch.tensor([[0.0, 1.0, 2.0]], requires_grad=True)
    >>> torch.ops.paddle_ops.logcumsumexp(x, axis=1)
    tensor([[0.0000, 1.3133, 2.4076]], grad_fn=<...>)

Ops whose outputs depend on an attribute are one torch op per output set (a schema has a
fixed output list): ``right_flood`` / ``right_flood_with_index``, ``gla`` /
``gla_with_final_state`` (docs/usage.md, "PyTorch").
"""
import torch

from ... import _C
from ...framework import convert_place
from ._generated import NAMESPACE, OPS

__all__ = ["OPS", "NAMESPACE", "to_paddle", "to_torch", "registered_ops"]

_DTYPE_NAMES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
                "complex64", "complex128"]
_TO_OURS = {getattr(torch, n): _C.dtype_from_string(n) for n in _DTYPE_NAMES}
_TO_TORCH = {str(v): k for k, v in _TO_OURS.items()}
_KDLCUDA = 2


def _ours_dtype(dt):
    try:
        return _TO_OURS[dt]
    except KeyError:
        raise TypeError(f"paddle_ops has no dtype for torch.{str(dt).split('.')[-1]}") from None


def to_paddle(t):
    """A paddle_ops Tensor on the memory of torch tensor `t` (no copy when `t` is contiguous).
    On CUDA, work queued on torch's current stream is ordered before ours."""
    if not t.is_contiguous():
        t = t.contiguous()
    if t.is_cuda:
        stream = _C._dlpack_consumer_stream(_KDLCUDA, t.device.index)
        return _C._from_dlpack_capsule(t.detach().__dlpack__(stream=stream), None)
    return _C._from_dlpack_capsule(torch.utils.dlpack.to_dlpack(t), None)


def to_torch(x):
    """A torch tensor on the memory of paddle_ops Tensor `x` (no copy). On CUDA, our pending
    work is ordered before torch's current stream."""
    try:
        if x.place.is_gpu_place():
            dev = x.place.gpu_device_id()
            return torch._C._from_dlpack(x.__dlpack__(stream=torch.cuda.current_stream(dev).cuda_stream))
        return torch._C._from_dlpack(x.__dlpack__())
    except BufferError:
        if 0 not in x.shape:
            raise
        # an empty result holds no memory to share
        device = f"cuda:{x.place.gpu_device_id()}" if x.place.is_gpu_place() else "cpu"
        return torch.empty(x.shape, dtype=_TO_TORCH[str(x.dtype)], device=device)


def _attr(kind, value):
    if kind == "dtype" or (kind == "dtype?" and value is not None):
        return _ours_dtype(value)
    if kind == "dtype?":
        return _C.dtype_from_string("undefined")
    return value


def _split(entry, args, tensor):
    """Our op's tensor inputs (through `tensor`) and attributes, in YAML order, from the torch
    op's arguments."""
    ins, attrs = [], []
    for how, v in entry["call"]:
        if how == "const":
            attrs.append(v)
            continue
        kind = entry["kinds"][v]
        if kind.startswith("tensor"):
            ins.append(None if args[v] is None else tensor(args[v]))
        else:
            attrs.append(_attr(kind, args[v]))
    return ins, attrs


def _with_defaults(entry, fn):
    """fn taking every argument of the schema, called with the trailing defaults omitted
    (torch passes the arguments as the caller gave them)."""
    n, defaults = len(entry["args"]), tuple(entry["defaults"])

    def call(*args):
        if len(args) < n:
            args = args + defaults[len(args) - n:]
        return fn(*args)
    call.__name__ = fn.__name__
    return call


def _make_impl(entry):
    op, outputs, single = entry["op"], entry["outputs"], len(entry["outputs"]) == 1
    kinds, call = entry["kinds"], entry["call"]
    direct = getattr(_C.ops, op, None)
    if direct is not None and all(k in ("tensor", "tensor?", "value") for k in kinds):
        # A forward op: its _C_ops function takes every YAML argument in order.
        def impl(*args):
            vals = []
            for how, v in call:
                if how == "const":
                    vals.append(v)
                elif kinds[v] == "value":
                    vals.append(args[v])
                else:
                    a = args[v]
                    vals.append(None if a is None else to_paddle(a))
            res = direct(*vals)
            if single:
                return to_torch(res if not isinstance(res, tuple) else res[outputs[0]])
            return tuple(to_torch(res[i]) for i in outputs)
    else:
        def impl(*args):
            ins, attrs = _split(entry, args, to_paddle)
            res = _C.static.run(op, ins, attrs)
            if single:
                return to_torch(res[outputs[0]])
            return tuple(to_torch(res[i]) for i in outputs)
    impl.__name__ = entry["name"]
    return _with_defaults(entry, impl)


_PLACES = {}


def _place(device):
    key = (device.type, device.index)
    if key not in _PLACES:
        _PLACES[key] = convert_place(f"gpu:{device.index or 0}" if device.type == "cuda" else "cpu")
    return _PLACES[key]


def _make_fake(entry):
    op, outputs = entry["op"], entry["outputs"]
    first = next(i for i, k in enumerate(entry["kinds"]) if k == "tensor")

    def fake(*args):
        device = args[first].device
        metas, attrs = _split(entry, args, lambda t: ([int(d) for d in t.shape], _ours_dtype(t.dtype)))
        res = _C.static.infer_meta(op, metas, attrs, _place(device))
        outs = []
        for i in outputs:
            dims, dt = res[i]
            shape = [torch.library.get_ctx().new_dynamic_size() if d < 0 else d for d in dims]
            outs.append(torch.empty(shape, dtype=_TO_TORCH[str(dt)], device=device))
        return outs[0] if len(outs) == 1 else tuple(outs)
    fake.__name__ = entry["name"] + "_fake"
    return _with_defaults(entry, fake)


def _make_autograd(entry):
    bwd = entry["backward"]
    roles = bwd["args"]
    n_args = len(entry["args"])
    variants = bwd["variants"]  # (torch grad op, forward inputs it needs given, forward arg index per output)
    optional_needed = sorted({n for _, need, _ in variants for n in need})
    arg_index = {name: i for i, name in enumerate(entry["args"])}

    defaults = tuple(entry["defaults"])

    def setup_context(ctx, inputs, output):
        if len(inputs) < n_args:
            inputs = tuple(inputs) + defaults[len(inputs) - n_args:]
        outs = output if isinstance(output, tuple) else (output,)
        saved = [inputs[v] if how == "input" else outs[v] for how, v in roles if how in ("input", "output")]
        ctx.save_for_backward(*saved)
        ctx.attrs = [inputs[v] for how, v in roles if how == "attr"]
        ctx.given = frozenset(n for n in optional_needed if inputs[arg_index[n]] is not None)

    def backward(ctx, *grads):
        saved, attrs = iter(ctx.saved_tensors), iter(ctx.attrs)
        vals = []
        for how, v in roles:
            if how in ("input", "output"):
                vals.append(next(saved))
            elif how == "grad":
                vals.append(grads[v])
            elif how == "attr":
                vals.append(next(attrs))
            else:
                vals.append(v)
        name, _, slots = next(var for var in variants if frozenset(var[1]) == ctx.given)
        res = getattr(getattr(torch.ops, NAMESPACE), name)(*vals)
        res = res if isinstance(res, (tuple, list)) else (res,)
        result = [None] * n_args
        for k, slot in enumerate(slots):
            result[slot] = res[k]
        return tuple(result)

    return backward, setup_context


def _register():
    ops = {}
    for entry in OPS:
        op = torch.library.custom_op(f"{NAMESPACE}::{entry['name']}", _make_impl(entry), mutates_args=(),
                                     schema=entry["schema"])
        op.register_fake(_make_fake(entry))
        if entry["backward"]:
            backward, setup_context = _make_autograd(entry)
            op.register_autograd(backward, setup_context=setup_context)
        ops[entry["name"]] = op
    return ops


_REGISTERED = _register()


def registered_ops():
    """The names of the registered torch ops (torch.ops.paddle_ops.<name>)."""
    return list(_REGISTERED)
