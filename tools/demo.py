"""The main job's demo: every op through the Python API on sample data, checked against
NumPy, then a small speed table against NumPy. Exits non-zero if any check fails."""
import os
import sys

import numpy as np

import paddle_ops as paddle

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
import bench_cpu  # noqa: E402

failures = []


def ref_logcumsumexp(x, axis, exclusive=False, reverse=False):
    """float64 reference: log of the cumulative sum of exp, shifted by the max for range."""
    x = np.asarray(x, dtype=np.float64)
    if reverse:
        x = np.flip(x, axis)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    with np.errstate(divide="ignore"):
        out = np.log(np.cumsum(np.exp(x - m), axis=axis)) + m
        if exclusive:
            first = np.full_like(np.take(out, [0], axis=axis), -np.inf)
            out = np.concatenate([first, np.take(out, range(out.shape[axis] - 1), axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


def check(name, got, want, tol):
    got = np.asarray(got, dtype=np.float64)
    fin = np.isfinite(want)
    same_specials = np.array_equal(np.isfinite(got), fin) and np.array_equal(got[~fin], want[~fin])
    err = float(np.max(np.abs(got[fin] - want[fin]) / np.maximum(1, np.abs(want[fin])))) if fin.any() else 0.0
    ok = same_specials and err <= tol
    print(f"  {'ok  ' if ok else 'FAIL'} {name:<58} max rel err {err:.2e} (tol {tol:.0e})")
    if not ok:
        failures.append(name)


def demo_logcumsumexp():
    print("logcumsumexp (docs/spec.md §1)")
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 5)).astype(np.float32)
    x = paddle.to_tensor(a)
    for axis in (0, 1, -1):
        for exclusive in (False, True):
            for reverse in (False, True):
                out = paddle.logcumsumexp(x, axis=axis, exclusive=exclusive, reverse=reverse)
                check(f"[3,5] f32 axis={axis} exclusive={exclusive} reverse={reverse}", out.numpy(),
                      ref_logcumsumexp(a, axis, exclusive, reverse), 2.5e-7)
    check("axis=None flattens", paddle.logcumsumexp(x).numpy(), ref_logcumsumexp(a.reshape(-1), 0), 2.5e-7)
    big = np.arange(10000, 10024, dtype=np.float32)
    check("arange(10000, 10024): no overflow", paddle.logcumsumexp(paddle.to_tensor(big)).numpy(),
          ref_logcumsumexp(big, 0), 2.5e-7)
    for dt in ("float64", "float16", "bfloat16"):
        out = paddle.logcumsumexp(x, axis=1, dtype=dt)
        tol = {"float64": 1e-14, "float16": 1e-3, "bfloat16": 8e-3}[dt]
        # The values (a bfloat16 tensor's numpy() is its uint16 bits, as Paddle's).
        check(f"dtype={dt}", out.astype("float64").numpy(),
              ref_logcumsumexp(paddle.to_tensor(a).astype(dt).astype("float64").numpy(), 1), tol)
    xg = paddle.to_tensor(a, stop_gradient=False)
    y = paddle.logcumsumexp(xg, axis=1)
    g = rng.standard_normal(a.shape)
    (dx,) = paddle.grad([y], [xg], [paddle.to_tensor(g.astype(np.float32))])
    o = ref_logcumsumexp(a, 1)
    want = np.stack([[sum(g[r, j] * np.exp(float(a[r, i]) - o[r, j]) for j in range(i, 5)) for i in range(5)]
                     for r in range(3)])
    check("gradient (mixed-sign out_grad) vs the formula", dx.numpy(), want, 1e-5)


def demo_cumsum():
    print("cumsum (docs/spec.md §2)")
    a = np.arange(12, dtype=np.int64).reshape(3, 4) * 1000003
    x = paddle.to_tensor(a)
    for axis in (0, 1):
        check(f"int64 [3,4] axis={axis}", paddle.cumsum(x, axis=axis).numpy(), np.cumsum(a, axis=axis), 0)
    check("reverse exclusive", paddle.cumsum(x, axis=1, exclusive=True, reverse=True).numpy(),
          np.flip(np.cumsum(np.flip(a, 1), 1), 1) - a, 0)
    f = np.random.default_rng(2).standard_normal(1000)
    check("float64 1-D", paddle.cumsum(paddle.to_tensor(f)).numpy(), np.cumsum(f), 1e-14)
    xg = paddle.to_tensor(f, stop_gradient=False)
    paddle.cumsum(xg).sum().backward()
    check("gradient of sum(cumsum(x)) = n - i", xg.grad.numpy(), np.arange(1000, 0, -1, dtype=np.float64), 0)


def demo_flood():
    print("right_flood and repeat_interleave (docs/spec.md §4, seed 003)")
    x = paddle.to_tensor(np.array([1, 0, 0, 3, 0, 6, 0, 0], np.float32), stop_gradient=False)
    y = paddle.right_flood(x)
    check("seed example: right_flood([1,0,0,3,0,6,0,0])", y.numpy(), np.array([1, 1, 1, 3, 3, 6, 6, 6.]), 0)
    y.sum().backward()
    check("its gradient (sum of the run filled from each source)", x.grad.numpy(),
          np.array([3, 0, 0, 2, 0, 3, 0, 0.]), 0)
    a = np.array([1, np.nan, np.nan, 0, np.nan])
    check("hole='nan' (pandas ffill; zeros are data)", paddle.right_flood(paddle.to_tensor(a), hole="nan").numpy(),
          np.array([1, 1, 1, 0, 0.]), 0)
    _, index = paddle.right_flood(paddle.to_tensor([0, 0, 3, 0, 3]), reverse=True, return_index=True)
    check("reverse, return_index", index.numpy(), np.array([2, 2, 2, 4, 4.]), 0)
    counts = paddle.to_tensor(np.array([3, 2, 3]))
    check("seed decompaction: repeat_interleave([1,3,6], [3,2,3])",
          paddle.repeat_interleave(paddle.to_tensor([1.0, 3.0, 6.0]), counts).numpy(), np.array([1, 1, 1, 3, 3, 6, 6, 6.]), 0)
    v, c = np.array([1.0, 0.0, 5.0, 6.0]), np.array([2, 3, 0, 2])
    check("zero counts and zero-valued data (where the seed's version fails)",
          paddle.repeat_interleave(paddle.to_tensor(v), paddle.to_tensor(c)).numpy(), np.repeat(v, c), 0)


def demo_pscan():
    print("pscan: y[t] = a[t] * y[t-1] + x[t] (docs/spec.md §3, seed 004)")
    rng = np.random.default_rng(0)
    a = rng.uniform(-1.0, 1.0, (2, 50, 1)).astype(np.float64)
    x = rng.standard_normal((2, 50, 3))
    h0 = rng.standard_normal((2, 3))
    y = np.empty_like(x)
    for rev in (False, True):
        prev = h0
        for t in (range(49, -1, -1) if rev else range(50)):
            prev = a[:, t] * prev + x[:, t]
            y[:, t] = prev
        got = paddle.pscan(paddle.to_tensor(a[:, :, 0]), paddle.to_tensor(x), paddle.to_tensor(h0), reverse=rev)
        check("float64, [N, T] gates in [-1, 1], initial_state, reverse=%s" % rev, got.numpy(), y, 1e-14)
    g = rng.uniform(0.0, 1.0, (1, 1 << 16)).astype(np.float32)
    v = np.ones((1, 1 << 16, 1), np.float32)
    got = paddle.pscan(paddle.to_tensor(g), paddle.to_tensor(v)).numpy()
    ref = np.empty(1 << 16)
    prev = 0.0
    for t in range(1 << 16):
        prev = float(g[0, t]) * prev + 1.0
        ref[t] = prev
    check("float32, T = 2^16, gates in (0, 1) (the log-space form overflows)", got[0, :, 0], ref, 4e-6)


def demo_gla():
    print("gla: chunked gated linear attention (docs/spec.md §5, seed 002), against the recurrent form")
    rng = np.random.default_rng(1)
    B, H, T, Dk, Dv = 1, 2, 37, 8, 5
    q, k = rng.standard_normal((B, H, T, Dk)), rng.standard_normal((B, H, T, Dk))
    v = rng.standard_normal((B, H, T, Dv))
    gk = np.log(1 / (1 + np.exp(-rng.standard_normal((B, H, T, Dk))))) / 16  # logsigmoid / 16
    h = np.zeros((B, H, Dk, Dv))
    o = np.empty((B, H, T, Dv))
    for t in range(T):
        h = h * np.exp(gk[:, :, t])[..., None] + k[:, :, t, :, None] * v[:, :, t, None, :]
        o[:, :, t] = np.einsum("bhk,bhkv->bhv", q[:, :, t] * Dk ** -0.5, h)
    for dtype, tol in (("float64", 1e-12), ("float32", 1e-5)):
        got, final = paddle.gla(*(paddle.to_tensor(a.astype(dtype)) for a in (q, k, v, gk)), output_final_state=True)
        check("%s, T = %d (not a multiple of the chunk), odd D: o" % (dtype, T), got.numpy(), o, tol)
        check("%s: final_state (float32, docs/spec.md §5)" % dtype, final.numpy(), h, 1e-5)


def main():
    demo_logcumsumexp()
    demo_cumsum()
    demo_flood()
    demo_pscan()
    demo_gla()
    print()
    print("speed (CPU, float32, ~1M elements per case; tools/bench/bench_cpu.py for the full table)")
    bench_cpu.print_table(bench_cpu.run(bench_cpu.QUICK_CASES, ["float32"], repeat=3))
    print()
    if failures:
        print(f"{len(failures)} check(s) FAILED: {failures}")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
