"""The CUDA backend's runtime from Python: places, moving tensors, set_device, out-of-memory.
Every test needs a GPU and skips (saying so) without one."""
import numpy as np
import pytest

import paddle_ops as paddle
from paddle_ops import _C
from op_test import gpu_available

pytestmark = pytest.mark.skipif(not gpu_available(),
                                reason="no GPU: paddle_ops is not compiled with CUDA or no device is present")


def test_to_tensor_on_gpu_and_back():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = paddle.to_tensor(a, place="gpu")
    assert x.place == paddle.CUDAPlace(0)
    np.testing.assert_array_equal(x.numpy(), a)
    y = x.cpu()
    assert y.place == paddle.CPUPlace()
    z = y.cuda()
    assert z.place == paddle.CUDAPlace(0)
    np.testing.assert_array_equal(z.to("cpu").numpy(), a)


def test_set_device_makes_new_tensors_and_results_live_there():
    try:
        paddle.set_device("gpu")
        assert paddle.get_device() == "gpu:0"
        x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
        assert x.place == paddle.CUDAPlace(0)
        y = paddle.logcumsumexp(x)
        assert y.place == paddle.CUDAPlace(0)
        (y * 2.0).sum().backward()
        assert x.grad.place == paddle.CUDAPlace(0)
        ref = np.log(np.cumsum(np.exp([1.0, 2.0, 3.0])))
        np.testing.assert_allclose(y.numpy(), ref, rtol=1e-6)
    finally:
        paddle.set_device("cpu")


def test_mixing_places_is_a_clear_error():
    with pytest.raises(ValueError, match="one place"):
        paddle.to_tensor([1.0]) + paddle.to_tensor([1.0], place="gpu")


def test_out_of_memory_is_memory_error_and_the_process_goes_on():
    x = paddle.to_tensor(np.ones(4, np.float32), place="gpu")
    # 2^40 bytes (1 TiB): more than any GPU here has.
    with pytest.raises(MemoryError, match="1099511627776 bytes"):
        paddle.empty([1 << 38], "float32", place="gpu")
    np.testing.assert_array_equal(paddle.cumsum(x).numpy(), np.arange(1, 5, dtype=np.float32))


def test_synchronize_and_device_count():
    assert paddle.device.cuda.device_count() >= 1
    paddle.device.synchronize()


@pytest.mark.skipif(not gpu_available() or paddle.device.cuda.device_count() < 2,
                    reason="needs two GPUs (a kernel of gpu:1 must run with gpu:1 current)")
@pytest.mark.parametrize("order", ["gpu:1 first", "gpu:0 first"])
def test_every_op_runs_on_each_gpu_whichever_device_is_current(order):
    # Kernels launch on the calling thread's current device; each kernel call makes its
    # tensor's device current and restores the caller's after it (core/kernel_factory.h).
    from paddle_ops.__main__ import CHECKS
    places = ["gpu:1", "gpu:0"] if order == "gpu:1 first" else ["gpu:0", "gpu:1", "gpu:0"]
    for place in places:
        for check, _ops in CHECKS.values():
            check(place)  # raises AssertionError on a wrong result, RuntimeError on a bad launch


# ---- a stream in place of ours (gpu_info.h PushStream; the torch integration's) --------------
# The handles below are never launched on: only which stream the runtime would use is read
# (_dlpack_consumer_stream(2, d): the stream our kernels of gpu:d use now on this thread).
FAKE_A, FAKE_B = 0x7F0000001000, 0x7F0000002000


def _stream_in_use(device=0):
    return _C._dlpack_consumer_stream(2, device)


def test_pushed_stream_nests_and_pop_restores_ours():
    ours = _stream_in_use()
    assert _C._gpu_pushed_stream(0) is None
    _C._gpu_push_stream(0, FAKE_A)
    try:
        assert _C._gpu_pushed_stream(0) == FAKE_A and _stream_in_use() == FAKE_A
        _C._gpu_push_stream(0, 0)  # torch's handle of the legacy default stream, DLPack's 1
        try:
            assert _C._gpu_pushed_stream(0) == 1 and _stream_in_use() == 1
        finally:
            _C._gpu_pop_stream()
        assert _stream_in_use() == FAKE_A
    finally:
        _C._gpu_pop_stream()
    assert _C._gpu_pushed_stream(0) is None and _stream_in_use() == ours
    with pytest.raises(RuntimeError, match="no stream was pushed"):
        _C._gpu_pop_stream()
    assert _stream_in_use() == ours


def test_pushed_stream_is_this_threads_and_this_devices_only():
    import threading
    ours = _stream_in_use()
    seen = {}
    _C._gpu_push_stream(0, FAKE_A)
    try:
        assert _C._gpu_pushed_stream(1) is None  # another device keeps ours

        def other():
            seen["before"] = (_C._gpu_pushed_stream(0), _stream_in_use())
            _C._gpu_push_stream(0, FAKE_B)
            seen["pushed"] = _stream_in_use()
            _C._gpu_pop_stream()

        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert _stream_in_use() == FAKE_A  # the other thread's push and pop left ours alone
    finally:
        _C._gpu_pop_stream()
    assert seen == {"before": (None, ours), "pushed": FAKE_B}


def test_plain_calls_use_our_stream_between_pushes():
    ours = _stream_in_use()
    x = paddle.to_tensor(np.arange(6, dtype=np.float32), place="gpu")
    _C._gpu_push_stream(0, FAKE_A)
    _C._gpu_pop_stream()
    np.testing.assert_array_equal(paddle.cumsum(x).numpy(), np.cumsum(np.arange(6, dtype=np.float32)))
    assert _stream_in_use() == ours
