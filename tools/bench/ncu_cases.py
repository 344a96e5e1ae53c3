"""Runs each named case once after a warm-up, between cudaProfilerStart/Stop, so that Nsight
Compute (`ncu --profile-from-start off`) sees only those kernels:

    ncu --profile-from-start off --set full -o prof python3 tools/bench/ncu_cases.py gla lcse

Cases: gla (seed shape, bf16: forward, then backward), lcse (logcumsumexp float32 on the five
engine shapes of bench_gpu.py, and float16 [4096, 16384]), lcse_grad (its gradient, float32),
lcse16 / lcse64 (logcumsumexp float16 and bfloat16 / float64 on the five shapes), cumsum
(float32 and int64 on the five shapes).
"""
import ctypes
import sys

import numpy as np

import paddle_ops as paddle

_cudart = None


def profiler(on):
    global _cudart
    if _cudart is None:
        for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12"):
            try:
                _cudart = ctypes.CDLL(name)
                break
            except OSError:
                continue
    paddle.device.synchronize()
    if _cudart is not None:
        (_cudart.cudaProfilerStart if on else _cudart.cudaProfilerStop)()


def once(fn, label=None):
    """label: printed before the profiled call ("case: <label>"), so that a reader of ncu's output
    (tools/dev/ncu_table.py) can tell which case each kernel belongs to."""
    fn()  # warm-up (allocations, first launch)
    if label is not None:
        print("case: " + label, flush=True)
    profiler(True)
    fn()
    profiler(False)


def _label(name, shape, axis, dtype):
    return "%s %s %s axis %d elements %d" % (name, dtype, list(shape), axis, int(np.prod(shape)))


def gla():
    rng = np.random.default_rng(0)
    B, T, H, Dk, Dv = 32, 2048, 4, 128, 256
    mk = lambda *s: paddle.to_tensor(rng.standard_normal(s, dtype=np.float32), place="gpu").astype("bfloat16")
    q, k, v = mk(B, H, T, Dk), mk(B, H, T, Dk), mk(B, H, T, Dv)
    g = paddle.to_tensor((-np.logaddexp(0.0, -rng.standard_normal((B, H, T, Dk))) / 16).astype(np.float32),
                         place="gpu").astype("bfloat16")
    once(lambda: paddle.gla(q, k, v, g))
    for t in (q, k, v, g):
        t.stop_gradient = False
    o = paddle.gla(q, k, v, g)
    o = o[0] if isinstance(o, (tuple, list)) else o
    do = mk(B, H, T, Dv)
    once(lambda: paddle.grad([o], [q, k, v, g], [do], retain_graph=True))


SHAPES = [((1 << 26,), 0), ((4096, 16384), 1), ((16384, 4096), 0), ((1 << 20, 64), 1), ((32, 4, 2048, 128), 2)]


def lcse():
    rng = np.random.default_rng(0)
    for shape, axis in SHAPES:
        x = paddle.to_tensor(rng.standard_normal(shape, dtype=np.float32), place="gpu")
        once(lambda: paddle.logcumsumexp(x, axis=axis), _label("logcumsumexp", shape, axis, "float32"))
    x = paddle.to_tensor(rng.standard_normal((4096, 16384), dtype=np.float32), place="gpu").astype("float16")
    once(lambda: paddle.logcumsumexp(x, axis=1), _label("logcumsumexp", (4096, 16384), 1, "float16"))


def _five(dtypes, op):
    rng = np.random.default_rng(0)
    for shape, axis in SHAPES:
        for dt in dtypes:
            a = rng.integers(-1000, 1000, shape) if dt == "int64" else rng.standard_normal(shape, dtype=np.float32)
            x = paddle.to_tensor(a, dtype=dt, place="gpu")
            once(lambda: op(x, axis=axis), _label(getattr(op, "__name__", "op"), shape, axis, dt))
            del x


def lcse16():
    _five(["float16", "bfloat16"], paddle.logcumsumexp)


def lcse64():
    _five(["float64"], paddle.logcumsumexp)


def cumsum():
    _five(["float32", "int64"], paddle.cumsum)


def lcse_grad():
    rng = np.random.default_rng(0)
    for shape, axis in SHAPES:
        x = paddle.to_tensor(rng.standard_normal(shape, dtype=np.float32), place="gpu")
        x.stop_gradient = False
        y = paddle.logcumsumexp(x, axis=axis)
        dy = paddle.to_tensor(rng.standard_normal(shape, dtype=np.float32), place="gpu")
        once(lambda: paddle.grad([y], [x], [dy], retain_graph=True), _label("logcumsumexp grad", shape, axis, "float32"))


if __name__ == "__main__":
    for name in sys.argv[1:] or ["gla", "lcse", "lcse_grad"]:
        globals()[name]()
