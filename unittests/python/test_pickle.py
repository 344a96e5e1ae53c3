"""Tensors through pickle (every protocol) and copy.copy / copy.deepcopy (issue 17 item 4):
values bit for bit, dtype, shape (0-D and empty too), stop_gradient and the place come back."""
import copy
import pickle
import subprocess
import sys

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import ALL_DTYPES, EXTRA_INT_DTYPES, available_places, make_tensor

PLACES = available_places()
SHAPES = [(), (0,), (3, 0), (5,), (2, 3)]
PROTOCOLS = list(range(pickle.HIGHEST_PROTOCOL + 1))


def _values(shape, dtype):
    n = int(np.prod(shape))
    if dtype == 'bool':
        return (np.arange(n) % 3 == 0).reshape(shape)
    v = (np.arange(n, dtype=np.float64) * 1.25 - 2.0).reshape(shape)
    if dtype == 'uint8':
        v = np.abs(v)
    return v if dtype.startswith(('float', 'bfloat')) else np.trunc(v)


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape and a.place == b.place
    assert a.stop_gradient == b.stop_gradient
    x, y = a.numpy(), b.numpy()
    assert x.dtype == y.dtype
    assert x.tobytes() == y.tobytes()  # bit for bit (NaN payloads and -0.0 too)


def _roundtrips():
    yield 'copy', copy.copy
    yield 'deepcopy', copy.deepcopy
    for p in PROTOCOLS:
        yield 'pickle%d' % p, lambda t, p=p: pickle.loads(pickle.dumps(t, protocol=p))


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ALL_DTYPES + EXTRA_INT_DTYPES)
@pytest.mark.parametrize('shape', SHAPES, ids=str)
def test_roundtrip_keeps_value_dtype_shape_place(place, dtype, shape):
    t = make_tensor(_values(shape, dtype), dtype, place)
    for how, fn in _roundtrips():
        c = fn(t)
        assert isinstance(c, paddle.Tensor), how
        _same(t, c)
        assert c._share_id() != t._share_id(), '%s shares the data' % how


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['float16', 'bfloat16', 'float32', 'float64'])
def test_special_floats_bit_for_bit(place, dtype):
    t = make_tensor([np.nan, -np.inf, np.inf, -0.0, 0.0, 1e-30], dtype, place)
    for how, fn in _roundtrips():
        _same(t, fn(t))


@pytest.mark.parametrize('place', PLACES)
def test_stop_gradient_false_comes_back_as_a_leaf_that_takes_gradients(place):
    x = make_tensor([1.0, 2.0, 3.0], 'float32', place, stop_gradient=False)
    y = x * 2  # a non-leaf: its copy is a new leaf with the same stop_gradient
    for how, fn in _roundtrips():
        for src in (x, y):
            c = fn(src)
            assert c.stop_gradient is False and c.is_leaf and c.grad is None, how
            (c * c).sum().backward()
            np.testing.assert_array_equal(c.grad.numpy(), 2 * src.numpy())
    assert x.grad is None  # the copies' backward did not reach the original


def test_deepcopy_memo_keeps_shared_tensors_shared():
    t = paddle.to_tensor([1.0, 2.0])
    a, b = copy.deepcopy([t, t])
    assert a is b and a is not t


def test_a_copy_is_independent_of_later_changes():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    c = copy.deepcopy(x)
    (x * 3).sum().backward()
    assert c.grad is None
    x.clear_grad()
    np.testing.assert_array_equal(c.numpy(), [1.0, 2.0])


@pytest.mark.skipif('gpu' not in PLACES, reason='no GPU: the device id round trip needs one')
def test_gpu_tensor_comes_back_on_its_device():
    n = paddle.device.cuda.device_count()
    for dev in range(n):
        t = paddle.to_tensor([1.5, -2.0], place='gpu:%d' % dev)
        for how, fn in _roundtrips():
            c = fn(t)
            assert c.place.is_gpu_place() and c.place.gpu_device_id() == dev, how
            _same(t, c)


def test_pickle_protocol_0_and_1_do_not_abort_the_process():
    # Before: the default reduction of the extension type ended in std::terminate (SIGABRT).
    code = ("import pickle, paddle_ops as p\n"
            "t = p.to_tensor([[1.5, 2.5]], dtype='float64')\n"
            "for proto in (0, 1):\n"
            "    c = pickle.loads(pickle.dumps(t, protocol=proto))\n"
            "    print(proto, c.numpy().tolist(), c.dtype)\n")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split('\n')[:2] == ['0 [[1.5, 2.5]] paddle.float64', '1 [[1.5, 2.5]] paddle.float64']


def test_static_variable_is_refused_clearly():
    paddle.enable_static()
    try:
        x = paddle.static.data('x', [2, 3], 'float32')
        with pytest.raises(RuntimeError, match='x'):
            pickle.dumps(x)
    finally:
        paddle.disable_static()


@pytest.mark.parametrize('place', PLACES)
def test_bfloat16_nan_payloads_bit_for_bit(place):
    """A bfloat16 signalling NaN (0x7f81), other payloads and both signs come back with their bits
    (issue 32 item 7: they went through float32 values and came back quieted, 0x7fc1): the pickle
    holds numpy()'s uint16 bits."""
    bits = np.array([0x7F81, 0xFF81, 0x7FC1, 0x7FFF, 0x7F80, 0x0001, 0x8000, 0x3F80], np.uint16)
    t = paddle.to_tensor(bits, place=place)
    assert t.dtype == paddle.bfloat16 and t.numpy().tolist() == bits.tolist()
    for how, fn in _roundtrips():
        c = fn(t)
        assert c.dtype == paddle.bfloat16 and c.numpy().tolist() == bits.tolist(), how


def test_bfloat16_pickle_of_float32_values_still_loads():
    """A pickle written before numpy() gave the bits (bfloat16 as float32 values) loads as the same
    bfloat16 values."""
    from paddle_ops.tensor.methods import _rebuild_tensor
    t = _rebuild_tensor(np.array([1.5, -2.0], np.float32), 'bfloat16', 'cpu', True)
    assert t.dtype == paddle.bfloat16 and t.astype('float32').numpy().tolist() == [1.5, -2.0]
