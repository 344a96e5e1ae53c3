"""right_flood: docs/spec.md §4, the fill-forward scan of seed 003.

The generic OpInfo checks (every dtype, every axis, both directions, zero and NaN holes,
zero-size and 0-D tensors, long awkward shapes, gradients, errors, determinism, static mode,
CPU vs GPU) run from test_op_db.py; the tests below pin down what docs/spec.md and the seed state
explicitly: the seed's examples (and where its code is wrong), NaN holes, reverse, batches along
every axis, return_index against NumPy's maximum.accumulate of indices, rows of holes only,
leading holes kept bit for bit, and the gradient of long runs.
"""

import numpy as np
import pytest

import paddle_ops as paddle
from op_db import OP_DB, flood_values, right_flood_grad_ref, right_flood_index_ref, right_flood_ref
from op_test import (FLOAT_DTYPES, INT_DTYPES, available_places, check_grad_fd,
                     make_tensor, numpy_values, tensor_values)

OP = OP_DB['right_flood']
PLACES = available_places()
ALL = FLOAT_DTYPES + INT_DTYPES


def flood(values, dtype='float32', place='cpu', **kwargs):
    return paddle.right_flood(make_tensor(values, dtype, place), **kwargs)


# ------------------------------------------------------------------------------------------
# The seed's examples
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ALL)
def test_seed_examples(dtype, place):
    cases = [([1, 0, 0, 3, 0, 6, 0, 0], [1, 1, 1, 3, 3, 6, 6, 6]),
             ([1, 0, 0, 0, 3, 0, 2, 0, 0, 5, 2], [1, 1, 1, 1, 3, 3, 2, 2, 2, 5, 2]),
             ([0, 0, 3, 0, 3], [0, 0, 3, 3, 3])]
    for x, y in cases:
        np.testing.assert_array_equal(tensor_values(flood(x, dtype, place)), y)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_seed_gradient_and_its_leading_hole_bug(dtype, place):
    """The seed's example gradient of sum(y) is [3, 0, 0, 2, 0, 3, 0, 0]. Its code sends the
    gradient of leading holes to x[0] (yi2xi is left 0 there); here leading holes feed no
    output of x, so nothing goes anywhere."""
    x = make_tensor([1, 0, 0, 3, 0, 6, 0, 0], dtype, place, stop_gradient=False)
    paddle.right_flood(x).sum().backward()
    np.testing.assert_array_equal(tensor_values(x.grad), [3, 0, 0, 2, 0, 3, 0, 0])
    x = make_tensor([0, 0, 3, 0, 3], dtype, place, stop_gradient=False)
    paddle.right_flood(x).sum().backward()
    np.testing.assert_array_equal(tensor_values(x.grad), [0, 0, 2, 0, 1])  # the seed: [2, 0, 2, 0, 1]


# ------------------------------------------------------------------------------------------
# NaN holes, reverse, batches, return_index
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_nan_holes_are_pandas_ffill_and_bfill(dtype, place):
    nan = np.nan
    x = [nan, 2.0, nan, 0.0, nan, -1.5, nan]
    ffill = [nan, 2.0, 2.0, 0.0, 0.0, -1.5, -1.5]  # zeros are data when NaN is the hole
    bfill = [2.0, 2.0, 0.0, 0.0, -1.5, -1.5, nan]
    np.testing.assert_array_equal(tensor_values(flood(x, dtype, place, hole='nan')), ffill)
    np.testing.assert_array_equal(tensor_values(flood(x, dtype, place, hole='nan', reverse=True)), bfill)
    # With zero holes the NaN are data.
    np.testing.assert_array_equal(tensor_values(flood(x, dtype, place)), [nan, 2.0, nan, nan, nan, -1.5, nan])


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ALL)
def test_reverse_is_flip_flood_flip(dtype, place):
    rng = np.random.default_rng(1)
    x = flood_values(dtype, (5, 333), rng, density=0.7)
    got = tensor_values(flood(x, dtype, place, reverse=True))
    flipped = tensor_values(flood(x[:, ::-1].copy(), dtype, place))[:, ::-1]
    np.testing.assert_array_equal(got, flipped)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['float32', 'int64', 'bfloat16'])
def test_batched_along_every_axis_with_index(dtype, place):
    """A 4-D batch along each axis, both directions, both holes: values and return_index
    against the NumPy reference (np.maximum.accumulate of the indices of the non-holes)."""
    rng = np.random.default_rng(2)
    shape = (3, 4, 37, 5)
    for hole in ('zero', 'nan') if dtype != 'int64' else ('zero',):
        x = flood_values(dtype, shape, rng, hole, density=0.7)
        xt = make_tensor(x, dtype, place)
        xv = tensor_values(xt)
        for axis in range(-4, 4):
            for reverse in (False, True):
                out, index = paddle.right_flood(xt, axis=axis, reverse=reverse, hole=hole, return_index=True)
                what = 'axis=%d reverse=%s hole=%s' % (axis, reverse, hole)
                assert index.dtype == paddle.int64 and list(index.shape) == list(shape), what
                np.testing.assert_array_equal(index.numpy(), right_flood_index_ref(xv, axis, reverse, hole), what)
                np.testing.assert_array_equal(tensor_values(out), right_flood_ref(xv, axis, reverse, hole), what)


@pytest.mark.parametrize('place', PLACES)
def test_return_index_matches_maximum_accumulate(place):
    rng = np.random.default_rng(3)
    x = flood_values('float64', (7, 1000), rng, density=0.9)
    out, index = flood(x, 'float64', place, return_index=True)
    ref = np.maximum.accumulate(np.where(x == 0, -1, np.arange(1000)), axis=1)
    np.testing.assert_array_equal(index.numpy(), ref)
    np.testing.assert_array_equal(out.numpy(), np.where(ref >= 0, np.take_along_axis(x, np.maximum(ref, 0), 1), x))
    assert index.stop_gradient is True
    assert flood(x, 'float64', place, return_index=False).shape == [7, 1000]  # one tensor back


@pytest.mark.parametrize('place', PLACES)
def test_return_index_0d_and_empty(place):
    out, index = flood(np.array(0.0), place=place, return_index=True)
    assert out.shape == [] and index.shape == [] and int(index.numpy()) == -1
    out, index = flood(np.array(2.5), place=place, return_index=True, axis=0)
    assert float(out.numpy()) == 2.5 and int(index.numpy()) == 0
    out, index = flood(np.zeros((3, 0)), place=place, return_index=True, axis=1)
    assert out.shape == [3, 0] and index.shape == [3, 0]


# ------------------------------------------------------------------------------------------
# Holes only, leading holes, long rows
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_rows_of_holes_only_and_leading_holes_keep_their_bits(dtype, place):
    """A row with no source keeps its values bit for bit (-0.0 stays -0.0, a NaN's payload
    stays), has index -1 and gets no gradient."""
    x = np.array([[-0.0, 0.0, -0.0, 0.0], [-0.0, 7.0, 0.0, -0.0]])
    xt = make_tensor(x, dtype, place, stop_gradient=False)
    out, index = paddle.right_flood(xt, return_index=True)
    got = numpy_values(out).astype(np.float64)
    assert np.array_equal(np.signbit(got[0]), [True, False, True, False])
    assert np.signbit(got[1, 0]) and list(got[1, 1:]) == [7.0, 7.0, 7.0]
    np.testing.assert_array_equal(index.numpy(), [[-1, -1, -1, -1], [-1, 1, 1, 1]])
    out.sum().backward()
    np.testing.assert_array_equal(tensor_values(xt.grad), [[0, 0, 0, 0], [0, 3, 0, 0]])
    if dtype in ('float32', 'float64'):
        ftype, itype = (np.float32, np.uint32) if dtype == 'float32' else (np.float64, np.uint64)
        payload = np.array([0x7fc00123 if dtype == 'float32' else 0x7ff8000000000abc], dtype=itype).view(ftype)
        x = np.concatenate([payload, payload, np.array([3.0, np.nan], dtype=ftype)])
        out = paddle.right_flood(paddle.to_tensor(x, place=place), hole='nan').numpy()
        assert out[:2].view(itype).tolist() == payload.view(itype).tolist() * 2
        assert out[2:].tolist() == [3.0, 3.0]


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('n', [1 << 20, (1 << 20) + 3])
def test_long_rows_and_long_runs(place, n):
    """Rows past the engines' chunks and segments (three phases on both backends; a length
    that takes the GPU tiles' vector loads and one that does not), 70% holes, and single
    sources whose run spans most of a row; values, index and the gradient (the sum over a
    run of 2^20 ones is exact)."""
    rng = np.random.default_rng(4)
    x = flood_values('float32', (n,), rng, density=0.7)
    for reverse in (False, True):
        out, index = flood(x, 'float32', place, reverse=reverse, return_index=True)
        np.testing.assert_array_equal(index.numpy(), right_flood_index_ref(x, 0, reverse))
        np.testing.assert_array_equal(out.numpy(), right_flood_ref(x, 0, reverse).astype(np.float32))
    x = np.zeros(n)
    x[[3, n - 5]] = [2.0, -1.0]
    xt = make_tensor(x, 'float32', place, stop_gradient=False)
    paddle.right_flood(xt).backward(make_tensor(np.ones(n), 'float32', place))
    g = tensor_values(xt.grad)
    assert g[3] == n - 5 - 3 and g[n - 5] == 5 and g.sum() == n - 3


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_gradient_against_reference_batched(dtype, place):
    rng = np.random.default_rng(5)
    shape = (3, 50, 4)
    for axis in (0, 1, 2):
        for reverse in (False, True):
            for hole in ('zero', 'nan'):
                x = flood_values(dtype, shape, rng, hole, density=0.6)
                xt = make_tensor(x, dtype, place, stop_gradient=False)
                g = make_tensor(rng.standard_normal(shape), dtype, place)
                paddle.right_flood(xt, axis=axis, reverse=reverse, hole=hole).backward(g)
                ref = right_flood_grad_ref(tensor_values(xt), None, tensor_values(g), axis, reverse, hole)
                tol = {'float64': 1e-12, 'float32': 1e-6}.get(dtype, 1e-2)
                np.testing.assert_allclose(tensor_values(xt.grad), ref.astype(np.float64), rtol=tol, atol=tol)


def test_inf_in_out_grad_stays_in_its_run():
    """A segment's sum never sees another segment's values (the segmented sum drops what
    came before a reset instead of multiplying it by 0): an inf gradient stays in its run."""
    x = make_tensor([1.0, 0.0, 2.0, 0.0], 'float64', stop_gradient=False)
    paddle.right_flood(x).backward(make_tensor([1.0, np.inf, 1.0, 1.0], 'float64'))
    np.testing.assert_array_equal(x.grad.numpy(), [np.inf, 0.0, 2.0, 0.0])


def test_tensor_method_and_thread_count_independence():
    rng = np.random.default_rng(6)
    x = make_tensor(flood_values('float32', (3, 300001), rng, density=0.95), 'float32')
    a = x.right_flood(axis=1, return_index=True)
    paddle.set_num_threads(1)
    try:
        b = paddle.right_flood(x, axis=1, return_index=True)
    finally:
        paddle.set_num_threads(0)
    assert a[0].numpy().tobytes() == b[0].numpy().tobytes()
    assert a[1].numpy().tobytes() == b[1].numpy().tobytes()
