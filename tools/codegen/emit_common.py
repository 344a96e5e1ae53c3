"""Pieces of generated C++ that more than one emitter writes the same way (gen.py's API
shims, gen_static.py's static-mode entries and gen_runtime.py's op table), so they derive them
from one place; and the one writer of generated files."""
import argparse
import os
import sys

# YAML attribute type -> the arg_parse.h converter of a Python argument.
PY_CAST = {
    "int": "CastInt", "int64_t": "CastInt64", "float": "CastFloat", "double": "CastDouble",
    "bool": "CastBool", "str": "CastString", "Scalar": "CastScalar", "IntArray": "CastIntArray",
    "int[]": "CastIntVector", "int64_t[]": "CastInt64Vector", "float[]": "CastFloatVector",
    "DataType": "CastDataType",
}


def kernel_dtype(op, tensor):
    """The C++ expression of the kernel key's dtype; tensor(name) is the expression of the
    tensor argument `name` (a Tensor or DenseTensor, or an optional of one)."""
    req = [a for a in op.inputs if not a.optional]
    if op.data_type is None:
        return f"{tensor(req[0].name)}.dtype()"
    a = op.arg(op.data_type)
    if a.is_tensor and not a.optional:
        return f"{tensor(a.name)}.dtype()"
    if a.is_tensor:
        return f"({tensor(a.name)} ? {tensor(a.name)}->dtype() : {tensor(req[0].name)}.dtype())"
    return f"({a.name} != phi::DataType::UNDEFINED ? {a.name} : {tensor(req[0].name)}.dtype())"


def infermeta_call(op):
    """The InferMeta call statement, on DenseTensors `<input>_d` (paddle::optional for
    optional inputs), attributes by name and MetaTensors `<output>_m`."""
    def meta_arg(a):
        if not a.is_tensor:
            return a.name
        if a.optional:
            return f"({a.name}_d ? phi::MetaTensor(*{a.name}_d) : phi::MetaTensor())"
        return f"phi::MetaTensor({a.name}_d)"

    im_args = [op.arg(p) for p in op.infer_meta_params] if op.infer_meta_params else op.args
    return (f"  phi::{op.infer_meta}(" + ", ".join([meta_arg(a) for a in im_args]
                                                  + [f"&{o.name}_m" for o in op.outputs]) + ");")


def write_if_changed(path, text):
    """Write text to path (creating its folder) unless the file already holds exactly that
    text, so an unchanged generated file keeps its time stamp and the build stays incremental."""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def command_line(description, out_help, argv=None):
    """The command line every generator takes: --ops, --backward, --out. Returns (args, forward
    ops, backward ops by name); exits naming the entry and field on a SpecError."""
    import op_model  # tools/codegen is on sys.path for every emitter
    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ops", required=True)
    p.add_argument("--backward", required=True)
    p.add_argument("--out", required=True, help=out_help)
    args = p.parse_args(argv)
    try:
        ops, bwds = op_model.load(args.ops, args.backward)
    except op_model.SpecError as e:
        sys.exit(f"error: {e}")
    return args, ops, bwds


def generate_one_file(emit, description, argv=None):
    """The command line of an emitter that writes one file from the op model (gen_torch.py,
    gen_jax.py, gen_torch_cpp.py): emit(ops, backward_ops) -> text; 1 on a SpecError."""
    import op_model
    args, ops, bwds = command_line(description, "the file to write", argv)
    try:
        text = emit(ops, bwds)
    except op_model.SpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    write_if_changed(args.out, text)
    return 0
