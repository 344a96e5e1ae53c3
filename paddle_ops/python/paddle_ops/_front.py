"""The one signature layer: every public op's argument rules, written once for every front.

paddle_ops' own functions (``paddle_ops.logcumsumexp``, the Tensor methods) and the integrations'
(``paddle_ops.integrations.paddle``, ``.torch``, ``.jax``) are each a docstring and one call of
the op's function of ``functions(adapter)`` (the fast path, end of this module), which is
``call(adapter, op, arguments)`` for anything but the common case. The rules come from api_yaml/ (each public op's ``python``
field, turned into ``_front_table.FRONT`` by tools/codegen/gen_front.py); this module applies them
the same way for every framework and asks the framework's small adapter (``Adapter`` below) only
what depends on the framework: is this a tensor, its dtype and shape, a cast, a reshape, a tensor
of counts, and running a YAML op. So the same call gives the same values and the same exception
(type and message) on every front; a new argument is a change of the YAML (and of each front's
``def`` line, which a test compares with the YAML).

In order, for a call:
1. other positional orders (Paddle's ``cumsum(x, axis, dtype)``): a dtype where the signature
   has a bool is read in the other order;
2. tensors: each tensor argument is one of the front's tensors (TypeError naming the argument,
   what it got, and for another framework's tensor where to go instead), of a dtype paddle_ops
   takes and the op admits (TypeError);
3. ``dtype`` casts the first tensor (a dtype the op admits, else TypeError); without it, bool and
   integer inputs become ``promote`` where the op has one;
4. attributes by their YAML type: int (32-bit; an ``axis`` out of range is an IndexError, as
   InferMeta's), bool, str, double (a real number; ``finite`` ones NaN/inf-free), computed
   defaults (gla's scale);
5. axis=None: the op's ``flatten``, or a reshape to 1-D and axis 0;
6. the overload (repeat_interleave: a tensor or list of counts calls the ``_with_tensor_index``
   op);
7. the YAML op runs on the front's framework (``Adapter.run``); the outputs are returned as the
   signature says (an optional output chosen by its bool attribute).
"""
import builtins
import math
import numbers

import numpy as np

from ._front_table import FRONT

__all__ = ["Adapter", "call", "define", "FRONT", "DTYPES", "type_name", "not_a_tensor", "dtype_arg", "table_call", "table_outputs"]

# paddle_ops' dtypes, by name (the names the table uses).
DTYPES = ("bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
_FLOATING = ("float16", "bfloat16", "float32", "float64")
_PROMOTABLE = ("bool", "int8", "uint8", "int16", "int32", "int64")
# The hint for another framework's tensor given to a front: its top-level module -> the front.
_FRAMEWORK_FRONTS = {"torch": "torch", "paddle": "paddle", "jax": "jax", "jaxlib": "jax"}


class Adapter:
    """What the layer asks of a framework. `tensor_types` are its tensor classes; `tensor_kind`
    names them in messages ("Tensor", "paddle.Tensor", ...); `framework` is the top-level module
    name of its tensors ("paddle_ops", "paddle", "torch", "jax")."""

    tensor_types: tuple = ()
    tensor_kind = "Tensor"
    framework = "paddle_ops"

    def is_tensor(self, v):
        return isinstance(v, self.tensor_types)

    def as_tensor(self, v):
        """`v` as a tensor of this front, or None when it is not one (a JAX front takes NumPy
        arrays too)."""
        return v if self.is_tensor(v) else None

    def dtype(self, t):
        """The name of t's dtype: one of DTYPES, or the framework's name of another one."""
        raise NotImplementedError

    # A front whose tensors t of class tensor_types[0] itself (not a subclass) tell their dtype by
    # `getattr(t, dtype_attribute)` names that attribute and gives dtype_keys; its fast path tests
    # the attribute in a set for them, in place of calling dtype(t).
    dtype_attribute = None

    def dtype_keys(self, names):
        """The values of `getattr(t, dtype_attribute)` of the tensors t of class tensor_types[0]
        whose dtype(t) is one of `names` (and of no other such tensor)."""
        raise NotImplementedError

    def dtype_name(self, v):
        """The name of `v` when it is one of the framework's dtype objects (a name of DTYPES or the
        framework's name of another dtype), else None. Strings, NumPy dtypes and NumPy scalar
        types are the layer's (dtype_arg)."""
        return None

    def shape(self, t):
        """t's shape as a list (a dim not known yet, in a static graph: -1 or None)."""
        return list(t.shape)

    def cast(self, t, dtype):
        raise NotImplementedError

    def flatten(self, t):
        raise NotImplementedError

    def counts(self, values, like):
        """An int64 tensor of the NumPy array `values` on `like`'s device."""
        raise NotImplementedError

    def item(self, t):
        """The one integer t holds (cumsum's axis given as a tensor)."""
        return int(t)

    def run(self, op, args):
        """Runs YAML op `op` on `args` (its YAML arguments in order: tensors of this front or None,
        attributes as Python values); returns every output of the op (a list; an optional output
        the op did not produce may be None or an empty tensor)."""
        raise NotImplementedError


def type_name(v):
    """The type of `v` as a user knows it: "int", "ndarray", "torch.Tensor", "jax.Array"."""
    t = type(v)
    module = (getattr(t, "__module__", "") or "").split(".")[0]
    if module in ("builtins", "numpy", ""):
        return t.__name__
    if module in ("jax", "jaxlib"):
        return "jax.Array"
    return f"{module}.{t.__qualname__}"


def dtype_arg(adapter, v, what):
    """The name of the dtype `v` (a `dtype=` argument, or Paddle's dtype in third position):
    a name of DTYPES, or TypeError(f"{what}: ...")."""
    if _is_bool(v) or v is None or isinstance(v, (numbers.Number, np.generic)):
        raise TypeError(f"{what}: expected a dtype ('float32', a dtype object), but got {v!r}")
    if isinstance(v, str):
        if v not in DTYPES:
            raise TypeError(f"{what}: unknown dtype '{v}' (expected one of {', '.join(DTYPES)})")
        return v
    name = adapter.dtype_name(v)
    if name is None:
        try:
            name = np.dtype(v).name
        except TypeError:
            raise TypeError(f"{what}: expected a dtype ('float32', a dtype object), but got {type_name(v)}") from None
    if name not in DTYPES:
        raise TypeError(f"{what}: dtype {name} is not supported by paddle_ops")
    return name


def table_call(table, op, args):
    """(entry, its arguments) of a table of gen_torch.py's kind (one entry per output set of a YAML
    op, attributes that choose the outputs held: the torch and JAX integrations) that runs YAML
    op `op` on `args` (its YAML arguments in order)."""
    for entry in table:
        if entry["op"] == op and all(how != "const" or args[i] == held for i, (how, held) in enumerate(entry["call"])):
            out = [None] * len(entry["args"])
            for i, (how, k) in enumerate(entry["call"]):
                if how == "arg":
                    out[k] = args[i]
            return entry, out
    raise RuntimeError(f"{op}: no entry of the op table takes these attributes")


def table_outputs(entry, result):
    """Every output of the YAML op from what a table entry returned (None where it returns none)."""
    result = result if isinstance(result, (tuple, list)) else (result,)
    outs = [None] * entry["n_outputs"]
    for k, i in enumerate(entry["outputs"]):
        outs[i] = result[k]
    return outs


def _hint(adapter, v, op):
    """Where another framework's tensor should go."""
    module = (getattr(type(v), "__module__", "") or "").split(".")[0]
    front = _FRAMEWORK_FRONTS.get(module)
    if front is not None and front != adapter.framework:
        return (f" (a {type_name(v)}: call paddle_ops.integrations.{front}.{op}, or convert it with "
                f"paddle_ops.from_dlpack, without a copy)")
    if module == "paddle_ops" and adapter.framework != "paddle_ops":
        return f" (a paddle_ops.Tensor: call paddle_ops.{op})"
    return ""


def _describe(dtypes):
    names = list(dtypes)
    text = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    return text + " (a floating type)" if tuple(dtypes) == _FLOATING else text


def _is_bool(v):
    return isinstance(v, (builtins.bool, np.bool_))


def _is_int(v):
    """int and NumPy's integer scalars (anything with __index__ that is neither a bool nor an
    array or tensor)."""
    if _is_bool(v):
        return False
    if isinstance(v, (numbers.Integral, np.integer)):
        return True
    return hasattr(type(v), "__index__") and not hasattr(v, "shape")


def _is_real(v):
    return not _is_bool(v) and isinstance(v, (numbers.Real, np.floating, np.integer))


# ---- the steps -------------------------------------------------------------------------------

def _other_order(e, v, adapter, op):
    """Paddle's positional order (x, axis, dtype, name): a dtype where this signature has a bool
    (never a dtype) is read in the other order."""
    params, defaults = e["params"], e["defaults"]
    for order in e["orders"]:
        k = next((i for i, (a, b) in enumerate(zip(params, order)) if a != b), None)
        if k is None or order[k] != "dtype" or v[params[k]] is None or _is_bool(v[params[k]]):
            continue
        try:
            dtype_arg(adapter, v[params[k]], "")
        except TypeError:
            continue
        if v["dtype"] is not None:
            raise TypeError(f"{op}(): got a dtype in position {k + 1} ({v[params[k]]!r}) and dtype={v['dtype']!r}")
        moved = {name: v[params[i]] for i, name in enumerate(order) if i >= k and i < len(params)}
        for name in params[k:]:
            if name not in order[:k]:
                v[name] = defaults.get(name)
        v.update({name: val for name, val in moved.items() if name != "name"})
        return


def not_a_tensor(adapter, v, op, arg):
    """The message for `v`, not a tensor of the front of `adapter`, given as tensor `arg`."""
    return f"{op}(): argument '{arg}' must be a {adapter.tensor_kind}, but got {type_name(v)}" + _hint(adapter, v, op)


def _tensor(adapter, v, op, arg, optional):
    if v is None and optional:
        return None
    t = adapter.as_tensor(v)
    if t is None:
        raise TypeError(not_a_tensor(adapter, v, op, arg))
    return t


def _check_dtype(adapter, t, op, arg, admitted):
    name = adapter.dtype(t)
    if name not in DTYPES:
        raise TypeError(f"{op}(): argument '{arg}' has dtype {name}, which paddle_ops does not take "
                        f"(it takes {', '.join(DTYPES)})")
    if admitted is not None and name not in admitted:
        raise TypeError(f"{op}(): argument '{arg}' must be {_describe(admitted)}, but got {name}")
    return name


def _int(v, op, arg, bits, adapter, like):
    if not _is_int(v):
        raise TypeError(f"{op}(): argument '{arg}' must be int, but got {type_name(v)}")
    i = int(v.__index__()) if hasattr(v, "__index__") else int(v)
    if -2 ** (bits - 1) <= i < 2 ** (bits - 1):
        return i
    if arg == "axis":  # as InferMeta says for an axis in range of 32 bits
        ndim = len(adapter.shape(like)) if like is not None else 0
        r = max(ndim, 1)
        raise IndexError(f"{op}(): axis is out of range for a {ndim}-D tensor: expected it to be in range of "
                         f"[{-r}, {r}), but got {i}")
    raise ValueError(f"{op}(): argument '{arg}' = {i} does not fit in a {bits}-bit int")


def _attr(type_, v, op, arg, adapter, like, finite, choices):
    if type_ == "bool":
        if not _is_bool(v):
            raise TypeError(f"{op}(): argument '{arg}' must be bool, but got {type_name(v)}")
        return bool(v)
    if type_ in ("int", "int64_t", "Scalar"):
        return _int(v, op, arg, 64 if type_ == "int64_t" else 32, adapter, like)
    if type_ == "str":
        if not isinstance(v, str):
            what = " or ".join(repr(c) for c in choices) if choices else "str"
            raise TypeError(f"{op}(): argument '{arg}' must be {what}, but got {type_name(v)}")
        return v
    if type_ in ("float", "double"):
        if not _is_real(v):
            raise TypeError(f"{op}(): argument '{arg}' must be a float, but got {type_name(v)}")
        try:
            f = float(v)
        except OverflowError:  # an int beyond the float range (10**400)
            raise ValueError(f"{op}(): argument '{arg}' must be finite, but got an int too large for a float "
                             f"({int(v).bit_length()} bits)") from None
        if finite and not math.isfinite(f):
            raise ValueError(f"{op}(): argument '{arg}' must be finite, but got {f}")
        return f
    return v


def _rsqrt_last_dim(adapter, t, op, arg):
    shape = adapter.shape(t)
    if len(shape) != 4:
        raise ValueError(f"{op}(): {arg} must be a 4-D tensor, but got {arg} of shape {list(shape)}")
    dk = shape[-1]
    if dk is None or dk < 0:
        raise ValueError(f"{op}(): scale=None needs a known Dk (the last dim of {arg}); pass scale explicitly")
    return dk ** -0.5 if dk > 0 else 1.0


_COMPUTED = {"rsqrt_last_dim": _rsqrt_last_dim}


def _counts(adapter, v, like, op, arg):
    """A list, tuple or NumPy array of counts as an int64 tensor of the front."""
    if isinstance(v, (list, tuple)) and v and all(_is_int(c) for c in v):
        # Python ints beyond int64 (NumPy would make floats or objects of them): a negative count
        # is the kernel's ValueError, a larger one the sum's.
        ints = [int(c) for c in v]
        low, high = min(ints), max(ints)
        if low < 0 and (low < -2 ** 63 or high > 2 ** 63 - 1):
            raise ValueError(f"{op}: {arg} must be non-negative, but {arg}[{ints.index(low)}] is {low}")
        if high > 2 ** 63 - 1:
            raise ValueError(f"{op}(): the sum of {arg} is more than 2**63 - 1 ({arg}[{ints.index(high)}] is {high})")
        v = ints
    values = np.asarray(v)
    if values.dtype.kind not in "iu" and values.size:
        raise TypeError(f"{op}(): argument '{arg}' must hold integers, but got {values.dtype}")
    if values.size and values.max() > (2 ** 63 - 1) // values.size \
            and builtins.sum(int(c) for c in values.flat) > 2 ** 63 - 1:
        raise ValueError(f"{op}(): the sum of {arg} is more than 2**63 - 1")
    return adapter.counts(values.astype(np.int64), like)


def _overload(e, v, adapter, op, first):
    """(the YAML op to call, with `v` updated): the overload's op when its argument is a tensor or
    a list of counts; the argument then becomes that tensor."""
    if e["overload"] is None:
        return e["op"]
    arg, other = e["overload"]
    val = v[arg]
    size = v.get("output_size")
    if size is not None and not _is_int(size):
        raise TypeError(f"{op}(): argument 'output_size' must be an int or None, but got {type_name(size)}")
    if isinstance(val, (list, tuple, np.ndarray)):
        v[arg] = _counts(adapter, val, first, op, arg)
        return other
    t = adapter.as_tensor(val) if not _is_int(val) else None
    if t is not None:
        v[arg] = t
        return other
    if not _is_int(val):
        raise TypeError(f"{op}(): argument '{arg}' must be an int, a list of ints or an int32 or int64 tensor, "
                        f"but got {type_name(val)}")
    if size is not None:  # an int count: output_size must be what it gives
        shape, axis = adapter.shape(first), v.get("axis")
        if _is_int(axis) and -max(len(shape), 1) <= int(axis) < max(len(shape), 1):
            n = shape[int(axis)] if shape else 1
            if n is not None and n >= 0 and n * int(val) != size:
                raise ValueError(f"{op}(): output_size must be the sum of repeats ({n * int(val)}), but got {size}")
    return e["op"]


def _pick(outs, chosen):
    """The outputs chosen, one alone or a tuple (a signature that returns "first")."""
    picked = [o for o, c in zip(outs, chosen) if c]
    return picked[0] if len(picked) == 1 else tuple(picked)


def _keep(outs, chosen):
    """Every output, None where not chosen (a signature that returns "tuple")."""
    return tuple(o if c else None for o, c in zip(outs, chosen))


def _result(e, spec, vals, outs):
    names, choosers = spec["outputs"], spec["choosers"]
    args = {a[0]: x for a, x in zip(spec["args"], vals)}
    chosen = [name not in choosers or args[choosers[name]] for name in names]
    return _keep(outs, chosen) if e["returns"] == "tuple" else _pick(outs, chosen)


def call(adapter, op, arguments):
    """Runs public op `op` with `arguments` (the front's parameters by name: its locals()) on the
    front of `adapter`, by the rules of FRONT[op]; returns what the op returns."""
    e = FRONT[op]
    v = {p: arguments.get(p, e["defaults"].get(p)) for p in e["params"]}
    if e["orders"]:
        _other_order(e, v, adapter, op)
    dtypes, calls = e["dtypes"], e["calls"]
    main = calls[e["op"]]
    tensor_args = [a for a in main["args"] if a[1] == "Tensor"]
    # 2. tensors
    for name, _, optional, _ in tensor_args:
        v[name] = _tensor(adapter, v[name], op, name, optional)
    first = v[tensor_args[0][0]]
    for name, _, _, _ in tensor_args:
        if v[name] is not None:
            _check_dtype(adapter, v[name], op, name, dtypes.get(name) if name != tensor_args[0][0] else None)
    # 3. dtype= and promotion of the first tensor
    first_name = tensor_args[0][0]
    admitted = dtypes.get(first_name)
    have = adapter.dtype(first)
    if v.get("dtype") is not None:
        want = dtype_arg(adapter, v["dtype"], f"{op}(): argument 'dtype'")
        if admitted is not None and want not in admitted:
            raise TypeError(f"{op}(): argument 'dtype' must be {_describe(admitted)}, but got {want}")
        if want != have:
            first = v[first_name] = adapter.cast(first, want)
    elif admitted is not None and have not in admitted:
        if e["promote"] is None or have not in _PROMOTABLE:
            raise TypeError(f"{op}(): argument '{first_name}' must be {_describe(admitted)}, but got {have}")
        first = v[first_name] = adapter.cast(first, e["promote"])
    # cumsum's Scalar axis: a tensor holding one integer too (as in Paddle)
    axis_type = next((a[1] for a in main["args"] if a[0] == "axis"), None)
    if axis_type == "Scalar" and adapter.as_tensor(v["axis"]) is not None and not _is_int(v["axis"]):
        t = adapter.as_tensor(v["axis"])
        shape = adapter.shape(t)
        if int(np.prod(shape)) != 1 or adapter.dtype(t) not in ("int8", "uint8", "int16", "int32", "int64"):
            raise TypeError(f"{op}(): argument 'axis' as a Tensor must hold one integer, but got "
                            f"{adapter.dtype(t)} of shape {shape}")
        v["axis"] = adapter.item(t)
    # 5. axis=None
    yaml_names = {a[0] for a in main["args"]}
    if "axis" in v and v["axis"] is None:
        if "flatten" in yaml_names:
            v["flatten"], v["axis"] = True, -1
        else:
            first = v[first_name] = adapter.flatten(first)
            v["axis"] = 0
    # 4. computed defaults
    for name, (rule, of) in e["computed"].items():
        if v[name] is None:
            v[name] = _COMPUTED[rule](adapter, v[of], op, of)
    # 6. the overload
    if "axis" in v and v["axis"] is not None:
        v["axis"] = _int(v["axis"], op, "axis", 32, adapter, first)
    yaml_op = _overload(e, v, adapter, op, first)
    spec = calls[yaml_op]
    vals = []
    for name, type_, optional, default in spec["args"]:
        if type_ == "Tensor":
            vals.append(v.get(name))
        elif v.get(name) is None and (name not in e["defaults"] or e["defaults"][name] is None):
            vals.append(default)  # not a public parameter (flatten), or None for the YAML default
        else:
            vals.append(_attr(type_, v[name], op, name, adapter, first, name in e["finite"],
                              e["choices"].get(name)))
    # 7. run
    outs = adapter.run(yaml_op, vals)
    return _result(e, spec, vals, outs)


def autocast_args(yaml_op):
    """The tensor arguments of YAML op `yaml_op` that a framework's autocast casts (api_yaml's
    python.autocast; none for an op without it)."""
    for e in FRONT.values():
        if yaml_op in e["calls"]:
            return e["autocast"]
    return ()


# ---- the fast path ----------------------------------------------------------------------------
#
# `functions` writes, per op and front, one Python function with the op's signature (from the
# table, read once) whose body tests for the common case: each tensor an instance of the front's
# tensor_types of a dtype the op admits as it is, bools that are bools, ints that are ints in
# range, strs, floats, no dtype=, none of Paddle's other orders. Each test is one that call()'s
# step passes leaving the value as it is, so where all hold the function runs the YAML op on the
# arguments call() would give it, without reading the table; anything else (a NumPy scalar, a list
# of counts, dtype=, a promotion, a bad value) goes to call() with the arguments as they were given,
# so every conversion and every error is call()'s. No test has a side effect, and the one step run
# before the last test (a computed default, which only reads a shape) is pure and is where call()
# runs it, so its error is call()'s too.

_INT_BITS = {"int": 32, "Scalar": 32, "int64_t": 64}


def _as_is(type_, name, finite):
    """A Python expression, true where _attr(type_, <name>) returns <name> itself ("True" for a
    type _attr passes on; None for a type the fast path does not take)."""
    if type_ == "bool":
        return f"{name}.__class__ is bool"
    if type_ in _INT_BITS:
        b = _INT_BITS[type_]
        return f"({name}.__class__ is int and {-2 ** (b - 1)} <= {name} < {2 ** (b - 1)})"
    if type_ == "str":
        return f"{name}.__class__ is str"
    if type_ in ("float", "double"):
        return f"({name}.__class__ is float and _isfinite({name}))" if finite else f"{name}.__class__ is float"
    return None if type_ == "Tensor" else "True"


def _run_source(e, spec, yaml_op, value, indent):
    """The lines that run `yaml_op` on the values (`value`: YAML argument -> expression) and return
    its result as _result would."""
    vals = ", ".join(value[a[0]] for a in spec["args"])
    chosen = [value[spec["choosers"][o]] if o in spec["choosers"] else "True" for o in spec["outputs"]]
    n = len(chosen)
    if e["returns"] == "tuple":
        inline = "(" + "".join((f"_o[{i}]" if c == "True" else f"_o[{i}] if {c} else None") + ", "
                               for i, c in enumerate(chosen)) + ")"
        whole = f"_keep(_o, ({', '.join(chosen)},))"
    elif all(c == "True" for c in chosen):
        inline = "_o[0]" if n == 1 else "(" + "".join(f"_o[{i}], " for i in range(n)) + ")"
        whole = f"_pick(_o, ({', '.join(chosen)},))"
    else:
        inline = whole = f"_pick(_o, ({', '.join(chosen)},))"
    pad = " " * indent
    ret = whole if inline == whole else f"{inline} if len(_o) == {n} else {whole}"
    return [f"{pad}_o = _adapter.run({yaml_op!r}, [{vals}])", f"{pad}return {ret}"]


def _signature(e):
    """The parameters of a def line with the op's signature."""
    sig = []
    for p in e["params"]:
        if p in e["keyword_only"] and "*" not in sig:
            sig.append("*")
        sig.append(f"{p}={e['defaults'][p]!r}" if p in e["defaults"] else p)
    return ", ".join(sig)


def _fast_source(op, e, keyed=False):
    """The source of front function `op` (the names it uses beyond the constants: _adapter, _T,
    _call), with its constants (_D_<tensor>: the dtype names it takes as they are; with `keyed`,
    the adapter's dtype_attribute, _K_<tensor>: the names to turn into its dtype_keys); None where
    the op has a rule the fast path does not take (its function is then call() alone)."""
    params, defaults = e["params"], e["defaults"]
    main = e["calls"][e["op"]]
    tensors = [a[0] for a in main["args"] if a[1] == "Tensor"]
    if not tensors or any(t not in params for t in tensors) or "flatten" in params:
        return None
    first = tensors[0]
    consts, tests = {}, []  # tests in the order of call()'s steps
    # 1. other orders: the argument where an order differs holds no dtype (None or a bool)
    orders = {}  # its test -> the test of a bool attribute, which implies it
    for order in e["orders"]:
        k = next((i for i, (a, b) in enumerate(zip(params, order)) if a != b), None)
        if k is not None and order[k] == "dtype":
            test = f"({params[k]} is None or {params[k]}.__class__ is bool)"
            orders[test] = f"{params[k]}.__class__ is bool"
            tests.append(test)
    # 2., 3. tensors of the front (all of them first, as call() takes them before any dtype), of
    # dtypes the op admits as they are (no cast, no promotion)
    optional = {a[0]: a[2] for a in main["args"] if a[1] == "Tensor"}
    dtype_tests = []
    for name in tensors:
        consts[f"_D_{name}"] = frozenset(d for d in (e["dtypes"].get(name) or DTYPES) if d in DTYPES)
        test = f"_adapter.dtype({name}) in _D_{name}"
        if keyed:
            consts[f"_K_{name}"] = consts[f"_D_{name}"]
            test = f"({name}.{keyed} in _K_{name} if {name}.__class__ is _T0 else {test})"
        tests.append(f"({name} is None or isinstance({name}, _T))" if optional[name] else f"isinstance({name}, _T)")
        dtype_tests.append(f"({name} is None or {test})" if optional[name] else test)
    tests += dtype_tests
    if "dtype" in params:
        tests.append("dtype is None")
    # 5., 6. axis: None (flatten) or a 32-bit int (not a tensor, not a NumPy integer)
    value = {}  # YAML argument -> its expression, for the arguments every call of the op sets alike
    flatten_by = None
    if "axis" in params:
        tests.append(f"(axis is None or {_as_is('int', 'axis', False)})")
        flatten_by = "flag" if any(a[0] == "flatten" for a in main["args"]) else "reshape"
        value["axis"] = "_axis"
        if flatten_by == "flag":
            value["flatten"] = "_flatten"
        else:
            value[first] = "_first"
    if e["computed"] and flatten_by == "reshape":
        return None  # a computed default of a tensor that may be reshaped: not taken
    # 6. the overload: (YAML op, its test), the plain op last
    overload = e["overload"]
    branches = [(e["op"], [])]
    if overload is not None:
        arg, other = overload
        if arg not in params or "output_size" not in params:
            return None
        branches = [(e["op"], ["output_size is None"]),
                    (other, [f"isinstance({arg}, _T)", f"not isinstance({arg}, _SEQUENCES)"])]
    computed = {name: f"_c_{name}" for name in e["computed"]}
    after = []  # tests of computed values
    for yaml_op, branch in branches:
        for name, type_, _, default in e["calls"][yaml_op]["args"]:
            if name in value:
                if name == "axis" and type_ not in _INT_BITS:
                    return None  # _attr would change the int
                continue
            if type_ == "Tensor":
                if name in tensors or (overload is not None and name == overload[0]):
                    continue
                return None
            if overload is not None and name == overload[0]:
                if type_ not in _INT_BITS:
                    return None
                branch.append(_as_is(type_, name, False))  # the plain op's int, as _attr takes it
                continue
            if name in ("axis", "flatten"):
                return None
            test = _as_is(type_, computed.get(name, name), name in e["finite"])
            if test is None:
                return None
            if name in computed:
                after.append(test)
            elif name not in params:
                value.setdefault(name, repr(default))  # call() gives the YAML default
            elif name not in defaults or defaults[name] is None:
                branch.append(f"({name} is None or {test})")  # None: the YAML default
            else:
                branch.append(test)
    for name in tensors + ([overload[0]] if overload is not None else []):
        value.setdefault(name, name)
    for name, type_, _, default in (a for spec in e["calls"].values() for a in spec["args"]):
        if name in params and name not in value and name not in computed and type_ != "Tensor":
            value[name] = name if name in defaults and defaults[name] is not None else \
                f"({default!r} if {name} is None else {name})"
    value.update(computed)

    slow = f"return _call(_adapter, {op!r}, {{{', '.join(f'{p!r}: {p}' for p in params)}}})"
    lines = [f"def {op}({_signature(e)}):"]
    tests += [t for t in branches[0][1] if overload is None]
    tests = [t for t in tests if t not in orders or orders[t] not in tests]  # a bool is no dtype
    lines += [f"    if not ({' and '.join(tests) or 'True'}):", f"        {slow}"]
    if overload is not None:
        lines += [f"    if {' and '.join(branches[0][1])}:", "        _b = 0",
                  f"    elif {' and '.join(branches[1][1])}:", "        _b = 1", "    else:", f"        {slow}"]
    for name, (rule, of) in e["computed"].items():
        consts[f"_rule_{name}"] = _COMPUTED[rule]
        lines += [f"    _c_{name} = {name} if {name} is not None else _rule_{name}(_adapter, {of}, {op!r}, {of!r})"]
    if after:
        lines += [f"    if not ({' and '.join(after)}):", f"        {slow}"]
    if flatten_by == "flag":
        lines += ["    _flatten, _axis = (True, -1) if axis is None else (False, axis)"]
    elif flatten_by == "reshape":
        lines += [f"    _first, _axis = (_adapter.flatten({first}), 0) if axis is None else ({first}, axis)"]
    if overload is None:
        lines += _run_source(e, main, e["op"], value, 4)
    else:
        lines += ["    if _b == 0:"] + _run_source(e, main, e["op"], value, 8)
        lines += _run_source(e, e["calls"][overload[1]], overload[1], value, 4)
    return "\n".join(lines) + "\n", consts


_SEQUENCES = (list, tuple, np.ndarray)


def functions(adapter):
    """{public op: its function on the front of `adapter`}: each has the op's signature (the
    table's parameters, defaults and keyword-only ones) and gives what call(adapter, op, its
    arguments) gives, the common case without reading the table (the fast path above).
    `adapter.as_tensor(v)` must be `v` for every instance of `adapter.tensor_types`."""
    out = {}
    for op, e in FRONT.items():
        keyed = adapter.dtype_attribute
        made = _fast_source(op, e, keyed)
        if made is None:
            made = (f"def {op}({_signature(e)}):\n    return _call(_adapter, {op!r}, locals())\n", {})
        source, consts = made
        consts = {k: frozenset(adapter.dtype_keys(tuple(v))) if k.startswith("_K_") else v
                  for k, v in consts.items()}
        scope = {"_call": call, "_adapter": adapter, "_T": adapter.tensor_types, "_T0": adapter.tensor_types[0],
                 "_isfinite": math.isfinite,
                 "_pick": _pick, "_keep": _keep, "_SEQUENCES": _SEQUENCES, **consts}
        exec(compile(source, f"<paddle_ops front {op}>", "exec"), scope)  # noqa: S102
        fn = scope[op]
        fn.__source__ = source
        out[op] = fn
    return out


def define(adapter, namespace, reference=None):
    """Defines in `namespace` (a front module's globals()) every public op of FRONT as its function
    of functions(adapter); its docstring names the front and carries the summary of
    `reference`'s function of that name (paddle_ops' own). Returns the names defined."""
    for op, fn in functions(adapter).items():
        fn.__module__ = namespace["__name__"]
        fn.__qualname__ = op
        summary = (getattr(getattr(reference, op, None), "__doc__", None) or "").strip().split("\n\n")[0]
        fn.__doc__ = (f"paddle_ops.{op} on {adapter.tensor_kind} arguments, with paddle_ops' signature and "
                      f"argument rules (paddle_ops/_front.py): {summary}\n\nThe arguments, results and "
                      f"examples: help(paddle_ops.{op}).")
        namespace[op] = fn
    return list(FRONT)
