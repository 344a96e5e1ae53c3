"""OpTest: the machinery every operator test shares.

Paddle's OpTest idea (check_output / check_grad against a NumPy reference, on every place)
combined with PyTorch's OpInfo idea (each op declares its samples, reference and dtypes once
in op_db.py; the generic tests in GenericOpTests then run over every op).

Tolerances are written once, per dtype, in DEFAULT_TOLERANCES (ops may override a dtype's
entry in their OpInfo). Errors are always measured against a high-precision reference
(float64, or np.longdouble where the reference computes in floating point).
"""

import dataclasses
import os
import re
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np
import pytest

import paddle_ops as paddle

# The pytest suite also runs with the ASan runtime preloaded (tools/dev/test_sanitize.sh). Tests
# that measure the process's own memory (peak resident size, an address-space limit) cannot run
# there: ASan reserves terabytes of address space and adds shadow memory, redzones and a
# quarantine to every block. They skip under it, saying so; the plain run checks them.
UNDER_ASAN = 'asan' in os.environ.get('LD_PRELOAD', '')
skip_under_asan = pytest.mark.skipif(
    UNDER_ASAN, reason='measures the process memory (RSS peak / RLIMIT_AS), which ASan changes; run by the plain suite')

FLOAT_DTYPES = ('float16', 'bfloat16', 'float32', 'float64')
HALF_DTYPES = ('float16', 'bfloat16')
INT_DTYPES = ('int32', 'int64')
ALL_DTYPES = FLOAT_DTYPES + INT_DTYPES + ('bool',)
# Optional integer types: NumPy has them; paddle_ops may or may not export a dtype object.
EXTRA_INT_DTYPES = ('int8', 'uint8', 'int16')

_NUMPY_OF = {
    'float16': np.float16,
    'bfloat16': np.float32,  # bfloat16 values travel as float32 (numpy() itself gives the uint16 bits)
    'float32': np.float32,
    'float64': np.float64,
    'int8': np.int8,
    'uint8': np.uint8,
    'int16': np.int16,
    'int32': np.int32,
    'int64': np.int64,
    'bool': np.bool_,
}


# --------------------------------------------------------------------------------------
# Places and dtypes
# --------------------------------------------------------------------------------------

def available_places():
    """'cpu' always; 'gpu' too when this is a CUDA build and a GPU is present."""
    places = ['cpu']
    try:
        if paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0:
            places.append('gpu')
    except AttributeError:
        # The GPU backend (paddle_ops.device.cuda) does not exist yet.
        pass
    return places


def gpu_available():
    return 'gpu' in available_places()


def dtype_name(dtype):
    """Canonical name ('float32', ...) of a dtype given as a string or a dtype object."""
    if isinstance(dtype, str):
        return dtype
    for name in ALL_DTYPES + EXTRA_INT_DTYPES:
        obj = getattr(paddle, name, None)
        if obj is not None and obj == dtype:
            return name
    raise AssertionError('unknown dtype object %r' % (dtype,))


def is_float(name):
    return name in FLOAT_DTYPES


def make_tensor(values, dtype, place='cpu', stop_gradient=True):
    """A paddle tensor of `dtype` (a name) on `place` holding `values` (rounded to dtype)."""
    values = np.asarray(values)
    if dtype in EXTRA_INT_DTYPES:
        # Let the NumPy dtype carry the type: to_tensor keeps NumPy's own dtype.
        t = paddle.to_tensor(values.astype(_NUMPY_OF[dtype]), place=place,
                             stop_gradient=stop_gradient)
    else:
        t = paddle.to_tensor(values, dtype=dtype, place=place, stop_gradient=stop_gradient)
    # Guard every sample: a to_tensor that changed the shape (0-D -> [1]) would otherwise
    # make the 0-D cases silently test 1-D.
    assert list(t.shape) == list(values.shape), 'to_tensor of a %s array made shape %s' % (
        list(values.shape), list(t.shape))
    return t


def numpy_values(t):
    """t's values as a NumPy array: numpy(), except for a bfloat16 tensor, whose numpy() is its uint16
    bits (Paddle's convention, docs/spec.md §7): its values come as float32 (which holds every
    bfloat16 exactly)."""
    return (t.astype('float32') if t.dtype == paddle.bfloat16 else t).numpy()


def tensor_values(t):
    """The values a tensor holds, exactly, as float64 (floats) or int64/bool (others). (numpy() of a
    bfloat16 tensor is its uint16 bits, Paddle's convention: its values come through float32.)"""
    if t.dtype == paddle.bfloat16:
        t = t.astype('float32')
    a = np.asarray(t.numpy())
    if a.dtype.kind == 'f':
        return a.astype(np.float64)
    if a.dtype.kind in 'iu':
        return a.astype(np.int64)
    return a.copy()


# --------------------------------------------------------------------------------------
# Rounding to a dtype, and the spacing (ulp) of a dtype, in NumPy
# --------------------------------------------------------------------------------------

def round_to_bfloat16(values):
    """Round to the nearest bfloat16 (ties to even), returned as float32.

    Goes through float32 first (exact for float32 inputs, which is what the tests feed).
    """
    shape = np.shape(values)
    f = np.ascontiguousarray(np.asarray(values, dtype=np.float32)).reshape(-1)
    bits = f.view(np.uint32).astype(np.uint64)
    lsb = (bits >> np.uint64(16)) & np.uint64(1)
    rounded = ((bits + np.uint64(0x7FFF) + lsb) >> np.uint64(16)) << np.uint64(16)
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(f), np.float32(np.nan), out).reshape(shape)


def cast_np(values, dtype):
    """`values` converted to `dtype` the way a tensor cast does it; floats come back as
    float64 (or longdouble when given longdouble), integers as int64."""
    values = np.asarray(values)
    if dtype == 'bfloat16':
        return round_to_bfloat16(values).astype(np.float64)
    if dtype in ('float16', 'float32'):
        with np.errstate(over='ignore'):
            return values.astype(_NUMPY_OF[dtype]).astype(np.float64)
    if dtype == 'float64':
        return values.astype(np.float64) if values.dtype != np.longdouble else values
    if dtype == 'bool':
        return values.astype(np.bool_)
    return values.astype(_NUMPY_OF[dtype]).astype(np.int64)


def ulp(values, dtype):
    """Spacing of `dtype` at the magnitude of `values` (upper spacing at a power of two)."""
    a = np.abs(np.asarray(values, dtype=np.float64))
    if dtype == 'float16':
        with np.errstate(over='ignore'):
            return np.spacing(a.astype(np.float16)).astype(np.float64)
    if dtype == 'bfloat16':
        with np.errstate(divide='ignore'):
            exponent = np.floor(np.log2(np.where(a > 0, a, 1.0)))
        exponent = np.maximum(np.where(a > 0, exponent, -126), -126)
        return np.ldexp(1.0, (exponent - 7).astype(np.int64))
    return np.spacing(a.astype(_NUMPY_OF[dtype])).astype(np.float64)


# --------------------------------------------------------------------------------------
# Tolerances: written once
# --------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Tolerance:
    """|actual - expected| <= rtol * scale + ulps * ulp_dtype(expected) + atol.

    scale is max(1, |expected|) unless the op supplies its own (OpInfo.tol_scale), e.g. the
    running sum of |x| for cumsum. ulps > 0 means the output type is 16-bit: the expected
    value is first rounded to that type (the kernel computes in float32 and rounds once), so
    rtol is then the float32 computation's error and ulps the rounding's.
    exact=True: bitwise equality (integers, bool).
    """
    rtol: float = 0.0
    atol: float = 0.0
    ulps: float = 0.0
    exact: bool = False


# docs/spec.md: float64 <= 1e-14*max(1,|ref|); float32 <= 2.5e-7*max(1,|ref|); float16/bfloat16
# within one ulp of the output type; integers exact. The 16-bit entries add the float32
# bound because that is the precision the value is computed in before its one rounding.
DEFAULT_TOLERANCES = {
    'float64': Tolerance(rtol=1e-14),
    'float32': Tolerance(rtol=2.5e-7),
    'float16': Tolerance(rtol=2.5e-7, ulps=1),
    'bfloat16': Tolerance(rtol=2.5e-7, ulps=1),
    'int32': Tolerance(exact=True),
    'int64': Tolerance(exact=True),
    'bool': Tolerance(exact=True),
}

# Gradients: |grad - ref| <= tol * max(1, max|ref|) over the tensor. The reference is computed
# in long double from the tensors the kernel saw (x, out, out_grad), so this measures the
# kernel's arithmetic and its one rounding to the output type.
GRAD_TOLERANCES = {
    'float64': 1e-12,
    'float32': 1e-5,
    'float16': 2e-3,
    'bfloat16': 1.6e-2,
}


def _describe_mismatch(actual, expected, bad, err, allowed):
    idx = np.argwhere(bad)
    first = tuple(int(i) for i in idx[0]) if idx.size else ()
    worst = np.unravel_index(int(np.nanargmax(np.where(bad, err / allowed, -1))), bad.shape) \
        if bad.ndim else ()
    return ('%d of %d elements mismatch; first at %s: actual=%r expected=%r; '
            'worst at %s: actual=%r expected=%r err=%.3g allowed=%.3g'
            % (int(bad.sum()), bad.size, first, actual[first], expected[first],
               tuple(int(i) for i in worst), actual[worst], expected[worst],
               float(err[worst]), float(allowed[worst])))


def assert_close(actual, expected, dtype, tol, scale=None, msg=''):
    """Check `actual` (an ndarray of a tensor's values) against the high-precision
    `expected`, for output type `dtype`, with tolerance `tol`.

    NaN must match NaN and +-inf must match exactly, everywhere; finite values must be
    finite and within the tolerance.
    """
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, '%s shape %s != expected %s' % (
        msg, actual.shape, expected.shape)
    if tol.exact:
        assert np.array_equal(actual.astype(np.int64) if actual.dtype != np.bool_ else actual,
                              expected), '%s not exactly equal:\nactual=%s\nexpected=%s' % (
            msg, actual, expected)
        return
    act = actual.astype(np.longdouble)
    exp = expected.astype(np.longdouble)
    if tol.ulps:
        exp = cast_np(exp.astype(np.float64), dtype).astype(np.longdouble)
    nan_exp = np.isnan(exp)
    assert np.array_equal(np.isnan(act), nan_exp), '%s NaN positions differ: actual %s, ' \
        'expected %s (first actual=%s expected=%s)' % (
            msg, np.argwhere(np.isnan(act))[:5].tolist(), np.argwhere(nan_exp)[:5].tolist(),
            act[np.isnan(act) != nan_exp][:3], exp[np.isnan(act) != nan_exp][:3])
    inf_exp = np.isinf(exp)
    same_inf = np.array_equal(act[inf_exp], exp[inf_exp]) and not np.isinf(act[~inf_exp]).any()
    assert same_inf, '%s infinities differ: actual=%s expected=%s' % (
        msg, act[inf_exp | np.isinf(act)][:8], exp[inf_exp | np.isinf(act)][:8])
    finite = ~(nan_exp | inf_exp)
    with np.errstate(invalid='ignore'):
        err = np.where(finite, np.abs(act - exp), 0).astype(np.float64)
    if scale is None:
        scale = np.maximum(1.0, np.abs(np.where(finite, exp, 0))).astype(np.float64)
    allowed = tol.rtol * np.asarray(scale, dtype=np.float64) + tol.atol
    if tol.ulps:
        allowed = allowed + tol.ulps * ulp(np.where(finite, exp, 0).astype(np.float64), dtype)
    allowed = np.broadcast_to(allowed, err.shape)
    bad = err > allowed
    assert not bad.any(), '%s %s' % (msg, _describe_mismatch(
        act.astype(np.float64), exp.astype(np.float64), bad, err, allowed))


# --------------------------------------------------------------------------------------
# Scan references shared by the cumulative ops (cumsum, logcumsumexp, and later pscan...)
# --------------------------------------------------------------------------------------

def scan_reference(x, accumulate, identity, axis=None, exclusive=False, reverse=False):
    """Reference for a scan op with the paddle axis/flatten/exclusive/reverse rules.

    accumulate(a, axis) is the inclusive forward scan (e.g. np.cumsum); identity fills the
    first element of an exclusive scan (0 for sums, -inf for log-sum-exp).
    """
    x = np.asarray(x)
    if axis is None:
        x = x.reshape(-1)
        axis = 0
    if x.ndim == 0:
        return scan_reference(x.reshape(1), accumulate, identity, 0, exclusive,
                              reverse).reshape(())
    axis = axis % x.ndim
    if x.shape[axis] == 0:
        return accumulate(x, axis)
    if reverse:
        x = np.flip(x, axis)
    out = accumulate(x, axis)
    if exclusive:
        head = np.full_like(np.take(out, [0], axis=axis), identity)
        body = np.take(out, np.arange(out.shape[axis] - 1), axis=axis)
        out = np.concatenate([head, body], axis=axis)
    if reverse:
        out = np.flip(out, axis)
    return np.ascontiguousarray(out)


def scan_window(n, exclusive, reverse):
    """feeds[i, j] is True when input i contributes to output j of a scan of length n."""
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    if reverse:
        return i > j if exclusive else i >= j
    return i < j if exclusive else i <= j


def scan_grad_reference(x, out, g, term, axis=None, exclusive=False, reverse=False):
    """x_grad[i] = sum over the outputs j that x[i] feeds of d(out[j])/d(x[i]) * g[j].

    term(xi, outj) is that partial derivative, given broadcastable arrays xi (..., n, 1) and
    outj (..., 1, n); whatever it returns outside the scan window is masked off. Builds an
    n x n intermediate per row: for small rows only.
    """
    x = np.asarray(x)
    if axis is None or x.ndim == 0:
        views = [np.asarray(a).reshape(1, -1) for a in (x, out, g)]
        ax = 1
    else:
        ax = axis % x.ndim
        views = [np.asarray(a).reshape(x.shape) for a in (x, out, g)]
    xm, om, gm = (np.moveaxis(a, ax, -1) for a in views)
    window = scan_window(xm.shape[-1], exclusive, reverse)
    with np.errstate(all='ignore'):
        d = term(xm[..., :, None], om[..., None, :])
        grad = (np.where(window, d, 0) * gm[..., None, :]).sum(axis=-1)
    return np.moveaxis(grad, -1, ax).reshape(x.shape)


# --------------------------------------------------------------------------------------
# OpInfo declarations
# --------------------------------------------------------------------------------------

@dataclasses.dataclass
class SampleInput:
    """One call of an op: op(tensor(input), *args, **kwargs).

    input holds the values (rounded to the dtype when the tensor is made).
    grad=False marks samples unfit for finite differences (infinities, NaN, huge values).
    """
    input: np.ndarray
    kwargs: Dict[str, Any] = dataclasses.field(default_factory=dict)
    desc: str = ''
    args: Tuple[Any, ...] = ()
    grad: bool = True

    def __repr__(self):
        return 'Sample(%s shape=%s %s)' % (self.desc, list(np.shape(self.input)), self.kwargs)


@dataclasses.dataclass
class ErrorInput:
    """A call that must raise: op(make(place), **kwargs) raises error_type and the message
    satisfies `message` (a regex searched case-insensitively, or a predicate)."""
    make: Callable[[str], Any]
    kwargs: Dict[str, Any]
    error_type: Any
    message: Any
    desc: str = ''


@dataclasses.dataclass
class OpInfo:
    """Everything the generic tests need to know about one op.

    ref(x, **ref_kwargs) -> expected output, computed in high precision from the exact
        input values (float64/longdouble or int64); ref_kwargs are the sample's kwargs
        without 'dtype' and 'name'.
    grad_ref(x, out, out_grad, **ref_kwargs) -> expected x_grad (None: no gradient).
    dtypes: input dtypes the op accepts with dtype=None.
    grad_dtypes: input dtypes that have a gradient.
    out_dtype(input_dtype, dtype_arg_or_None) -> the output dtype name.
    sample_inputs(op_info, dtype, rng) -> iterable of SampleInput (small, all attributes).
    large_inputs(op_info, dtype, rng) -> iterable of SampleInput (awkward long shapes).
    error_inputs(op_info) -> iterable of ErrorInput.
    tol_scale(x, out_expected, **ref_kwargs) -> per-element scale for rtol (default
        max(1, |expected|)).
    static_unknown_dims: the static-vs-dynamic check also declares x's first dim unknown
        (-1). False for ops whose other inputs are sample constants sized by that dim
        (pscan's a [N, T]): static InferMeta cannot match a placeholder against them.
    sample_coverage(samples, dtype): asserts what the samples must cover (default: the scan
        ops' 0-D, zero-size, axis None and negative, every exclusive/reverse combination).
    fd_samples(samples) -> the float64 samples to check by finite differences (default: those
        with a gradient, 1 to 24 elements and no dtype argument).
    bad_inputs: the op's entry of the bad-input table (bad_inputs.BadInputs: the public op's
        valid arguments and, for each argument, its bad values); test_bad_input_table.py
        requires one for every public op.
    """
    name: str
    op: Callable
    ref: Callable
    dtypes: Sequence[str]
    out_dtype: Callable[[str, Optional[str]], str]
    sample_inputs: Callable
    grad_ref: Optional[Callable] = None
    grad_dtypes: Sequence[str] = ()
    method: Optional[str] = None
    large_inputs: Optional[Callable] = None
    error_inputs: Optional[Callable] = None
    tolerances: Dict[str, Tolerance] = dataclasses.field(default_factory=dict)
    tol_scale: Optional[Callable] = None
    static_unknown_dims: bool = True
    sample_coverage: Optional[Callable] = None
    fd_samples: Optional[Callable] = None
    bad_inputs: Any = None

    def tolerance(self, dtype):
        return self.tolerances.get(dtype, DEFAULT_TOLERANCES[dtype])

    def __repr__(self):
        return 'OpInfo(%s)' % self.name


def assert_samples_hold_0d_and_empty(samples):
    """Coverage every op's samples need: a 0-D input and a zero-size one."""
    assert any(np.ndim(s.input) == 0 for s in samples)
    assert any(np.size(s.input) == 0 for s in samples)


def ref_kwargs(kwargs):
    return {k: v for k, v in kwargs.items() if k not in ('dtype', 'name')}


def _dtype_arg(kwargs):
    d = kwargs.get('dtype')
    return None if d is None else dtype_name(d)


# --------------------------------------------------------------------------------------
# check_output / check_grad
# --------------------------------------------------------------------------------------

def run_op(op_info, sample, dtype, place, stop_gradient=True):
    x = make_tensor(sample.input, dtype, place, stop_gradient=stop_gradient)
    return x, op_info.op(x, *sample.args, **sample.kwargs)


def expected_output(op_info, sample, x):
    """Output dtype name and high-precision expected values for op(x) of `sample`."""
    in_dtype = dtype_name(x.dtype)
    out_dtype = op_info.out_dtype(in_dtype, _dtype_arg(sample.kwargs))
    values = tensor_values(x)
    if out_dtype != in_dtype:
        values = cast_np(values, out_dtype)  # the op casts x to the output type first
    if is_float(out_dtype):
        values = values.astype(np.longdouble)
    expected = op_info.ref(values, **ref_kwargs(sample.kwargs))
    return out_dtype, values, expected


def check_output(op_info, sample, dtype, place):
    """op(sample) on `place` matches the NumPy reference within the tolerance of its type."""
    x, out = run_op(op_info, sample, dtype, place)
    out_dtype, values, expected = expected_output(op_info, sample, x)
    what = '%s %s on %s, %r:' % (op_info.name, dtype, place, sample)
    assert dtype_name(out.dtype) == out_dtype, '%s output dtype %s, expected %s' % (
        what, dtype_name(out.dtype), out_dtype)
    assert list(out.shape) == list(expected.shape), '%s output shape %s, expected %s' % (
        what, list(out.shape), list(expected.shape))
    scale = None
    if op_info.tol_scale is not None and is_float(out_dtype):
        scale = op_info.tol_scale(values, expected, **ref_kwargs(sample.kwargs))
    assert_close(numpy_values(out), expected, out_dtype, op_info.tolerance(out_dtype), scale=scale,
                 msg=what)
    return out


def check_grad_ref(op_info, sample, dtype, place, rng):
    """Analytic gradient (backward with a random, mixed-sign out_grad) against the NumPy
    reference gradient."""
    x, out = run_op(op_info, sample, dtype, place, stop_gradient=False)
    what = '%s %s on %s, %r:' % (op_info.name, dtype, place, sample)
    assert out.stop_gradient is False, '%s output of a differentiable input has ' \
        'stop_gradient=True' % what
    g_values = rng.standard_normal(tuple(out.shape))
    g = make_tensor(g_values, dtype_name(out.dtype), place)
    out.backward(g)
    assert x.grad is not None, '%s x.grad is None after backward' % what
    assert list(x.grad.shape) == list(x.shape), '%s grad shape %s != x shape %s' % (
        what, list(x.grad.shape), list(x.shape))
    assert dtype_name(x.grad.dtype) == dtype, '%s grad dtype %s != %s' % (
        what, dtype_name(x.grad.dtype), dtype)
    ld = np.longdouble
    out_dtype, x_values, _ = expected_output(op_info, sample, x)  # x as the op computes on it
    expected = op_info.grad_ref(x_values.astype(ld), tensor_values(out).astype(ld),
                                tensor_values(g).astype(ld), **ref_kwargs(sample.kwargs))
    grad = tensor_values(x.grad)
    assert np.isfinite(grad).all(), '%s non-finite gradient %s' % (what, grad)
    # With a dtype argument the gradient is computed in the output type, then cast back.
    rel = max(GRAD_TOLERANCES[dtype], GRAD_TOLERANCES[out_dtype])
    tol = rel * max(1.0, float(np.max(np.abs(expected), initial=0)))
    err = np.abs(grad.astype(ld) - expected)
    assert not (err > tol).any(), '%s gradient mismatch: max err %.3g > %.3g\ngrad=%s\nref=%s' % (
        what, float(err.max()), tol, grad, expected.astype(np.float64))


def check_grad_fd(op_info, sample, place, eps=1e-6, rtol=1e-6, atol=1e-7):
    """float64: the gradient of mean(out) from backward equals central finite differences.

    Outputs that are -inf whatever x is (the first element of an exclusive log-scan) are left
    out of the mean: they are constant, so the weighted sum still measures every other
    output's derivative.
    """
    x0 = np.asarray(sample.input, dtype=np.float64)
    x = make_tensor(x0, 'float64', place, stop_gradient=False)
    out = op_info.op(x, *sample.args, **sample.kwargs)
    out_values = numpy_values(out)
    keep = np.isfinite(out_values)
    n_out = out_values.size
    if keep.all():
        out.mean().backward()
    else:
        out.backward(make_tensor(keep / n_out, 'float64', place))
    analytic = tensor_values(x.grad)

    def loss(values):
        y = op_info.op(make_tensor(values, 'float64', place), *sample.args, **sample.kwargs)
        return float(np.sum(np.where(keep, numpy_values(y), 0.0)) / n_out)

    numeric = np.zeros_like(x0)
    for idx in np.ndindex(*x0.shape):
        plus = x0.copy()
        minus = x0.copy()
        plus[idx] += eps
        minus[idx] -= eps
        numeric[idx] = (loss(plus) - loss(minus)) / (2 * eps)
    bad = np.abs(analytic - numeric) > atol + rtol * np.abs(numeric)
    assert not bad.any(), '%s on %s, %r: backward %s != finite differences %s' % (
        op_info.name, place, sample, analytic, numeric)


# --------------------------------------------------------------------------------------
# Generic tests: subclass with `op_info = OP_DB[name]` and every check below runs for that
# op, over its dtypes and every available place.
# --------------------------------------------------------------------------------------

class GenericOpTests:
    op_info: OpInfo = None
    seed = 2024

    def pytest_generate_tests(self, metafunc):
        info = self.op_info
        if 'dtype' in metafunc.fixturenames:
            metafunc.parametrize('dtype', list(info.dtypes))
        if 'grad_dtype' in metafunc.fixturenames:
            metafunc.parametrize('grad_dtype', list(info.grad_dtypes))
        if 'place' in metafunc.fixturenames:
            metafunc.parametrize('place', available_places())

    def rng(self):
        return np.random.default_rng(self.seed)

    def samples(self, dtype):
        return list(self.op_info.sample_inputs(self.op_info, dtype, self.rng()))

    @staticmethod
    def _run_all(check, samples):
        """Run check on every sample; report every failing sample, not just the first."""
        failures = []
        for sample in samples:
            try:
                check(sample)
            except AssertionError as e:
                failures.append(str(e))
        assert not failures, '%d of %d samples failed:\n%s' % (
            len(failures), len(samples), '\n'.join(failures[:10]))

    def test_sample_inputs_cover_attributes(self, dtype):
        """The db's samples cover what the op's sample_coverage asks (by default: 0-D,
        zero-size, axis None and all exclusive/reverse combos)."""
        samples = self.samples(dtype)
        if self.op_info.sample_coverage is not None:
            self.op_info.sample_coverage(samples, dtype)
            return
        assert_samples_hold_0d_and_empty(samples)
        assert any(s.kwargs.get('axis', None) is None for s in samples)
        assert any(isinstance(s.kwargs.get('axis'), int) and s.kwargs['axis'] < 0
                   for s in samples)
        combos = {(s.kwargs.get('exclusive', False), s.kwargs.get('reverse', False))
                  for s in samples}
        assert combos == {(False, False), (False, True), (True, False), (True, True)}

    def test_output(self, dtype, place):
        self._run_all(lambda s: check_output(self.op_info, s, dtype, place), self.samples(dtype))

    def test_large_awkward_shapes(self, dtype, place):
        if self.op_info.large_inputs is None:
            pytest.skip('%s declares no large inputs' % self.op_info.name)
        samples = list(self.op_info.large_inputs(self.op_info, dtype, self.rng()))
        self._run_all(lambda s: check_output(self.op_info, s, dtype, place), samples)

    def test_method_matches_function(self, dtype, place):
        if self.op_info.method is None:
            pytest.skip('%s has no Tensor method' % self.op_info.name)

        def check(sample):
            x, out = run_op(self.op_info, sample, dtype, place)
            via_method = getattr(x, self.op_info.method)(*sample.args, **sample.kwargs)
            assert dtype_name(via_method.dtype) == dtype_name(out.dtype), repr(sample)
            assert np.array_equal(via_method.numpy(), out.numpy(), equal_nan=True), repr(sample)
        self._run_all(check, self.samples(dtype))

    def test_deterministic(self, dtype, place):
        """The same input gives bitwise the same output every time (docs/spec.md)."""
        if place == 'gpu' and paddle.device.gpu_scan_backend() == 'thrust':
            pytest.skip("the thrust reference backend is not bitwise deterministic: CUB's "
                        "decoupled look-back combines tile prefixes in a timing-dependent order")
        samples = list(self.op_info.large_inputs(self.op_info, dtype, self.rng())) \
            if self.op_info.large_inputs else self.samples(dtype)

        def check(sample):
            x, first = run_op(self.op_info, sample, dtype, place)
            again = self.op_info.op(x, *sample.args, **sample.kwargs)
            a, b = first.numpy(), again.numpy()
            assert a.tobytes() == b.tobytes(), '%r: two runs differ' % (sample,)
        self._run_all(check, samples[:4])

    def test_input_unchanged(self, dtype, place):
        def check(sample):
            x, _ = run_op(self.op_info, sample, dtype, place)
            before = make_tensor(sample.input, dtype, 'cpu').numpy()
            assert np.array_equal(x.numpy(), before, equal_nan=True), \
                '%r: the op modified its input' % (sample,)
        self._run_all(check, self.samples(dtype))

    def test_output_stop_gradient(self, grad_dtype, place):
        sample = next(s for s in self.samples(grad_dtype) if s.grad and np.size(s.input) > 1)
        x, out = run_op(self.op_info, sample, grad_dtype, place)
        assert x.stop_gradient is True and out.stop_gradient is True
        x.stop_gradient = False
        out = self.op_info.op(x, *sample.args, **sample.kwargs)
        assert out.stop_gradient is False

    def test_grad_reference(self, grad_dtype, place):
        if self.op_info.grad_ref is None:
            pytest.skip('%s has no gradient' % self.op_info.name)
        rng = np.random.default_rng(self.seed + 1)
        samples = [s for s in self.samples(grad_dtype) if s.grad]
        self._run_all(lambda s: check_grad_ref(self.op_info, s, grad_dtype, place, rng),
                      samples)

    def test_grad_finite_differences(self, place):
        if self.op_info.grad_ref is None:
            pytest.skip('%s has no gradient' % self.op_info.name)
        if 'float64' not in self.op_info.grad_dtypes:
            pytest.skip('%s has no float64 gradient' % self.op_info.name)
        samples = self.samples('float64')
        if self.op_info.fd_samples is not None:
            samples = self.op_info.fd_samples(samples)
        else:
            samples = [s for s in samples if s.grad and 0 < np.size(s.input) <= 24 and 'dtype' not in s.kwargs]
        assert samples, 'no samples small enough for finite differences'
        self._run_all(lambda s: check_grad_fd(self.op_info, s, place), samples)

    def test_errors(self, place):
        if self.op_info.error_inputs is None:
            pytest.skip('%s declares no error inputs' % self.op_info.name)
        failures = []
        errors = list(self.op_info.error_inputs(self.op_info))
        for err in errors:
            try:
                with pytest.raises(err.error_type) as info:
                    self.op_info.op(err.make(place), **err.kwargs)
                message = str(info.value)
                if callable(err.message):
                    ok = err.message(message)
                else:
                    ok = re.search(err.message, message, re.IGNORECASE) is not None
                assert ok, 'message %r does not satisfy %s' % (message, err.message)
            except BaseException as e:  # pytest.raises failing is not an AssertionError
                if isinstance(e, (KeyboardInterrupt, SystemExit)):
                    raise
                failures.append('%s (%s): %s: %s' % (err.desc, err.kwargs,
                                                     type(e).__name__, e))
        assert not failures, '%d of %d error cases failed:\n%s' % (
            len(failures), len(errors), '\n'.join(failures))

    def test_cpu_gpu_agree(self, dtype):
        if not gpu_available():
            pytest.skip('no GPU: paddle_ops is not compiled with CUDA or no device is present')
        info = self.op_info

        def check(sample):
            x, cpu = run_op(info, sample, dtype, 'cpu')
            _, gpu = run_op(info, sample, dtype, 'gpu')
            out_dtype, values, expected = expected_output(info, sample, x)
            assert dtype_name(cpu.dtype) == out_dtype and dtype_name(gpu.dtype) == out_dtype
            scale = None
            if info.tol_scale is not None and is_float(out_dtype):
                scale = info.tol_scale(values, expected, **ref_kwargs(sample.kwargs))
            # Each side may be off the reference by the tolerance, in opposite directions.
            tol = info.tolerance(out_dtype)
            assert_close(numpy_values(gpu), tensor_values(cpu), out_dtype,
                         dataclasses.replace(tol, rtol=2 * tol.rtol, ulps=2 * tol.ulps),
                         scale=scale, msg='%r cpu vs gpu:' % (sample,))
        samples = self.samples(dtype)
        if self.op_info.large_inputs:
            samples += list(self.op_info.large_inputs(self.op_info, dtype, self.rng()))
        self._run_all(check, samples)


def axis_message_ok(message, axis, ndim):
    """The axis error names the value given and the valid range [-R, R) (or [-R, R-1])."""
    rank = max(ndim, 1)
    numbers = set(re.findall(r'-?\d+', message))
    return (str(axis) in numbers and str(-rank) in numbers
            and (str(rank) in numbers or str(rank - 1) in numbers))


def expect_axis_out_of_range(call, axis, ndim):
    """call() raises an IndexError whose message names the axis given and the valid range for
    ndim dimensions (axis_message_ok)."""
    with pytest.raises(IndexError) as info:
        call()
    assert axis_message_ok(str(info.value), axis, ndim), \
        'message should name the range and the value: %r' % str(info.value)
