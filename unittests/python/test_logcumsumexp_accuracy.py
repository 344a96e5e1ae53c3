"""logcumsumexp near zero and single terms (docs/spec.md §1, issue 17 item 12), on every place
and GPU scan backend:

- in every float type a prefix holding exactly one finite term returns that term bit for bit
  (arange(n)'s first output is 0, an exclusive scan's second output is x[0], the first finite
  term after a head of -inf is itself);
- float32: relative error <= 1e-6 wherever |ref| >= 1e-6 (ref from float64), besides the
  2.5e-7 * max(1, |ref|) bound, on data whose running sum of exponentials crosses 1.
"""

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import FLOAT_DTYPES, available_places, make_tensor, tensor_values

PLACES = available_places()


@pytest.fixture(autouse=True)
def _restore_backend():
    saved = paddle.get_flags(['PADDLE_OPS_GPU_SCAN'])
    yield
    paddle.set_flags(saved)


def backends(place):
    """Sets each GPU scan backend in turn on the GPU; nothing to set on the CPU."""
    for backend in (['engine', 'thrust'] if place == 'gpu' else [None]):
        if backend:
            paddle.set_flags({'PADDLE_OPS_GPU_SCAN': backend})
        yield backend


def lse(x, dtype, place, **kw):
    return tensor_values(paddle.logcumsumexp(make_tensor(x, dtype, place), **kw))


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_arange_first_output_is_zero(dtype, place):
    for backend in backends(place):
        bad = [n for n in range(1, 65) if lse(np.arange(n), dtype, place)[0] != 0]
        assert bad == [], (backend, bad)
        bad = [n for n in range(2, 65) if lse(np.arange(n), dtype, place, exclusive=True)[1] != 0]
        assert bad == [], (backend, 'exclusive', bad)
        # the same down the columns of [n, 5], and reversed along rows
        for n in (1, 9, 64, 300):
            cols = lse(np.repeat(np.arange(n), 5).reshape(n, 5), dtype, place, axis=0)
            assert (cols[0] == 0).all(), (backend, n)
            rev = lse(np.arange(n)[::-1].copy(), dtype, place, reverse=True)
            assert rev[-1] == 0, (backend, n)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
@pytest.mark.parametrize('head', [0, 1, 7, 8, 127, 129, 520, 1030, 5000])
def test_single_finite_term_after_neg_inf_head(dtype, place, head):
    """[-inf] * head, v, -inf, -inf, then more: the outputs whose prefix holds only v are v."""
    rng = np.random.default_rng(head)
    x = rng.uniform(-30, 30, head + 200)
    x[:head] = -np.inf
    x[head] = rng.uniform(-0.01, 0.01)  # small (a fine ulp), below its block's max: M + log(exp(v - M)) != v
    x[head + 1:head + 3] = -np.inf
    v = make_tensor(x, dtype, place)
    expect = tensor_values(make_tensor(x[head:head + 1], dtype, place))[0]
    for backend in backends(place):
        inc = tensor_values(paddle.logcumsumexp(v))
        assert (inc[head:head + 3] == expect).all(), (backend, inc[head:head + 3], expect)
        exc = tensor_values(paddle.logcumsumexp(v, exclusive=True))
        assert (exc[head + 1:head + 4] == expect).all(), (backend, exc[head + 1:head + 4], expect)
        rows = tensor_values(paddle.logcumsumexp(make_tensor(np.tile(x, (3, 1)), dtype, place), axis=1))
        assert (rows[:, head] == expect).all(), backend
        cols = tensor_values(paddle.logcumsumexp(make_tensor(np.tile(x, (9, 1)).T.copy(), dtype, place), axis=0))
        assert (cols[head] == expect).all(), backend


def reference(x, axis, exclusive, reverse):
    """float64 logcumsumexp (NumPy's logaddexp.accumulate on float64 is exact enough: 1e-16)."""
    a = np.moveaxis(np.asarray(x, np.float64), axis, -1)
    if reverse:
        a = a[..., ::-1]
    r = np.logaddexp.accumulate(a, axis=-1)
    if exclusive:
        r = np.concatenate([np.full(r.shape[:-1] + (1,), -np.inf), r[..., :-1]], axis=-1)
    if reverse:
        r = r[..., ::-1]
    return np.moveaxis(r, -1, axis)


def crossing_data(shape, axis, rng):
    """Terms about exp(x) = u / L (u ~ U(0.5, 1.5), L the scan length): each line's sum of
    exponentials crosses 1 (ref crosses 0) inside the line."""
    L = shape[axis]
    return np.log(rng.uniform(0.5, 1.5, shape) / L).astype(np.float32)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('exclusive,reverse', [(False, False), (True, False), (False, True), (True, True)])
def test_float32_relative_error_near_zero(exclusive, reverse, place):
    rng = np.random.default_rng(12)
    cases = [((8, 300), 1), ((300, 8), 0), ((2, 70000), 1), ((40, 64), 1), ((3000, 5), 0), ((1, 100000), 1)]
    data = [(crossing_data(s, a, rng), a) for s, a in cases]
    creep = np.full(4000, np.log(2e-9), np.float32)  # -1e-6, then tiny terms: ref crawls across 0
    creep[0] = -1e-6
    data.append((creep, 0))
    for backend in backends(place):
        for x, axis in data:
            ref = reference(x, axis, exclusive, reverse)
            out = lse(x, 'float32', place, axis=axis, exclusive=exclusive, reverse=reverse)
            fin = np.isfinite(ref)
            assert (out[~fin] == ref[~fin]).all()
            err = np.abs(out[fin] - ref[fin])
            r = np.abs(ref[fin])
            assert (err <= 2.5e-7 * np.maximum(1, r)).all(), (backend, x.shape, err.max())
            near = r >= 1e-6
            assert near.any()
            rel = err[near] / r[near]
            worst = int(np.argmax(rel))
            assert rel[worst] <= 1e-6, (backend, x.shape, axis, 'ref', r[near][worst], 'rel', rel[worst])
