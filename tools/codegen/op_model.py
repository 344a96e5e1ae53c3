"""The YAML op model: parse and validate api_yaml/ops.yaml and backward.yaml entries.

Every problem raises SpecError naming the entry and the field, so a malformed entry fails
the build with a message that says where to look.
"""
import re

import yaml

# YAML type -> (C++ type of kernel/InferMeta/API parameter)
ATTR_TYPES = {
    "int": "int",
    "int64_t": "int64_t",
    "float": "float",
    "double": "double",
    "bool": "bool",
    "str": "const std::string&",
    "Scalar": "const phi::Scalar&",
    "IntArray": "const phi::IntArray&",
    "int[]": "const std::vector<int>&",
    "int64_t[]": "const std::vector<int64_t>&",
    "float[]": "const std::vector<float>&",
    "DataType": "phi::DataType",
}
# Value type to hold an attribute in a grad node.
ATTR_STORAGE = {
    "const std::string&": "std::string",
    "const phi::Scalar&": "phi::Scalar",
    "const phi::IntArray&": "phi::IntArray",
    "const std::vector<int>&": "std::vector<int>",
    "const std::vector<int64_t>&": "std::vector<int64_t>",
    "const std::vector<float>&": "std::vector<float>",
}
OP_KEYS = {"op", "args", "output", "infer_meta", "kernel", "backward", "optional", "python"}
BACKWARD_KEYS = {"backward_op", "forward", "args", "output", "infer_meta", "kernel", "optional"}


class SpecError(Exception):
    def __init__(self, source, entry, field, message):
        super().__init__(f"{source}: entry '{entry}', field '{field}': {message}")


class Arg:
    def __init__(self, name, type_, default=None, optional=False):
        self.name, self.type, self.default, self.optional = name, type_, default, optional

    @property
    def is_tensor(self):
        return self.type == "Tensor"

    def __repr__(self):
        return f"Arg({self.type} {self.name}{'=' + self.default if self.default else ''})"


class Op:
    """One forward or backward op."""

    def __init__(self, name, source):
        self.name, self.source = name, source
        self.args, self.outputs = [], []
        self.infer_meta, self.infer_meta_params = None, None
        self.kernel, self.kernel_params, self.data_type = None, None, None
        self.backward = None          # forward op: name of its grad op
        self.forward = None           # backward op: (forward name, args, outputs)
        self.is_backward = False
        self.python = None            # forward op: its public Python signature (PythonSig) or None

    @property
    def inputs(self):
        return [a for a in self.args if a.is_tensor]

    @property
    def attrs(self):
        return [a for a in self.args if not a.is_tensor]

    def arg(self, name):
        for a in self.args + self.outputs:
            if a.name == name:
                return a
        return None

    def err(self, field, message):
        return SpecError(self.source, self.name, field, message)


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ARG_RE = re.compile(r"^\s*(Tensor|[A-Za-z_][A-Za-z0-9_]*(?:\[\])?)\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:=\s*(.+?))?\s*$")


def _split_top(text):
    """Split on commas that are not inside braces/brackets/quotes."""
    parts, depth, cur, quote = [], 0, "", None
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def parse_args(op, text, field="args"):
    text = str(text).strip()
    if not (text.startswith("(") and text.endswith(")")):
        raise op.err(field, f"expected '(Type name, ...)', got {text!r}")
    args = []
    for piece in _split_top(text[1:-1]):
        m = _ARG_RE.match(piece)
        if not m:
            raise op.err(field, f"cannot parse argument {piece!r} (expected 'Type name' or 'Type name=default')")
        type_, name, default = m.groups()
        if type_ != "Tensor" and type_ not in ATTR_TYPES:
            raise op.err(field, f"argument '{name}' has unknown type '{type_}' "
                                f"(known: Tensor, {', '.join(sorted(ATTR_TYPES))})")
        if type_ == "Tensor" and default is not None:
            raise op.err(field, f"tensor argument '{name}' cannot have a default; list it under 'optional'")
        if any(a.name == name for a in args):
            raise op.err(field, f"argument '{name}' appears twice")
        args.append(Arg(name, type_, default))
    return args


def parse_outputs(op, text, field="output"):
    outs = []
    for piece in _split_top(str(text)):
        m = re.match(r"^Tensor\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)$", piece)
        if not m:
            raise op.err(field, f"cannot parse output {piece!r} (expected 'Tensor(name)')")
        outs.append(Arg(m.group(1), "Tensor"))
    if not outs:
        raise op.err(field, "an op needs at least one output")
    return outs


def _names_list(op, value, field):
    if value is None:
        return None
    if isinstance(value, str):
        value = [v.strip() for v in value.strip("[] ").split(",") if v.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise op.err(field, f"expected a list of argument names, got {value!r}")
    return value


def _parse_common(op, entry, keys):
    unknown = set(entry) - keys
    if unknown:
        raise op.err(sorted(unknown)[0], f"unknown field (known: {', '.join(sorted(keys))})")
    for required in ("args", "output", "infer_meta", "kernel"):
        if required not in entry:
            raise op.err(required, "missing required field")
    op.args = parse_args(op, entry["args"])
    op.outputs = parse_outputs(op, entry["output"])
    seen = {a.name for a in op.args}
    for o in op.outputs:
        if o.name in seen:
            raise op.err("output", f"output '{o.name}' has the name of an argument or of another output")
        seen.add(o.name)
    for name in _names_list(op, entry.get("optional"), "optional") or []:
        a = op.arg(name)
        if a is None or not a.is_tensor:
            raise op.err("optional", f"'{name}' is not a tensor input or output of the op")
        a.optional = True
    im = entry["infer_meta"]
    if not isinstance(im, dict) or "func" not in im:
        raise op.err("infer_meta", "expected a mapping with 'func' (and optionally 'param')")
    op.infer_meta = im["func"]
    op.infer_meta_params = _names_list(op, im.get("param"), "infer_meta.param")
    k = entry["kernel"]
    if not isinstance(k, dict) or "func" not in k:
        raise op.err("kernel", "expected a mapping with 'func' (and optionally 'data_type', 'param')")
    op.kernel = k["func"]
    op.kernel_params = _names_list(op, k.get("param"), "kernel.param")
    op.data_type = k.get("data_type")
    for field, params in (("infer_meta.param", op.infer_meta_params), ("kernel.param", op.kernel_params)):
        for p in params or []:
            if not any(a.name == p for a in op.args):
                raise op.err(field, f"'{p}' is not an argument of the op")
    if op.data_type is not None:
        a = op.arg(op.data_type)
        if a is None or not (a.is_tensor or a.type == "DataType") or a in op.outputs:
            raise op.err("kernel.data_type", f"'{op.data_type}' must name a tensor input or a DataType attribute")
    if not op.inputs:
        raise op.err("args", "an op needs at least one tensor input (it decides the place)")
    if all(a.optional for a in op.inputs):
        raise op.err("args", "at least one tensor input must be required")


def _named_op(entry, source, key):
    """The Op named by entry[key] ('op' or 'backward_op'), after checking the entry's form."""
    if not isinstance(entry, dict) or key not in entry:
        article = "an" if key[0] in "aeiou" else "a"
        raise SpecError(source, repr(entry)[:40], key, f"each entry must be a mapping with {article} '{key}' field")
    op = Op(str(entry[key]), source)
    if not _IDENT.match(op.name):
        raise op.err(key, f"'{op.name}' is not a valid C++/Python identifier")
    return op


def parse_op(entry, source):
    op = _named_op(entry, source, "op")
    _parse_common(op, entry, OP_KEYS)
    op.backward = entry.get("backward")
    if "python" in entry:
        op.python = parse_python(op, entry["python"])
    return op


# ---- the public Python signature (the `python` field; ops.yaml's header says what each means) ----
PYTHON_KEYS = {"signature", "orders", "dtypes", "finite", "choices", "computed", "overload", "returns", "autocast"}
DTYPE_NAMES = ("bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
DTYPE_GROUPS = {"floating": ("float16", "bfloat16", "float32", "float64")}
COMPUTED_RULES = ("rsqrt_last_dim",)
_PARAM_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\s*=\s*(.+))?$")


class Param:
    def __init__(self, name, default, has_default, keyword_only):
        self.name, self.default, self.has_default, self.keyword_only = name, default, has_default, keyword_only

    def __repr__(self):
        return f"Param({self.name}{'=' + repr(self.default) if self.has_default else ''})"


class PythonSig:
    """An op's public Python signature and argument rules."""

    def __init__(self):
        self.params, self.orders, self.dtypes, self.promote = [], [], {}, None
        self.finite, self.computed, self.overload, self.returns = [], {}, None, "first"
        self.choices, self.autocast = {}, []


def _python_literal(op, field, text):
    import ast
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise op.err(field, f"default {text!r} is not a Python literal") from None


def parse_signature(op, text, field):
    text = str(text).strip()
    if not (text.startswith("(") and text.endswith(")")):
        raise op.err(field, f"expected '(name, name=default, ...)', got {text!r}")
    params, kw_only, seen_default = [], False, False
    for piece in _split_top(text[1:-1]):
        if piece == "*":
            kw_only = True
            continue
        m = _PARAM_RE.match(piece)
        if not m:
            raise op.err(field, f"cannot parse parameter {piece!r}")
        name, default = m.groups()
        if any(p.name == name for p in params):
            raise op.err(field, f"parameter '{name}' appears twice")
        if default is None and seen_default and not kw_only:
            raise op.err(field, f"parameter '{name}' without a default follows one with a default")
        seen_default |= default is not None
        params.append(Param(name, None if default is None else _python_literal(op, field, default),
                            default is not None, kw_only))
    return params


def _dtype_set(op, field, value):
    items = value if isinstance(value, list) else [value]
    out = []
    for v in items:
        if v in DTYPE_GROUPS:
            out += DTYPE_GROUPS[v]
        elif v in DTYPE_NAMES:
            out.append(v)
        else:
            raise op.err(field, f"unknown dtype or group {v!r} (known: {', '.join(list(DTYPE_GROUPS) + list(DTYPE_NAMES))})")
    return tuple(out)


def parse_python(op, entry):
    field = "python"
    if not isinstance(entry, dict):
        raise op.err(field, "expected a mapping (signature, orders, dtypes, ...)")
    unknown = set(entry) - PYTHON_KEYS
    if unknown:
        raise op.err(f"python.{sorted(unknown)[0]}", f"unknown field (known: {', '.join(sorted(PYTHON_KEYS))})")
    if "signature" not in entry:
        raise op.err("python.signature", "missing required field")
    sig = PythonSig()
    sig.params = parse_signature(op, entry["signature"], "python.signature")
    names = [p.name for p in sig.params]
    for text in entry.get("orders") or []:
        order = parse_signature(op, text, "python.orders")
        for p in order:
            if p.name not in names or p.has_default:
                raise op.err("python.orders", f"'{p.name}' is not a parameter of the signature (or has a default)")
        sig.orders.append([p.name for p in order])
    dtypes = dict(entry.get("dtypes") or {})
    promote = dtypes.pop("promote", None)
    for name, value in dtypes.items():
        a = op.arg(name)
        if a is None or not a.is_tensor or a in op.outputs:
            raise op.err("python.dtypes", f"'{name}' is not a tensor input of the op")
        sig.dtypes[name] = _dtype_set(op, "python.dtypes", value)
    if promote is not None:
        if promote not in DTYPE_NAMES:
            raise op.err("python.dtypes", f"promote: unknown dtype {promote!r}")
        sig.promote = promote
    for name in entry.get("finite") or []:
        a = op.arg(name)
        if a is None or a.type not in ("float", "double"):
            raise op.err("python.finite", f"'{name}' is not a float or double argument of the op")
        sig.finite.append(name)
    for name, values in (entry.get("choices") or {}).items():
        a = op.arg(name)
        if a is None or a.type != "str" or not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise op.err("python.choices", f"'{name}': expected a str argument of the op and a list of its values")
        sig.choices[name] = tuple(values)
    for name, rule in (entry.get("computed") or {}).items():
        m = re.match(r"^(\w+)\((\w+)\)$", str(rule))
        if name not in names or not m or m.group(1) not in COMPUTED_RULES or m.group(2) not in names:
            raise op.err("python.computed", f"{name}: {rule!r} is not rule(tensor parameter) "
                                            f"(rules: {', '.join(COMPUTED_RULES)})")
        sig.computed[name] = (m.group(1), m.group(2))
    if entry.get("overload") is not None:
        ov = entry["overload"]
        if not isinstance(ov, dict) or set(ov) != {"arg", "op"} or ov["arg"] not in names:
            raise op.err("python.overload", "expected {arg: <a parameter>, op: <an op>}")
        sig.overload = (ov["arg"], ov["op"])
    for name in entry.get("autocast") or []:
        a = op.arg(name)
        if a is None or not a.is_tensor or a in op.outputs:
            raise op.err("python.autocast", f"'{name}' is not a tensor input of the op")
        sig.autocast.append(name)
    sig.returns = entry.get("returns", "first")
    if sig.returns not in ("first", "tuple"):
        raise op.err("python.returns", f"expected 'tuple' (or nothing), got {sig.returns!r}")
    return sig


def parse_backward_op(entry, source):
    op = _named_op(entry, source, "backward_op")
    op.is_backward = True
    _parse_common(op, entry, BACKWARD_KEYS)
    fwd = entry.get("forward")
    m = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\(.*\))\s*->\s*(.+)$", str(fwd or ""))
    if not m:
        raise op.err("forward", f"expected 'op(Type name, ...) -> Tensor(out)', got {fwd!r}")
    op.forward = (m.group(1), parse_args(op, m.group(2), "forward"), parse_outputs(op, m.group(3), "forward"))
    return op


def load(ops_path, backward_path):
    """Returns (forward ops, backward ops by name), cross-checked."""
    def read(path):
        with open(path) as f:
            data = yaml.safe_load(f)
        if data is None:
            return []
        if not isinstance(data, list):
            raise SpecError(path, "-", "-", "the file must be a YAML list of entries")
        return data

    ops = [parse_op(e, ops_path) for e in read(ops_path)]
    bwds = [parse_backward_op(e, backward_path) for e in read(backward_path)] if backward_path else []
    by_name = {}
    for op in ops + bwds:
        if op.name in by_name:
            raise op.err("op", f"op '{op.name}' is defined twice")
        by_name[op.name] = op
    bwd_by_name = {b.name: b for b in bwds}
    for op in ops:
        if op.python is not None:
            check_python(op, by_name)
    for op in ops:
        if op.backward is None:
            continue
        b = bwd_by_name.get(op.backward)
        if b is None:
            raise op.err("backward", f"no backward_op named '{op.backward}' in {backward_path}")
        check_backward(op, b)
    return ops, bwd_by_name


def check_python(op, by_name):
    """Every public parameter is an argument of the op (or of its overload's op), `dtype` or
    `name`."""
    sig = op.python
    other = None
    if sig.overload is not None:
        other = by_name.get(sig.overload[1])
        if other is None or other.is_backward:
            raise op.err("python.overload", f"no forward op named '{sig.overload[1]}'")
    for p in sig.params:
        if p.name in ("dtype", "name") or op.arg(p.name) is not None or (other and other.arg(p.name)):
            continue
        raise op.err("python.signature", f"parameter '{p.name}' is no argument of '{op.name}'"
                                         + (f" nor of '{other.name}'" if other else "") + " (nor dtype or name)")


def check_backward(fwd, bwd):
    """Every grad-op argument must be a forward input/output/attr or an output's grad, and
    every grad-op output must be the grad of a forward input."""
    fname, fargs, fouts = bwd.forward
    if fname != fwd.name:
        raise bwd.err("forward", f"names forward op '{fname}' but '{fwd.name}' points to it")
    fwd_inputs = {a.name for a in fwd.inputs}
    fwd_outputs = {o.name for o in fwd.outputs}
    fwd_attrs = {a.name: a for a in fwd.attrs}
    for a in bwd.args:
        if a.is_tensor:
            if a.name in fwd_inputs or a.name in fwd_outputs:
                continue
            if a.name.endswith("_grad") and a.name[:-5] in fwd_outputs:
                continue
            raise bwd.err("args", f"tensor '{a.name}' is neither an input/output of '{fwd.name}' "
                                  f"nor the grad of one of its outputs ({', '.join(sorted(fwd_outputs))})")
        elif a.name not in fwd_attrs:
            if a.default is None:
                raise bwd.err("args", f"attribute '{a.name}' is not an attribute of '{fwd.name}' and has no default")
        elif ATTR_TYPES[a.type] != ATTR_TYPES[fwd_attrs[a.name].type]:
            raise bwd.err("args", f"attribute '{a.name}' is {a.type} here but {fwd_attrs[a.name].type} in '{fwd.name}'")
    for o in bwd.outputs:
        if not (o.name.endswith("_grad") and o.name[:-5] in fwd_inputs):
            raise bwd.err("output", f"output '{o.name}' must be named <input>_grad for an input of '{fwd.name}' "
                                    f"({', '.join(sorted(fwd_inputs))})")
