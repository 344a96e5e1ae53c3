"""No C++ exception leaves an OpenMP parallel region (kernels/util/omp_exception.h): an exception
thrown by a worker thread (std::bad_alloc of a per-thread buffer) once ended the process in
std::terminate; now the region keeps it and it is raised after the region, as a MemoryError.

The throw is forced in a child process: it warms the thread pool up, then lowers its address
space limit (RLIMIT_AS) so that the gradient's output still fits but no thread's accumulator
does, and checks that the call raises MemoryError and that the process goes on working.
"""
import subprocess
import sys
import textwrap

import pytest

from op_test import skip_under_asan


def _child(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)


@skip_under_asan
@pytest.mark.parametrize("threads", [1, 4])
def test_bad_alloc_inside_a_parallel_region_is_a_memory_error(threads):
    # repeat_interleave's tensor-count gradient on the CPU: each thread of its region allocates an
    # accumulator of `inner` doubles (32 MiB here), as large as the float32 x_grad (2 rows). The
    # warm-up's x_grad is kept and the CPU allocator's cache emptied, so the next x_grad takes 32 MiB
    # of new address space; the limit leaves it that and 8 MiB more, so not even one accumulator fits
    # however many threads the region gets. (An earlier version let x_grad come from the cache and
    # left room for one accumulator: on a machine whose region ran on one thread, nothing failed.)
    r = _child("""
        import resource
        import numpy as np
        import paddle_ops as paddle

        def vm_bytes():
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("VmSize:"):
                        return int(line.split()[1]) * 1024
            raise AssertionError("no VmSize")

        paddle.set_num_threads(THREADS)
        inner = 1 << 22
        x = paddle.to_tensor(np.ones((2, inner), np.float32), stop_gradient=False)
        out = paddle.repeat_interleave(x, paddle.to_tensor(np.array([2, 1])), axis=0)  # [3, inner]
        g = paddle.to_tensor(np.arange(3, dtype=np.float32).reshape(3, 1) * np.ones((1, inner), np.float32))
        def grad():
            return paddle.grad([out], [x], grad_outputs=[g], retain_graph=True)[0]
        kept = grad()  # the thread pool and each thread's malloc arena exist from here on
        paddle.device.cpu.empty_cache()
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        # Room for a new x_grad (32 MiB) and 8 MiB more: less than one accumulator (32 MiB).
        resource.setrlimit(resource.RLIMIT_AS, (vm_bytes() + (40 << 20), hard))
        try:
            grad()
            print("no error")
        except MemoryError as e:
            print("MemoryError:", e)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        print("after:", grad().numpy()[:, :3].tolist())
        """.replace("THREADS", str(threads)))
    assert r.returncode == 0, "the process died (rc %d): %s" % (r.returncode, r.stderr[-2000:])
    assert "MemoryError: out of host memory" in r.stdout, r.stdout + r.stderr[-2000:]
    assert "after: [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]" in r.stdout, r.stdout + r.stderr[-2000:]
