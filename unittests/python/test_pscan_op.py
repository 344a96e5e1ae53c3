"""pscan: docs/spec.md §3, the first-order linear recurrence of seed 004.

The generic OpInfo checks (every dtype, both gate shapes, with and without initial_state,
reverse, zero-size and long awkward shapes, x_grad, errors, determinism, static mode,
places) run from test_op_db.py; the tests below pin down what docs/spec.md states explicitly: the
gradients of a and initial_state, negative and zero gates, NaN/inf, the seed's convention,
and the long row where the seed's log-space form is no longer finite.
"""

import itertools

import numpy as np
import pytest

import paddle_ops as paddle
from op_db import OP_DB, pscan_gates, pscan_grads_ref, pscan_ref
from op_test import (FLOAT_DTYPES, GRAD_TOLERANCES, assert_close,
                     available_places, cast_np, dtype_name, make_tensor, tensor_values)

OP = OP_DB['pscan']
PLACES = available_places()
NAN, INF = np.nan, np.inf


def pscan(a, x, initial_state=None, reverse=False, dtype='float64', place='cpu'):
    h0 = None if initial_state is None else make_tensor(initial_state, dtype, place)
    return paddle.pscan(make_tensor(a, dtype, place), make_tensor(x, dtype, place), h0,
                        reverse=reverse)


def check_values(out, x, a, h0=None, reverse=False, dtype='float64', msg=''):
    """out equals the long double loop on the values rounded to dtype."""
    r = lambda v: None if v is None else cast_np(np.asarray(v, dtype=np.float64), dtype)  # noqa: E731
    expected = pscan_ref(r(x), r(a), r(h0), reverse)
    scale = OP.tol_scale(r(x), expected, r(a), r(h0), reverse)
    assert_close(out.numpy(), expected, dtype, OP.tolerance(dtype), scale=scale, msg=msg)


# ------------------------------------------------------------------------------------------
# Values
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_negative_and_zero_gates_exact(dtype, place):
    # y0 = -1*5 + 1 = -4, y1 = 0*(-4) + 2 = 2, y2 = -2*2 + 3 = -1, y3 = 0.5*(-1) + 4 = 3.5;
    # every value is exact in every dtype.
    a = [[-1.0, 0.0, -2.0, 0.5]]
    x = [[[1.0], [2.0], [3.0], [4.0]]]
    out = pscan(a, x, [[5.0]], dtype=dtype, place=place)
    np.testing.assert_array_equal(tensor_values(out)[0, :, 0], [-4.0, 2.0, -1.0, 3.5])
    # Reverse, no state: y3 = 4, y2 = -2*4 + 3 = -5, y1 = 0*(-5) + 2 = 2, y0 = -1*2 + 1 = -1.
    out = pscan(a, x, reverse=True, dtype=dtype, place=place)
    np.testing.assert_array_equal(tensor_values(out)[0, :, 0], [-1.0, 2.0, -5.0, 4.0])


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
@pytest.mark.parametrize('per_step', [True, False])
def test_negative_gates_near_one_long_rows(dtype, place, per_step):
    """Gates in (-1, -0.9] and [0.9, 1) with zeros sprinkled in: long memory, sign flips,
    resets; a log-space form would need complex logs and still lose the zeros."""
    rng = np.random.default_rng(7)
    N, T, D = 3, 3000, 5
    shape = (N, T) if per_step else (N, T, D)
    a = rng.uniform(0.9, 1.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    a[rng.random(shape) < 0.01] = 0.0
    x = rng.standard_normal((N, T, D))
    h0 = rng.standard_normal((N, D))
    for reverse in (False, True):
        out = pscan(a, x, h0, reverse, dtype, place)
        if dtype in ('float32', 'float64'):
            check_values(out, x, a, h0, reverse, dtype, msg='reverse=%s' % reverse)
            continue
        # 16-bit inputs: gates near 1 carry the rounding of each 16-bit output over ~10 steps
        # of the input; measure the float32 computation through the rounded output loosely.
        r = lambda v: cast_np(v, dtype)  # noqa: E731
        expected = pscan_ref(r(x), r(a), r(h0), reverse).astype(np.float64)
        scale = OP.tol_scale(r(x), expected, r(a), r(h0), reverse)
        err = np.abs(tensor_values(out) - expected) / scale
        assert err.max() < (8e-3 if dtype == 'bfloat16' else 1e-3), err.max()


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_nan_propagates(dtype, place):
    """A NaN in x or in a gate makes its step and every later one NaN (as the loop does)."""
    T = 300
    a = np.full((2, T), 0.75)
    x = np.ones((2, T, 2))
    x[0, 100, 1] = NAN     # row 0, column 1
    a[1, 200] = NAN        # row 1, every column
    for reverse in (False, True):
        out = tensor_values(pscan(a, x, reverse=reverse, dtype=dtype, place=place))
        bad = np.isnan(out)
        t = np.arange(T)
        hit0 = t >= 100 if not reverse else t <= 100
        hit1 = t >= 200 if not reverse else t <= 200
        np.testing.assert_array_equal(bad[0, :, 1], hit0)
        assert not bad[0, :, 0].any()
        np.testing.assert_array_equal(bad[1, :, 0], hit1)
        np.testing.assert_array_equal(bad[1, :, 1], hit1)
        check_values_finite_part(out, x, a, reverse, dtype)


def check_values_finite_part(out, x, a, reverse, dtype):
    r = lambda v: cast_np(v, dtype)  # noqa: E731
    expected = pscan_ref(r(x), r(a), None, reverse).astype(np.float64)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(expected))
    np.testing.assert_array_equal(np.isinf(out), np.isinf(expected))
    np.testing.assert_array_equal(out[np.isinf(out)], expected[np.isinf(expected)])
    ok = np.isfinite(expected)
    tol = OP.tolerance(dtype)
    assert_close(out[ok], expected[ok], dtype, tol)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_inf_propagates(dtype, place):
    """An infinite x, or an infinite gate after a nonzero state, gives +-inf from that step
    on with the loop's signs while the gates since then keep a representable product (here
    +-1); with decaying gates the later outputs stay non-finite (inf or NaN: once that
    product underflows to 0, a scan's 0 * inf is NaN where the loop keeps inf)."""
    T = 2000   # long enough for several engine tiles/segments on either side
    a = np.ones((4, T))
    x = np.ones((4, T, 1))
    x[0, 700, 0] = INF
    a[1, 1500] = INF
    a[2, 300:] = -1.0
    x[2, 299, 0] = -INF
    a[3] = 0.5
    x[3, 100, 0] = INF
    for reverse in (False, True):
        out = tensor_values(pscan(a, x, reverse=reverse, dtype=dtype, place=place))
        check_values_finite_part(out[:3], x[:3], a[:3], reverse, dtype)
        t = np.arange(T)
        after = t >= 100 if not reverse else t <= 100
        assert not np.isfinite(out[3, after, 0]).any()
        assert np.isfinite(out[3, ~after, 0]).all()
        if not reverse:
            assert np.isposinf(out[0, 700:, 0]).all() and np.isfinite(out[0, :700, 0]).all()
            assert np.isposinf(out[1, 1500:, 0]).all() and np.isfinite(out[1, :1500, 0]).all()
            assert np.isinf(out[2, 299:, 0]).all()
            np.testing.assert_array_equal(np.sign(out[2, 299:, 0]), -((-1.0) ** np.arange(T - 299)))


# ------------------------------------------------------------------------------------------
# The seed's convention and its log-space form
# ------------------------------------------------------------------------------------------

def seed_loop(A, X):
    """The seed's recurrence: Y_0 = X_0, Y_t = A_{t-1} * Y_{t-1} + X_t (A [N, T], X [N, T, D])."""
    Y = np.empty_like(X)
    Y[:, 0] = X[:, 0]
    for t in range(1, X.shape[1]):
        Y[:, t] = A[:, t - 1, None] * Y[:, t - 1] + X[:, t]
    return Y


def seed_gates(A):
    """The gates that make pscan compute the seed's convention: [1, A_0, ..., A_{T-2}]."""
    return np.concatenate([np.ones_like(A[:, :1]), A[:, :-1]], axis=1)


def seed_cumsum_form(A, X, real=np.float32):
    """The seed's Y = X + exp(V) * cumsum(exp(W) * X), written in NumPy in `real` precision.

    With C the cumulative sum of log A (complex logs, so negative gates work, seed §3.3),
    Y_t = X_t + sum_{j<t} exp(C_{t-1} - C_{j-1}) X_j = X_t + exp(V_t) * sum_{j<t} exp(W_j) X_j,
    V_t = C_{t-1} and W_j = -C_{j-1} (C_{-1} = 0). exp(W) overflows (and exp(V) underflows)
    once |C| passes the exponent range: about 88 in float32.
    """
    cplx = np.complex64 if real == np.float32 else np.complex128
    with np.errstate(all='ignore'):
        log_a = np.log(A.astype(cplx))
        C = np.cumsum(log_a, axis=1)
        V = np.concatenate([np.zeros_like(C[:, :1]), C[:, :-1]], axis=1)
        W = -V
        terms = np.exp(W)[:, :, None] * X.astype(cplx)
        before = np.concatenate([np.zeros_like(terms[:, :1]), np.cumsum(terms, axis=1)[:, :-1]], axis=1)
        return (X.astype(cplx) + np.exp(V)[:, :, None] * before).real.astype(real)


@pytest.mark.parametrize('place', PLACES)
def test_seed_convention(place):
    rng = np.random.default_rng(3)
    A = rng.uniform(-1.0, 1.0, size=(4, 16))
    X = rng.standard_normal((4, 16, 8))
    expected = seed_loop(A, X)
    ours = pscan(seed_gates(A), X, place=place).numpy()
    np.testing.assert_allclose(ours, expected, rtol=1e-13, atol=1e-13)
    # The seed's cumsum form agrees where it is still finite (short rows), in float64 ...
    np.testing.assert_allclose(seed_cumsum_form(A, X, np.float64), expected, rtol=1e-9, atol=1e-9)
    # ... and so do we in float32 with the seed's gates.
    out32 = pscan(seed_gates(A), X, dtype='float32', place=place)
    check_values(out32, X, seed_gates(A), dtype='float32')


def scalar_loop(a, x):
    """y_t = a_t y_{t-1} + x_t in float64, one row (fast enough for 2^20 steps)."""
    y = np.empty(len(x))
    h = 0.0
    for t, (at, xt) in enumerate(zip(a.tolist(), x.tolist())):
        h = xt if t == 0 else at * h + xt
        y[t] = h
    return y


@pytest.mark.parametrize('place', PLACES)
def test_long_row_where_the_seed_log_space_form_overflows(place):
    """T = 2^20, gates in (0, 1): |sum log a| reaches ~1e6, so the seed's
    X + exp(V) * cumsum(exp(W) * X) is non-finite (it already is at T ~ 128); pscan is
    finite and matches the float64 loop to float32 accuracy."""
    T = 1 << 20
    rng = np.random.default_rng(11)
    a = rng.uniform(0.0, 1.0, size=T).astype(np.float32).astype(np.float64)
    a[a == 0] = 0.5
    x = rng.standard_normal(T).astype(np.float32).astype(np.float64)
    A, X = a[None, :], x[None, :, None]

    seed = seed_cumsum_form(A, X, np.float32)
    assert not np.isfinite(seed).all(), 'the seed form was expected to overflow here'
    first_bad = int(np.argmax(~np.isfinite(seed[0, :, 0])))
    assert first_bad < 1024, first_bad  # it breaks early, not only at the far end

    expected = scalar_loop(a, x)
    # Our float32 result with the seed's convention is not the point here; plain gates.
    out = pscan(A, X, dtype='float32', place=place)
    got = tensor_values(out)[0, :, 0]
    assert np.isfinite(got).all()
    scale = np.maximum(1.0, scalar_loop(np.abs(a), np.abs(x)))
    assert (np.abs(got - expected) <= 4e-6 * scale).all(), np.max(np.abs(got - expected) / scale)
    # Reverse over the same row, and [N, T] gates over D = 2 identical columns (3-phase rows
    # and columns of the engines).
    out_r = tensor_values(pscan(A, X, reverse=True, dtype='float32', place=place))[0, :, 0]
    expected_r = scalar_loop(a[::-1], x[::-1])[::-1]
    scale_r = np.maximum(1.0, scalar_loop(np.abs(a[::-1]), np.abs(x[::-1]))[::-1])
    assert (np.abs(out_r - expected_r) <= 4e-6 * scale_r).all()
    out2 = tensor_values(pscan(A, np.repeat(X, 2, axis=2), dtype='float32', place=place))
    np.testing.assert_array_equal(out2[0, :, 0], out2[0, :, 1])
    assert (np.abs(out2[0, :, 0] - expected) <= 4e-6 * scale).all()


# ------------------------------------------------------------------------------------------
# Gradients of a, x and initial_state
# ------------------------------------------------------------------------------------------

def run_grads(a, x, h0, reverse, dtype, place, out_grad):
    at = make_tensor(a, dtype, place, stop_gradient=False)
    xt = make_tensor(x, dtype, place, stop_gradient=False)
    ht = None if h0 is None else make_tensor(h0, dtype, place, stop_gradient=False)
    out = paddle.pscan(at, xt, ht, reverse=reverse)
    g = make_tensor(out_grad, dtype, place)
    out.backward(g)
    return at, xt, ht, out, g


GRAD_CASES = list(itertools.product([(2, 5, 3), (1, 4, 1), (3, 6, 2)], (True, False),
                                    (False, True), (False, True)))


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('shape,per_step,with_state,reverse', GRAD_CASES)
def test_grads_finite_differences(shape, per_step, with_state, reverse, place):
    """float64: the gradients of sum(out * G) in a ([N, T] and [N, T, D]), x and
    initial_state equal central finite differences."""
    rng = np.random.default_rng(hash((shape, per_step, with_state, reverse)) % 2**32)
    N, T, D = shape
    a = pscan_gates((N, T) if per_step else shape, rng, 'float64')
    x = rng.standard_normal(shape)
    h0 = rng.standard_normal((N, D)) if with_state else None
    G = rng.standard_normal(shape)
    at, xt, ht, _, _ = run_grads(a, x, h0, reverse, 'float64', place, G)

    def loss(a_, x_, h_):
        return float(np.sum(pscan(a_, x_, h_, reverse, 'float64', place).numpy() * G))

    inputs = {'a': a, 'x': x, 'initial_state': h0}
    grads = {'a': at.grad, 'x': xt.grad, 'initial_state': ht.grad if ht is not None else None}
    eps = 1e-6
    for name, v in inputs.items():
        if v is None:
            continue
        assert grads[name] is not None, '%s.grad is None' % name
        numeric = np.zeros_like(v)
        for idx in np.ndindex(*v.shape):
            plus, minus = dict(inputs), dict(inputs)
            plus[name], minus[name] = v.copy(), v.copy()
            plus[name][idx] += eps
            minus[name][idx] -= eps
            numeric[idx] = (loss(plus['a'], plus['x'], plus['initial_state'])
                            - loss(minus['a'], minus['x'], minus['initial_state'])) / (2 * eps)
        np.testing.assert_allclose(grads[name].numpy(), numeric, rtol=1e-6, atol=1e-7,
                                   err_msg='%s_grad' % name)
    if h0 is None:
        assert ht is None


GRAD_REF_SHAPES = [(2, 7, 3), (3, 40, 1), (2, 33, 37), (1, 12001, 1), (2, 1031, 40), (4, 300, 2)]


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
@pytest.mark.parametrize('shape', GRAD_REF_SHAPES)
def test_grads_reference(shape, dtype, place):
    """All three gradients, every dtype, both gate shapes and directions, against the long
    double loop of docs/spec.md §3 on the tensors the kernel saw; long rows and wide D exercise
    the engines' multi-pass scans and the deterministic sum over D of [N, T] gates."""
    rng = np.random.default_rng(5)
    N, T, D = shape
    for per_step, reverse in itertools.product((True, False), (False, True)):
        a = pscan_gates((N, T) if per_step else shape, rng, dtype)
        x = cast_np(rng.standard_normal(shape), dtype)
        h0 = cast_np(rng.standard_normal((N, D)), dtype)
        G = rng.standard_normal(shape)
        at, xt, ht, out, g = run_grads(a, x, h0, reverse, dtype, place, G)
        da, dx, dh0 = pscan_grads_ref(tensor_values(at), tensor_values(out), tensor_values(g),
                                      tensor_values(ht), reverse)
        what = '%s %s %s per_step=%s reverse=%s' % (shape, dtype, place, per_step, reverse)
        for name, t, ref in (('a', at, da), ('x', xt, dx), ('initial_state', ht, dh0)):
            got = tensor_values(t.grad)
            assert dtype_name(t.grad.dtype) == dtype and got.shape == ref.shape, what
            # Gradients add up over T (and D for a [N, T] gate): scale the tolerance by the
            # magnitudes that are summed.
            mag = pscan_grads_ref(np.abs(tensor_values(at)), np.abs(tensor_values(out)),
                                  np.abs(tensor_values(g)), np.abs(tensor_values(ht)), reverse)
            scale = np.maximum(1.0, {'a': mag[0], 'x': mag[1], 'initial_state': mag[2]}[name])
            err = np.abs(got - ref.astype(np.float64)) / scale
            tol = GRAD_TOLERANCES[dtype] if dtype != 'float32' else 4e-6
            assert err.max() <= tol, '%s %s_grad: max scaled err %.3g > %.3g' % (
                what, name, err.max(), tol)


@pytest.mark.parametrize('place', PLACES)
def test_grads_deterministic(place):
    """Two backward passes give bitwise the same gradients ([N, T] gate summed over D)."""
    rng = np.random.default_rng(9)
    a = pscan_gates((2, 3001), rng, 'float32')
    x = rng.standard_normal((2, 3001, 70))
    G = rng.standard_normal((2, 3001, 70))
    first = run_grads(a, x, None, False, 'float32', place, G)
    again = run_grads(a, x, None, False, 'float32', place, G)
    for t1, t2 in zip(first[:2], again[:2]):
        assert t1.grad.numpy().tobytes() == t2.grad.numpy().tobytes()


@pytest.mark.parametrize('place', PLACES)
def test_grads_zero_size(place):
    # T == 0: the initial state reaches no output, its gradient is 0.
    _, xt, ht, out, _ = run_grads(np.ones((2, 0)), np.ones((2, 0, 3)), np.ones((2, 3)), False,
                                  'float32', place, np.ones((2, 0, 3)))
    assert list(out.shape) == [2, 0, 3]
    np.testing.assert_array_equal(ht.grad.numpy(), np.zeros((2, 3)))
    # D == 0 with a [N, T] gate: an empty sum.
    at, _, _, _, _ = run_grads(np.ones((2, 4)), np.ones((2, 4, 0)), None, True, 'float32', place,
                               np.ones((2, 4, 0)))
    np.testing.assert_array_equal(at.grad.numpy(), np.zeros((2, 4)))


@pytest.mark.parametrize('place', PLACES)
def test_grad_of_some_inputs(place):
    """Only x requires a gradient: a and initial_state get none, x's is right."""
    rng = np.random.default_rng(4)
    a = make_tensor(rng.uniform(-1, 1, (2, 5)), 'float64', place)
    h0 = make_tensor(rng.standard_normal((2, 3)), 'float64', place)
    x = make_tensor(rng.standard_normal((2, 5, 3)), 'float64', place, stop_gradient=False)
    out = paddle.pscan(a, x, h0)
    (dx,) = paddle.grad([out], [x], [make_tensor(np.ones((2, 5, 3)), 'float64', place)])
    assert a.grad is None and h0.grad is None
    _, expected, _ = pscan_grads_ref(a.numpy(), out.numpy(), np.ones((2, 5, 3)), h0.numpy())
    np.testing.assert_allclose(dx.numpy(), expected.astype(np.float64), rtol=1e-14)


# ------------------------------------------------------------------------------------------
# Errors
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
def test_shape_errors_name_both_tensors(place):
    x = make_tensor(np.ones((2, 3, 4)), 'float32', place)
    with pytest.raises(ValueError) as e:
        paddle.pscan(make_tensor(np.ones((3, 3)), 'float32', place), x)
    assert "a" in str(e.value) and '[3, 3]' in str(e.value) and '[2, 3, 4]' in str(e.value)
    with pytest.raises(ValueError) as e:
        paddle.pscan(make_tensor(np.ones((2, 3)), 'float32', place), x,
                     make_tensor(np.ones((4, 2)), 'float32', place))
    assert 'initial_state' in str(e.value) and '[4, 2]' in str(e.value) and '[2, 4]' in str(e.value)
    with pytest.raises(TypeError, match=r"'a' must be a Tensor"):
        paddle.pscan(np.ones((2, 3)), x)
    with pytest.raises(TypeError, match=r"'initial_state' must be a Tensor"):
        paddle.pscan(make_tensor(np.ones((2, 3)), 'float32', place), x, np.ones((2, 4)))
    with pytest.raises(TypeError, match=r"'a'.*int64"):
        paddle.pscan(make_tensor(np.ones((2, 3)), 'int64', place), x)
