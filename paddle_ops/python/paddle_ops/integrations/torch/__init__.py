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

Example (not a doctest: CI has no torch)::

    import torch
    import paddle_ops.integrations.torch  # registers torch.ops.paddle_ops.*
    x = torch.tensor([[0.0, 1.0, 2.0]], requires_grad=True)
    torch.ops.paddle_ops.logcumsumexp(x, axis=1)   # [[0.0000, 1.3133, 2.4076]]

Ops whose outputs depend on an attribute are one torch op per output set (a schema has a
fixed output list): ``right_flood`` / ``right_flood_with_index``, ``gla`` /
``gla_with_final_state`` (docs/usage.md, "PyTorch").
"""
import os

try:
    import torch
except ImportError as e:
    raise ImportError("paddle_ops.integrations.torch needs PyTorch (pip install torch), which is not "
                      "installed") from e

from ... import _C
from ...framework import convert_place
from ._convert import TO_TORCH, ours_dtype, ours_dtype_or_undefined, to_paddle, to_torch
from ._generated import IMPLS, NAMESPACE, OPS

__all__ = ["OPS", "NAMESPACE", "BACKEND", "to_paddle", "to_torch", "registered_ops"]


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
            attrs.append(args[v] if kind == "value" else ours_dtype_or_undefined(args[v]) if kind == "dtype?"
                         else ours_dtype(args[v]))
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


_PLACES = {}


def _place(device):
    key = (device.type, device.index)
    if key not in _PLACES:
        _PLACES[key] = convert_place(f"gpu:{device.index or 0}" if device.type == "cuda" else "cpu")
    return _PLACES[key]


# Stand-ins for symbolic dims while InferMeta runs (two sets, far from real small dims): an
# output dim that is the j-th stand-in in both runs is the j-th symbol; one that changes in
# another way is computed from symbols, and the dims are then made concrete instead.
_PROBES = ((1000003, 1000033, 1000037, 1000039, 1000081, 1000099, 1000117, 1000121),
           (1000133, 1000151, 1000159, 1000171, 1000183, 1000187, 1000193, 1000199))


def _symbols(tensors):
    """The distinct symbolic dims of `tensors`, in order of appearance."""
    syms = {}
    for t in tensors:
        for d in t.shape:
            if isinstance(d, torch.SymInt) and d.node.maybe_as_int() is None:
                syms.setdefault(str(d), d)
    return list(syms.values())


def _make_fake(entry):
    op, outputs = entry["op"], entry["outputs"]
    first = next(i for i, k in enumerate(entry["kinds"]) if k == "tensor")
    tensor_args = [i for i, k in enumerate(entry["kinds"]) if k.startswith("tensor")]

    def infer(args, device, dim):
        metas, attrs = _split(entry, args, lambda t: ([dim(d) for d in t.shape], ours_dtype(t.dtype)))
        return [_C.static.infer_meta(op, metas, attrs, _place(device))[i] for i in outputs]

    def fake(*args):
        device = args[first].device
        syms = _symbols(args[i] for i in tensor_args if args[i] is not None)
        shapes = None
        if not syms:
            res = infer(args, device, int)
            shapes = [dims for dims, _ in res]
        elif len(syms) <= len(_PROBES[0]):
            keys = [str(s) for s in syms]
            try:
                runs = [infer(args, device, lambda d, p=p: p[keys.index(str(d))] if str(d) in keys else int(d))
                        for p in _PROBES]
            except (ValueError, TypeError, IndexError, RuntimeError):
                runs = None  # a check that compares a symbol with a number: use the numbers
            if runs is not None:
                res, shapes = runs[0], []
                for (a, _), (b, _) in zip(*runs):
                    dims = []
                    for x, y in zip(a, b):
                        if x == y:
                            dims.append(x)
                        elif x in _PROBES[0] and y in _PROBES[1] and _PROBES[0].index(x) == _PROBES[1].index(y):
                            dims.append(syms[_PROBES[0].index(x)])
                        else:
                            shapes = None
                            break
                    if shapes is None:
                        break
                    shapes.append(dims)
        if shapes is None:  # specializes the symbolic dims (a guard; raises if data-dependent)
            res = infer(args, device, int)
            shapes = [dims for dims, _ in res]
        outs = []
        for dims, (_, dt) in zip(shapes, res):
            shape = [torch.library.get_ctx().new_dynamic_size() if isinstance(d, int) and d < 0 else d for d in dims]
            outs.append(torch.empty(shape, dtype=TO_TORCH[str(dt)], device=device))
        return outs[0] if len(outs) == 1 else tuple(outs)
    fake.__name__ = entry["name"] + "_fake"
    return _with_defaults(entry, fake)


def _make_autograd(entry, namespace=NAMESPACE):
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
        res = getattr(getattr(torch.ops, namespace), name)(*vals)
        res = res if isinstance(res, (tuple, list)) else (res,)
        result = [None] * n_args
        for k, slot in enumerate(slots):
            result[slot] = res[k]
        return tuple(result)

    return backward, setup_context


def _register_python(namespace=NAMESPACE):
    """The Python path: each op a torch.library.custom_op with its Python kernel (_generated.py),
    as torch.ops.<namespace>.<op>. tools/bench/bench_torch.py registers this path a second time
    under another namespace beside the C++ path, to measure both in one process."""
    ops = {}
    for entry in OPS:
        op = torch.library.custom_op(f"{namespace}::{entry['name']}", IMPLS[entry["name"]], mutates_args=(),
                                     schema=entry["schema"])
        op.register_fake(_make_fake(entry))
        if entry["backward"]:
            backward, setup_context = _make_autograd(entry, namespace)
            op.register_autograd(backward, setup_context=setup_context)
        ops[entry["name"]] = op
    return ops


def _register_cpp(cpp_cuda):
    """The C++ path: the schemas defined here (torch.library.Library), the kernels those of
    torch_ext.cc (already loaded: TORCH_LIBRARY_IMPL for CPU and, when `cpp_cuda`, CUDA), the
    Python kernel for a device without a C++ one, and the same fake kernels and autograd
    formulas as the Python path."""
    lib = torch.library.Library(NAMESPACE, "DEF")
    ops = {}
    for entry in OPS:
        name = entry["name"]
        lib.define(name + entry["schema"])
        for key in ([] if entry["cpp"] else ["CPU"]) + ([] if entry["cpp"] and cpp_cuda else ["CUDA"]):
            lib.impl(name, IMPLS[name], key)
        qualname = f"{NAMESPACE}::{name}"
        torch.library.register_fake(qualname, _make_fake(entry), lib=lib)
        if entry["backward"]:
            backward, setup_context = _make_autograd(entry)
            torch.library.register_autograd(qualname, backward, setup_context=setup_context, lib=lib)
        ops[name] = getattr(getattr(torch.ops, NAMESPACE), name)
    return lib, ops


def _choose():
    """('cpp' or 'python', whether the C++ kernels include CUDA's, why not C++ or None).
    PADDLE_OPS_TORCH_CPP=0: the Python path; =1: the C++ path or ImportError; unset or
    anything else: the C++ path when its library builds, else the Python path."""
    outputs = os.environ.get("PADDLE_OPS_TORCH_OUTPUTS")
    if outputs is not None and outputs not in ("torch", "ours"):
        raise ValueError(f"PADDLE_OPS_TORCH_OUTPUTS={outputs!r}: 'torch' (the C++ kernels' outputs from torch's "
                         f"allocator) or 'ours' (from paddle_ops' caching allocator); unset: torch's on CUDA, "
                         f"ours on the CPU")
    want = os.environ.get("PADDLE_OPS_TORCH_CPP", "").strip()
    if want == "0":
        return "python", False, "PADDLE_OPS_TORCH_CPP=0"
    from . import _build
    try:
        cuda = _build.load()
    except Exception as e:  # no compiler, no torch headers, no runtime library ...
        if want == "1":
            raise ImportError(f"paddle_ops.integrations.torch: PADDLE_OPS_TORCH_CPP=1, but the C++ kernels "
                              f"could not be built or loaded: {e}") from e
        return "python", False, f"{type(e).__name__}: {e}"
    return "cpp", cuda, None


#: Which kernels the torch ops run: "cpp" (torch_ext.cc through TORCH_LIBRARY_IMPL, called by
#: torch's dispatcher without Python) or "python" (torch.library.custom_op kernels).
#: PADDLE_OPS_TORCH_CPP chooses (see _choose); CPP_CUDA: the C++ kernels include CUDA's;
#: CPP_UNAVAILABLE: why the Python path was taken (None on the C++ path).
BACKEND, CPP_CUDA, CPP_UNAVAILABLE = _choose()
if BACKEND == "cpp":
    _LIBRARY, _REGISTERED = _register_cpp(CPP_CUDA)
else:
    _REGISTERED = _register_python()


def registered_ops():
    """The names of the registered torch ops (torch.ops.paddle_ops.<name>)."""
    return list(_REGISTERED)
