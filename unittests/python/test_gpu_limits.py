"""GPU limits, for every scan op and its gradient: tensors of more than 2^31 elements give the
right answer (64-bit indexing everywhere: rows, columns, the engine's three-phase passes), and
asking for more GPU memory than exists raises MemoryError naming the size asked for, after
which the next call works. Every test needs a GPU and skips (saying so) without one.

Memory: the largest case holds about 5 float16 tensors of 2^31 + 3 elements (~21 GiB) at once;
the out-of-memory tests fill the device with 1 GiB blocks first and free them after (marked
whole_gpu: under pytest-xdist no other test runs meanwhile, conftest.py).
Set PADDLE_OPS_SKIP_HUGE=1 to leave the > 2^31 cases out (e.g. under compute-sanitizer).
"""
import gc
import math
import os
import re

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import gpu_available

pytestmark = pytest.mark.skipif(not gpu_available(),
                                reason="no GPU: paddle_ops is not compiled with CUDA or no device is present")

N = (1 << 31) + 3          # elements in the huge row: past 2^31
SPIKE = (1 << 31) + 1      # an index past 2^31 (a 32-bit index would wrap to 1)
CHECK = [0, 1, 2, 1000, (1 << 31) - 2, (1 << 31) - 1, 1 << 31, SPIKE, SPIKE + 1]

huge = pytest.mark.skipif(os.environ.get("PADDLE_OPS_SKIP_HUGE") == "1", reason="PADDLE_OPS_SKIP_HUGE=1")


def _free():
    gc.collect()
    paddle.device.cuda.empty_cache()


def _spike(n=N, at=SPIKE, dtype=np.float16, shape=None):
    a = np.zeros(n, dtype)
    a[at] = 1
    return paddle.to_tensor(a.reshape(shape) if shape else a, place="gpu")


def _at(t, idx):
    """Values of a GPU tensor at flat indices (one copy to the host)."""
    return t.numpy().reshape(-1)[idx].astype(np.float64)


def _harmonic_tail(n, k):
    """sum_{j=k}^{n-1} 1/(j+1) = H_n - H_k in float64 (asymptotic digamma for large arguments)."""
    def H(m):
        m = int(m)  # numpy ints would overflow in 12 * m * m below
        if m < 10 ** 6:
            return math.fsum(1.0 / i for i in range(1, m + 1))
        m = float(m)
        return math.log(m) + 0.5772156649015329 + 1 / (2 * m) - 1 / (12 * m * m)
    return H(n) - H(k)


@huge
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_and_grad_row_past_2_to_31(reverse):
    x = _spike()
    x.stop_gradient = False
    y = paddle.cumsum(x, reverse=reverse)
    idx = np.array(CHECK)
    expected = (idx <= SPIKE) if reverse else (idx >= SPIKE)
    np.testing.assert_array_equal(_at(y, idx), expected.astype(np.float64))
    g = _spike()  # the gradient scans the other way
    y.backward(g)
    expected_g = (idx >= SPIKE) if reverse else (idx <= SPIKE)
    np.testing.assert_array_equal(_at(x.grad, idx), expected_g.astype(np.float64))
    del x, y, g
    _free()


@huge
def test_cumsum_columns_past_2_to_31():
    # [3, 2^30 + 2]: scanning axis 0 reaches offsets past 2^31 through the column path.
    cols = (1 << 30) + 2
    a = np.zeros((3, cols), np.float16)
    a[:, -1] = 1
    a[1, 5] = 1
    y = paddle.cumsum(paddle.to_tensor(a, place="gpu"), axis=0).numpy()
    np.testing.assert_array_equal(y[:, -1].astype(np.float64), [1, 2, 3])
    np.testing.assert_array_equal(y[:, 5].astype(np.float64), [0, 1, 1])
    assert np.count_nonzero(y) == 3 + 2
    _free()


@huge
@pytest.mark.parametrize("exclusive", [False, True])
def test_logcumsumexp_and_grad_row_past_2_to_31(exclusive):
    x = paddle.to_tensor(np.zeros(N, np.float16), place="gpu", stop_gradient=False)
    y = paddle.logcumsumexp(x, exclusive=exclusive)
    idx = np.array(CHECK + [N - 1])
    counts = idx if exclusive else idx + 1        # out[k] = log(number of terms)
    with np.errstate(divide="ignore"):
        expected = np.log(counts.astype(np.float64))
    got = _at(y, idx)
    np.testing.assert_allclose(got, expected.astype(np.float16).astype(np.float64), rtol=2e-3, atol=0)
    y.backward(paddle.to_tensor(np.ones(N, np.float16), place="gpu"))
    # x_grad[k] = sum over outputs j holding x[k] of exp(0 - out[j]) = sum 1/(terms of j).
    # Inclusive: out[j] = log(j + 1) for j >= k: H_N - H_k; exclusive: out[j] = log(j) for
    # j > k: H_{N-1} - H_k.
    expected_g = np.array([_harmonic_tail(N - 1 if exclusive else N, k) for k in idx])
    np.testing.assert_allclose(_at(x.grad, idx), expected_g, rtol=4e-3, atol=1e-6)
    del x, y
    _free()


@huge
def test_logcumsumexp_columns_past_2_to_31():
    cols = (1 << 30) + 2
    a = np.zeros((3, cols), np.float16)
    a[2, -1] = 2
    y = paddle.logcumsumexp(paddle.to_tensor(a, place="gpu"), axis=0).numpy()
    expected_last = np.log(np.cumsum(np.exp([0.0, 0.0, 2.0])))
    np.testing.assert_allclose(y[:, -1].astype(np.float64), expected_last, rtol=2e-3)
    np.testing.assert_allclose(y[:, 0].astype(np.float64), np.log([1.0, 2.0, 3.0]), rtol=2e-3)
    _free()


@huge
@pytest.mark.parametrize("reverse", [False, True])
def test_pscan_and_grad_past_2_to_31(reverse):
    # One recurrence of T = 2^31 + 3 steps, gates 1: y is the running sum of x.
    a = paddle.to_tensor(np.ones((1, N), np.float16), place="gpu", stop_gradient=False)
    x = _spike(shape=(1, N, 1))
    x.stop_gradient = False
    y = paddle.pscan(a, x, reverse=reverse)
    idx = np.array(CHECK)
    expected = (idx <= SPIKE) if reverse else (idx >= SPIKE)
    np.testing.assert_array_equal(_at(y, idx), expected.astype(np.float64))
    y.backward(_spike(shape=(1, N, 1)))
    expected_g = (idx >= SPIKE) if reverse else (idx <= SPIKE)
    np.testing.assert_array_equal(_at(x.grad, idx), expected_g.astype(np.float64))
    # a_grad[t] = g[t] * y[t-1] (the step before in scan order): 1 only at the spike's step
    # when both sides meet there, 0 elsewhere.
    ag = a.grad.numpy().reshape(-1)
    assert ag.shape == (N,) and np.isfinite(ag[idx].astype(np.float32)).all()
    del a, x, y
    _free()


# ---- out of memory -------------------------------------------------------------------------

def _fill_device():
    """Hold blocks of 1 GiB, then of halving sizes down to 1 MiB, until none fits: the device
    is then full to within 1 MiB. Returns them (drop them to free)."""
    blocks = []
    size = 1 << 28  # float32 elements: 1 GiB
    while size >= 1 << 18:
        try:
            blocks.append(paddle.empty([size], "float32", place="gpu"))
        except MemoryError:
            size //= 2
        assert len(blocks) < 8192, "allocated too much without MemoryError"
    return blocks


def _scan_cases():
    a2 = lambda: paddle.to_tensor(np.full((4, 1 << 20), 0.5, np.float32), place="gpu")  # noqa: E731
    x3 = lambda: paddle.to_tensor(np.ones((4, 1 << 20, 1), np.float32), place="gpu")  # noqa: E731
    x2 = lambda: paddle.to_tensor(np.ones((4, 1 << 20), np.float32), place="gpu")  # noqa: E731
    return {
        "logcumsumexp": (lambda: (x2(),), lambda x: paddle.logcumsumexp(x, axis=1)),
        "cumsum": (lambda: (x2(),), lambda x: paddle.cumsum(x, axis=1)),
        "pscan": (lambda: (a2(), x3()), lambda a, x: paddle.pscan(a, x)),
        "add": (lambda: (x2(), x2()), paddle.add),
        "sum": (lambda: (x2(),), lambda x: paddle.sum(x, axis=0)),
        "cast": (lambda: (x2(),), lambda x: paddle.cast(x, "float64")),
        "full_like": (lambda: (x2(),), lambda x: paddle.full_like(x, 3.0)),
    }


def test_out_of_memory_names_the_size_and_the_next_call_works():
    with pytest.raises(MemoryError, match=r"1099511627776 bytes"):
        paddle.empty([1 << 38], "float32", place="gpu")
    x = paddle.to_tensor(np.arange(4, dtype=np.float32), place="gpu")
    np.testing.assert_array_equal(paddle.cumsum(x).numpy(), [0, 1, 3, 6])


@pytest.mark.parametrize("op_name", list(_scan_cases()))
@pytest.mark.whole_gpu
def test_op_out_of_memory_then_works(op_name):
    """Each op on a full device: MemoryError naming the bytes it asked for (the output or a
    temporary); once memory is freed the same call gives the right answer."""
    make, op = _scan_cases()[op_name]
    args = make()
    expected = op(*args).numpy()
    blocks = _fill_device()
    try:
        with pytest.raises(MemoryError) as info:
            for _ in range(64):  # the last free bytes may hold a few small results
                keep = op(*args)  # noqa: F841 (held so that memory runs out)
                blocks.append(keep)
        assert re.search(r"\d+ bytes", str(info.value)), str(info.value)
    finally:
        del blocks
        _free()
    np.testing.assert_array_equal(op(*args).numpy(), expected)


@pytest.mark.parametrize("op_name", ["logcumsumexp", "cumsum", "pscan"])
@pytest.mark.whole_gpu
def test_grad_out_of_memory_then_works(op_name):
    make, op = _scan_cases()[op_name]
    args = make()
    for t in args:
        t.stop_gradient = False
    y = op(*args)
    blocks = _fill_device()
    try:
        with pytest.raises(MemoryError, match=r"\d+ bytes"):
            for _ in range(64):
                blocks.append(paddle.grad([y], list(args), retain_graph=True))
    finally:
        del blocks
        _free()
    grads = paddle.grad([y], list(args), retain_graph=True)
    assert all(np.isfinite(g.numpy()).all() for g in grads)
