"""The CPU allocator's cache of large freed blocks (paddle_ops/core/core.cc): a freed block of
1 MiB or more is reused by the next tensor of its size, the cache never holds more than its
limit, emptying it returns everything, and a reused block gives the same results as a fresh
one. Each case runs in a fresh interpreter so that the limit (PADDLE_OPS_CPU_CACHE_MB) and the
cache start from a known state."""
import os
import subprocess
import sys
import textwrap

import numpy as np

import paddle_ops as paddle


def run_with_limit(mb, code):
    env = dict(os.environ, PADDLE_OPS_CPU_CACHE_MB=str(mb))
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_freed_block_is_cached_reused_and_released():
    out = run_with_limit(64, """
        import numpy as np
        import paddle_ops as paddle
        c = paddle.device.cpu
        assert c.cache_limit() == 64 << 20, c.cache_limit()
        a = np.random.default_rng(0).standard_normal(1 << 20).astype(np.float32)  # 4 MiB
        x = paddle.to_tensor(a)
        y = paddle.cumsum(x, axis=0)
        del y
        held = c.cached_bytes()
        assert held >= 4 << 20, held
        y = paddle.cumsum(x, axis=0)             # reuses the block: the cache shrinks by it
        assert c.cached_bytes() == held - (4 << 20), (c.cached_bytes(), held)
        np.testing.assert_allclose(y.numpy(), np.cumsum(a, dtype=np.float64), rtol=1e-5, atol=1e-3)
        z = paddle.logcumsumexp(x, axis=0)      # a fresh block after the reused one
        del z
        z = paddle.logcumsumexp(x, axis=0)      # a reused block: the same bits
        w = paddle.logcumsumexp(paddle.to_tensor(a), axis=0)
        np.testing.assert_array_equal(z.numpy(), w.numpy())
        c.empty_cache()
        assert c.cached_bytes() == 0
        print("ok")
    """)
    assert out.strip() == "ok"


def test_cache_never_exceeds_its_limit():
    out = run_with_limit(64, """
        import numpy as np
        import paddle_ops as paddle
        ts = [paddle.zeros([5 << 20], dtype="float32") if hasattr(paddle, "zeros") else
              paddle.to_tensor(np.zeros(5 << 20, np.float32)) for _ in range(6)]   # 20 MiB each
        del ts
        held = paddle.device.cpu.cached_bytes()
        assert 0 < held <= 64 << 20, held
        print("ok")
    """)
    assert out.strip() == "ok"


def test_limit_zero_turns_the_cache_off():
    out = run_with_limit(0, """
        import numpy as np
        import paddle_ops as paddle
        x = paddle.to_tensor(np.ones(1 << 21, np.float32))
        y = paddle.cumsum(x, axis=0)
        del x, y
        assert paddle.device.cpu.cached_bytes() == 0
        assert paddle.device.cpu.cache_limit() == 0
        print("ok")
    """)
    assert out.strip() == "ok"


def test_cache_functions_in_this_process():
    assert paddle.device.cpu.cache_limit() >= 0
    paddle.device.cpu.empty_cache()
    assert paddle.device.cpu.cached_bytes() == 0


def test_bad_limit_fails_the_import():
    """The limit is parsed strictly: -1 (once an unlimited cache) or a word fails the import with
    a ValueError naming the variable and the accepted values."""
    for bad in ("-1", "abc"):
        env = dict(os.environ, PADDLE_OPS_CPU_CACHE_MB=bad)
        r = subprocess.run([sys.executable, "-c", "import paddle_ops"], env=env, capture_output=True, text=True,
                           timeout=300)
        assert r.returncode != 0
        assert "ValueError" in r.stderr and f"PADDLE_OPS_CPU_CACHE_MB='{bad}'" in r.stderr, r.stderr
        assert "an integer from 0 to" in r.stderr, r.stderr
