"""Argument errors the scan ops cumsum and logcumsumexp share: an axis out of range, x not a
Tensor, an axis that is not an int. One test each, over a table of each op's own bad values
(the cases their test_<op>_op.py modules held before)."""

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import expect_axis_out_of_range, make_tensor

SCAN_OPS = {'cumsum': paddle.cumsum, 'logcumsumexp': paddle.logcumsumexp}

# op: (x's dtype, [(x's shape, axis)])
AXIS_OUT_OF_RANGE = {
    'cumsum': ('int64', [((2, 3), 2), ((2, 3), -3), ((5,), 1), ((), -2)]),
    'logcumsumexp': ('float32', [((2, 3), 2), ((2, 3), -3), ((4,), 1), ((4,), -2), ((2, 3, 4), 7), ((), 1)]),
}
NON_TENSOR_X = {
    'cumsum': [[1, 2, 3], np.arange(3), 7],
    'logcumsumexp': [[1.0, 2.0], np.array([1.0, 2.0]), 3.0, None],
}
NON_INT_AXIS = {'cumsum': [0.5, 'x'], 'logcumsumexp': [1.5, '1']}


def _cases(table):
    """(op, value) for every value of every op in table."""
    return [(op, value) for op, values in table.items() for value in values]


@pytest.mark.parametrize('op,dtype,shape,axis', [(op, dtype, shape, axis)
                                                 for op, (dtype, cases) in AXIS_OUT_OF_RANGE.items()
                                                 for shape, axis in cases])
def test_axis_out_of_range(op, dtype, shape, axis):
    x = make_tensor(np.ones(shape), dtype)
    expect_axis_out_of_range(lambda: SCAN_OPS[op](x, axis=axis), axis, len(shape))


@pytest.mark.parametrize('op,bad', _cases(NON_TENSOR_X))
def test_non_tensor_input_raises(op, bad):
    with pytest.raises(TypeError):
        SCAN_OPS[op](bad)


@pytest.mark.parametrize('op,axis', _cases(NON_INT_AXIS))
def test_non_int_axis_raises(op, axis):
    with pytest.raises(TypeError, match='(?i)axis'):
        SCAN_OPS[op](make_tensor(np.ones((2, 3)), 'float32'), axis=axis)
