"""paddle_ops' kernels on real PaddlePaddle tensors, with Paddle's autograd, static graph and
``paddle.jit``.

    import paddle
    from paddle_ops.integrations import paddle as po

    x = paddle.randn([4, 1000])
    x.stop_gradient = False
    y = po.logcumsumexp(x, axis=1)          # a paddle.Tensor, computed by paddle_ops' kernel
    y.sum().backward()                      # x.grad: paddle_ops' logcumsumexp_grad

Every op of api_yaml/ whose attributes Paddle's custom operators can hold is registered with
Paddle as the custom operator ``paddle_ops_<op>`` (with its grad op), by source generated from
the YAML (tools/codegen/gen_paddle.py); ``ops`` holds them all under their YAML names and
signatures. The functions below take the same arguments as paddle_ops' own API, by the same
rules: each is the signature layer (paddle_ops/_front.py) with this front's adapter. Inputs are
used in place (the kernels read Paddle's memory); outputs come from paddle_ops' caching
allocator and Paddle takes them over without a copy (``set_output_allocation('paddle')``:
Paddle allocates them and the kernels write there). CPU tensors (PyPI's Paddle 3 is CPU-only).

The extension is compiled at first import (about a minute) into a cache directory; see
``_build.py``.
"""
import re
import warnings

# Paddle's own import warns where ccache is not installed (cpp_extension looks for it at import):
# build talk, which this front's build keeps quiet (_build._paddle_quiet). Only that warning is
# filtered, and only where this import is Paddle's first.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="No ccache found", category=UserWarning)
    import paddle

from . import _build
from .. import _runtime
import paddle_ops as _paddle_ops

from ... import _front

__all__ = ["logcumsumexp", "cumsum", "pscan", "right_flood", "repeat_interleave", "gla", "ops",
           "set_output_allocation", "get_output_allocation"]

# PD_THROW's message: "[paddle_ops:<Kind>] <message>" then "[<file>:<line>]".
_ERROR = re.compile(r"\[paddle_ops:(ValueError|TypeError|IndexError|MemoryError|RuntimeError|NotImplementedError)\] (.*?)\s*(?:\[[^\]\n]*:\d+\])?\s*$",
                    re.S)
_TYPES = {"ValueError": ValueError, "TypeError": TypeError, "IndexError": IndexError,
          "MemoryError": MemoryError, "RuntimeError": RuntimeError, "NotImplementedError": NotImplementedError}


class _Ops:
    """The generated custom operators by their YAML names: ``ops.<op>(*inputs, *attrs)`` with
    the YAML defaults for attributes left out, None for an absent optional input, and a list of
    outputs when the op has several (an optional output the op did not produce is an empty
    tensor)."""

    def __init__(self):
        self._module = None
        self._meta = _build.meta()

    def _ext(self):
        if self._module is None:
            self._module = _build.load()
        return self._module

    def __dir__(self):
        return sorted(self._meta)

    def __getattr__(self, name):
        if name.startswith("_") or name not in self._meta:
            raise AttributeError(f"paddle_ops.integrations.paddle.ops has no op '{name}'")
        call = _caller(self._meta[name], getattr(self._ext(), self._meta[name]["paddle_name"]))
        setattr(self, name, call)  # later lookups find it without __getattr__
        return call


def _default(attr):
    d = attr["default"]
    if d is None:
        raise TypeError(f"missing attribute '{attr['name']}'")
    d = d.strip()
    if d in ("true", "false"):
        return d == "true"
    if d[:1] in "\"'":
        return d.strip("\"'")
    return float(d) if attr["type"] in ("float", "double") else int(d)


def _reraise(e):
    """Paddle wraps the kernel's exception: re-raise ours by its type."""
    match = _ERROR.search(str(e))
    if match:
        raise _TYPES[match.group(1)](match.group(2).strip()) from None
    raise e


def _caller(m, fn):
    """The Python function of one generated op: binds arguments (YAML defaults, an empty tensor
    for an absent optional input, a double as its exact decimal text: see gen_paddle.py) and
    calls the custom operator."""
    name = m["paddle_name"]
    names = [i["name"] for i in m["inputs"]] + [a["name"] for a in m["attrs"]]
    n_in = len(m["inputs"])
    optional = [k for k, i in enumerate(m["inputs"]) if i["optional"]]
    required = next(k for k, i in enumerate(m["inputs"]) if not i["optional"])
    doubles = [n_in + k for k, a in enumerate(m["attrs"]) if a["type"] == "double"]
    multi = len(m["outputs"]) > 1

    def bind(args, kwargs):
        if len(args) > len(names):
            raise TypeError(f"{name}() takes {len(names)} arguments, got {len(args)}")
        values = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names or k in values:
                raise TypeError(f"{name}(): unexpected or repeated argument '{k}'")
            values[k] = v
        out = []
        for k, n in enumerate(names):
            if n in values:
                out.append(values[n])
            elif k < n_in and k in optional:
                out.append(None)
            elif k < n_in:
                raise TypeError(f"{name}(): missing input '{n}'")
            else:
                out.append(_default(m["attrs"][k - n_in]))
        return out

    def call(*args, **kwargs):
        args = list(args) if not kwargs and len(args) == len(names) else bind(args, kwargs)
        for k in optional:
            if args[k] is None:
                args[k] = paddle.zeros([0], dtype=args[required].dtype)  # an empty tensor stands for None
        for k in doubles:
            args[k] = repr(float(args[k]))
        try:
            out = fn(*args)
        except Exception as e:
            _reraise(e)
        return list(out) if multi else out
    call.__name__ = m["paddle_name"][len("paddle_ops_"):]
    return call


def set_output_allocation(where):
    """Where the ops' outputs are allocated: 'paddle_ops' (the default: paddle_ops' caching
    allocator; Paddle takes the buffer over without a copy) or 'paddle' (Paddle's allocator; the
    kernel writes into the tensor Paddle made, where the shape is known before it runs). On the
    CPU, Paddle's allocator gives fresh memory to each large tensor, whose first touch costs
    about 4 ns per float32 element here (docs/benchmarks.md, Real Paddle)."""
    if where not in ("paddle_ops", "paddle"):
        raise ValueError(f"set_output_allocation(): 'paddle_ops' or 'paddle', but got {where!r}")
    _runtime.load().po_runtime_set_caller_allocates(1 if where == "paddle" else 0)


def get_output_allocation():
    return "paddle" if _runtime.load().po_runtime_caller_allocates() else "paddle_ops"


ops = _Ops()
# Build (first time) and load now: Paddle knows the ops before any program uses them. The runtime
# library the extension links follows paddle_ops' thread count and flags (_runtime.py).
ops._ext()


_TENSOR_TYPES = (paddle.Tensor, paddle.pir.Value, paddle.static.Variable)


class _PaddleAdapter(_front.Adapter):
    """The signature layer's adapter for paddle.Tensor (and a static graph's Values)."""
    tensor_types, tensor_kind, framework = _TENSOR_TYPES, "paddle.Tensor", "paddle"

    def dtype(self, t):
        return str(t.dtype).replace("paddle.", "")

    def dtype_name(self, v):
        return str(v).replace("paddle.", "") if isinstance(v, paddle.dtype) else None

    def cast(self, t, dtype):
        return paddle.cast(t, dtype)

    def flatten(self, t):
        return paddle.reshape(t, [-1])

    def counts(self, values, like):
        return paddle.to_tensor(values)

    def item(self, t):
        return int(t.item())

    def run(self, op, args):
        out = getattr(ops, op)(*args)
        return list(out) if isinstance(out, (list, tuple)) else [out]


_PADDLE = _PaddleAdapter()
# logcumsumexp, cumsum, pscan, right_flood, repeat_interleave, gla: paddle_ops' signatures
_front.define(_PADDLE, globals(), _paddle_ops)
