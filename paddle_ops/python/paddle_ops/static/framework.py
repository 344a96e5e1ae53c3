"""The static graph: Variable, Operator, Block, Program, the default programs and
program_guard, and paddle_ops.static.data."""
import contextlib
from collections import OrderedDict

from .._C import Tensor
from ..framework import DataType, FLOATING, convert_dtype


def _dtype_str(dtype):
    return dtype.name_str


def _shape_str(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


class Variable(Tensor):
    """A tensor of a Program: a name, a shape (-1 for a dim known only when the program runs)
    and a dtype, no data. Ops called on Variables in static mode append to the Program; the
    values come from Executor.run.

    It is a paddle_ops.Tensor (so every public API function accepts it) whose data-related
    members raise: the value exists only inside Executor.run.
    """

    def __init__(self, block, name, shape, dtype, kind="var", stop_gradient=False):
        Tensor.__init__(self, "static.Variable")
        self.block = block
        self.name = name
        self._shape = [int(d) for d in shape]
        self._dtype = dtype
        self.kind = kind  # 'data', 'var' (an op's output) or 'constant' (an eager Tensor used as input)
        self._stop_gradient = bool(stop_gradient)
        self.op = None  # the Operator that writes it (None for data and constants)

    # -- metadata ------------------------------------------------------------------------------
    shape = property(lambda self: list(self._shape), doc="dims; -1 where unknown until run time")
    dtype = property(lambda self: self._dtype)
    ndim = property(lambda self: len(self._shape))
    is_data = property(lambda self: self.kind == "data")
    persistable = property(lambda self: self.kind == "constant")

    @property
    def size(self):
        """The number of elements, or -1 when a dim is unknown."""
        n = 1
        for d in self._shape:
            if d < 0:
                return -1
            n *= d
        return n

    def numel(self):
        return self.size

    @property
    def place(self):
        from ..framework import _current_place
        return _current_place()

    @property
    def stop_gradient(self):
        return self._stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value):
        self._stop_gradient = bool(value)

    @property
    def is_leaf(self):
        return self.op is None

    @property
    def grad(self):
        return None

    # -- what only a value has -------------------------------------------------------------------
    def _no_value(self, what):
        raise RuntimeError(f"{what}: '{self.name}' is a static-graph Variable and has no value; "
                           f"run its Program with paddle_ops.static.Executor and fetch it")

    def numpy(self):
        self._no_value("numpy()")

    def item(self):
        self._no_value("item()")

    def tolist(self):
        self._no_value("tolist()")

    def __array__(self, dtype=None):
        self._no_value("numpy conversion")

    def __float__(self):
        self._no_value("float()")

    def __int__(self):
        self._no_value("int()")

    def __bool__(self):
        self._no_value("bool()")

    def _copy_to(self, place):
        self._no_value("copy to a place")

    def detach(self):
        self._no_value("detach()")

    def clear_grad(self):
        pass

    def backward(self, grad_tensor=None, retain_graph=False):
        raise RuntimeError(f"backward(): '{self.name}' is a static-graph Variable; append its gradient "
                           f"ops with paddle_ops.static.gradients(targets, inputs) instead")

    def __repr__(self):
        return f"Variable(name={self.name}, shape={self._shape}, dtype={self._dtype}, kind={self.kind})"

    __str__ = __repr__
    __hash__ = object.__hash__

    def _describe(self):
        flags = []
        if self.kind != "var":
            flags.append(self.kind)
        if self._stop_gradient and self.kind == "var":
            flags.append("stop_gradient")
        return f"{self.name}: {_dtype_str(self._dtype)}{_shape_str(self._shape)}" + (
            f"  ({', '.join(flags)})" if flags else "")


def _format_attr(value):
    if isinstance(value, DataType):
        return _dtype_str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_format_attr(v) for v in value) + "]"
    return repr(value)


class Operator:
    """One op of a Block: its type (the YAML op name), named inputs and outputs (Variables,
    None for an absent optional) and attributes (YAML names and order, values as given)."""

    def __init__(self, block, type_, inputs, outputs, attrs):
        self.block = block
        self.type = type_
        self.inputs = OrderedDict(inputs)
        self.outputs = OrderedDict(outputs)
        self.attrs = OrderedDict(attrs)

    @property
    def input_names(self):
        return list(self.inputs)

    @property
    def output_names(self):
        return list(self.outputs)

    def input(self, name):
        v = self.inputs[name]
        return [] if v is None else [v.name]

    def output(self, name):
        v = self.outputs[name]
        return [] if v is None else [v.name]

    def attr(self, name):
        return self.attrs[name]

    def __str__(self):
        ins = [f"{k}={v.name if v is not None else None}" for k, v in self.inputs.items()]
        attrs = [f"{k}={_format_attr(v)}" for k, v in self.attrs.items()]
        outs = [f"{k}={v.name if v is not None else None}" for k, v in self.outputs.items()]
        return f"{self.type}({', '.join(ins + attrs)}) -> ({', '.join(outs)})"

    __repr__ = __str__


class Block:
    """The variables and the ordered ops of one block (this library has no control flow, so
    a Program has one block)."""

    def __init__(self, program, idx):
        self.program = program
        self.idx = idx
        self.vars = OrderedDict()
        self.ops = []

    def var(self, name):
        if name not in self.vars:
            raise ValueError(f"block {self.idx} has no variable named '{name}'")
        return self.vars[name]

    def has_var(self, name):
        return name in self.vars

    def create_var(self, name, shape, dtype, kind="var", stop_gradient=False):
        if name in self.vars:
            raise ValueError(f"a variable named '{name}' already exists in block {self.idx} of this Program")
        v = Variable(self, name, shape, dtype, kind, stop_gradient)
        self.vars[name] = v
        return v

    def _rename_var(self, var, new_name):
        if new_name in self.vars:
            raise ValueError(f"a variable named '{new_name}' already exists in block {self.idx}")
        del self.vars[var.name]
        var.name = new_name
        self.vars[new_name] = var

    def append_op(self, type_, inputs, outputs, attrs):
        op = Operator(self, type_, inputs, outputs, attrs)
        for v in op.outputs.values():
            if v is not None:
                v.op = op
        self.ops.append(op)
        return op

    def __str__(self):
        lines = [f"block {self.idx} {{"]
        lines += [f"  var {v._describe()}" for v in self.vars.values()]
        lines += [f"  op {k}: {op}" for k, op in enumerate(self.ops)]
        lines.append("}")
        return "\n".join(lines)


class Program:
    """A static graph: blocks of variables and ops, built by calling the public API in static
    mode (inside program_guard, or on default_main_program()), run by Executor.run."""

    def __init__(self):
        self.blocks = [Block(self, 0)]
        self._current_block_idx = 0
        self._constants = OrderedDict()  # name -> eager Tensor (values captured at build time)
        self._counters = {}

    def global_block(self):
        return self.blocks[0]

    def current_block(self):
        return self.blocks[self._current_block_idx]

    def block(self, idx):
        return self.blocks[idx]

    @property
    def num_blocks(self):
        return len(self.blocks)

    def list_vars(self):
        for b in self.blocks:
            yield from b.vars.values()

    def _unique_name(self, prefix):
        k = self._counters.get(prefix, 0)
        self._counters[prefix] = k + 1
        name = f"{prefix}_{k}"
        while any(b.has_var(name) or any(n.startswith(name + ".") for n in b.vars) for b in self.blocks):
            k += 1
            self._counters[prefix] = k + 1
            name = f"{prefix}_{k}"
        return name

    def _constant(self, tensor):
        """A constant Variable holding an eager Tensor used as an op input (e.g. the 2 in x * 2)."""
        name = self._unique_name("constant")
        v = self.global_block().create_var(name, tensor.shape, tensor.dtype, kind="constant",
                                           stop_gradient=True)
        self._constants[name] = tensor
        return v

    def __str__(self):
        n_ops = sum(len(b.ops) for b in self.blocks)
        return f"Program({len(self.blocks)} block, {n_ops} ops)\n" + "\n".join(str(b) for b in self.blocks)

    __repr__ = __str__

    def to_string(self, throw_on_error=False, with_details=False):
        return str(self)


# ---- the default programs --------------------------------------------------------------------------
_programs = {"main": Program(), "startup": Program()}


def default_main_program():
    """The Program that static-mode API calls append to (program_guard switches it)."""
    return _programs["main"]


def default_startup_program():
    """The startup Program (parameter initialisation in Paddle; this library has no
    parameters, so it stays empty and running it does nothing)."""
    return _programs["startup"]


@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    """Within the block, static-mode API calls append to `main_program` (and
    default_startup_program() is `startup_program` when given). Guards nest; leaving one
    restores the programs that were current before it."""
    if not isinstance(main_program, Program):
        raise TypeError(f"program_guard(): main_program must be a Program, but got {type(main_program).__name__}")
    if startup_program is not None and not isinstance(startup_program, Program):
        raise TypeError(f"program_guard(): startup_program must be a Program, "
                        f"but got {type(startup_program).__name__}")
    saved = dict(_programs)
    _programs["main"] = main_program
    if startup_program is not None:
        _programs["startup"] = startup_program
    try:
        yield
    finally:
        _programs.update(saved)


def data(name, shape, dtype=None, lod_level=0):
    """A data Variable of the current main Program, fed by name in Executor.run.

    Args:
        name (str): the feed name; unique within the Program.
        shape (list|tuple): dims; -1 (or None) for a dim known only at run time.
        dtype: the element type (default float32).
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"data(): name must be a non-empty str, but got {name!r}")
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"data(): shape must be a list or tuple, but got {type(shape).__name__}")
    dims = []
    for d in shape:
        if d is None:
            d = -1
        if isinstance(d, bool) or not isinstance(d, int) and not hasattr(d, "__index__"):
            raise TypeError(f"data(): shape entries must be ints (-1 or None for unknown), but got {d!r}")
        d = int(d)
        if d < -1:
            raise ValueError(f"data(): shape entries must be >= -1, but got {d} in {list(shape)}")
        dims.append(d)
    dt = convert_dtype(dtype if dtype is not None else "float32", "data(): argument 'dtype'")
    return default_main_program().global_block().create_var(name, dims, dt, kind="data",
                                                            stop_gradient=True)


def is_floating(dtype):
    return dtype in FLOATING


__all__ = ["Variable", "Operator", "Block", "Program", "default_main_program", "default_startup_program",
           "program_guard", "data"]
