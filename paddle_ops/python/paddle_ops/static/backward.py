"""paddle_ops.static.gradients: append the grad ops of backward.yaml for a Program's ops.

The grad op of each forward op, its arguments (forward inputs and outputs, output grads,
forward attributes, defaults) and its outputs (input grads) come from the op descriptions
gen_static.py compiles from the YAML, so every op with a `backward` entry is covered.
The ops appended are the ones the eager engine runs for paddle_ops.grad: seeds are
full_like(target, 1.0) unless given, a missing output grad is full_like(out, 0.0), and
gradients meeting at a variable are summed with add in the order they arrive.
"""
from ..framework import UNDEFINED
from . import framework as fw
from .op_builder import SPECS, append, py_value


def _as_vars(x, what):
    if isinstance(x, fw.Variable):
        return [x]
    if isinstance(x, (list, tuple)) and x and all(isinstance(v, fw.Variable) for v in x):
        return list(x)
    raise TypeError(f"gradients(): {what} must be a Variable or a non-empty list of Variables, "
                    f"but got {type(x).__name__}")


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    """Append to the targets' Program the ops computing d(sum of targets * target_gradients)
    / d(inputs); returns the gradient Variables (None for an input the targets do not depend
    on), one per input.

    target_gradients: Variables of the targets' shapes, or None each (ones).
    no_grad_set: Variables or names gradients must not flow through.
    """
    targets = _as_vars(targets, "targets")
    inputs = _as_vars(inputs, "inputs")
    program = targets[0].block.program
    for v in targets + inputs:
        if v.block.program is not program:
            raise ValueError(f"gradients(): '{v.name}' belongs to another Program than the targets")
    if target_gradients is None:
        target_gradients = [None] * len(targets)
    elif isinstance(target_gradients, fw.Variable):
        target_gradients = [target_gradients]
    target_gradients = list(target_gradients)
    if len(target_gradients) != len(targets):
        raise ValueError(f"gradients(): {len(target_gradients)} target_gradients for {len(targets)} targets")
    blocked = set()
    for v in no_grad_set or ():
        blocked.add(v.name if isinstance(v, fw.Variable) else v)

    block = program.global_block()
    # Variables whose value depends, differentiably, on an input.
    active = {v.name for v in inputs if fw.is_floating(v.dtype)}
    for op in block.ops:
        if SPECS[op.type]["backward"] is None:
            continue
        if any(v is not None and v.name in active for v in op.inputs.values()):
            for v in op.outputs.values():
                if (v is not None and fw.is_floating(v.dtype) and v.name not in blocked
                        and not v.stop_gradient):
                    active.add(v.name)

    partials = {}  # variable name -> gradient Variables, in arrival order
    done = {}      # variable name -> its summed gradient
    ours = set()   # names of the variables gradients() made

    def emit(op, values):
        result = append(op, values, program)
        for r in result if isinstance(result, tuple) else (result,):
            if r is not None:
                ours.add(r.name)
        return result

    def add_partial(var, g):
        partials.setdefault(var.name, []).append(g)

    def grad_of(var):
        """The gradient of `var`: its partials summed (once, when first needed)."""
        if var.name in done:
            return done[var.name]
        parts = partials.get(var.name)
        if not parts:
            return None
        total = parts[0]
        for p in parts[1:]:
            total = emit("add", {"x": total, "y": p})
        name = f"{var.name}@GRAD"
        if total.name in ours and not block.has_var(name):
            ours.discard(total.name)
            block._rename_var(total, name)
            ours.add(name)
        done[var.name] = total
        return total

    with fw.program_guard(program):
        for t, g in zip(targets, target_gradients):
            if g is None:
                g = emit("full_like", {"x": t, "value": 1.0, "dtype": UNDEFINED})
            elif not isinstance(g, fw.Variable):
                raise TypeError(f"gradients(): target_gradients entries must be Variables or None, "
                                f"but got {type(g).__name__}")
            elif len(g.shape) != len(t.shape) or any(a != b and a != -1 and b != -1
                                                     for a, b in zip(g.shape, t.shape)):
                raise ValueError(f"gradients(): target gradient '{g.name}' has shape {g.shape} but target "
                                 f"'{t.name}' has shape {t.shape}")
            add_partial(t, g)

        for op in reversed(list(block.ops)):
            spec = SPECS[op.type]
            bwd = spec["backward"]
            if bwd is None:
                continue
            if not any(v is not None and v.name in active for v in op.inputs.values()):
                continue
            out_grads = {name: grad_of(v) if v is not None else None for name, v in op.outputs.items()}
            if all(g is None for g in out_grads.values()):
                continue
            values = {}
            optional = {i["name"] for i in SPECS[bwd["op"]]["inputs"] if i["optional"]}
            for role in bwd["args"]:
                kind, arg = role["role"], role["arg"]
                if kind == "forward_input":
                    values[arg] = op.inputs[role["of"]]
                elif kind == "forward_output":
                    values[arg] = op.outputs[role["of"]]
                elif kind == "output_grad":
                    g = out_grads.get(role["of"])
                    out = op.outputs[role["of"]]
                    if g is None and out is not None and arg not in optional:  # as ZerosForOutput
                        g = emit("full_like", {"x": out, "value": 0.0, "dtype": UNDEFINED})
                    values[arg] = g
                elif kind == "forward_attr":
                    values[arg] = op.attrs[role["of"]]
                else:
                    values[arg] = py_value(role["value"])
            result = emit(bwd["op"], values)
            result = result if isinstance(result, tuple) else (result,)
            for out, g in zip(bwd["outputs"], result):
                x = op.inputs.get(out["grad_of"])
                if g is not None and x is not None and x.name in active:
                    add_partial(x, g)
        return [grad_of(v) if v.name in active else None for v in inputs]
