"""cast between float32 and float16 / bfloat16 on the CPU: the run-time dispatched vector
conversions (kernels/funcs/simd/convert.h) against the scalar path, all in the same run (the flag
PADDLE_OPS_CPU_ISA caps the instruction set: baseline, avx2, avx512), with a copy of the input
(NumPy) for scale and NumPy's own float32 <-> float16 astype.

    PYTHONPATH=build/python python3 tools/bench/bench_cast_cpu.py [--n 16777216] [--threads 1]
        [--repeat 7 --batch 5]

Columns: ns per element for each path (on a CPU without a set, its column repeats the widest
path the CPU has: the flag caps, it does not fail), the speed-up of the widest path over the
scalar one, and the copy's (into a preallocated array) and NumPy's ns per element.
"""
import argparse

import numpy as np

import paddle_ops as paddle
from bench_common import batch_ms

ISAS = ("baseline", "avx2", "avx512")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--batch", type=int, default=5)
    args = ap.parse_args()
    paddle.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    n = args.n
    x32 = rng.standard_normal(n).astype(np.float32)
    cases = [
        ("float32 -> float16", x32, "float16", lambda: x32.astype(np.float16)),
        ("float32 -> bfloat16", x32, "bfloat16", None),
        ("float16 -> float32", x32.astype(np.float16), "float32", None),
        ("bfloat16 -> float32", None, "float32", None),
    ]
    x16 = cases[2][1]
    cases[2] = ("float16 -> float32", x16, "float32", lambda: x16.astype(np.float32))
    saved = paddle.get_flags()
    print(f"n = {n}, threads = {paddle.get_num_threads()}, ns per element (median of {args.repeat} x {args.batch})")
    header = "| conversion | " + " | ".join(ISAS) + " | widest / scalar | copy of the input | NumPy astype |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    try:
        for label, host, dst, numpy_fn in cases:
            if host is None:
                t = paddle.to_tensor(x32).cast("bfloat16")
                copy_src = t.numpy()  # its uint16 bits (Paddle's convention): the copy below moves 2 bytes each
            else:
                t = paddle.to_tensor(host)
                copy_src = host
            ns = {}
            for isa in ISAS:
                paddle.set_flags({"PADDLE_OPS_CPU_ISA": isa})
                ns[isa] = batch_ms(lambda: t.cast(dst), lambda: None, args.repeat, args.batch) * 1e6 / n
            copy_dst = np.empty_like(copy_src)  # preallocated: the copy pays no page faults
            copy_ns = batch_ms(lambda: np.copyto(copy_dst, copy_src), lambda: None, args.repeat, args.batch) * 1e6 / n
            np_ns = (batch_ms(numpy_fn, lambda: None, args.repeat, args.batch) * 1e6 / n) if numpy_fn else None
            widest = ns["avx512"]
            print(f"| {label} | " + " | ".join(f"{ns[i]:.3f}" for i in ISAS) +
                  f" | {ns['baseline'] / widest:.1f}x | {copy_ns:.3f} | " +
                  ("-" if np_ns is None else f"{np_ns:.3f}") + " |", flush=True)
    finally:
        paddle.set_flags(saved)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
