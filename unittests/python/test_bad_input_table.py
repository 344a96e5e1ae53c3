"""The bad-input table: for every op and every argument, a wrong type, shape, dtype or axis
raises the documented exception (docs/spec.md §8: IndexError for an axis, TypeError for a
type or dtype, ValueError for a value or shape) with a message that names the argument, what
was expected and what was given; after each, the library still works (the op's valid call
gives the same result as before).

One entry per op in BAD_INPUTS (bad_inputs.BadInputs): its valid arguments (by name), and for
each argument the bad values with (exception, what the message must say was expected, what it
must say was given). The ops of op_db.py declare theirs there (OpInfo.bad_inputs); the other
public ops are in _OTHER_OPS below.
"""
import inspect
import re

import numpy as np
import pytest

import paddle_ops as paddle
from bad_inputs import Bad, BadInputs, T, bool_errors, dtype_errors, scan_axis_errors, tensor_type_errors
from op_db import OP_DB
from op_test import available_places


def _binary_spec(op):
    return BadInputs(
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
        Bad([0, 2 ** 64], ValueError, '64-bit', str(2 ** 64)),
        Bad(np.float32(1.0), TypeError, 'int', 'float32'),
    ]


def _grad_spec():
    """paddle.grad: a fresh graph for each call (the valid call frees it)."""
    def valid(place):
        x = paddle.to_tensor([1.0, 2.0, 3.0], place=place, stop_gradient=False)
        return dict(outputs=(x * x).sum(), inputs=x, grad_outputs=None, retain_graph=None,
                    create_graph=False, only_inputs=True, allow_unused=False, no_grad_vars=None)
    return BadInputs(
        op=lambda **kwargs: tuple(paddle.grad(**kwargs)),
        valid=valid,
        bad={
            'outputs': [Bad('y', TypeError, 'Tensor', 'str'), Bad(None, TypeError, 'Tensor', 'NoneType')],
            'inputs': [Bad(3, TypeError, 'Tensor', 'int'), Bad([1.0], TypeError, 'Tensor', 'list')],
            'grad_outputs': [Bad('a', TypeError, 'Tensor', 'str'),
                             Bad([None, None], ValueError, '1 outputs', '2 entries'),
                             Bad(T((3,)), ValueError, r'shape \[\]', r'shape \[3\]')],
            'retain_graph': [Bad('yes', TypeError, 'bool', 'str'), Bad(1, TypeError, 'bool', 'int')],
            'create_graph': bool_errors(),
            'only_inputs': bool_errors(),
            'allow_unused': bool_errors(),
            'no_grad_vars': [Bad(3, TypeError, 'Tensor', 'int'),
                             Bad([None], TypeError, 'Tensor', 'NoneType'),
                             Bad({'a': 1}, TypeError, 'Tensor', 'dict')],
        })


# The public ops that have no OpInfo in op_db.py (the scan ops keep theirs there, as
# OpInfo.bad_inputs).
def _used_capsule(place):
    """A DLPack capsule already consumed once."""
    c = paddle.to_tensor([1.0], place=place).__dlpack__()
    paddle.from_dlpack(c)
    return c


_OTHER_OPS = {
    'gla': BadInputs(
        valid=lambda place: dict(q=T((1, 2, 5, 4))(place), k=T((1, 2, 5, 4))(place), v=T((1, 2, 5, 3))(place),
                                 gk=paddle.to_tensor(np.full((1, 2, 5, 4), -0.1, np.float32), place=place),
                                 scale=None, initial_state=None, output_final_state=False, head_first=True,
                                 cu_seqlens=None),
        bad={
            'q': tensor_type_errors('q') + [Bad(T((2, 5, 4)), ValueError, '4-D', r'\[2, 5, 4\]')],
            'k': tensor_type_errors('k') + [Bad(T((1, 2, 5, 3)), ValueError, r'\[1, 2, 5, 4\]', r'\[1, 2, 5, 3\]')],
            'v': tensor_type_errors('v') + [Bad(T((1, 2, 4, 3)), ValueError, r'\[1, 2, 5, 3\]', r'\[1, 2, 4, 3\]')],
            'gk': tensor_type_errors('gk') + [
                Bad(T((1, 2, 5, 3)), ValueError, r'\[1, 2, 5, 4\]', r'\[1, 2, 5, 3\]'),
                Bad(T((1, 2, 5, 4), 'float64'), TypeError, 'float32', 'float64'),
            ],
            'scale': [Bad('a', TypeError, 'float', 'str'), Bad([1.0], TypeError, 'float', 'list'),
                      Bad(np.bool_(True), TypeError, 'float', 'bool'),
                      Bad(float('inf'), ValueError, 'finite', 'inf'),
                      # an int beyond the float range: was "int too large to convert to float"
                      Bad(10 ** 400, ValueError, 'float', 'too large for a float')],
            'initial_state': [
                Bad([1.0], TypeError, 'Tensor', 'list'),
                Bad(T((1, 2, 4, 4)), ValueError, r'\[1, 2, 4, 3\]', r'\[1, 2, 4, 4\]'),
                Bad(T((1, 2, 4, 3), 'float64'), TypeError, 'float32', 'float64'),
            ],
            'output_final_state': bool_errors(),
            'head_first': bool_errors(),
            'cu_seqlens': [
                Bad([0, 5], TypeError, 'Tensor', 'list'),
                Bad(lambda place: paddle.to_tensor(np.array([0, 6], np.int32), place=place), ValueError, 'T = 5',
                    'is 6'),
                Bad(lambda place: paddle.to_tensor(np.array([0, 3, 2, 5]), place=place), ValueError,
                    'must not decrease', r'cu_seqlens\[2\] = 2'),
                Bad(T((2,)), TypeError, 'int32 or int64', 'float32'),
            ],
        }),
    'add': _binary_spec(paddle.add),
    'subtract': _binary_spec(paddle.subtract),
    'multiply': _binary_spec(paddle.multiply),
    'grad': _grad_spec(),
    'sum': BadInputs(
        valid=lambda place: dict(x=T((2, 3))(place), axis=1, dtype=None, keepdim=False),
        bad={
            'x': tensor_type_errors(),
            'axis': _reduce_axis_errors(),
            'dtype': dtype_errors('dtype', []),
            'keepdim': bool_errors(),
        }),
    'mean': BadInputs(
        valid=lambda place: dict(x=T((2, 3))(place), axis=1, keepdim=False),
        bad={
            'x': tensor_type_errors() + [Bad(T((2, 3), 'int32'), TypeError, 'floating', 'int32')],
            'axis': _reduce_axis_errors(),
            'keepdim': bool_errors(),
        }),
    'reshape': BadInputs(
        valid=lambda place: dict(x=T((2, 3))(place), shape=[3, 2]),
        bad={
            'x': tensor_type_errors(),
            'shape': [
                Bad([4, 2], ValueError, '6', r'\[4, 2\]'),
                Bad([-1, -1], ValueError, r'-1', r'\[-1, -1\]'),
                Bad([-2, 3], ValueError, r'-1|>= 0|non-negative', r'-2'),
                Bad([5, 0, 1], ValueError, r'0', r'\[5, 0, 1\]'),
                # a shape whose element count overflows int64 (issue 17 item 2)
                Bad([2 ** 40, 2 ** 40], ValueError, r'2\*\*63 - 1', r'\[1099511627776, 1099511627776\]'),
                Bad(1.5, TypeError, 'int', 'float'),
                Bad([2, 'a'], TypeError, 'int', 'str'),
                Bad(None, TypeError, 'int', 'NoneType'),
                Bad([-1, 2 ** 64], ValueError, '64-bit', str(2 ** 64)),
            ],
        }),
    'cast': BadInputs(
        valid=lambda place: dict(x=T((2, 3))(place), dtype='float64'),
        bad={
            'x': tensor_type_errors(),
            'dtype': dtype_errors('dtype', []) + [Bad(None, TypeError, 'dtype', 'None'),
                                                   Bad('complex64', TypeError, 'dtype', 'complex64')],
        }),
    'full_like': BadInputs(
        valid=lambda place: dict(x=T((2, 3), 'int32')(place), fill_value=7, dtype=None),
        bad={
            'x': tensor_type_errors(),
            # Into an integer dtype as NumPy 2: out of range OverflowError, NaN/inf ValueError.
            'fill_value': [
                Bad(1e30, OverflowError, 'int32', '1e\\+30'),
                Bad(float('nan'), ValueError, 'int32', 'nan'),
                Bad(float('-inf'), ValueError, 'int32', '-inf'),
                Bad(2 ** 40, OverflowError, 'int32', str(2 ** 40)),
                Bad(np.int64(-2 ** 40), OverflowError, 'int32', str(-2 ** 40)),
                Bad('7', TypeError, 'number', 'str'),
                Bad(None, TypeError, 'number', 'NoneType'),
                Bad([7], TypeError, 'number', 'list'),
            ],
            'dtype': dtype_errors('dtype', []),
        }),
    'full': BadInputs(
        op=lambda shape, fill_value, dtype=None, place=None: paddle.full(shape, fill_value, dtype, place),
        valid=lambda place: dict(shape=[2, 3], fill_value=7, dtype='uint8', place=place),
        bad={
            'shape': [Bad([2, -3], TypeError, 'non-negative', '-3'), Bad('3', TypeError, 'list', "'3'")],
            'fill_value': [
                Bad(300, OverflowError, 'uint8', '300'),
                Bad(-1, OverflowError, 'uint8', '-1'),
                Bad(2 ** 64, OverflowError, 'uint8', str(2 ** 64)),
                Bad(float('nan'), ValueError, 'uint8', 'nan'),
                Bad(np.float32('inf'), ValueError, 'uint8', 'inf'),
                Bad('7', TypeError, 'number', 'str'),
            ],
            'dtype': dtype_errors('dtype', []),
        }),
    'to_tensor': BadInputs(
        op=lambda data, dtype=None, place=None, stop_gradient=True: paddle.to_tensor(data, dtype, place, stop_gradient),
        valid=lambda place: dict(data=[[1.0, 2.0], [3.0, 4.0]], dtype=None, place=place, stop_gradient=True),
        bad={
            'data': [Bad('abc', TypeError, 'number|list', 'str'),
                     Bad({1: 2}, TypeError, 'number|list', 'dict'),
                     Bad([[1.0, 2.0], [3.0]], ValueError, 'rectangular', r'data|inhomogeneous|shape'),
                     Bad([1 + 2j], TypeError, 'not supported', 'complex'),
                     # Python ints go to int64 and never wrap (NumPy 2's OverflowError).
                     Bad(2 ** 63, OverflowError, 'int64', str(2 ** 63)),
                     Bad([[1, 2], [3, -2 ** 63 - 1]], OverflowError, 'int64', str(-2 ** 63 - 1)),
                     Bad([2 ** 64, 1], OverflowError, 'int64', str(2 ** 64)),
                     Bad(np.array([2 ** 63], np.uint64), TypeError, 'uint64', 'uint64')],
            'dtype': dtype_errors('dtype', []),
            'place': [Bad('tpu', ValueError, 'cpu', 'tpu'), Bad(3, TypeError, 'Place', 'int'),
                      Bad('gpu:x', ValueError, 'index|gpu:N', 'gpu:x')],
            'stop_gradient': [Bad('no', TypeError, 'bool', 'str'), Bad(None, TypeError, 'bool', 'NoneType')],
        }),
    'from_dlpack': BadInputs(
        valid=lambda place: dict(dlpack=paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], place=place), copy=True),
        bad={
            'dlpack': [Bad([1.0, 2.0], TypeError, '__dlpack__', 'list'),
                       Bad(7, TypeError, '__dlpack__', 'int'),
                       Bad(np.zeros(3, np.complex64), TypeError, 'not supported', 'complex64'),
                       Bad(np.zeros(3, np.uint16), TypeError, 'not supported', 'uint16'),
                       Bad(_used_capsule, BufferError, 'used once', 'already consumed')],
            'copy': [Bad('yes', TypeError, 'None, True or False', 'str'),
                     Bad(1, TypeError, 'None, True or False', 'int')],
        }),
}


def _feed_program(place):
    """Executor.run's valid call: a Program cumsum-ing an int32 data variable 'x', fed [1, 2]."""
    was_dynamic = paddle.in_dynamic_mode()
    paddle.enable_static()
    main = paddle.static.Program()
    try:
        with paddle.static.program_guard(main, paddle.static.Program()):
            y = paddle.cumsum(paddle.static.data('x', [2], 'int32'))
    finally:
        if was_dynamic:
            paddle.disable_static()
    return dict(self=paddle.static.Executor(place), program=main, feed={'x': [1, 2]}, fetch_list=[y])


# Tensor operators and methods (named 'Tensor.<method>', their tensor argument 'self'; the message
# names the Tensor), the runtime's functions that take arguments, and the static feed. These
# entries list the arguments that have bad values (a subset of the signature's).
_TENSOR_AND_RUNTIME = {
    'static.Executor.run': BadInputs(
        op=lambda self, **kwargs: self.run(**kwargs)[0],
        valid=_feed_program,
        bad={'feed': [Bad({'x': [2 ** 40 + 5, 1]}, OverflowError, r'paddle.int32 \[-2147483648, 2147483647\]',
                          '1099511627781'),
                      Bad({'x': np.array([2 ** 32, 0], np.uint64)}, OverflowError, 'paddle.int32', '4294967296'),
                      Bad({'x': [0.5, 1.0]}, TypeError, 'paddle.int32', 'float64'),
                      Bad({'x': 'ab'}, TypeError, 'NumPy array', 'str')]}),
    'Tensor.__bool__': BadInputs(
        op=lambda self: paddle.to_tensor(bool(self)),
        valid=lambda place: dict(self=T((1, 1))(place)),
        bad={'self': [Bad(T((3,)), ValueError, 'exactly one element', '3 elements', 'Tensor'),
                      Bad(T((2, 0)), ValueError, 'exactly one element', '0 elements', 'Tensor')]}),
    'Tensor.__neg__': BadInputs(
        op=lambda self: -self,
        valid=lambda place: dict(self=T((2,), 'int32')(place)),
        # was OverflowError from to_tensor (uint8) and 'no kernel for multiply' (bool, int8)
        bad={'self': [Bad(lambda place: paddle.to_tensor(np.array([1, 2], np.uint8), place=place), TypeError,
                          'int32', 'uint8', 'unary -'),
                      Bad(lambda place: paddle.to_tensor([True, False], place=place), TypeError, 'int32', 'bool',
                          'unary -'),
                      Bad(T((2,), 'int8'), TypeError, 'int32', 'int8', 'unary -')]}),
    'get_flags': BadInputs(
        valid=lambda place: dict(names=None),
        bad={'names': [Bad(5, TypeError, 'str, a list of str or None', 'int'),  # was "'int' object is not iterable"
                       Bad([5], TypeError, r'flag names \(str\)', 'int'),
                       Bad(['PADDLE_OPS_NOPE'], ValueError, 'the flags are', 'PADDLE_OPS_NOPE', 'flag')]}),
    'set_flags': BadInputs(
        valid=lambda place: dict(flags={}),
        bad={'flags': [Bad(5, TypeError, 'dict', 'int'),
                       Bad({5: 'auto'}, TypeError, r'flag names \(str\)', 'int'),
                       Bad({'PADDLE_OPS_GLA_CPU': 'fast'}, ValueError, 'accepted values', 'fast', 'PADDLE_OPS_GLA_CPU')]}),
    # n = 0: follow OMP_NUM_THREADS (the state the tests run in).
    'set_num_threads': BadInputs(
        valid=lambda place: dict(n=0),
        bad={'n': [Bad(100000, ValueError, r'bound of \d+ threads', '100000'),
                   Bad(2 ** 31 - 1, ValueError, r'bound of \d+ threads', str(2 ** 31 - 1)),
                   Bad(2 ** 40, ValueError, '32-bit', str(2 ** 40)),
                   Bad('2', TypeError, 'int', 'str'),
                   Bad(2.0, TypeError, 'int', 'float')]}),
}


BAD_INPUTS = {name: info.bad_inputs for name, info in OP_DB.items() if info.bad_inputs is not None}
BAD_INPUTS.update(_OTHER_OPS)
BAD_INPUTS.update(_TENSOR_AND_RUNTIME)


def _call(op_name, spec, kwargs):
    return (spec.op or getattr(paddle, op_name))(**kwargs)


def _cases():
    for op_name, spec in BAD_INPUTS.items():
        for arg, bads in spec.bad.items():
            for i, bad in enumerate(bads):
                yield pytest.param(op_name, arg, i, id='%s-%s-%d' % (op_name, arg, i))


def _values(out):
    """What a call gave, to compare: a Tensor's values (gla's o of its (o, final_state)), else
    the value itself (None, a dict of flags) as a 0-D object array."""
    if isinstance(out, tuple):  # gla's (o, final_state)
        out = out[0]
    if isinstance(out, paddle.Tensor):
        return out.numpy()
    if isinstance(out, np.ndarray):
        return out
    result = np.empty((), object)
    result[()] = out
    return result


def _result(op_name, spec, place):
    return _values(_call(op_name, spec, spec.valid(place)))


def _public(name):
    """The public function (or Tensor method) an entry's name stands for."""
    fn = paddle
    for part in name.split('.'):
        fn = getattr(fn, part)
    return fn


def test_table_covers_every_op_and_argument():
    """Every public op is in the table, and each entry lists every argument of its signature
    (a new op or argument without bad inputs fails here). The public ops: those listed, every
    generated op (api_yaml) with a public function of its name, and every op of op_db.py."""
    ops = {'logcumsumexp', 'cumsum', 'pscan', 'add', 'subtract', 'multiply', 'sum', 'mean', 'reshape', 'cast',
           'full_like', 'to_tensor', 'right_flood', 'repeat_interleave', 'gla'}
    ops |= {name for name in paddle._C_ops.DYNAMIC_FUNCTIONS if hasattr(paddle, name)}
    ops |= set(OP_DB)
    assert ops <= set(BAD_INPUTS), 'ops without a bad-input entry: %s' % sorted(ops - set(BAD_INPUTS))
    for name, spec in BAD_INPUTS.items():
        fn = _public(name)
        try:
            params = [p for p in inspect.signature(fn).parameters if p != 'name']
        except ValueError:  # a binding (set_num_threads): the names in the first line of its docstring
            params = re.findall(r'(\w+):', fn.__doc__.splitlines()[0])
        if name in _TENSOR_AND_RUNTIME:
            assert set(spec.bad) | set(spec.valid('cpu')) <= set(params), (name, params)
            continue
        assert set(params) <= set(spec.valid('cpu')), (name, params)
        missing = [p for p in params if p not in spec.bad and p != 'place']
        assert not missing, '%s: arguments without bad values: %s' % (name, missing)
    assert sum(len(b) for s in BAD_INPUTS.values() for b in s.bad.values()) >= 150


@pytest.mark.parametrize('place', available_places())
@pytest.mark.parametrize('op_name,arg,index', list(_cases()))
def test_bad_input(op_name, arg, index, place):
    spec = BAD_INPUTS[op_name]
    bad = spec.bad[arg][index]
    before = _result(op_name, spec, place)
    kwargs = spec.valid(place)
    kwargs[arg] = bad.make(place)
    with pytest.raises(bad.error) as info:
        _call(op_name, spec, kwargs)
    msg = str(info.value)
    name = bad.name or arg
    assert re.search(r'(?<![\w])(%s)(?![\w])' % name, msg), 'message does not name %r: %s' % (name, msg)
    assert re.search(bad.expected, msg), 'message does not say what was expected (%s): %s' % (bad.expected, msg)
    assert re.search(bad.given, msg), 'message does not say what was given (%s): %s' % (bad.given, msg)
    # The library still works: the valid call gives the same result.
    np.testing.assert_array_equal(_result(op_name, spec, place), before)


def _numpy_twin(value):
    """The NumPy scalar(s) standing for a Python bool, int, float or list of ints (None: no twin)."""
    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, int):
        return np.int64(value)
    if isinstance(value, float):
        return np.float64(value)
    if isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return [np.int64(v) for v in value]
    return None


@pytest.mark.parametrize('place', available_places())
@pytest.mark.parametrize('op_name', sorted(BAD_INPUTS))
def test_numpy_scalar_arguments_accepted(op_name, place):
    """NumPy scalars are taken wherever Python ones are (issue 17 item 14): each bool, int,
    float or int-list argument of an op's valid call, given as numpy.bool_, numpy.int64,
    numpy.float64 or a list of numpy.int64, gives the same result."""
    spec = BAD_INPUTS[op_name]
    before = _result(op_name, spec, place)
    twins = 0
    for arg, value in spec.valid(place).items():
        twin = _numpy_twin(value)
        if twin is None:
            continue
        twins += 1
        kwargs = spec.valid(place)
        kwargs[arg] = twin
        out = _call(op_name, spec, kwargs)
        np.testing.assert_array_equal(_values(out), before, err_msg=arg)
    if op_name not in ('add', 'subtract', 'multiply', 'mean', 'cast', 'to_tensor') and (
            op_name not in _TENSOR_AND_RUNTIME or op_name == 'set_num_threads'):
        assert twins > 0, '%s: no argument to try' % op_name
