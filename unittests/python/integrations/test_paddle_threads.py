"""paddle_ops.set_num_threads reaches the integrations' runtime library (its own copy of the
kernels and of their CPU runtime): each op run through Paddle, in the dynamic graph and by an
Executor, takes paddle_ops' current thread count (the runtime's record of the count it gave
the last op's kernels says so), and the results do not depend on it (bit for bit)."""
import numpy as np
import pytest

from paddle_setup import _runtime, paddle, paddle_ops, po

# Above the CPU kernels' parallel threshold, so that more than one thread does run.
X = np.random.default_rng(3).standard_normal((64, 4096)).astype(np.float32)
COUNTS = [1, 3, 2]  # 3: more than this machine's cores, unlike OMP_NUM_THREADS's default


def _last_threads():
    return _runtime.last_num_threads()  # the runtime instance the extension loaded (same path)


@pytest.fixture
def restore_threads():
    yield
    paddle_ops.set_num_threads(0)  # back to following OMP_NUM_THREADS


def test_eager_ops_take_paddle_ops_thread_count(restore_threads):
    results = {}
    for n in COUNTS:
        paddle_ops.set_num_threads(n)
        x = paddle.to_tensor(X)
        x.stop_gradient = False
        y = po.logcumsumexp(x, axis=1)
        assert _last_threads() == n
        (g,) = paddle.grad(y.sum(), x)  # the grad op runs in the runtime too
        assert _last_threads() == n
        results[n] = (y.numpy(), g.numpy(), po.cumsum(paddle.to_tensor(X), axis=0).numpy())
        assert _last_threads() == n
    for n in COUNTS[1:]:
        for got, want in zip(results[n], results[COUNTS[0]]):
            np.testing.assert_array_equal(got, want)


def test_executor_runs_take_the_count_at_run_time(restore_threads):
    """The count is read when the op runs, not when the program was built."""
    paddle_ops.set_num_threads(1)
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", list(X.shape), "float32")
            y = po.logcumsumexp(x, axis=1)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        outs = {}
        for n in (3, 2):
            paddle_ops.set_num_threads(n)
            (outs[n],) = exe.run(main, feed={"x": X}, fetch_list=[y])
            assert _last_threads() == n
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(outs[3], outs[2])
    np.testing.assert_array_equal(outs[2], paddle_ops.logcumsumexp(paddle_ops.to_tensor(X), axis=1).numpy())


def test_without_a_set_count_it_follows_openmp(restore_threads):
    paddle_ops.set_num_threads(0)
    po.cumsum(paddle.to_tensor(X), axis=1)
    assert _last_threads() == paddle_ops.get_num_threads()
