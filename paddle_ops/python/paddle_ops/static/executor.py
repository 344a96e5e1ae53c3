"""Executor: runs a Program's ops in order on a place, through the same generated C++ API
(kernel lookup, InferMeta on the real shapes, kernel) that dynamic mode calls."""
import numbers

import numpy as np

from .. import _C
from .._C import Tensor
from ..framework import convert_place
from ..tensor import creation
from . import framework as fw


def _dims_agree(declared, actual):
    return len(declared) == len(actual) and all(d == -1 or d == a for d, a in zip(declared, actual))


class Executor:
    """Executor(place=None): runs Programs on `place` ('cpu', 'gpu:N', a Place; default: the
    current device)."""

    def __init__(self, place=None):
        self.place = convert_place(place)

    def _feed_tensor(self, var, value):
        if isinstance(value, Tensor) and not isinstance(value, fw.Variable):
            if value.dtype != var.dtype:
                raise TypeError(f"Executor.run: feed '{var.name}' is a {value.dtype} Tensor but the data "
                                f"variable is {var.dtype}")
            t = value if value.place == self.place else value._copy_to(self.place)
        else:
            if isinstance(value, (str, bytes)) or not isinstance(value, (np.ndarray, np.generic, list, tuple,
                                                                          numbers.Number)):
                raise TypeError(f"Executor.run: feed '{var.name}' must be a NumPy array, a list, a number "
                                f"or a Tensor, but got {type(value).__name__}")
            # Converted as to_tensor converts (creation._data_array, _array_to_tensor): nothing wraps
            # into an integer variable (OverflowError out of range, ValueError for NaN or inf).
            what = f"Executor.run: feed '{var.name}'"
            arr, ml_bfloat16 = creation._data_array(value, what)
            want = np.dtype(_C.numpy_dtype_of(var.dtype))
            kind = {"b": "b", "i": "i", "u": "i", "f": "f", "O": "i"}  # O: Python ints beyond 64 bits
            have = "f" if ml_bfloat16 else kind.get(arr.dtype.kind)
            if have != kind.get(want.kind):
                raise TypeError(f"Executor.run: feed '{var.name}' has NumPy dtype {arr.dtype} but the data "
                                f"variable is {var.dtype}")
            t = creation._array_to_tensor(arr, ml_bfloat16, var.dtype, self.place, what)
        if not _dims_agree(var.shape, t.shape):
            raise ValueError(f"Executor.run: feed '{var.name}' has shape {list(t.shape)} but the data variable "
                             f"was declared with shape {var.shape} (-1: any size)")
        return t

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed", fetch_var_name="fetch",
            scope=None, return_numpy=True):
        """Run every op of `program` (default: default_main_program()) in order.

        feed: {data variable name: NumPy array, list, number or Tensor}. The value is converted
            to the variable's dtype when of the same kind (float, int, bool); its shape must
            match the declared one where that is known.
        fetch_list: Variables (or their names) whose values to return, in order.
        return_numpy: NumPy arrays (default) or Tensors on the executor's place.
        """
        program = program if program is not None else fw.default_main_program()
        if not isinstance(program, fw.Program):
            raise TypeError(f"Executor.run: program must be a Program, but got {type(program).__name__}")
        block = program.global_block()
        values = {}
        for name, t in program._constants.items():
            values[name] = t if t.place == self.place else t._copy_to(self.place)
        for name, value in (feed or {}).items():
            if not block.has_var(name):
                raise ValueError(f"Executor.run: feed '{name}' is not a variable of the program")
            var = block.var(name)
            if not var.is_data:
                raise ValueError(f"Executor.run: feed '{name}' is not a data variable (static.data)")
            values[name] = self._feed_tensor(var, value)
        for op in block.ops:
            ins = []
            for arg, var in op.inputs.items():
                if var is None:
                    ins.append(None)
                    continue
                if var.name not in values:
                    if var.is_data:
                        raise ValueError(f"Executor.run: the data variable '{var.name}' (input '{arg}' of op "
                                         f"'{op.type}') was not fed: pass feed={{'{var.name}': value}}")
                    raise RuntimeError(f"Executor.run: variable '{var.name}' has no value")
                ins.append(values[var.name])
            outs = _C.static.run(op.type, ins, list(op.attrs.values()))
            for (name, var), t in zip(op.outputs.items(), outs):
                if var is None:
                    continue
                if t is None:
                    raise RuntimeError(f"Executor.run: op '{op.type}' produced no '{name}' output")
                if t.dtype != var.dtype or not _dims_agree(var.shape, t.shape):
                    raise RuntimeError(f"Executor.run: op '{op.type}' output '{var.name}' is {t.dtype}"
                                       f"{list(t.shape)} but was inferred at build time as "
                                       f"{var.dtype}{var.shape}")
                values[var.name] = t
        if fetch_list is None:
            return []
        if isinstance(fetch_list, (fw.Variable, str)):
            fetch_list = [fetch_list]
        results = []
        for item in fetch_list:
            name = item.name if isinstance(item, fw.Variable) else item
            if not isinstance(name, str):
                raise TypeError(f"Executor.run: fetch_list entries must be Variables or names, "
                                f"but got {type(item).__name__}")
            if name not in values:
                if block.has_var(name) and block.var(name).is_data:
                    raise ValueError(f"Executor.run: cannot fetch the data variable '{name}': it was not fed")
                raise ValueError(f"Executor.run: cannot fetch '{name}': not a variable computed by the program")
            t = values[name]
            results.append(t.numpy() if return_numpy else t)
        return results

    def close(self):
        pass

