"""OpInfo declarations: for each op, its samples, NumPy reference (forward and gradient),
dtypes, error cases and bad-input table entry. The generic tests in op_test.GenericOpTests run
over every entry of OP_DB (test_op_db.py), and test_bad_input_table.py over their bad_inputs:
adding an op's tests means adding an entry here (a test_<op>_op.py module is only for checks
particular to the op).
"""

import itertools

import numpy as np

import paddle_ops as paddle
from bad_inputs import Bad, BadInputs, T, bool_errors, scan_axis_errors, scan_bad_inputs, tensor_type_errors
from op_test import (ErrorInput, FLOAT_DTYPES, INT_DTYPES, OpInfo, SampleInput, Tolerance,
                     assert_samples_hold_0d_and_empty, axis_message_ok, cast_np, dtype_name, is_float, make_tensor,
                     scan_grad_reference, scan_reference)

# Shapes every scan op is sampled on: 0-D, zero-size (along and across the axis), a single
# element, 1-D, 3-D, a row longer than a SIMD vector, and a size-1 middle axis.
SCAN_SHAPES = [(), (0,), (3, 0), (0, 2, 3), (1,), (7,), (2, 3, 4), (4, 17), (2, 1, 3)]

# Long and awkward (not a multiple of any block or vector width) shapes, covering the scan
# engine's layouts: long rows (inner == 1), many columns (inner > 1), and flattening.
SCAN_LARGE = [((3, 5003), -1), ((4099, 3), 0), ((2, 1031, 5), 1), ((70001,), None)]

EXCLUSIVE_REVERSE = list(itertools.product((False, True), (False, True)))


# OpInfo fields and the suffixes of the names of the functions that fill them: an op's
# functions in this module are named <op><suffix> (right_flood_ref, right_flood_samples, ...).
OP_FUNCTION_SUFFIXES = dict(ref='_ref', grad_ref='_grad_ref', sample_inputs='_samples',
                            large_inputs='_large_samples', error_inputs='_error_inputs',
                            sample_coverage='_sample_coverage', fd_samples='_fd_samples')


def op_functions(op):
    """The OpInfo fields filled by this module's functions named after `op`
    (OP_FUNCTION_SUFFIXES); a field without such a function is left out (its default)."""
    found = {field: globals().get(op + suffix) for field, suffix in OP_FUNCTION_SUFFIXES.items()}
    return {field: fn for field, fn in found.items() if fn is not None}


def public_op(name):
    """The op as the generic tests call it: paddle.<name>(x, ...), looked up at each call."""
    return lambda x, *args, **kwargs: getattr(paddle, name)(x, *args, **kwargs)


def scan_op_fields(op, extra_errors=()):
    """The OpInfo fields of a scan op (logcumsumexp, cumsum): the public op and its Tensor
    method, every dtype and bool in, gradients for floats, the shared scan samples and errors
    (with extra_errors), and the op's functions named after it: <op>_ref, <op>_grad_ref,
    <op>_out_dtype, _<op>_dtype_targets (the samples' dtype arguments) and _<op>_large_values
    (the large inputs' values)."""
    named = globals()
    return dict(name=op, op=public_op(op), method=op, **op_functions(op),
                dtypes=FLOAT_DTYPES + INT_DTYPES + ('bool',), grad_dtypes=FLOAT_DTYPES,
                out_dtype=named[op + '_out_dtype'],
                sample_inputs=scan_samples(named['_%s_dtype_targets' % op]),
                large_inputs=scan_large_samples(named['_%s_large_values' % op]),
                error_inputs=scan_error_inputs(extra=extra_errors))


def sum_tolerances():
    """Tolerances of an op that sums in float32 (float64 for float64): relative to the op's
    magnitude scale (its tol_scale), and one more ulp for the 16-bit types' final rounding."""
    return {
        'float64': Tolerance(rtol=1e-14),
        'float32': Tolerance(rtol=4e-6),
        'float16': Tolerance(rtol=4e-6, ulps=1),
        'bfloat16': Tolerance(rtol=4e-6, ulps=1),
    }


def copying_op_fields():
    """The OpInfo fields of an op whose outputs are copies of input elements: every float and
    int dtype, a gradient for floats, the input's dtype out, and exact in every dtype."""
    return dict(dtypes=FLOAT_DTYPES + INT_DTYPES, grad_dtypes=FLOAT_DTYPES,
                out_dtype=lambda in_dtype, dtype_arg: in_dtype,
                tolerances={d: Tolerance() for d in FLOAT_DTYPES})


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


def x_of(shape, dtype='float32'):
    """An error input's x: ones of `shape` and `dtype` made on the place the test gives."""
    return lambda place: make_tensor(np.ones(shape), dtype, place)


def axis_out_of_range_errors(shapes, bad_axes, other_kwargs=({},)):
    """IndexError inputs: x of each shape with each axis of bad_axes(rank) (rank: the ndim, 1
    for 0-D), alongside each of other_kwargs; the message must name the axis and the range."""
    for shape in shapes:
        ndim = len(shape)
        for axis in bad_axes(max(ndim, 1)):
            for kwargs in other_kwargs:
                yield ErrorInput(x_of(shape), dict(kwargs, axis=axis), IndexError,
                                 lambda m, a=axis, n=ndim: axis_message_ok(m, a, n),
                                 desc='axis %d on shape %s' % (axis, shape))


def scan_error_inputs(extra=()):
    """Errors every scan op shares: axis out of range, non-Tensor x, non-int axis."""
    def generate(op_info):
        yield from axis_out_of_range_errors([(), (5,), (2, 3), (2, 3, 4)],
                                            lambda rank: sorted({rank, -rank - 1, rank + 5, -rank - 7}))
        for bad_x in ([1.0, 2.0], np.ones(3, dtype=np.float32), 1.5):
            yield ErrorInput(lambda place, v=bad_x: v, dict(axis=0), TypeError,
                             r'tensor|\bx\b', desc='non-Tensor x %r' % (type(bad_x),))
        for bad_axis in (1.5, '0', [0]):
            yield ErrorInput(x_of((2, 3)), dict(axis=bad_axis), TypeError, r'axis',
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
    **scan_op_fields('logcumsumexp', extra_errors=list(_int_dtype_errors())),
    bad_inputs=scan_bad_inputs('floating', ['int32', paddle.int64, 'bool']),
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
    **scan_op_fields('cumsum'),
    bad_inputs=scan_bad_inputs('float16.*int64', ['bool', 'int8', paddle.uint8]),
    # docs/spec.md gives no cumsum bound: float rounding of a sequential or blocked sum of <= 20
    # terms, measured against the running sum of |x| (cumsum_tol_scale).
    tolerances=sum_tolerances(),
    tol_scale=cumsum_tol_scale,
)


# ------------------------------------------------------------------------------------------
# pscan: the OpInfo input is x [N, T, D]; the gates `a` ([N, T] or [N, T, D]) and the
# optional initial_state [N, D] ride in the kwargs as arrays already rounded to the dtype,
# and the op makes them tensors of x's dtype on x's place. The generic checks therefore
# cover out and x_grad; test_pscan_op.py checks a_grad and initial_state_grad.
# ------------------------------------------------------------------------------------------

def _pscan_steps(T, reverse):
    return range(T - 1, -1, -1) if reverse else range(T)


def pscan_ref(x, a, initial_state=None, reverse=False):
    """y[:, t] = a[:, t] * y[:, t-1] + x[:, t] as a left-to-right loop in long double
    (y[:, 0] = x[:, 0] without an initial state)."""
    ld = np.longdouble
    x = np.asarray(x, dtype=ld)
    a = np.asarray(a, dtype=ld)
    a = np.broadcast_to(a[:, :, None] if a.ndim == 2 else a, x.shape)
    y = np.empty_like(x)
    h = None if initial_state is None else np.asarray(initial_state, dtype=ld)
    with np.errstate(all='ignore'):
        for t in _pscan_steps(x.shape[1], reverse):
            h = x[:, t] if h is None else a[:, t] * h + x[:, t]
            y[:, t] = h
    return y


def pscan_grads_ref(a, out, out_grad, initial_state=None, reverse=False):
    """(a_grad, x_grad, initial_state_grad) by the loop of docs/spec.md §3: g[t] = out_grad[t] +
    a[t+1] * g[t+1] (mirrored when reverse), a_grad[t] = g[t] * y[t-1] (summed over D for
    [N, T] gates), initial_state_grad = a[0] * g[0]; long double."""
    ld = np.longdouble
    out = np.asarray(out, dtype=ld)
    gy = np.asarray(out_grad, dtype=ld)
    a = np.asarray(a, dtype=ld)
    full = np.broadcast_to(a[:, :, None] if a.ndim == 2 else a, out.shape)
    T = out.shape[1]
    steps = list(_pscan_steps(T, reverse))
    g = np.zeros_like(out)
    da = np.zeros_like(out)
    h0 = None if initial_state is None else np.asarray(initial_state, dtype=ld)
    with np.errstate(all='ignore'):
        later = None  # the step after t in the forward order
        for t in reversed(steps):
            g[:, t] = gy[:, t] if later is None else gy[:, t] + full[:, later] * g[:, later]
            later = t
        for k, t in enumerate(steps):
            if k > 0:
                da[:, t] = g[:, t] * out[:, steps[k - 1]]
            elif h0 is not None:
                da[:, t] = g[:, t] * h0
    dh0 = None
    if h0 is not None:
        dh0 = full[:, steps[0]] * g[:, steps[0]] if T else np.zeros_like(h0)
    return (da.sum(axis=2) if a.ndim == 2 else da), g, dh0


def pscan_x_grad_ref(x, out, out_grad, a, initial_state=None, reverse=False):
    return pscan_grads_ref(a, out, out_grad, initial_state, reverse)[1]


def pscan_tol_scale(x, expected, a, initial_state=None, reverse=False):
    # Rounding errors scale with the recurrence of the magnitudes, not with |y| (cancellation).
    h0 = None if initial_state is None else np.abs(initial_state)
    return np.maximum(1.0, pscan_ref(np.abs(x), np.abs(a), h0, reverse)).astype(np.float64)


def _pscan_tensor(values, like):
    """values as a tensor of like's dtype on like's place (static Variables: a constant)."""
    if values is None:
        return None
    if isinstance(values, paddle.Tensor):  # keep its dtype (the error cases), move it to like's place
        same = not isinstance(like, paddle.Tensor) or isinstance(like, paddle.static.Variable) \
            or values.place == like.place
        return values if same else values.to(like.place)
    place = 'cpu' if isinstance(like, paddle.static.Variable) else like.place
    return make_tensor(values, dtype_name(like.dtype), place)


def pscan_op(x, a, initial_state=None, reverse=False):
    return paddle.pscan(_pscan_tensor(a, x), x, _pscan_tensor(initial_state, x), reverse=reverse)


def pscan_gates(shape, rng, dtype):
    """Gates in [-1, 1] with exact zeros, -1 and 1 among them, rounded to dtype."""
    g = rng.uniform(-1.0, 1.0, size=shape)
    pick = rng.random(shape)
    g = np.where(pick < 0.1, 0.0, np.where(pick < 0.15, -1.0, np.where(pick < 0.2, 1.0, g)))
    return cast_np(g, dtype)


# (N, T, D): zero-size along each axis, single steps and elements, D == 1 (a row per
# recurrence), D past a warp.
PSCAN_SHAPES = [(0, 3, 2), (2, 0, 3), (2, 3, 0), (1, 1, 1), (4, 1, 2), (1, 33, 1), (2, 5, 3),
                (3, 17, 4), (2, 9, 37)]
PSCAN_LARGE = [(1, 70001, 1), (3, 4099, 1), (2, 5003, 3), (2, 1031, 40)]


def _pscan_sample(shape, per_step, with_state, reverse, dtype, rng, **kw):
    N, T, D = shape
    a = pscan_gates((N, T) if per_step else shape, rng, dtype)
    h0 = cast_np(rng.standard_normal((N, D)), dtype) if with_state else None
    return SampleInput(random_values(dtype, shape, rng),
                       dict(a=a, initial_state=h0, reverse=reverse),
                       desc='shape%s a%s%s' % (shape, list(a.shape), ' h0' if with_state else ''), **kw)


def pscan_samples(op_info, dtype, rng):
    for shape in PSCAN_SHAPES:
        for per_step, with_state, reverse in itertools.product((True, False), repeat=3):
            yield _pscan_sample(shape, per_step, with_state, reverse, dtype, rng)


def pscan_large_samples(op_info, dtype, rng):
    for k, shape in enumerate(PSCAN_LARGE):
        for reverse in (False, True):
            yield _pscan_sample(shape, k % 2 == 0, reverse, reverse, dtype, rng, grad=False)


def pscan_error_inputs(op_info):
    ones = np.ones
    cases = [
        ((2, 3), dict(a=ones((2, 3))), ValueError, r'\bx\b.*3-D.*\[2, 3\]', 'x not 3-D'),
        ((2, 3, 4), dict(a=ones((2, 4))), ValueError, r'\ba\b.*\[2, 3, 4\].*\[2, 4\]', 'a [N, T] mismatch'),
        ((2, 3, 4), dict(a=ones((2, 3, 5))), ValueError, r'\ba\b.*\[2, 3, 4\].*\[2, 3, 5\]', 'a [N, T, D] mismatch'),
        ((2, 3, 4), dict(a=ones((3,))), ValueError, r'\ba\b.*\[3\]', 'a 1-D'),
        ((2, 3, 4), dict(a=ones((2, 3)), initial_state=ones((2, 3))), ValueError,
         r'initial_state.*\[2, 4\].*\[2, 3, 4\].*\[2, 3\]', 'initial_state mismatch'),
        ((2, 3, 4), dict(a=ones((2, 3)), initial_state=ones((2, 4, 1))), ValueError,
         r'initial_state.*\[2, 4, 1\]', 'initial_state 3-D'),
    ]
    for shape, kwargs, err, msg, desc in cases:
        yield ErrorInput(x_of(shape), kwargs, err, msg, desc=desc)
    f64 = lambda v: paddle.to_tensor(np.asarray(v, dtype=np.float64))  # noqa: E731
    yield ErrorInput(x_of((2, 3, 4)), dict(a=f64(ones((2, 3)))), TypeError,
                     r'\ba\b.*float32.*float64', desc='a dtype differs')
    yield ErrorInput(x_of((2, 3, 4)), dict(a=ones((2, 3)), initial_state=f64(ones((2, 4)))), TypeError,
                     r'initial_state.*float32.*float64', desc='initial_state dtype differs')
    yield ErrorInput(x_of((2, 3, 4), 'int32'), dict(a=ones((2, 3))), TypeError, r'\bx\b.*int32',
                     desc='integer x')
    for bad_x in ([[[1.0]]], np.ones((1, 1, 1), dtype=np.float32)):
        yield ErrorInput(lambda place, v=bad_x: v, dict(a=f64(ones((1, 1)))), TypeError, r'\bx\b.*Tensor',
                         desc='non-Tensor x %r' % (type(bad_x),))
    yield ErrorInput(x_of((2, 3, 4)), dict(a=ones((2, 3)), reverse='yes'), TypeError, r'reverse',
                     desc='non-bool reverse')


def pscan_sample_coverage(samples, dtype):
    """pscan's samples (replacing the axis/exclusive coverage of the scan ops): both gate
    shapes, with and without initial_state, both directions, zero-size tensors."""
    combos = {(s.kwargs['a'].ndim, s.kwargs['initial_state'] is None, s.kwargs['reverse'])
              for s in samples}
    assert combos == set(itertools.product((2, 3), (False, True), (False, True)))
    assert any(np.size(s.input) == 0 for s in samples)
    assert any((s.kwargs['a'] == 0).any() and (s.kwargs['a'] < 0).any() for s in samples)


PSCAN_BAD_INPUTS = BadInputs(
    valid=lambda place: dict(a=T((2, 3))(place), x=T((2, 3, 4))(place), initial_state=T((2, 4))(place), reverse=False),
    bad={
        'a': tensor_type_errors('a') + [
            Bad(T((2, 4)), ValueError, r'\[2, 3, 4\]', r'\[2, 4\]'),
            Bad(T((2, 3, 5)), ValueError, r'\[2, 3, 4\]', r'\[2, 3, 5\]'),
            Bad(T((3,)), ValueError, r'\[2, 3\]|\[N, T\]', r'\[3\]'),
            Bad(T((2, 3), 'float64'), TypeError, 'float32', 'float64'),
            Bad(T((2, 3), 'int32'), TypeError, 'float', 'int32'),
        ],
        'x': tensor_type_errors('x') + [
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
        'reverse': bool_errors(),
    })


PSCAN = OpInfo(
    name='pscan',
    op=pscan_op,
    ref=pscan_ref,
    grad_ref=pscan_x_grad_ref,
    dtypes=FLOAT_DTYPES,
    grad_dtypes=FLOAT_DTYPES,
    out_dtype=lambda in_dtype, dtype_arg: in_dtype,
    sample_inputs=pscan_samples,
    large_inputs=pscan_large_samples,
    error_inputs=pscan_error_inputs,
    # float32 (and the 16-bit types, before their one rounding) accumulate in float32:
    # a few float32 roundings per step, measured against the recurrence of |a|, |x|.
    tolerances=sum_tolerances(),
    tol_scale=pscan_tol_scale,
    static_unknown_dims=False,
    sample_coverage=pscan_sample_coverage,
    bad_inputs=PSCAN_BAD_INPUTS,
)


# ------------------------------------------------------------------------------------------
# right_flood (docs/spec.md §4): fill holes (zeros or NaN) from the left along an axis.
# ------------------------------------------------------------------------------------------

def _moved(x, axis):
    """x (0-D as [1]) with `axis` last, and the function that moves it back."""
    x = np.asarray(x)
    shape = x.shape
    x1 = x.reshape(1) if x.ndim == 0 else x
    ax = axis % x1.ndim
    return np.moveaxis(x1, ax, -1), lambda a: np.moveaxis(a, -1, ax).reshape(shape)


def flood_holes(x, hole):
    x = np.asarray(x)
    return np.isnan(x) if hole == 'nan' else x == 0


def right_flood_index_ref(x, axis=-1, reverse=False, hole='zero'):
    """t along the axis: np.maximum.accumulate of (the index where x is not a hole, else -1)
    (reverse: the same on the flipped axis, mapped back)."""
    xm, back = _moved(x, axis)
    n = xm.shape[-1]
    holes = flood_holes(xm, hole)
    if reverse:
        holes = holes[..., ::-1]
    idx = np.where(holes, -1, np.arange(n))
    t = np.maximum.accumulate(idx, axis=-1) if n else idx
    if reverse:
        t = np.where(t < 0, -1, n - 1 - t)[..., ::-1]
    return back(np.ascontiguousarray(t)).astype(np.int64)


def right_flood_ref(x, axis=-1, reverse=False, hole='zero'):
    t = right_flood_index_ref(x, axis, reverse, hole)
    xm, back = _moved(x, axis)
    tm, _ = _moved(t, axis)
    src = np.take_along_axis(xm, np.maximum(tm, 0), axis=-1) if xm.size else xm
    return back(np.where(tm >= 0, src, xm))


def right_flood_grad_ref(x, out, out_grad, axis=-1, reverse=False, hole='zero'):
    """x_grad[j] = sum of out_grad over the outputs filled from j; holes get 0."""
    t = right_flood_index_ref(x, axis, reverse, hole)
    tm, back = _moved(t, axis)
    gm, _ = _moved(np.asarray(out_grad), axis)
    n = tm.shape[-1]
    grad = np.zeros(gm.shape, dtype=np.longdouble)
    for j in range(n):
        grad[..., j] = np.where(tm == j, gm, 0).sum(axis=-1)
    return back(grad)


def flood_values(dtype, shape, rng, hole='zero', density=0.6):
    """Random values with about `density` holes (exact zeros, or NaN for hole='nan'); NaN-hole
    samples keep some zeros as data."""
    v = random_values(dtype, shape, rng)
    if is_float(dtype):
        v = np.where(v == 0, 0.5, v)
    holes = rng.random(shape) < density
    if hole == 'nan':
        v = np.where(rng.random(shape) < 0.1, 0.0, v)
        return np.where(holes, np.nan, v)
    return np.where(holes, 0, v)


def _flood_holes_for(dtype):
    return ('zero', 'nan') if is_float(dtype) else ('zero',)


def right_flood_samples(op_info, dtype, rng):
    for shape in SCAN_SHAPES:
        for axis in scan_axes(len(shape))[1:]:  # no axis=None: right_flood always has an axis
            for reverse in (False, True):
                for hole in _flood_holes_for(dtype):
                    yield SampleInput(flood_values(dtype, shape, rng, hole), dict(axis=axis, reverse=reverse, hole=hole),
                                      desc='shape%s' % (shape,))
    yield SampleInput(flood_values(dtype, (3, 4), rng), {}, desc='defaults')
    yield SampleInput(flood_values(dtype, (3, 4), rng), dict(reverse=True), desc='reverse only')
    # Seed 003's examples, rows of holes only, and no holes at all.
    yield SampleInput(np.array([1, 0, 0, 3, 0, 6, 0, 0]), {}, desc='seed example')
    yield SampleInput(np.array([1, 0, 0, 0, 3, 0, 2, 0, 0, 5, 2]), {}, desc='seed docstring')
    yield SampleInput(np.array([0, 0, 3, 0, 3]), {}, desc='seed leading holes')
    yield SampleInput(np.zeros((3, 5)), dict(axis=1), desc='all holes')
    yield SampleInput(np.arange(1, 13).reshape(3, 4), dict(axis=0, reverse=True), desc='no holes')


def right_flood_large_samples(op_info, dtype, rng):
    # The engine's layouts: long rows (three phases), many columns, columns split along the
    # axis; rows of a length that is a multiple of every vector width (the GPU tiles' 16-byte
    # loads), split into segments and not (2112 rows fill the GPU's warps without a split).
    for shape, axis in (((3, 70001), -1), ((4099, 3), 0), ((2, 1031, 5), 1), ((70001,), 0),
                        ((2, 1 << 17), -1), ((2112, 256), 1), ((1 << 18,), 0)):
        for reverse in (False, True):
            hole = 'nan' if is_float(dtype) and reverse else 'zero'
            yield SampleInput(flood_values(dtype, shape, rng, hole, density=0.7),
                              dict(axis=axis, reverse=reverse, hole=hole), desc='large%s' % (shape,), grad=False)
    # Long runs of holes: the sources sit chunks and segments away from their outputs.
    sparse = np.zeros(200003)
    sparse[[5, 70000, 150001]] = [1, 2, 3]
    yield SampleInput(sparse, dict(axis=0), desc='sparse long row', grad=False)
    yield SampleInput(sparse, dict(axis=0, reverse=True), desc='sparse long row reversed', grad=False)


def right_flood_error_inputs(op_info):
    yield from axis_out_of_range_errors([(), (5,), (2, 3), (2, 3, 4)], lambda rank: sorted({rank, -rank - 1, rank + 5}))
    yield ErrorInput(x_of((2, 3)), dict(hole='inf'), ValueError, r"hole.*'zero' or 'nan'.*'inf'", desc='bad hole')
    yield ErrorInput(x_of((2, 3)), dict(hole=0), TypeError, r'hole', desc='non-str hole')
    yield ErrorInput(x_of((2, 3), 'int32'), dict(hole='nan'), ValueError, r"hole='nan'.*int32", desc='nan hole on int')
    yield ErrorInput(x_of((2, 3), 'bool'), {}, TypeError, r'\bx\b.*bool', desc='bool x')
    yield ErrorInput(lambda place: [1.0, 0.0], {}, TypeError, r'\bx\b.*Tensor', desc='non-Tensor x')
    yield ErrorInput(x_of((2, 3)), dict(axis=1.5), TypeError, r'axis', desc='non-int axis')
    yield ErrorInput(x_of((2, 3)), dict(reverse='yes'), TypeError, r'reverse', desc='non-bool reverse')


def right_flood_sample_coverage(samples, dtype):
    """right_flood's samples (it has an axis, reverse and hole, no exclusive): 0-D,
    zero-size, negative axes, both directions, both holes for floats, rows of holes only."""
    assert_samples_hold_0d_and_empty(samples)
    assert any(s.kwargs.get('axis', -1) < 0 for s in samples)
    assert {s.kwargs.get('reverse', False) for s in samples} == {False, True}
    holes = {s.kwargs.get('hole', 'zero') for s in samples}
    assert holes == ({'zero', 'nan'} if dtype in FLOAT_DTYPES else {'zero'})
    assert any(np.size(s.input) and (np.asarray(s.input) == 0).all() for s in samples)


def right_flood_fd_samples(samples):
    """Finite differences where the op is differentiable: with NaN holes (a small step leaves
    every hole a hole and every value a value). A zero hole is a kink: moved off zero it
    becomes a source."""
    return [s for s in samples if s.kwargs.get('hole') == 'nan' and 0 < np.size(s.input) <= 24]


RIGHT_FLOOD = OpInfo(
    name='right_flood',
    op=public_op('right_flood'),
    method='right_flood',
    **op_functions('right_flood'),
    **copying_op_fields(),
    bad_inputs=BadInputs(
        valid=lambda place: dict(x=T((2, 3))(place), axis=1, reverse=False, hole='zero', return_index=False),
        bad={
            'x': tensor_type_errors() + [
                Bad(T((2, 3), 'bool'), TypeError, 'float16.*int64', 'bool'),
            ],
            'axis': scan_axis_errors(2),
            'reverse': bool_errors(),
            'hole': [Bad('inf', ValueError, "'zero' or 'nan'", "'inf'"),
                     Bad(0, TypeError, "'zero' or 'nan'", 'int'),
                     Bad(None, TypeError, "'zero' or 'nan'", 'NoneType')],
            'return_index': bool_errors(),
        }),
)


# ------------------------------------------------------------------------------------------
# repeat_interleave (docs/spec.md §4, the seed's stream decompaction). The OpInfo input is x; the
# counts ride in the kwargs as an int or an int64 array (made a tensor on x's place).
# ------------------------------------------------------------------------------------------

def repeat_interleave_ref(x, repeats, axis=None, output_size=None, counts_dtype=None):
    return np.repeat(np.asarray(x), np.asarray(repeats), axis=axis)


def _source_index(n, repeats):
    return np.repeat(np.arange(n), np.broadcast_to(np.asarray(repeats), (n,)))


def repeat_interleave_grad_ref(x, out, out_grad, repeats, axis=None, output_size=None, counts_dtype=None):
    x = np.asarray(x)
    g = np.asarray(out_grad, dtype=np.longdouble)
    if axis is None:
        src = _source_index(x.size, repeats)
        grad = np.zeros(x.size, dtype=np.longdouble)
        np.add.at(grad, src, g.reshape(-1))
        return grad.reshape(x.shape)
    xm, back = _moved(x, axis)
    gm, _ = _moved(g, axis) if x.ndim else (g.reshape(-1), None)
    src = _source_index(xm.shape[-1], repeats)
    grad = np.zeros(xm.shape, dtype=np.longdouble)
    for i, j in enumerate(src):
        grad[..., j] += gm[..., i]
    return back(grad)


def _counts_tensor(values, like, dtype='int64'):
    """Counts as a tensor on like's place (static Variables: a constant)."""
    place = 'cpu' if isinstance(like, paddle.static.Variable) else like.place
    return make_tensor(values, dtype, place)


def repeat_interleave_op(x, repeats, axis=None, output_size=None, counts_dtype='int64'):
    if isinstance(repeats, np.ndarray):
        repeats = _counts_tensor(repeats, x, counts_dtype)
    return paddle.repeat_interleave(x, repeats, axis=axis, output_size=output_size)


def _counts(n, rng, zeros=0.3):
    c = rng.integers(1, 4, size=n)
    return np.where(rng.random(n) < zeros, 0, c).astype(np.int64)


REPEAT_SHAPES = [(), (0,), (3, 0), (0, 2, 3), (1,), (7,), (2, 3, 4), (4, 17), (2, 1, 3)]


def repeat_interleave_samples(op_info, dtype, rng):
    for shape in REPEAT_SHAPES:
        for axis in scan_axes(len(shape)):
            n = int(np.prod(shape)) if axis is None else (shape[axis] if shape else 1)
            # Zero-valued data among the values: data, never holes.
            x = np.where(rng.random(shape) < 0.3, 0, random_values(dtype, shape, rng))
            yield SampleInput(x, dict(repeats=2, axis=axis), desc='shape%s int' % (shape,))
            yield SampleInput(x, dict(repeats=_counts(n, rng), axis=axis), desc='shape%s counts' % (shape,))
    x = random_values(dtype, (3, 4), rng)
    yield SampleInput(x, dict(repeats=0, axis=1), desc='int 0')
    yield SampleInput(x, dict(repeats=np.array([3]), axis=1), desc='one count for all')
    yield SampleInput(x, dict(repeats=np.array([0, 0, 0, 0]), axis=1), desc='all counts 0')
    yield SampleInput(x, dict(repeats=np.array([0, 2, 0, 1]), axis=1, output_size=3), desc='output_size')
    yield SampleInput(x, dict(repeats=np.array([1, 0, 2]), axis=0, counts_dtype='int32'), desc='int32 counts')
    yield SampleInput(x, dict(repeats=3), desc='defaults (flatten)')
    # The seed's decompaction: [1, 3, 6] with counts [3, 2, 3].
    yield SampleInput(np.array([1, 3, 6]), dict(repeats=np.array([3, 2, 3]), axis=0), desc='seed example')


def repeat_interleave_large_samples(op_info, dtype, rng):
    for shape, axis in (((70001,), 0), ((3, 5003), -1), ((4099, 3), 0), ((2, 1031, 5), 1)):
        n = shape[axis]
        yield SampleInput(random_values(dtype, shape, rng), dict(repeats=_counts(n, rng), axis=axis),
                          desc='large%s counts' % (shape,), grad=False)
    yield SampleInput(random_values(dtype, (1000,), rng), dict(repeats=np.array([0] * 999 + [70001]), axis=0),
                      desc='one long run', grad=False)


def repeat_interleave_error_inputs(op_info):
    yield from axis_out_of_range_errors([(), (5,), (2, 3)], lambda rank: (rank, -rank - 1),
                                        [dict(repeats=2), dict(repeats=np.array([1]))])
    yield ErrorInput(x_of((2, 3)), dict(repeats=-1, axis=0), ValueError, r'repeats.*non-negative.*-1', desc='negative int')
    yield ErrorInput(x_of((2, 3)), dict(repeats=np.array([1, 2]), axis=1), ValueError,
                     r'repeats.*3 slices.*got 2 counts', desc='length mismatch')
    yield ErrorInput(x_of((2, 3)), dict(repeats=np.ones((2, 1), dtype=np.int64), axis=0), ValueError,
                     r'repeats.*1-D.*\[2, 1\]', desc='2-D counts')
    yield ErrorInput(x_of((2, 3)), dict(repeats=2.0, axis=0), TypeError, r'repeats.*float', desc='float repeats')
    yield ErrorInput(x_of((2, 3)), dict(repeats=True, axis=0), TypeError, r'repeats.*bool', desc='bool repeats')
    yield ErrorInput(x_of((2, 3)), dict(repeats=np.array([1.0, 2.0]), axis=0, counts_dtype='float32'), TypeError,
                     r'repeats.*float32', desc='float counts')
    yield ErrorInput(x_of((2, 3)), dict(repeats=2, axis=0, output_size=5), ValueError, r'output_size.*\b4\b.*\b5\b',
                     desc='wrong output_size with int repeats')
    yield ErrorInput(lambda place: [1.0, 0.0], dict(repeats=2), TypeError, r'\bx\b.*Tensor', desc='non-Tensor x')


def repeat_interleave_sample_coverage(samples, dtype):
    """repeat_interleave's samples: int and tensor counts (with zeros, a single count,
    int32 counts), axis None and negative, 0-D and zero-size x, output_size."""
    assert_samples_hold_0d_and_empty(samples)
    assert any(s.kwargs.get('axis') is None for s in samples)
    assert any((s.kwargs.get('axis') or 0) < 0 for s in samples)
    counts = [s.kwargs['repeats'] for s in samples if isinstance(s.kwargs['repeats'], np.ndarray)]
    assert any((c == 0).any() for c in counts) and any(c.size == 1 for c in counts)
    assert any(isinstance(s.kwargs['repeats'], int) for s in samples)
    assert any('output_size' in s.kwargs for s in samples)


def repeat_interleave_fd_samples(samples):
    """Finite differences on the samples whose output is not empty (the mean of an empty
    output is not a number)."""
    return [s for s in samples if 0 < np.size(s.input) <= 24 and
            np.repeat(s.input, s.kwargs['repeats'], axis=s.kwargs.get('axis')).size]


REPEAT_INTERLEAVE = OpInfo(
    name='repeat_interleave',
    op=repeat_interleave_op,
    **op_functions('repeat_interleave'),
    **copying_op_fields(),
    static_unknown_dims=False,
    bad_inputs=BadInputs(
        valid=lambda place: dict(x=T((2, 3))(place), repeats=2, axis=1, output_size=None),
        bad={
            'x': tensor_type_errors(),
            'repeats': [
                Bad(-1, ValueError, 'non-negative', '-1'),
                Bad(1.5, TypeError, 'int32 or int64', 'float'),
                Bad('2', TypeError, 'int32 or int64', 'str'),
                Bad(T((3,)), TypeError, 'int32 or int64', 'float32'),
                Bad(T((2,), 'int64'), ValueError, 'one count for each of the 3 slices', '2 counts'),
                # (the GPU kernel flags a negative count without its position)
                Bad(lambda place: paddle.to_tensor(np.array([1, -2, 1]), place=place), ValueError, 'non-negative',
                    r'repeats\[1\] is -2|holds a negative count'),
                # counts whose sum overflows int64 (issue 17 item 7), as a list and as a tensor
                Bad([2 ** 62, 2 ** 62, 3], ValueError, r'2\*\*63 - 1', 'sum of repeats'),
                Bad(lambda place: paddle.to_tensor(np.array([2 ** 62, 2 ** 62, 3]), place=place), ValueError,
                    r'2\*\*63 - 1', 'sum of repeats'),
                # a count beyond int64 in a list (issue 32 item 7: NumPy made floats of it, a TypeError)
                Bad([2 ** 63, 0, 0], ValueError, r'2\*\*63 - 1', r'repeats\[0\] is 9223372036854775808'),
                Bad([2 ** 64, 0, 0], ValueError, r'2\*\*63 - 1', r'repeats\[0\] is 18446744073709551616'),
                Bad([-2 ** 64, 0, 0], ValueError, 'non-negative', r'repeats\[0\] is -18446744073709551616'),
            ],
            'axis': scan_axis_errors(2)[:6],
            'output_size': [Bad(1.5, TypeError, 'int or None', 'float'),
                            Bad(7, ValueError, r'sum of repeats \(6\)', '7')],
        }),
)


OP_DB = {info.name: info for info in (LOGCUMSUMEXP, CUMSUM, PSCAN, RIGHT_FLOOD, REPEAT_INTERLEAVE)}
