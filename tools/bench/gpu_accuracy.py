"""Accuracy of the GPU logcumsumexp (forward and gradient) against float64 references, on the
long and awkward rows docs/spec.md §1 names; prints one line per case.

    PYTHONPATH=build/python python3 tools/bench/gpu_accuracy.py [--n-log2 26]

float32: max |out - ref| / max(1, |ref|) (docs/spec.md bound 2.5e-7). float16/bfloat16: the largest
error in units in the last place of the output type, at the reference (docs/spec.md: within one ulp).
Gradient: max |g - ref| / max(|ref|) over the row, against a float64 evaluation of the stable
reverse recurrence.
"""
import argparse

import numpy as np

import paddle_ops as paddle


def lcse64(a, axis=-1):
    return np.logaddexp.accumulate(a.astype(np.float64), axis=axis)


def f32_err(out, ref):
    return float(np.max(np.abs(out.astype(np.float64) - ref) / np.maximum(1.0, np.abs(ref))))


def ulps(out64, ref, mant_bits):
    # ulp of a value v in a format with mant_bits fraction bits: 2^(floor(log2|v|) - mant_bits),
    # subnormals ignored (the references here are far from them).
    mag = np.maximum(np.abs(ref), 1e-30)
    ulp = np.exp2(np.floor(np.log2(mag)) - mant_bits)
    return float(np.max(np.abs(out64 - ref) / ulp))


def grad_ref(x, o, g):
    """float64 gradient of an inclusive forward logcumsumexp along the last axis."""
    acc = np.zeros_like(g)
    run = np.zeros(g.shape[:-1])
    for k in range(g.shape[-1] - 1, -1, -1):
        gate = np.exp(o[..., k] - o[..., k + 1]) if k + 1 < g.shape[-1] else 0.0
        run = g[..., k] + gate * run
        acc[..., k] = run
    return acc * np.exp(x - o)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n-log2", type=int, default=26)
    args = p.parse_args()
    n = 1 << args.n_log2
    rng = np.random.default_rng(1)
    rows = {
        "randn": rng.standard_normal(n).astype(np.float32),
        "ramp 1e-3*k": (np.arange(n) * 1e-3).astype(np.float32),
        "wide 300*randn": (300 * rng.standard_normal(n)).astype(np.float32),
        "descending -1e-3*k": (-np.arange(n) * 1e-3).astype(np.float32),
    }
    for name, a in rows.items():
        ref = lcse64(a)
        for rev in (False, True):
            t = paddle.to_tensor(a, place="gpu")
            out = paddle.logcumsumexp(t, axis=0, reverse=rev).numpy()
            r = ref if not rev else lcse64(a[::-1])[::-1]
            print(f"float32 2^{args.n_log2} row {name:>20s} reverse={rev!s:5}: max err "
                  f"{f32_err(out, r):.3g} * max(1,|ref|)  (bound 2.5e-7)")
    # Columns (axis 0 of [2^k, 64]) and rows of a batch.
    a = rng.standard_normal((1 << 20, 64)).astype(np.float32)
    out = paddle.logcumsumexp(paddle.to_tensor(a, place="gpu"), axis=0).numpy()
    print(f"float32 [2^20, 64] axis 0: max err {f32_err(out, lcse64(a, 0)):.3g} * max(1,|ref|)")
    # 16-bit types on a [4096, 4096] row scan.
    a = rng.standard_normal((4096, 4096)).astype(np.float32)
    for dt, bits in (("float16", 10), ("bfloat16", 7)):
        t = paddle.to_tensor(a, place="gpu").astype(dt)
        x64 = t.astype("float32").numpy().astype(np.float64)  # the rounded input
        ref = lcse64(x64, 1)
        out = paddle.logcumsumexp(t, axis=1).astype("float32").numpy().astype(np.float64)
        print(f"{dt} [4096, 4096] last axis: max error {ulps(out, ref, bits):.3f} ulp of {dt} "
              f"(max abs {np.max(np.abs(out - ref)):.3g})")
    # Gradient on a long row and on columns.
    for shape, axis in (((1 << 18,), 0), ((4, 4099), 1)):
        x = rng.standard_normal(shape).astype(np.float32)
        g = rng.standard_normal(shape).astype(np.float32)
        xt = paddle.to_tensor(x, place="gpu", stop_gradient=False)
        y = paddle.logcumsumexp(xt, axis=axis)
        (gx,) = paddle.grad([y], [xt], [paddle.to_tensor(g, place="gpu")])
        o = lcse64(x, axis)
        ref = grad_ref(x.astype(np.float64), o, g.astype(np.float64))
        err = float(np.max(np.abs(gx.numpy() - ref)) / np.max(np.abs(ref)))
        print(f"float32 gradient {shape}: max |err| / max |ref| = {err:.3g}")


if __name__ == "__main__":
    main()
