"""The bad-input entries' vocabulary (used by op_db.py's OpInfo.bad_inputs and by
test_bad_input_table.py): for an op, its valid arguments by name and, for each argument, the bad
values with the documented exception, what the message must say was expected and what it must
say was given.
"""
import dataclasses
from typing import Any, Callable, Dict, List, Optional

import numpy as np

import paddle_ops as paddle


@dataclasses.dataclass
class Bad:
    value: Any            # the bad value, or a callable(place) making it
    error: type           # the documented exception
    expected: str         # regex: what the message says was expected
    given: str            # regex: what the message says was given
    name: str = ''        # the argument as the message names it (default: the table key)

    def make(self, place):
        return self.value(place) if callable(self.value) and not isinstance(self.value, type) else self.value


@dataclasses.dataclass
class BadInputs:
    valid: Callable[[str], Dict[str, Any]]   # place -> the valid keyword arguments
    bad: Dict[str, List[Bad]]
    op: Optional[Callable] = None            # the call (None: paddle.<the entry's name>)


def T(shape, dtype='float32'):
    """A tensor factory: callable(place)."""
    return lambda place: paddle.to_tensor(np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) % 5 - 2.0,
                                          dtype=dtype, place=place)


def tensor_type_errors(name='x'):
    return [
        Bad([1.0, 2.0], TypeError, 'Tensor', 'list', name),
        Bad(np.ones(3, np.float32), TypeError, 'Tensor', 'ndarray', name),
        Bad(1.5, TypeError, 'Tensor', 'float', name),
        Bad(None, TypeError, 'Tensor', 'NoneType', name),
        Bad('x', TypeError, 'Tensor', 'str', name),
    ]


def bool_errors():
    return [Bad('yes', TypeError, 'bool', 'str'), Bad(1, TypeError, 'bool', 'int'), Bad(None, TypeError, 'bool', 'NoneType'),
            Bad(np.int64(1), TypeError, 'bool', 'int64')]


def scan_axis_errors(ndim):
    r = max(ndim, 1)
    rng = r'\[%d, %d\)' % (-r, r)
    return [
        Bad(r, IndexError, rng, str(r)),
        Bad(-r - 1, IndexError, rng, str(-r - 1)),
        Bad(2 ** 32, IndexError, rng, str(2 ** 32)),
        Bad(-2 ** 40, IndexError, rng, str(-2 ** 40)),
        Bad(1.5, TypeError, 'int', 'float'),
        Bad('0', TypeError, 'int', 'str'),
        Bad([0], TypeError, 'int', 'list'),
        Bad(True, TypeError, 'int', 'bool'),
        Bad(np.bool_(True), TypeError, 'int', 'bool'),
        Bad(np.float64(1.0), TypeError, 'int', 'float64'),
    ]


def dtype_errors(allowed, given_bad):
    """A dtype argument: an unknown name, a non-dtype, and a dtype outside `allowed`."""
    return [
        Bad('float128x', TypeError, 'dtype', 'float128x'),
        Bad(3, TypeError, 'dtype', '3'),
        Bad(object(), TypeError, 'dtype', 'object'),
    ] + [Bad(d, TypeError, allowed, d if isinstance(d, str) else d.name_str) for d in given_bad]


def scan_bad_inputs(dtype_allowed, dtype_bad):
    """The bad inputs of a scan op with logcumsumexp's signature (x, axis, exclusive, reverse, dtype)."""
    return BadInputs(
        valid=lambda place: dict(x=T((2, 3))(place), axis=1, exclusive=False, reverse=False, dtype=None),
        bad={
            'x': tensor_type_errors(),
            'axis': scan_axis_errors(2),
            'exclusive': bool_errors(),
            'reverse': bool_errors(),
            'dtype': dtype_errors(dtype_allowed, dtype_bad),
        })
