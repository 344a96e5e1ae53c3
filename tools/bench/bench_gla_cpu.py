"""gla on the CPU, float32: the chunked form and the recurrent form, each on every instruction set
the CPU runs (the flag PADDLE_OPS_CPU_ISA: baseline, avx2, avx512; kernels/gla/chunk_cpu.h), in
the same run, with each form's FLOP count and the core's measured FMA peak.

    PYTHONPATH=build/python python3 tools/bench/bench_gla_cpu.py [--quick] [--repeat 5]
        [--threads 1] [--backward] [--strong-gates] [--json out.json]

Columns: shape, form, instruction set, ms (median wall time of --repeat calls), cpu ms (the
calling thread's CPU time, the smallest of the calls: time the scheduler gave to other jobs does
not count; with --threads 1 the whole kernel runs on that thread), GFLOP/s and % of peak from the
cpu ms (wall ms with more threads), and the speed-up over the recurrent form on the same
instruction set and over the recurrent form of the baseline build.

FLOPs (multiply and add each count one; exps, casts and the element-wise scalings by the decays
are not counted), per head:
  recurrent  5 T Dk Dv: each step decays and updates the state (S a + k v: 3 per element) and
             reads o out of it (2 per element).
  chunked    per chunk of L steps (L = 32, 16-step secondary chunks): o = (q exp(B)) S and the
             state's update k^T v, 2 L Dk Dv each, plus Dk Dv for the state's decay; the scores
             below the diagonal blocks, 2 x 16 x 16 Dk per earlier secondary chunk; the diagonal
             blocks, 3 Dk per pair (a product of three) plus Dk per running decay product; and
             the causal scores times v, L (L + 1) Dv.
The peak: fma_peak.c (beside this file), built with the system C compiler and run on the
calling thread's CPU time: 12 independent chains of 256-bit and of 512-bit FMAs, the larger
figure (2 FLOPs per lane). Without a compiler, the column is left out.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

import numpy as np

import paddle_ops as paddle
from paddle_ops._cpu_info import supported_isas

CHUNK, SUB = 32, 16
CASES = [("target", 1, 4, 2048, 128, 128), ("D64", 1, 4, 2048, 64, 64), ("D256", 1, 2, 2048, 256, 256)]
QUICK = [("target", 1, 4, 2048, 128, 128)]
ISAS = ("baseline", "avx2", "avx512")


def recurrent_flops(B, H, T, Dk, Dv):
    return 5 * B * H * T * Dk * Dv


def chunked_flops(B, H, T, Dk, Dv):
    total = 0
    for t0 in range(0, T, CHUNK):
        L = min(CHUNK, T - t0)
        f = 4 * L * Dk * Dv + Dk * Dv + L * (L + 1) * Dv
        for a0 in range(0, L, SUB):
            a1 = min(L, a0 + SUB)
            f += 2 * (a1 - a0) * a0 * Dk
            n = a1 - a0
            f += 3 * Dk * n * (n + 1) // 2 + Dk * n * (n - 1) // 2
        total += f
    return B * H * total


def fma_peak():
    """GFLOP/s of the FMA loop (fma_peak.c), the larger of its 256- and 512-bit builds; None
    without a C compiler or on a CPU without AVX2."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fma_peak.c")
    if cc is None:
        return None, "no C compiler"
    best, how = None, ""
    with tempfile.TemporaryDirectory() as d:
        for flags, label in ((["-mavx2", "-mfma"], "256-bit"), (["-mavx2", "-mfma", "-mavx512f", "-DWIDE=16"], "512-bit")):
            exe = os.path.join(d, "fma" + label)
            try:
                subprocess.run([cc, "-O2", *flags, src, "-o", exe], check=True, capture_output=True)
                out = subprocess.run(["taskset", "-c", str(os.sched_getaffinity(0).pop()), exe] if shutil.which("taskset")
                                     else [exe], check=True, capture_output=True, text=True, timeout=120).stdout
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError):
                continue  # the compiler lacks the flags, or the CPU the instructions
            g = float(out.split()[0])
            if best is None or g > best:
                best, how = g, label
    return best, how


def time_call(fn, repeat):
    """(median wall ms, smallest thread-CPU ms) over `repeat` calls, after one warm-up call."""
    fn()
    wall, cpu = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.thread_time()
        fn()
        cpu.append((time.thread_time() - c0) * 1e3)
        wall.append((time.perf_counter() - w0) * 1e3)
    return statistics.median(wall), min(cpu)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="only the target shape B1 H4 T2048 D128")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--backward", action="store_true", help="also time forward+backward (paddle.grad)")
    ap.add_argument("--strong-gates", action="store_true",
                    help="gk = logsigmoid(x) instead of logsigmoid(x) / 16: most channels have gates below "
                         "-0.5, whose float32 recurrent backward keeps a float64 state (docs/spec.md §5)")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args()
    paddle.set_num_threads(args.threads)
    peak, how = fma_peak()
    one_thread = paddle.get_num_threads() == 1
    print(f"threads {paddle.get_num_threads()}; FMA peak of one core: "
          + (f"{peak:.1f} GFLOP/s (fma_peak.c, {how})" if peak else f"not measured ({how})"))
    if not one_thread:
        print("(more than one thread: GFLOP/s from wall time, % of peak against one core's peak x threads)")
    cols = ["shape", "form", "isa", "ms", "cpu ms", "GFLOP/s", "% of peak", "x recurrent (same isa)",
            "x recurrent (baseline)"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    rng = np.random.default_rng(0)
    saved = paddle.get_flags()
    rows = []
    try:
        for label, B, H, T, Dk, Dv in (QUICK if args.quick else CASES):
            q = paddle.to_tensor(rng.standard_normal((B, H, T, Dk), dtype=np.float32), stop_gradient=False)
            k = paddle.to_tensor(rng.standard_normal((B, H, T, Dk), dtype=np.float32), stop_gradient=False)
            v = paddle.to_tensor(rng.standard_normal((B, H, T, Dv), dtype=np.float32), stop_gradient=False)
            x = rng.standard_normal((B, H, T, Dk))
            g = paddle.to_tensor((-np.logaddexp(0.0, -x) / (1 if args.strong_gates else 16)).astype(np.float32),
                                 stop_gradient=False)
            do = paddle.to_tensor(rng.standard_normal((B, H, T, Dv), dtype=np.float32))
            shape = f"B{B} H{H} T{T} Dk{Dk} Dv{Dv}"
            flops = {"recurrent": recurrent_flops(B, H, T, Dk, Dv), "chunked": chunked_flops(B, H, T, Dk, Dv)}
            rec = {}
            for isa in supported_isas():
                for form in ("recurrent", "chunked"):
                    paddle.set_flags({"PADDLE_OPS_GLA_CPU": form, "PADDLE_OPS_CPU_ISA": isa})
                    with paddle.no_grad():
                        wall, cpu = time_call(lambda: paddle.gla(q, k, v, g), args.repeat)
                    ms = cpu if one_thread else wall
                    gflops = flops[form] / ms * 1e-6
                    if form == "recurrent":
                        rec[isa] = ms
                    row = {"shape": shape, "form": form, "isa": isa, "ms": wall, "cpu_ms": cpu, "gflops": gflops,
                           "pct_peak": 100 * gflops / (peak * paddle.get_num_threads()) if peak else None,
                           "x_rec_same": rec[isa] / ms, "x_rec_baseline": rec["baseline"] / ms}
                    if args.backward:
                        def fwd_bwd():
                            o, _ = paddle.gla(q, k, v, g)
                            return paddle.grad([o], [q, k, v, g], [do])
                        row["fwdbwd_ms"], row["fwdbwd_cpu_ms"] = time_call(fwd_bwd, args.repeat)
                    rows.append(row)
                    pct = "-" if row["pct_peak"] is None else f"{row['pct_peak']:.0f}%"
                    extra = (f" fwd+bwd {row['fwdbwd_ms']:.1f} ms (cpu {row['fwdbwd_cpu_ms']:.1f})"
                             if args.backward else "")
                    print(f"| {shape} | {form} | {isa} | {wall:.1f} | {cpu:.1f} | {gflops:.1f} | {pct} | "
                          f"{row['x_rec_same']:.2f} | {row['x_rec_baseline']:.2f} |{extra}", flush=True)
    finally:
        paddle.set_flags(saved)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"peak_gflops": peak, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
