"""paddle_ops kernels in JAX, through XLA's FFI: ``paddle_ops.integrations.jax``.

    import jax, jax.numpy as jnp
    from paddle_ops.integrations import jax as po

    x = jnp.arange(6.0).reshape(2, 3)
    po.logcumsumexp(x, axis=1)                           # paddle_ops' kernel, called by XLA
    jax.grad(lambda x: po.logcumsumexp(x, axis=1).sum())(x)   # its grad kernel
    jax.jit(lambda a, x: po.pscan(a, x))(x, x)           # inside a jit-compiled program

Every op of api_yaml/ (except the tensor arithmetic JAX has already) is a function of ``ops``
(YAML arguments, one function per output set as in the torch integration: ``ops.gla`` and
``ops.gla_with_final_state``), and the six public ops below take the same arguments as
paddle_ops' own Python API, by the same rules (the signature layer, paddle_ops/_front.py). Each is a ``jax.custom_vjp`` function whose forward and backward are
one ``jax.ffi.ffi_call`` of the FFI target ``paddle_ops`` with the YAML op's name and attributes:
the output shapes and dtypes come from the op's own InferMeta at trace time (bad input raises
there, with paddle_ops' exception type and message), and the handlers (compiled at first import
against the installed jaxlib, ``_build.py``) run our kernels on XLA's buffers without copies: on
the CPU, and on CUDA ordered after and before XLA's stream with events. The op table is
generated from the YAML (tools/codegen/gen_jax.py): this file holds no per-op code except the
public functions' argument handling.

Shapes are static in JAX: ``repeat_interleave`` with an array of counts needs ``output_size``
when the counts are traced. Outputs of int64 or float64 need ``jax_enable_x64``.
"""
try:
    import jax
    import jax.numpy as jnp
except ImportError as e:
    raise ImportError("paddle_ops.integrations.jax needs JAX (pip install jax), which is not installed") from e

import re

import numpy as np

import paddle_ops as _paddle_ops

from ... import _C, _front
from ..._build_config import WITH_GPU
from ...framework import convert_place
from .. import _runtime
from . import _build
from ._generated import OPS, YAML

__all__ = ["logcumsumexp", "cumsum", "pscan", "right_flood", "repeat_interleave", "gla", "ops", "TARGET",
           "last_pointers"]

TARGET = "paddle_ops"
_handlers, _ = _build.load()
jax.ffi.register_ffi_target(TARGET, jax.ffi.pycapsule(_handlers.PoJaxCpu), platform="cpu")
jax.ffi.register_ffi_target(TARGET, jax.ffi.pycapsule(_handlers.PoJaxCuda), platform="CUDA")

_DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
_TO_OURS = {np.dtype(getattr(jnp, n)): _C.dtype_from_string(n) for n in _DTYPES}
_TO_NUMPY = {str(v): k for k, v in _TO_OURS.items()}
_SEP = "\x1f"  # between the string attributes (ffi_handlers.cc)


def _ours(dtype, op, name):
    try:
        return _TO_OURS[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"{op}(): input '{name}' has dtype {dtype}, which paddle_ops does not take") from None


def _place():
    if WITH_GPU and jax.default_backend() == "gpu":
        return convert_place("gpu:0")
    return convert_place("cpu")


def _pack(types, values):
    """The attributes of one FFI call: an int64, a float64 and a text per YAML attribute."""
    ints, floats, texts = [], [], []
    for t, v in zip(types, values):
        if t == "str":
            ints.append(0), floats.append(0.0), texts.append(v)
        elif t in ("float", "double"):
            ints.append(0), floats.append(float(v)), texts.append("")
        else:
            ints.append(int(v)), floats.append(0.0), texts.append("")
    return np.array(ints, np.int64), np.array(floats, np.float64), _SEP.join(texts)


def _call(op, vals):
    """Runs YAML op `op` on its arguments in YAML order (tensors as JAX arrays or None): one
    ffi_call whose result shapes and dtypes are the op's InferMeta's. Returns every output of
    the op (an optional output it does not produce: a float32 [0])."""
    spec = YAML[op]
    ins = [v for v, t in zip(vals, spec["tensors"]) if t]
    attrs = [v for v, t in zip(vals, spec["tensors"]) if not t]
    names = [n for n, t in zip(spec["args"], spec["tensors"]) if t]
    metas = [None if x is None else (list(x.shape), _ours(x.dtype, op, n)) for x, n in zip(ins, names)]
    results = []
    for name, r in zip(spec["outputs"], _C.static.infer_meta(op, metas, attrs, _place())):
        if r is None:
            results.append(jax.ShapeDtypeStruct((0,), np.float32))
            continue
        dims, dtype = r
        if any(d < 0 for d in dims):
            raise ValueError(f"{op}(): output '{name}' has a shape known only when the op runs, but JAX needs "
                             f"it at trace time")
        npdt = _TO_NUMPY[str(dtype)]
        if jax.dtypes.canonicalize_dtype(npdt) != npdt:
            raise TypeError(f"{op}(): output '{name}' is {npdt}, which JAX holds only with 64-bit types on "
                            f"(jax.config.update('jax_enable_x64', True))")
        results.append(jax.ShapeDtypeStruct(tuple(dims), npdt))
    ints, floats, texts = _pack(spec["attr_types"], attrs)
    operands = [jnp.zeros((0,), np.float32) if x is None else x for x in ins]
    present = np.array([x is not None for x in ins], np.int64)
    call = jax.ffi.ffi_call(TARGET, results, vmap_method="sequential")
    return call(*operands, op=op, present=present, ints=ints, floats=floats, strs=texts)


_ARRAY_TYPE = type(jnp.zeros(()))  # the concrete array type: checked first, as the common case
_FLOATING = frozenset(np.dtype(getattr(jnp, n)) for n in ("float16", "bfloat16", "float32", "float64"))


def _as_array(x, op, name):
    if type(x) is _ARRAY_TYPE or isinstance(x, jax.Array):
        return x
    try:
        return jnp.asarray(x)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{op}(): argument '{name}' must be an array, but got {type(x).__name__}") from e


_ERROR = re.compile(r"\[paddle_ops:(ValueError|TypeError|IndexError|MemoryError|RuntimeError)\] (.*)", re.S)
_TYPES = {"ValueError": ValueError, "TypeError": TypeError, "IndexError": IndexError, "MemoryError": MemoryError,
          "RuntimeError": RuntimeError}


def _reraise(e):
    """A kernel's error that XLA raised as a JaxRuntimeError, re-raised with its own type (eager
    calls; inside the caller's jax.jit it stays XLA's JaxRuntimeError, with the same message)."""
    match = _ERROR.search(str(e))
    if match:
        raise _TYPES[match.group(1)](match.group(2).strip()) from e
    raise e


def _make(entry):
    """The function of one table entry: jit-compiled per attribute set, with a custom_vjp whose
    backward calls the YAML grad op."""
    names, kinds, call, outputs = entry["args"], entry["kinds"], entry["call"], entry["outputs"]
    tpos = [i for i, k in enumerate(kinds) if k.startswith("tensor")]
    apos = [i for i, k in enumerate(kinds) if not k.startswith("tensor")]
    n, defaults, bwd = len(names), tuple(entry["defaults"]), entry["backward"]

    def merge(attrs, tensors):
        args = [None] * n
        for i, v in zip(apos, attrs):
            args[i] = v
        for i, v in zip(tpos, tensors):
            args[i] = v
        return args

    def run(static, *tensors):
        args = merge(static[0], tensors)
        outs = _call(entry["op"], [args[v] if how == "arg" else v for how, v in call])
        return tuple(outs[i] for i in outputs)

    fn = run
    if bwd is not None:
        fn = jax.custom_vjp(run, nondiff_argnums=(0,))

        def fwd(static, *tensors):
            outs = run(static, *tensors)
            args = merge(static[0], tensors)
            return outs, tuple(args[v] if how == "input" else outs[v] for how, v in bwd["args"]
                               if how in ("input", "output"))

        def back(static, saved, cts):
            args, saved, vals = merge(static[0], [None] * len(tpos)), iter(saved), []
            for how, v in bwd["args"]:
                vals.append(next(saved) if how in ("input", "output") else cts[v] if how == "grad"
                            else args[v] if how == "attr" else v)
            res = _call(bwd["op"], vals)
            grads = {o[:-len("_grad")]: r for o, r in zip(YAML[bwd["op"]]["outputs"], res)}
            # no cotangent for an absent optional input or an integer one
            return tuple(grads.get(names[i]) if static[1][k] else None for k, i in enumerate(tpos))

        fn.defvjp(fwd, back)
    jitted = jax.jit(fn, static_argnums=(0,))
    name = entry["name"]

    def op(*args, **kwargs):
        if len(args) > n:
            raise TypeError(f"{name}() takes {n} arguments, got {len(args)}")
        args = list(args)
        for k, v in kwargs.items():
            if k not in names or names.index(k) < len(args):
                raise TypeError(f"{name}(): unexpected or repeated argument '{k}'")
        for i in range(len(args), n):
            if names[i] in kwargs:
                args.append(kwargs[names[i]])
            elif i >= n - len(defaults):
                args.append(defaults[i - (n - len(defaults))])
            else:
                raise TypeError(f"{name}(): missing argument '{names[i]}'")
        tensors = [None if args[i] is None and kinds[i] == "tensor?" else _as_array(args[i], name, names[i])
                   for i in tpos]
        diff = tuple(t is not None and t.dtype in _FLOATING for t in tensors)
        static = (tuple(args[i] for i in apos), diff)
        try:
            hash(static)
        except TypeError:
            raise TypeError(f"{name}(): attributes must be plain Python values, got "
                            f"{[type(a).__name__ for a in static[0]]}") from None
        try:
            outs = jitted(static, *tensors)
        except jax.errors.JaxRuntimeError as e:
            _reraise(e)
        return outs[0] if len(outs) == 1 else outs
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"paddle_ops' {entry['op']} through XLA's FFI: {name}({', '.join(names)})."
    return op


class _Ops:
    """Every op of the table by name (YAML arguments and defaults)."""

    def __init__(self, table):
        for entry in table:
            setattr(self, entry["name"], _make(entry))

    def __dir__(self):
        return sorted(k for k in vars(self) if not k.startswith("_"))


ops = _Ops(OPS)


def last_pointers():
    """(inputs, outputs): the data pointers of the last kernel call on this thread (tests)."""
    return _runtime.last_pointers("jax")


# ---- the public functions: paddle_ops' Python API, by the signature layer ----------------------

class _JaxAdapter(_front.Adapter):
    """The signature layer's adapter for JAX arrays (NumPy arrays are taken too, as JAX's own
    functions take them)."""
    tensor_types, tensor_kind, framework = (jax.Array,), "jax.Array", "jax"

    def as_tensor(self, v):
        if type(v) is _ARRAY_TYPE or isinstance(v, jax.Array):
            return v
        return jnp.asarray(v) if isinstance(v, np.ndarray) else None

    def dtype(self, t):
        return np.dtype(t.dtype).name

    def shape(self, t):
        return list(np.shape(t))

    def cast(self, t, dtype):
        return t.astype(jnp.dtype(dtype))

    def flatten(self, t):
        return t.reshape(-1)

    def counts(self, values, like):  # int32 without jax_enable_x64
        return jnp.asarray(values.astype(jax.dtypes.canonicalize_dtype(np.int64)))

    def run(self, op, args):
        if op == "repeat_interleave_with_tensor_index" and args[-1] == -1:
            args = args[:-1] + [_output_size(args[1])]
        entry, targs = _front.table_call(OPS, op, args)
        return _front.table_outputs(entry, getattr(ops, entry["name"])(*targs))


def _output_size(counts):
    """JAX needs the output shape at trace time: the sum of concrete counts."""
    if isinstance(counts, jax.core.Tracer):
        raise ValueError("repeat_interleave(): the counts are traced (inside jax.jit): pass output_size, "
                         "JAX needs the output shape at trace time")
    values = np.asarray(counts)
    if values.dtype.kind not in "iu":
        return -1  # the op's InferMeta refuses them (TypeError)
    if values.size and (values < 0).any():
        raise ValueError(f"repeat_interleave(): repeats must be non-negative, but got {values.min()}")
    return int(values.sum())


_JAX = _JaxAdapter()
# logcumsumexp, cumsum, pscan, right_flood, repeat_interleave, gla: paddle_ops' signatures
_front.define(_JAX, globals(), _paddle_ops)
