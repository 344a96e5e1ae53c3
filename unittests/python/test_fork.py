"""A child of fork() (os.fork, multiprocessing's 'fork' start method) of a process that used the
CPU ops must work: GNU OpenMP's thread pool does not survive a fork, so without an at-fork
handler the child slept for ever in its first parallel
region. Now (paddle_ops/core/cpu_threads.cc) the child runs the CPU kernels on one thread and
gives the parent's results. A
child that touches the GPU after its parent initialized CUDA gets a RuntimeError that says so
(paddle_ops/core/gpu/fork_guard.cc).

Each case runs in a fresh interpreter with a timeout, so a hang fails the test instead of
hanging the suite."""
import os
import signal
import subprocess
import sys
import tempfile
import textwrap

import pytest

from op_test import gpu_available

TIMEOUT = 60


def run(code):
    # (a script file, not -c: multiprocessing's spawn start method re-imports the main module)
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "child.py")
        with open(script, "w") as f:
            f.write(textwrap.dedent(code))
        # its own process group, so that a hang takes its forked children down with it
        p = subprocess.Popen([sys.executable, script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            pytest.fail(f"hung (no answer in {TIMEOUT} s): {out}")
    assert p.returncode == 0, out
    return out


# The parent uses every kind of parallel region (the scan driver, elementwise broadcasting,
# reductions, gla), then forks; the child must get the parent's results (bitwise: results never
# depend on the thread count).
PARENT = """
    import os, sys
    import numpy as np
    import paddle_ops as paddle
    {setup}
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((64, 4096)).astype(np.float32)

    def work():
        x = paddle.to_tensor(xs)
        out = [paddle.logcumsumexp(x, axis=1), paddle.cumsum(x, axis=0), x + 1.0,
               (x * x).sum(axis=1), paddle.repeat_interleave(x, 2, axis=0).sum(axis=0)]
        return [o.numpy() for o in out]

    before = work()
"""


@pytest.mark.parametrize("setup", ["", "paddle.set_num_threads(2)", "paddle.set_num_threads(1)"])
def test_os_fork_child_runs_cpu_ops(setup):
    out = run(PARENT.format(setup=setup) + """
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            after = work()
            same = all(np.array_equal(a, b) for a, b in zip(before, after))
            code = 0 if same and paddle.get_num_threads() == 1 else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    print("child", os.waitstatus_to_exitcode(status))
    # the parent keeps its threads and its results
    assert all(np.array_equal(a, b) for a, b in zip(before, work()))
    """)
    assert "child 0" in out, out


def test_multiprocessing_fork_pool_runs_cpu_ops():
    out = run(PARENT.format(setup="") + """
    import multiprocessing as mp

    def task(i):
        x = paddle.to_tensor(xs[i:i + 8])
        return paddle.logcumsumexp(x, axis=1).numpy()

    if __name__ == "__main__":
        ctx = mp.get_context("fork")
        with ctx.Pool(2) as pool:
            got = pool.map(task, [0, 8, 16])
        for i, g in zip([0, 8, 16], got):
            assert np.array_equal(g, before[0][i:i + 8]), i
        print("ok")
    """)
    assert "ok" in out


def test_child_set_num_threads_stays_single_threaded():
    out = run(PARENT.format(setup="") + """
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            paddle.set_num_threads(4)  # accepted, but the child's pool cannot be rebuilt
            after = work()
            code = 0 if all(np.array_equal(a, b) for a, b in zip(before, after)) else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    print("child", os.waitstatus_to_exitcode(status))
    """)
    assert "child 0" in out, out


@pytest.mark.skipif(not gpu_available(), reason="no GPU: paddle_ops is not compiled with CUDA or no device is present")
def test_gpu_in_forked_child_after_parent_used_cuda_is_a_clear_error():
    out = run("""
    import os
    import numpy as np
    import paddle_ops as paddle
    x = paddle.to_tensor(np.arange(8, dtype=np.float32), place="gpu")
    y = paddle.cumsum(x, axis=0).numpy()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            try:
                paddle.cumsum(paddle.to_tensor(np.ones(4, np.float32), place="gpu"), axis=0).numpy()
                code = 3  # no error
            except RuntimeError as e:
                msg = str(e)
                code = 0 if "fork" in msg and "spawn" in msg and "CUDA" in msg else 4
                print(msg, flush=True)
            # the CPU still works in that child
            assert np.array_equal(paddle.cumsum(paddle.to_tensor(np.ones(4, np.float32)), axis=0).numpy(),
                                  np.arange(1, 5, dtype=np.float32))
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    print("child", os.waitstatus_to_exitcode(status))
    # the parent keeps its GPU
    assert np.array_equal(paddle.cumsum(x, axis=0).numpy(), y)
    """)
    assert "child 0" in out, out


@pytest.mark.skipif(not gpu_available(), reason="no GPU: paddle_ops is not compiled with CUDA or no device is present")
def test_gpu_in_spawned_child_works():
    out = run("""
    import multiprocessing as mp
    import numpy as np
    import paddle_ops as paddle

    def task(n):
        return paddle.cumsum(paddle.to_tensor(np.ones(n, np.float32), place="gpu"), axis=0).numpy()

    if __name__ == "__main__":
        paddle.to_tensor(np.ones(4, np.float32), place="gpu").numpy()  # CUDA initialized in the parent
        with mp.get_context("spawn").Pool(1) as pool:
            got = pool.map(task, [5])
        assert np.array_equal(got[0], np.arange(1, 6, dtype=np.float32))
        print("ok")
    """)
    assert "ok" in out
