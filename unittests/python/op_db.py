"""OpInfo declarations: for each op, its samples, NumPy reference (forward and gradient),
dtypes and error cases. The generic tests in op_test.GenericOpTests run over every entry;
adding an op (pscan, right_flood, ...) means adding an entry here and a test module with
`class TestXOpInfo(GenericOpTests): op_info = OP_DB['x']`.
"""

import itertools

import numpy as np

import paddle_ops as paddle
from op_test import (ErrorInput, FLOAT_DTYPES, INT_DTYPES, OpInfo, SampleInput, Tolerance,
                     axis_message_ok, is_float, make_tensor, scan_grad_reference,
                     scan_reference)

# Shapes every scan op is sampled on: 0-D, zero-size (along and across the axis), a single
# element, 1-D, 3-D, a row longer than a SIMD vector, and a size-1 middle axis.
SCAN_SHAPES = [(), (0,), (3, 0), (0, 2, 3), (1,), (7,), (2, 3, 4), (4, 17), (2, 1, 3)]

# Long and awkward (not a multiple of any block or vector width) shapes, covering the scan
# engine's layouts: long rows (inner == 1), many columns (inner > 1), and flattening.
SCAN_LARGE = [((3, 5003), -1), ((4099, 3), 0), ((2, 1031, 5), 1), ((70001,), None)]

EXCLUSIVE_REVERSE = list(itertools.product((False, True), (False, True)))


def scan_axes(ndim):
    """None (flatten) and every axis, negative ones included; 0-D takes None, 0 and -1."""
    if ndim == 0:
        return [None, 0, -1]
    return [None] + list(range(-ndim, ndim))


def random_values(dtype, shape, rng, scale=2.0):
    if dtype == 'bool':
        return rng.random(shape) < 0.5
    if not is_float(dtype):
        return rng.integers(-6, 7, size=shape)
    return rng.standard_normal(shape) * scale


def scan_samples(dtype_targets, values=random_values):
    """Sample generator for a scan op; dtype_targets(dtype) lists values for its dtype arg."""
    def generate(op_info, dtype, rng):
        for shape in SCAN_SHAPES:
            for axis in scan_axes(len(shape)):
                for exclusive, reverse in EXCLUSIVE_REVERSE:
                    yield SampleInput(values(dtype, shape, rng),
                                      dict(axis=axis, exclusive=exclusive, reverse=reverse),
                                      desc='shape%s' % (shape,))
        # Defaults (axis=None: flatten), and the attributes given partly.
        yield SampleInput(values(dtype, (3, 4), rng), {}, desc='defaults')
        yield SampleInput(values(dtype, (3, 4), rng), dict(axis=1), desc='axis only')
        yield SampleInput(values(dtype, (3, 4), rng), dict(axis=0, reverse=True),
                          desc='reverse only')
        for target in dtype_targets(dtype):
            for axis, exclusive in ((1, False), (None, True)):
                yield SampleInput(values(dtype, (3, 5), rng),
                                  dict(axis=axis, exclusive=exclusive, dtype=target),
                                  desc='dtype arg')
    return generate


def scan_large_samples(values):
    def generate(op_info, dtype, rng):
        for shape, axis in SCAN_LARGE:
            for exclusive, reverse in EXCLUSIVE_REVERSE:
                yield SampleInput(values(dtype, shape, rng),
                                  dict(axis=axis, exclusive=exclusive, reverse=reverse),
                                  desc='large%s' % (shape,), grad=False)
    return generate


def scan_error_inputs(extra=()):
    """Errors every scan op shares: axis out of range, non-Tensor x, non-int axis."""
    def generate(op_info):
        def tensor_of(shape):
            return lambda place: make_tensor(np.ones(shape), 'float32', place)
        for shape in [(), (5,), (2, 3), (2, 3, 4)]:
            ndim = len(shape)
            rank = max(ndim, 1)
            for axis in sorted({rank, -rank - 1, rank + 5, -rank - 7}):
                yield ErrorInput(tensor_of(shape), dict(axis=axis), IndexError,
                                 lambda m, a=axis, n=ndim: axis_message_ok(m, a, n),
                                 desc='axis %d on shape %s' % (axis, shape))
        for bad_x in ([1.0, 2.0], np.ones(3, dtype=np.float32), 1.5):
            yield ErrorInput(lambda place, v=bad_x: v, dict(axis=0), TypeError,
                             r'tensor|\bx\b', desc='non-Tensor x %r' % (type(bad_x),))
        for bad_axis in (1.5, '0', [0]):
            yield ErrorInput(tensor_of((2, 3)), dict(axis=bad_axis), TypeError, r'axis',
                             desc='non-int axis %r' % (bad_axis,))
        for err in extra:
            yield err
    return generate


# ------------------------------------------------------------------------------------------
# logcumsumexp
# ------------------------------------------------------------------------------------------

def logcumsumexp_ref(x, axis=None, exclusive=False, reverse=False):
    """log(sum exp) scan computed with long double logaddexp: exact handling of +-inf/NaN,
    no overflow, and about 3 more digits than float64."""
    x = np.asarray(x, dtype=np.longdouble)
    with np.errstate(invalid='ignore'):
        return scan_reference(x, lambda a, ax: np.logaddexp.accumulate(a, axis=ax), -np.inf,
                              axis, exclusive, reverse)


def _logcumsumexp_partial(xi, out_j):
    # d out[j] / d x[i] = exp(x[i] - out[j]) <= 1 inside the window; 0 where x[i] = -inf.
    return np.where(xi == -np.inf, 0, np.exp(xi - out_j))


def logcumsumexp_grad_ref(x, out, out_grad, axis=None, exclusive=False, reverse=False):
    return scan_grad_reference(x, out, out_grad, _logcumsumexp_partial, axis, exclusive,
                               reverse)


def logcumsumexp_out_dtype(in_dtype, dtype_arg):
    if dtype_arg is not None:
        return dtype_arg
    return in_dtype if is_float(in_dtype) else 'float32'


def _logcumsumexp_dtype_targets(dtype):
    if is_float(dtype):
        return ['float64', paddle.float32, 'bfloat16', paddle.float16]
    return ['float64', paddle.float32]


def _logcumsumexp_large_values(dtype, shape, rng):
    return random_values(dtype, shape, rng, scale=3.0)


def _int_dtype_errors():
    for bad in ('int32', 'int64', paddle.int32, paddle.int64):
        yield ErrorInput(lambda place: make_tensor(np.ones((2, 3)), 'float32', place),
                         dict(axis=1, dtype=bad), TypeError, r'dtype',
                         desc='integer dtype %r' % (bad,))


LOGCUMSUMEXP = OpInfo(
    name='logcumsumexp',
    op=lambda x, *args, **kwargs: paddle.logcumsumexp(x, *args, **kwargs),
    method='logcumsumexp',
    ref=logcumsumexp_ref,
    grad_ref=logcumsumexp_grad_ref,
    dtypes=FLOAT_DTYPES + INT_DTYPES + ('bool',),
    grad_dtypes=FLOAT_DTYPES,
    out_dtype=logcumsumexp_out_dtype,
    sample_inputs=scan_samples(_logcumsumexp_dtype_targets),
    large_inputs=scan_large_samples(_logcumsumexp_large_values),
    error_inputs=scan_error_inputs(extra=list(_int_dtype_errors())),
)


# ------------------------------------------------------------------------------------------
# cumsum
# ------------------------------------------------------------------------------------------

def cumsum_ref(x, axis=None, exclusive=False, reverse=False):
    """Exact for integers (int64); long double for floats."""
    x = np.asarray(x)
    return scan_reference(x, lambda a, ax: np.cumsum(a, axis=ax, dtype=a.dtype), 0,
                          axis, exclusive, reverse)


def cumsum_grad_ref(x, out, out_grad, axis=None, exclusive=False, reverse=False):
    # The gradient is the scan of out_grad in the other direction.
    return scan_grad_reference(x, out, out_grad,
                               lambda xi, out_j: np.ones(np.broadcast(xi, out_j).shape),
                               axis, exclusive, reverse)


def cumsum_tol_scale(x, expected, axis=None, exclusive=False, reverse=False):
    # A float sum's rounding error scales with the running sum of |x|, not with |result|
    # (cancellation): measure against that.
    return np.maximum(1.0, cumsum_ref(np.abs(x), axis, exclusive, reverse)).astype(np.float64)


CUMSUM_PROMOTED_TO_INT64 = ('bool', 'int8', 'uint8', 'int16')


def cumsum_out_dtype(in_dtype, dtype_arg):
    if dtype_arg is not None:
        return dtype_arg
    return 'int64' if in_dtype in CUMSUM_PROMOTED_TO_INT64 else in_dtype


def _cumsum_dtype_targets(dtype):
    if is_float(dtype):
        return ['float64', paddle.float32]
    if dtype == 'bool':
        return ['int32', paddle.int64]
    return ['int64', paddle.float64]


def _cumsum_large_values(dtype, shape, rng):
    # Integer-valued data: any summation order is exact in float32 (partial sums << 2^24),
    # so long rows check the scan's structure exactly, whatever its blocking.
    if dtype == 'bool':
        return rng.random(shape) < 0.5
    return rng.integers(-8, 9, size=shape).astype(np.float64 if is_float(dtype) else np.int64)


CUMSUM = OpInfo(
    name='cumsum',
    op=lambda x, *args, **kwargs: paddle.cumsum(x, *args, **kwargs),
    method='cumsum',
    ref=cumsum_ref,
    grad_ref=cumsum_grad_ref,
    dtypes=FLOAT_DTYPES + INT_DTYPES + ('bool',),
    grad_dtypes=FLOAT_DTYPES,
    out_dtype=cumsum_out_dtype,
    sample_inputs=scan_samples(_cumsum_dtype_targets),
    large_inputs=scan_large_samples(_cumsum_large_values),
    error_inputs=scan_error_inputs(),
    tolerances={
        # SPEC gives no cumsum bound: float rounding of a sequential or blocked sum of <= 20
        # terms, measured against the running sum of |x| (cumsum_tol_scale).
        'float64': Tolerance(rtol=1e-14),
        'float32': Tolerance(rtol=4e-6),
        'float16': Tolerance(rtol=4e-6, ulps=1),
        'bfloat16': Tolerance(rtol=4e-6, ulps=1),
    },
    tol_scale=cumsum_tol_scale,
)


OP_DB = {info.name: info for info in (LOGCUMSUMEXP, CUMSUM)}
