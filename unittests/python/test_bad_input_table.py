"""The bad-input table: for every op and every argument, a wrong type, shape, dtype or axis
raises the documented exception (README "Errors": IndexError for an axis, TypeError for a
type or dtype, ValueError for a value or shape) with a message that names the argument, what
was expected and what was given; after each, the library still works (the op's valid call
gives the same result as before).

One entry per op in BAD_INPUTS: the op, its valid arguments (by name), and for each argument
the bad values with (exception, what the message must say was expected, what it must say was
given). Adding an op (right_flood, repeat_interleave, gla) is one entry.
"""
import dataclasses
import re
from typing import Any, Callable, Dict, List

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import available_places


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
class OpSpec:
    op: Callable
    valid: Callable[[str], Dict[str, Any]]   # place -> the valid keyword arguments
    bad: Dict[str, List[Bad]]


def T(shape, dtype='float32'):
    """A tensor factory: callable(place)."""
    return lambda place: paddle.to_tensor(np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) % 5 - 2.0,
                                          dtype=dtype, place=place)


def _tensor_type_errors(name='x'):
    return [
        Bad([1.0, 2.0], TypeError, 'Tensor', 'list', name),
        Bad(np.ones(3, np.float32), TypeError, 'Tensor', 'ndarray', name),
        Bad(1.5, TypeError, 'Tensor', 'float', name),
        Bad(None, TypeError, 'Tensor', 'NoneType', name),
        Bad('x', TypeError, 'Tensor', 'str', name),
    ]


def _bool_errors():
    return [Bad('yes', TypeError, 'bool', 'str'), Bad(1, TypeError, 'bool', 'int'), Bad(None, TypeError, 'bool', 'NoneType')]


def _scan_axis_errors(ndim):
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
    ]


def _dtype_errors(allowed, given_bad):
    """A dtype argument: an unknown name, a non-dtype, and a dtype outside `allowed`."""
    return [
        Bad('float128x', TypeError, 'dtype', 'float128x'),
        Bad(3, TypeError, 'dtype', '3'),
        Bad(object(), TypeError, 'dtype', 'object'),
    ] + [Bad(d, TypeError, allowed, d if isinstance(d, str) else d.name_str) for d in given_bad]


def _scan_spec(op, dtype_allowed, dtype_bad):
    return OpSpec(
        op=op,
        valid=lambda place: dict(x=T((2, 3))(place), axis=1, exclusive=False, reverse=False, dtype=None),
        bad={
            'x': _tensor_type_errors(),
            'axis': _scan_axis_errors(2),
            'exclusive': _bool_errors(),
            'reverse': _bool_errors(),
            'dtype': _dtype_errors(dtype_allowed, dtype_bad),
        })


def _binary_spec(op):
    return OpSpec(
        op=op,
        valid=lambda place: dict(x=T((2, 3))(place), y=T((2, 1))(place)),
        bad={
            # One operand may be a Python number; a non-number is a TypeError naming its type.
            'x': [Bad('x', TypeError, 'number|Tensor', 'str'),
                  Bad([1.0], TypeError, 'number|Tensor', 'list'),
                  Bad(T((4, 3)), ValueError, r'equal or 1', r'x \[4, 3\]')],
            'y': [Bad(None, TypeError, 'number|Tensor', 'NoneType'),
                  Bad(T((2, 2)), ValueError, r'equal or 1', r'y \[2, 2\]'),
                  Bad(T((3, 3, 1)), ValueError, r'equal or 1', r'y \[3, 3, 1\]')],
        })


def _reduce_axis_errors():
    rng = r'\[-2, 2\)'
    return [
        Bad(2, IndexError, rng, '2'),
        Bad([0, -3], IndexError, rng, '-3'),
        Bad(2 ** 40, IndexError, rng, str(2 ** 40)),
        Bad(1.5, TypeError, 'int', 'float'),
        Bad('0', TypeError, 'int', 'str'),
        Bad([0, 'a'], TypeError, 'int', 'str'),
    ]


def _pscan_valid(place):
    return dict(a=T((2, 3))(place), x=T((2, 3, 4))(place), initial_state=T((2, 4))(place), reverse=False)


BAD_INPUTS = {
    'logcumsumexp': _scan_spec(paddle.logcumsumexp, 'floating', ['int32', paddle.int64, 'bool']),
    'cumsum': _scan_spec(paddle.cumsum, 'float16.*int64', ['bool', 'int8', paddle.uint8]),
    'pscan': OpSpec(
        op=paddle.pscan,
        valid=_pscan_valid,
        bad={
            'a': _tensor_type_errors('a') + [
                Bad(T((2, 4)), ValueError, r'\[2, 3, 4\]', r'\[2, 4\]'),
                Bad(T((2, 3, 5)), ValueError, r'\[2, 3, 4\]', r'\[2, 3, 5\]'),
                Bad(T((3,)), ValueError, r'\[2, 3\]|\[N, T\]', r'\[3\]'),
                Bad(T((2, 3), 'float64'), TypeError, 'float32', 'float64'),
                Bad(T((2, 3), 'int32'), TypeError, 'float', 'int32'),
            ],
            'x': _tensor_type_errors('x') + [
                Bad(T((2, 3)), ValueError, '3-D', r'\[2, 3\]'),
                Bad(T((2, 3, 4), 'int64'), TypeError, 'float', 'int64'),
                Bad(T((2, 3, 4), 'float64'), TypeError, 'float64|float32', 'float32|float64', 'x|a'),
            ],
            'initial_state': [
                Bad([1.0], TypeError, 'Tensor', 'list'),
                Bad(T((2, 3)), ValueError, r'\[2, 4\]', r'\[2, 3\]'),
                Bad(T((2, 4, 1)), ValueError, r'\[2, 4\]', r'\[2, 4, 1\]'),
                Bad(T((2, 4), 'float64'), TypeError, 'float32', 'float64'),
            ],
            'reverse': _bool_errors(),
        }),
    'right_flood': OpSpec(
        op=paddle.right_flood,
        valid=lambda place: dict(x=T((2, 3))(place), axis=1, reverse=False, hole='zero', return_index=False),
        bad={
            'x': _tensor_type_errors() + [
                Bad(T((2, 3), 'bool'), TypeError, 'float16.*int64', 'bool'),
            ],
            'axis': _scan_axis_errors(2),
            'reverse': _bool_errors(),
            'hole': [Bad('inf', ValueError, "'zero' or 'nan'", "'inf'"),
                     Bad(0, TypeError, "'zero' or 'nan'", 'int'),
                     Bad(None, TypeError, "'zero' or 'nan'", 'NoneType')],
            'return_index': _bool_errors(),
        }),
    'repeat_interleave': OpSpec(
        op=paddle.repeat_interleave,
        valid=lambda place: dict(x=T((2, 3))(place), repeats=2, axis=1, output_size=None),
        bad={
            'x': _tensor_type_errors(),
            'repeats': [
                Bad(-1, ValueError, 'non-negative', '-1'),
                Bad(1.5, TypeError, 'int32 or int64', 'float'),
                Bad('2', TypeError, 'int32 or int64', 'str'),
                Bad(T((3,)), TypeError, 'int32 or int64', 'float32'),
                Bad(T((2,), 'int64'), ValueError, 'one count for each of the 3 slices', '2 counts'),
                # (the GPU kernel flags a negative count without its position)
                Bad(lambda place: paddle.to_tensor(np.array([1, -2, 1]), place=place), ValueError, 'non-negative',
                    r'repeats\[1\] is -2|holds a negative count'),
            ],
            'axis': _scan_axis_errors(2)[:6],
            'output_size': [Bad(1.5, TypeError, 'int or None', 'float'),
                            Bad(7, ValueError, r'sum of repeats \(6\)', '7')],
        }),
    'gla': OpSpec(
        op=paddle.gla,
        valid=lambda place: dict(q=T((1, 2, 5, 4))(place), k=T((1, 2, 5, 4))(place), v=T((1, 2, 5, 3))(place),
                                 gk=paddle.to_tensor(np.full((1, 2, 5, 4), -0.1, np.float32), place=place),
                                 scale=None, initial_state=None, output_final_state=False, head_first=True),
        bad={
            'q': _tensor_type_errors('q') + [Bad(T((2, 5, 4)), ValueError, '4-D', r'\[2, 5, 4\]')],
            'k': _tensor_type_errors('k') + [Bad(T((1, 2, 5, 3)), ValueError, r'\[1, 2, 5, 4\]', r'\[1, 2, 5, 3\]')],
            'v': _tensor_type_errors('v') + [Bad(T((1, 2, 4, 3)), ValueError, r'\[1, 2, 5, 3\]', r'\[1, 2, 4, 3\]')],
            'gk': _tensor_type_errors('gk') + [
                Bad(T((1, 2, 5, 3)), ValueError, r'\[1, 2, 5, 4\]', r'\[1, 2, 5, 3\]'),
                Bad(T((1, 2, 5, 4), 'float64'), TypeError, 'float32', 'float64'),
            ],
            'scale': [Bad('a', TypeError, 'float', 'str'), Bad([1.0], TypeError, 'float', 'list')],
            'initial_state': [
                Bad([1.0], TypeError, 'Tensor', 'list'),
                Bad(T((1, 2, 4, 4)), ValueError, r'\[1, 2, 4, 3\]', r'\[1, 2, 4, 4\]'),
                Bad(T((1, 2, 4, 3), 'float64'), TypeError, 'float32', 'float64'),
            ],
            'output_final_state': _bool_errors(),
            'head_first': _bool_errors(),
        }),
    'add': _binary_spec(paddle.add),
    'subtract': _binary_spec(paddle.subtract),
    'multiply': _binary_spec(paddle.multiply),
    'sum': OpSpec(
        op=paddle.sum,
        valid=lambda place: dict(x=T((2, 3))(place), axis=1, dtype=None, keepdim=False),
        bad={
            'x': _tensor_type_errors(),
            'axis': _reduce_axis_errors(),
            'dtype': _dtype_errors('dtype', []),
            'keepdim': _bool_errors(),
        }),
    'mean': OpSpec(
        op=paddle.mean,
        valid=lambda place: dict(x=T((2, 3))(place), axis=1, keepdim=False),
        bad={
            'x': _tensor_type_errors() + [Bad(T((2, 3), 'int32'), TypeError, 'floating', 'int32')],
            'axis': _reduce_axis_errors(),
            'keepdim': _bool_errors(),
        }),
    'reshape': OpSpec(
        op=paddle.reshape,
        valid=lambda place: dict(x=T((2, 3))(place), shape=[3, 2]),
        bad={
            'x': _tensor_type_errors(),
            'shape': [
                Bad([4, 2], ValueError, '6', r'\[4, 2\]'),
                Bad([-1, -1], ValueError, r'-1', r'\[-1, -1\]'),
                Bad([-2, 3], ValueError, r'-1|>= 0|non-negative', r'-2'),
                Bad([5, 0, 1], ValueError, r'0', r'\[5, 0, 1\]'),
                Bad(1.5, TypeError, 'int', 'float'),
                Bad([2, 'a'], TypeError, 'int', 'str'),
                Bad(None, TypeError, 'int', 'NoneType'),
            ],
        }),
    'cast': OpSpec(
        op=paddle.cast,
        valid=lambda place: dict(x=T((2, 3))(place), dtype='float64'),
        bad={
            'x': _tensor_type_errors(),
            'dtype': _dtype_errors('dtype', []) + [Bad(None, TypeError, 'dtype', 'None'),
                                                   Bad('complex64', TypeError, 'dtype', 'complex64')],
        }),
    'full_like': OpSpec(
        op=paddle.full_like,
        valid=lambda place: dict(x=T((2, 3), 'int32')(place), fill_value=7, dtype=None),
        bad={
            'x': _tensor_type_errors(),
            'fill_value': [
                Bad(1e30, ValueError, 'int32', '1e\\+30'),
                Bad(float('nan'), ValueError, 'int32', 'nan'),
                Bad(2 ** 40, ValueError, 'int32', str(2 ** 40)),
                Bad('7', TypeError, 'number', 'str'),
                Bad(None, TypeError, 'number', 'NoneType'),
                Bad([7], TypeError, 'number', 'list'),
            ],
            'dtype': _dtype_errors('dtype', []),
        }),
    'to_tensor': OpSpec(
        op=lambda data, dtype=None, place=None, stop_gradient=True: paddle.to_tensor(data, dtype, place, stop_gradient),
        valid=lambda place: dict(data=[[1.0, 2.0], [3.0, 4.0]], dtype=None, place=place, stop_gradient=True),
        bad={
            'data': [Bad('abc', TypeError, 'number|list', 'str'),
                     Bad({1: 2}, TypeError, 'number|list', 'dict'),
                     Bad([[1.0, 2.0], [3.0]], ValueError, 'rectangular', r'data|inhomogeneous|shape'),
                     Bad([1 + 2j], TypeError, 'not supported', 'complex')],
            'dtype': _dtype_errors('dtype', []),
            'place': [Bad('tpu', ValueError, 'cpu', 'tpu'), Bad(3, TypeError, 'Place', 'int'),
                      Bad('gpu:x', ValueError, 'index|gpu:N', 'gpu:x')],
            'stop_gradient': [Bad('no', TypeError, 'bool', 'str'), Bad(None, TypeError, 'bool', 'NoneType')],
        }),
}


def _cases():
    for op_name, spec in BAD_INPUTS.items():
        for arg, bads in spec.bad.items():
            for i, bad in enumerate(bads):
                yield pytest.param(op_name, arg, i, id='%s-%s-%d' % (op_name, arg, i))


def _result(spec, place):
    out = spec.op(**spec.valid(place))
    if isinstance(out, tuple):  # gla's (o, final_state)
        out = out[0]
    return out.numpy()


def test_table_covers_every_op_and_argument():
    """Every public op is in the table, and each entry lists every argument of its signature
    (a new op or argument without bad inputs fails here)."""
    import inspect
    ops = {'logcumsumexp', 'cumsum', 'pscan', 'add', 'subtract', 'multiply', 'sum', 'mean', 'reshape', 'cast',
           'full_like', 'to_tensor'}
    for extra in ('right_flood', 'repeat_interleave', 'gla'):
        if hasattr(paddle, extra):
            ops.add(extra)
    assert ops <= set(BAD_INPUTS), 'ops without a bad-input entry: %s' % sorted(ops - set(BAD_INPUTS))
    for name, spec in BAD_INPUTS.items():
        fn = getattr(paddle, name)
        params = [p for p in inspect.signature(fn).parameters if p != 'name']
        assert set(params) <= set(spec.valid('cpu')), (name, params)
        missing = [p for p in params if p not in spec.bad and p != 'place']
        assert not missing, '%s: arguments without bad values: %s' % (name, missing)
    assert sum(len(b) for s in BAD_INPUTS.values() for b in s.bad.values()) >= 150


@pytest.mark.parametrize('place', available_places())
@pytest.mark.parametrize('op_name,arg,index', list(_cases()))
def test_bad_input(op_name, arg, index, place):
    spec = BAD_INPUTS[op_name]
    bad = spec.bad[arg][index]
    before = _result(spec, place)
    kwargs = spec.valid(place)
    kwargs[arg] = bad.make(place)
    with pytest.raises(bad.error) as info:
        spec.op(**kwargs)
    msg = str(info.value)
    name = bad.name or arg
    assert re.search(r'(?<![\w])(%s)(?![\w])' % name, msg), 'message does not name %r: %s' % (name, msg)
    assert re.search(bad.expected, msg), 'message does not say what was expected (%s): %s' % (bad.expected, msg)
    assert re.search(bad.given, msg), 'message does not say what was given (%s): %s' % (bad.given, msg)
    # The library still works: the valid call gives the same result.
    np.testing.assert_array_equal(_result(spec, place), before)
