"""Static-mode versions of the generated _C_ops functions: one builder per op of
api_yaml/, made from the op descriptions that tools/codegen/gen_static.py compiles into
paddle_ops._C (so an op added to the YAML gets its builder with no code here).

A builder checks its arguments, runs the op's own C++ InferMeta on the inputs' (dims, dtype)
(and the kernel lookup), creates the output Variables and appends an Operator to the current
block of the main Program.

Unknown dims (-1). The C++ InferMeta functions take concrete dims, so a call with unknown
dims runs InferMeta with every unknown dim replaced by a placeholder, twice, with two
different placeholders (UNKNOWN_PROBES): an output dim that comes out the same both times does
not depend on the unknown dims and is known; one that differs becomes -1. All unknown dims of
one call take the same placeholder (the usual case is one batch dim shared by all inputs).
If InferMeta rejects both probes, the call is retried with the unknown dims taken as 1 (a
dim that broadcasts against a known one: [-1, 3] + [5, 3] gives [5, 3]). Only if that fails
too does the build fail: with the probes' own error when both probes gave the same message
(it does not depend on the unknown dims: an axis out of range, a dtype), otherwise with the
error for unknown dims = 1, saying so. At run time InferMeta runs again, inside the C++ API,
on the real shapes.
"""
import json
from collections import OrderedDict

from .. import _C
from .._C import Tensor
from ..framework import UNDEFINED
from . import framework as fw

SPECS = OrderedDict((s["name"], s) for s in json.loads(_C.static.op_specs()))

# Two placeholders for unknown dims (primes, far from any real small dim); then 1.
UNKNOWN_PROBES = (1009, 1013)
_ERRORS = (IndexError, TypeError, ValueError, RuntimeError)


def py_value(default):
    """A YAML default (as gen_static.py encodes it) as the Python argument that means it."""
    if isinstance(default, dict) and "dtype" in default:
        return UNDEFINED if default["dtype"] == "undefined" else _C.dtype_from_string(default["dtype"])
    return default


def _substitute(metas, value):
    return [None if m is None else ([value if d == -1 else d for d in m[0]], m[1]) for m in metas]


def _place():
    from ..framework import _current_place
    return _current_place()


def infer_meta(op, metas, attrs):
    """(dims, dtype) or None for each output of `op`, dims -1 where they depend on unknown
    input dims. metas: (dims, dtype) or None per tensor input; attrs in YAML order."""
    place = _place()
    if not any(m is not None and -1 in m[0] for m in metas):
        return list(_C.static.infer_meta(op, metas, attrs, place))
    outcome = OrderedDict()
    for v in UNKNOWN_PROBES:
        try:
            outcome[v] = (True, _C.static.infer_meta(op, _substitute(metas, v), attrs, place))
        except _ERRORS as e:
            outcome[v] = (False, e)
    (ok1, r1), (ok2, r2) = outcome.values()
    if ok1 and ok2:
        merged = []
        for a, b in zip(r1, r2):
            if a is None or b is None:
                merged.append(None if a is None else (list(a[0]), a[1]))
            elif len(a[0]) != len(b[0]):
                merged.append(([-1] * len(a[0]), a[1]))
            else:
                merged.append(([x if x == y else -1 for x, y in zip(a[0], b[0])], a[1]))
        return merged
    if ok1 or ok2:  # one probe only: dims equal to its placeholder are unknown
        v, r = (UNKNOWN_PROBES[0], r1) if ok1 else (UNKNOWN_PROBES[1], r2)
        return [None if m is None else ([-1 if d == v else d for d in m[0]], m[1]) for m in r]
    try:
        return list(_C.static.infer_meta(op, _substitute(metas, 1), attrs, place))
    except _ERRORS as e:
        # An unknown dim may have to match a known one of another input (x [-1, 4] repeated by
        # 3 counts along axis 0): try those sizes; dims equal to the one that passes stay unknown.
        for v in sorted({d for m in metas if m is not None for d in m[0] if d > 1}):
            try:
                r = _C.static.infer_meta(op, _substitute(metas, v), attrs, place)
            except _ERRORS:
                continue
            return [None if m is None else ([-1 if d == v else d for d in m[0]], m[1]) for m in r]
        if type(r1) is type(r2) and str(r1) == str(r2):
            raise r1.with_traceback(None) from None
        raise type(e)(f"{e} (checked while building the program, with every unknown (-1) dim "
                      f"taken as 1)") from None


def _bind(op, argnames, args, kwargs):
    if len(args) > len(argnames):
        raise TypeError(f"{op}(): takes {len(argnames)} arguments ({', '.join(argnames)}) "
                        f"but {len(args)} were given")
    values = dict(zip(argnames, args))
    for k, v in kwargs.items():
        if k not in argnames:
            raise TypeError(f"{op}(): got an unexpected keyword argument '{k}'")
        if k in values:
            raise TypeError(f"{op}(): got multiple values for argument '{k}'")
        values[k] = v
    missing = [a for a in argnames if a not in values]
    if missing:
        raise TypeError(f"{op}(): missing argument(s) {', '.join(repr(m) for m in missing)}")
    return values


def _copy_attr(v):
    return list(v) if isinstance(v, (list, tuple)) else v


def append(op, values, program=None, output_names=None):
    """Append op `op` with arguments `values` (YAML name -> value) to `program` (default: the
    current main Program). Returns the output Variable, or a tuple of them (None for an
    absent optional output), as the dynamic _C_ops function returns Tensors."""
    spec = SPECS[op]
    program = program if program is not None else fw.default_main_program()
    block = program.current_block()
    inputs, metas = OrderedDict(), []
    for inp in spec["inputs"]:
        name, v = inp["name"], values[inp["name"]]
        if v is None:
            if not inp["optional"]:
                raise TypeError(f"{op}(): argument '{name}' must be a Tensor, but got NoneType")
        elif isinstance(v, fw.Variable):
            if v.block.program is not program:
                raise ValueError(f"{op}(): argument '{name}' is the variable '{v.name}' of another Program "
                                 f"(use it inside the program_guard of the Program it was made in)")
        elif isinstance(v, Tensor):
            v = program._constant(v)
        else:
            raise TypeError(f"{op}(): argument '{name}' must be a Tensor, but got {type(v).__name__}")
        inputs[name] = v
        metas.append(None if v is None else (v.shape, v.dtype))
    attrs = OrderedDict((a["name"], _copy_attr(values[a["name"]])) for a in spec["attrs"])
    out_metas = infer_meta(op, metas, list(attrs.values()))
    prefix = program._unique_name(op)
    outputs = OrderedDict()
    for k, (o, meta) in enumerate(zip(spec["outputs"], out_metas)):
        if meta is None:
            outputs[o["name"]] = None
            continue
        name = output_names[k] if output_names and output_names[k] else f"{prefix}.{o['name']}"
        dims, dtype = meta
        outputs[o["name"]] = block.create_var(name, dims, dtype, stop_gradient=not fw.is_floating(dtype))
    block.append_op(op, inputs, outputs, attrs)
    result = list(outputs.values())
    return result[0] if len(result) == 1 else tuple(result)


def make_function(op):
    """The static-mode _C_ops.<op>: same arguments (all required, by position or name)."""
    argnames = SPECS[op]["args"]

    def fn(*args, **kwargs):
        return append(op, _bind(op, argnames, args, kwargs))

    fn.__name__ = fn.__qualname__ = op
    fn.__doc__ = f"Static mode: append a '{op}' op ({', '.join(argnames)}) to the current Program."
    return fn


def static_functions(names):
    return {name: make_function(name) for name in names}

