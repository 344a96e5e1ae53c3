"""Runs each named case once after a warm-up, between cudaProfilerStart/Stop, so that Nsight
Compute (`ncu --profile-from-start off`) sees only those kernels:

    ncu --profile-from-start off --set full -o prof python3 tools/bench/ncu_cases.py gla lcse

Cases: gla (seed shape, bf16: forward, then backward), lcse (logcumsumexp float32 on the five
engine shapes of bench_gpu.py, and float16 [4096, 16384]), lcse_grad (its gradient, float32),
lcse16 / lcse64 (logcumsumexp float16 and bfloat16 / float64 on the five shapes), cumsum
(float32 and int64 on the five shapes), pscan, flood (right_flood) and rint (repeat_interleave) on
their benchmarks' shapes. Each profiled call is announced by a line "case: ..." (ncu_table.py).
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


_MARKER_PTX = b""".version 7.0
.target sm_50
.address_size 64
.visible .entry ncu_case_marker()
{
ret;
}
"""
_marker = None


def marker():
    """Launches an empty kernel named ncu_case_marker (the driver API through ctypes, on the primary
    context the library's runtime calls use): ncu prints its rows after the application's output,
    so tools/dev/ncu_table.py opens a case at each marker launch. False where it cannot."""
    global _marker
    if _marker is None:
        _marker = False
        try:
            cu = ctypes.CDLL("libcuda.so.1")
            dev, ctx, mod, fn = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
            ok = (cu.cuInit(0) == 0 and cu.cuDeviceGet(ctypes.byref(dev), 0) == 0
                  and cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0 and cu.cuCtxSetCurrent(ctx) == 0
                  and cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(_MARKER_PTX)) == 0
                  and cu.cuModuleGetFunction(ctypes.byref(fn), mod, b"ncu_case_marker") == 0)
            if ok:
                _marker = (cu, fn)
        except OSError:
            pass
    if not _marker:
        return False
    cu, fn = _marker
    one = ctypes.c_uint(1)
    rc = cu.cuLaunchKernel(fn, one, one, one, one, one, one, ctypes.c_uint(0), None, None, None)
    return rc == 0 and cu.cuCtxSynchronize() == 0


def once(fn, label=None):
    """label: printed before the profiled call ("case: <label>"), and an empty marker kernel
    launched first inside the profiled range, so that a reader of ncu's output
    (tools/dev/ncu_table.py) can tell which case each kernel belongs to."""
    fn()  # warm-up (allocations, first launch)
    if label is not None:
        print("case: " + label, flush=True)
    profiler(True)
    if label is not None and not marker():
        print("ncu_cases: no marker kernel (case lines only)", flush=True)
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


def pscan():
    """bench_pscan.py's GPU shapes: the seed's (a [4, T], x [4, T, 4096], T = 8192) and rows
    (a, x [8 * 1536, 8192, 1]); elements: those of x."""
    rng = np.random.default_rng(0)
    for label, (N, T, D, per_step) in (("seed", (4, 8192, 4096, True)), ("rows", (8 * 1536, 8192, 1, False))):
        x = paddle.to_tensor(rng.standard_normal((N, T, D), dtype=np.float32), place="gpu")
        a = paddle.to_tensor(rng.uniform(0.999, 1.0, size=(N, T) if per_step else (N, T, D)).astype(np.float32),
                             place="gpu")
        once(lambda: paddle.pscan(a, x), "pscan %s float32 %s axis 1 elements %d" % (label, [N, T, D], N * T * D))
        del a, x


def flood():
    """right_flood (forward, with its index, the gradient) on bench_flood.py's shapes (70 % holes)."""
    rng = np.random.default_rng(0)
    for shape, axis in (((1 << 26,), 0), ((4096, 16384), 1), ((16384, 4096), 0)):
        a = rng.standard_normal(shape).astype(np.float32)
        a[rng.random(shape) < 0.7] = 0.0
        x = paddle.to_tensor(a, place="gpu")
        once(lambda: paddle.right_flood(x, axis=axis), _label("right_flood", shape, axis, "float32"))
        once(lambda: paddle.right_flood(x, axis=axis, return_index=True),
             _label("right_flood index", shape, axis, "float32"))
        xg = paddle.to_tensor(a, place="gpu", stop_gradient=False)
        g = paddle.to_tensor(rng.standard_normal(shape).astype(np.float32), place="gpu")
        y = paddle.right_flood(xg, axis=axis)
        once(lambda: paddle.grad([y], [xg], [g], retain_graph=True), _label("right_flood grad", shape, axis, "float32"))
        del x, xg, g, y


def rint():
    """repeat_interleave on bench_flood.py's cases: int64 counts from {0, 1, 2, 3} (1-D 2^24,
    [2^16, 256] axis 0) and int repeats 2 (1-D 2^24); elements: those of the output."""
    rng = np.random.default_rng(0)
    for shape, axis, kind in (((1 << 24,), 0, "counts"), ((1 << 16, 256), 0, "counts"), ((1 << 24,), 0, 2)):
        x = paddle.to_tensor(rng.standard_normal(shape).astype(np.float32), place="gpu")
        if kind == "counts":
            c = rng.integers(0, 4, size=shape[axis]).astype(np.int64)
            reps, total = paddle.to_tensor(c, place="gpu"), int(c.sum())
        else:
            reps, total = kind, shape[axis] * kind
        out = int(np.prod(shape)) // shape[axis] * total
        once(lambda: paddle.repeat_interleave(x, reps, axis=axis),
             "repeat_interleave %s float32 %s axis %d elements %d" % (kind, list(shape), axis, out))
        del x


if __name__ == "__main__":
    for name in sys.argv[1:] or ["gla", "lcse", "lcse_grad"]:
        globals()[name]()
