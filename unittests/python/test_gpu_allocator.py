"""The GPU caching allocator (issue 17 item 11; paddle_ops/core/gpu/block_pool.h): blocks cut
from segments with size classes, splitting and merging, free segments given back before a new
one is asked for; its statistics as paddle.device.cuda.memory_reserved / memory_allocated /
max_memory_reserved / max_memory_allocated. Each test runs in a child process (the counts
start from a fresh allocator). They need a GPU and skip, saying so, without one; the
bookkeeping itself is tested on the CPU in unittests/cpp/test_block_pool.cc.
"""
import subprocess
import sys
import textwrap

import pytest

import paddle_ops as paddle
from op_test import gpu_available

pytestmark = pytest.mark.skipif(not gpu_available(),
                                reason="no GPU: paddle_ops is not compiled with CUDA or no device is present")


def _child(code):
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=500)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    return r.stdout


def test_statistics_follow_tensors():
    out = _child("""
        import paddle_ops as paddle
        cuda = paddle.device.cuda
        assert cuda.memory_reserved() == 0 and cuda.memory_allocated() == 0
        a = paddle.empty([1000], 'float32', place='gpu')          # 4000 B -> 4096, small pool
        assert cuda.memory_allocated() == 4096, cuda.memory_allocated()
        assert cuda.memory_reserved() == 2 << 20, cuda.memory_reserved()
        b = paddle.empty([3 << 20], 'float32', place='gpu')       # 12 MiB: a 12 MiB segment
        assert cuda.memory_allocated() == 4096 + (12 << 20)
        assert cuda.memory_reserved() == (2 << 20) + (12 << 20)
        del b
        assert cuda.memory_allocated() == 4096
        assert cuda.memory_reserved() == (14 << 20)               # cached
        assert cuda.max_memory_allocated() == 4096 + (12 << 20)
        c = paddle.empty([1 << 20], 'float32', place='gpu')       # 4 MiB, cut from the cached segment
        assert cuda.memory_reserved() == (14 << 20)
        cuda.reset_max_memory_allocated()
        assert cuda.max_memory_allocated() == cuda.memory_allocated() == 4096 + (4 << 20)
        del c
        cuda.empty_cache()                                        # the free 12 MiB segment goes back
        assert cuda.memory_reserved() == 2 << 20, cuda.memory_reserved()
        assert cuda.max_memory_reserved() == 14 << 20
        assert cuda.memory_allocated(0) == cuda.memory_allocated('gpu:0') == 4096
        print("ok")
        """)
    assert "ok" in out


def test_varying_sizes_keep_reserved_within_twice_peak_in_use():
    """1,000 tensors of sizes uniform in log from 1 KiB to 256 MiB (fixed seed), at most 8
    alive: the memory reserved never exceeds twice the most bytes in use at any moment. The
    exact-size cache this replaced kept a block of every size seen (734 distinct sizes here,
    18.7 GiB in all)."""
    out = _child("""
        import numpy as np
        import paddle_ops as paddle
        cuda = paddle.device.cuda
        rng = np.random.default_rng(17)
        sizes = np.exp(rng.uniform(np.log(1024), np.log(256 << 20), 1000)).astype(np.int64)
        alive, in_use, peak_in_use, peak_reserved = [], 0, 0, 0
        for nbytes in sizes:
            if len(alive) == 8:
                t = alive.pop(int(rng.integers(8)))
                in_use -= t.size
                del t
            t = paddle.empty([int(nbytes)], 'uint8', place='gpu')
            alive.append(t)
            in_use += int(nbytes)
            peak_in_use = max(peak_in_use, in_use)
            peak_reserved = max(peak_reserved, cuda.memory_reserved())
        assert cuda.max_memory_reserved() == peak_reserved
        print("peak in use %.1f MiB, peak reserved %.1f MiB, ratio %.3f" % (
            peak_in_use / 2**20, peak_reserved / 2**20, peak_reserved / peak_in_use))
        assert peak_reserved <= 2 * peak_in_use, (peak_reserved, peak_in_use)
        """)
    print(out)
    assert "ratio" in out


def test_cached_memory_is_reused_and_results_stay_right():
    """Blocks cut from shared segments hold their own data: tensors made, freed and made again
    in varying sizes keep their values (a block handed out twice would mix them)."""
    _child("""
        import numpy as np
        import paddle_ops as paddle
        rng = np.random.default_rng(3)
        kept = []
        for i in range(200):
            n = int(rng.integers(1, 300000))
            a = rng.standard_normal(n).astype(np.float32)
            x = paddle.to_tensor(a, place='gpu')
            kept.append((a, x))
            if len(kept) > 6:
                kept.pop(int(rng.integers(len(kept))))
            for a2, x2 in kept:
                np.testing.assert_array_equal(x2.numpy(), a2)
        y = paddle.cumsum(paddle.to_tensor(np.ones((64, 4096), np.float32), place='gpu'), axis=1)
        np.testing.assert_array_equal(y.numpy()[:, -1], np.full(64, 4096, np.float32))
        """)


def test_out_of_memory_is_memory_error_and_allocator_recovers():
    out = _child("""
        import paddle_ops as paddle
        cuda = paddle.device.cuda
        keep = paddle.empty([64 << 20], 'float32', place='gpu')
        try:
            paddle.empty([1 << 48], 'uint8', place='gpu')
            print("no error")
        except MemoryError as e:
            msg = str(e)
            assert "out of GPU memory" in msg and "GiB" in msg, msg
            print("MemoryError")
        del keep
        x = paddle.empty([1 << 20], 'float32', place='gpu')
        assert cuda.memory_allocated() == 4 << 20
        """)
    assert "MemoryError" in out


def test_calls_alternating_streams_move_free_segments_instead_of_asking_again():
    """Calls that alternate between our stream and the legacy default stream (torch's, which
    the torch ops push) with a 64 MiB output each: past the 1.5x bound the free segment of the
    other stream moves over behind an event (block_pool.h), where it was given back and asked
    for again (a cudaFree, which waits for the device, and a cudaMalloc) at each switch; the
    outputs stay right."""
    out = _child("""
        import numpy as np
        import paddle_ops as paddle
        from paddle_ops import _C
        x = paddle.to_tensor(np.arange(1024, dtype=np.float32), place='gpu')
        want = np.repeat(np.arange(1024, dtype=np.float32), 16384)
        before = _C.gpu_memory_stats(0)
        for i in range(8):
            if i % 2:
                _C._gpu_push_stream(0, 0)  # the legacy default stream
            try:
                y = paddle.repeat_interleave(x, 16384)  # 64 MiB, its block from this stream's pool
                got = y.numpy()  # read on the same stream
                del y
            finally:
                if i % 2:
                    _C._gpu_pop_stream()
            assert np.array_equal(got, want), i
        after = _C.gpu_memory_stats(0)
        print("allocs", after[4] - before[4], "moves", after[5] - before[5])
        """)
    allocs, moves = (int(v) for v in out.split()[1::2])
    assert moves >= 6, out
    assert allocs <= 2, out
