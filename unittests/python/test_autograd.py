"""The eager autograd engine: backward through chains, accumulation, clear_grad, paddle.grad
(grad_outputs, allow_unused, retain_graph), stop_gradient, and the README example."""

import math

import numpy as np
import pytest

import paddle_ops as paddle
from op_db import logcumsumexp_grad_ref, logcumsumexp_ref
from op_test import available_places, make_tensor, tensor_values

PLACES = available_places()


def lcse_grad_reference(values, out_grad, **kwargs):
    x = np.asarray(values, dtype=np.longdouble)
    out = logcumsumexp_ref(x, **kwargs)
    return logcumsumexp_grad_ref(x, out, np.asarray(out_grad, dtype=np.longdouble),
                                 **kwargs).astype(np.float64)


@pytest.mark.parametrize('place', PLACES)
def test_readme_example(place):
    x = paddle.to_tensor([[1., 2.], [3., 4.]], stop_gradient=False, place=place)
    y = paddle.logcumsumexp(x, axis=1, reverse=True)
    y.sum().backward()
    e = math.e
    np.testing.assert_allclose(
        y.numpy(), [[math.log(e + e ** 2), 2.0], [math.log(e ** 3 + e ** 4), 4.0]], rtol=1e-6)
    # x[:, 0] feeds only out[:, 0]; x[:, 1] feeds out[:, 0] and out[:, 1].
    first = 1 / (1 + e)
    expected = [[first, 1 + e * first], [first, 1 + e * first]]
    assert x.grad.dtype == paddle.float32 and x.grad.shape == [2, 2]
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize('place', PLACES)
def test_backward_through_chain(place):
    values = np.random.default_rng(0).standard_normal((3, 5))
    x = make_tensor(values, 'float64', place, stop_gradient=False)
    loss = (paddle.logcumsumexp(x, axis=1) * 2).sum()
    assert loss.shape == []
    loss.backward()
    expected = 2 * lcse_grad_reference(values, np.ones((3, 5)), axis=1)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize('place', PLACES)
def test_backward_through_mixed_ops(place):
    """cumsum, reshape, mean, scalar and tensor arithmetic in one graph."""
    values = np.random.default_rng(1).standard_normal((2, 6))
    w_values = np.random.default_rng(2).standard_normal((6,))
    x = make_tensor(values, 'float64', place, stop_gradient=False)
    w = make_tensor(w_values, 'float64', place, stop_gradient=False)
    y = paddle.cumsum(x * w - 1.0, axis=1).reshape([3, 4]).mean()
    y.backward()
    # d mean / d cumsum_out = 1/12 everywhere; cumsum's grad is the suffix count.
    suffix = (np.arange(6, 0, -1) / 12.0)[None, :]
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(suffix * w_values, (2, 6)),
                               rtol=1e-13)
    np.testing.assert_allclose(w.grad.numpy(), (suffix * values).sum(axis=0), rtol=1e-13)


@pytest.mark.parametrize('place', PLACES)
def test_non_scalar_backward_defaults_to_ones(place):
    values = np.array([0.5, -1.0, 2.0])
    x = make_tensor(values, 'float64', place, stop_gradient=False)
    paddle.logcumsumexp(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), lcse_grad_reference(values, np.ones(3)),
                               rtol=1e-13)


@pytest.mark.parametrize('place', PLACES)
def test_backward_with_grad_tensor(place):
    values = np.array([[0.5, -1.0, 2.0], [1.0, 1.0, 1.0]])
    g = np.array([[1.0, -3.0, 0.5], [-1.0, 2.0, -2.0]])
    x = make_tensor(values, 'float64', place, stop_gradient=False)
    paddle.logcumsumexp(x, axis=0, exclusive=True).backward(make_tensor(g, 'float64', place))
    np.testing.assert_allclose(
        x.grad.numpy(), lcse_grad_reference(values, g, axis=0, exclusive=True), rtol=1e-13)


@pytest.mark.parametrize('place', PLACES)
def test_grad_accumulates_over_two_backward_calls(place):
    values = np.array([0.1, 0.2, 0.3, 0.4])
    x = make_tensor(values, 'float64', place, stop_gradient=False)
    paddle.logcumsumexp(x).sum().backward()
    once = x.grad.numpy().copy()
    (paddle.cumsum(x) * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), once + 3 * np.array([4, 3, 2, 1]), rtol=1e-14)
    np.testing.assert_allclose(once, lcse_grad_reference(values, np.ones(4)), rtol=1e-13)


@pytest.mark.parametrize('place', PLACES)
def test_clear_grad(place):
    x = make_tensor([1.0, 2.0, 3.0], 'float32', place, stop_gradient=False)
    (x * x).sum().backward()
    assert x.grad.numpy().tolist() == [2.0, 4.0, 6.0]
    x.clear_grad()
    assert x.grad is None or not x.grad.numpy().any()
    (x * 5).sum().backward()
    assert x.grad.numpy().tolist() == [5.0, 5.0, 5.0]


@pytest.mark.parametrize('place', PLACES)
def test_input_used_twice_accumulates_in_graph(place):
    x = make_tensor([1.0, -2.0], 'float64', place, stop_gradient=False)
    (x * x + x * 3).sum().backward()
    assert x.grad.numpy().tolist() == [5.0, -1.0]


@pytest.mark.parametrize('place', PLACES)
def test_arithmetic_gradients_with_broadcasting(place):
    a = np.arange(6.0).reshape(2, 3)
    b = np.array([1.0, -2.0, 0.5])
    x = make_tensor(a, 'float64', place, stop_gradient=False)
    y = make_tensor(b, 'float64', place, stop_gradient=False)
    ((x * y) - (x + y) * 2).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.broadcast_to(b - 2, (2, 3)))
    assert np.array_equal(y.grad.numpy(), a.sum(axis=0) - 4)
    assert y.grad.shape == [3]


@pytest.mark.parametrize('place', PLACES)
def test_sum_axis_and_mean_gradients(place):
    x = make_tensor(np.ones((2, 3)), 'float64', place, stop_gradient=False)
    (x.sum(axis=1) * make_tensor([1.0, 10.0], 'float64', place)).mean().backward()
    assert x.grad.numpy().tolist() == [[0.5] * 3, [5.0] * 3]


@pytest.mark.parametrize('place', PLACES)
def test_paddle_grad_with_grad_outputs(place):
    values = np.array([[0.3, -0.7, 1.1, 0.0]])
    g = np.array([[2.0, -1.0, 0.25, 4.0]])
    x = make_tensor(values, 'float64', place, stop_gradient=False)
    y = paddle.logcumsumexp(x, axis=1, reverse=True)
    grads = paddle.grad([y], [x], grad_outputs=[make_tensor(g, 'float64', place)])
    assert isinstance(grads, (list, tuple)) and len(grads) == 1
    np.testing.assert_allclose(grads[0].numpy(),
                               lcse_grad_reference(values, g, axis=1, reverse=True), rtol=1e-13)


@pytest.mark.parametrize('place', PLACES)
def test_paddle_grad_several_inputs(place):
    x = make_tensor([1.0, 2.0], 'float64', place, stop_gradient=False)
    w = make_tensor([3.0, -1.0], 'float64', place, stop_gradient=False)
    gx, gw = paddle.grad((x * w).sum(), [x, w])
    assert gx.numpy().tolist() == [3.0, -1.0]
    assert gw.numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize('place', PLACES)
def test_paddle_grad_allow_unused(place):
    x = make_tensor([1.0, 2.0], 'float32', place, stop_gradient=False)
    unused = make_tensor([5.0], 'float32', place, stop_gradient=False)
    grads = paddle.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert grads[0].numpy().tolist() == [2.0, 2.0]
    assert grads[1] is None
    with pytest.raises((RuntimeError, ValueError)):
        paddle.grad((x * 2).sum(), [x, unused])


@pytest.mark.parametrize('place', PLACES)
def test_retain_graph(place):
    x = make_tensor([0.5, 1.5], 'float64', place, stop_gradient=False)
    loss = paddle.logcumsumexp(x).sum()
    first = paddle.grad(loss, [x], retain_graph=True)[0].numpy()
    second = paddle.grad(loss, [x])[0].numpy()
    assert np.array_equal(first, second)
    np.testing.assert_allclose(first, lcse_grad_reference([0.5, 1.5], np.ones(2)), rtol=1e-13)
    with pytest.raises(RuntimeError):
        paddle.grad(loss, [x])


@pytest.mark.parametrize('place', PLACES)
def test_second_backward_without_retain_graph_raises(place):
    x = make_tensor([0.5, 1.5], 'float64', place, stop_gradient=False)
    loss = paddle.cumsum(x * 2).sum()
    loss.backward()
    assert x.grad.numpy().tolist() == [4.0, 2.0]
    with pytest.raises(RuntimeError):
        loss.backward()


@pytest.mark.parametrize('place', PLACES)
def test_stop_gradient_tensors_get_no_grad(place):
    x = make_tensor([1.0, 2.0], 'float64', place)  # stop_gradient=True
    w = make_tensor([3.0, 4.0], 'float64', place, stop_gradient=False)
    out = paddle.logcumsumexp(x * w)
    assert out.stop_gradient is False
    out.sum().backward()
    assert x.grad is None
    assert w.grad is not None
    expected = lcse_grad_reference([3.0, 8.0], np.ones(2)) * np.array([1.0, 2.0])
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-13)


def test_no_graph_when_nothing_requires_grad():
    x = make_tensor([1.0, 2.0], 'float64')
    y = paddle.logcumsumexp(x * 2)
    assert y.stop_gradient is True
    assert x.grad is None


@pytest.mark.parametrize('place', PLACES)
def test_detach_blocks_gradient(place):
    x = make_tensor([1.0, 2.0], 'float64', place, stop_gradient=False)
    (x * x.detach()).sum().backward()
    assert x.grad.numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['float16', 'bfloat16', 'float32'])
def test_grad_has_input_dtype(dtype, place):
    x = make_tensor([[0.0, 1.0, 2.0]], dtype, place, stop_gradient=False)
    paddle.logcumsumexp(x, axis=1).sum().backward()
    assert x.grad.dtype == getattr(paddle, dtype)
    expected = lcse_grad_reference(tensor_values(x), np.ones((1, 3)), axis=1)
    np.testing.assert_allclose(tensor_values(x.grad), expected, rtol=1e-2)
