"""CPU benchmark of the scan ops (ns per element, x memcpy of the same buffer, against NumPy,
torch and real PaddlePaddle's logcumsumexp when importable), all measured in one run.

    PYTHONPATH=build/python python3 tools/bench/bench_cpu.py [--quick] [--json out.json]
    PYTHONPATH=build/python python3 tools/bench/bench_cpu.py --overhead [--calls N] [--rounds R]

--overhead prints only the per-call overhead of the public functions instead: µs per call on
small tensors (16 elements; gla [1, 1, 16, 16]) of the direct call (_C.ops, every argument
given), of the public function (paddle.logcumsumexp(x, 0): the front door's fast path), of the
front door's full path (_front_native.call, the table read for the call: what every call cost
before the fast path) and public - direct, the median of --rounds rounds, the variants
interleaved in each round.

Threads: the main figures use the engine's current thread count (OMP_NUM_THREADS, or
--threads); with --scaling each case's logcumsumexp and cumsum are also timed with 1 and 2
threads (paddle_ops.set_num_threads) and the speed-ups printed. --isa sets PADDLE_OPS_CPU_ISA
(auto, avx512, avx2, baseline = the generic engine) for every figure of ours. Each figure is the median of --repeat
runs after a warm-up. The output tensor is allocated by every call (as NumPy's and torch's
are), so page faults of a fresh allocation are part of every op's time but not of the copy.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

import paddle_ops as paddle
from bench_common import interleaved, write_json

FULL_CASES = [("1-D 2^24", (1 << 24,), 0), ("[1024, 16384], last", (1024, 16384), 1),
              ("[16384, 1024], axis 0", (16384, 1024), 0), ("[262144, 64], last", (262144, 64), 1)]
QUICK_CASES = [("1-D 2^20", (1 << 20,), 0), ("[256, 4096], last", (256, 4096), 1),
               ("[4096, 256], axis 0", (4096, 256), 0), ("[16384, 64], last", (16384, 64), 1)]


def median_time(fn, repeat):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def try_torch():
    try:
        import torch  # noqa: F401
        return torch
    except Exception:
        return None


def try_real_paddle():
    """PaddlePaddle itself (pip install paddlepaddle==3.3.1), on its CPU place, when importable."""
    try:
        import paddle as real_paddle
        if not hasattr(real_paddle, "logcumsumexp") or real_paddle.__name__ == paddle.__name__:
            return None
        real_paddle.set_device("cpu")
        return real_paddle
    except Exception:
        return None


def run(cases, dtypes, repeat, with_backward=True, scaling=False, with_real_paddle=True):
    torch = try_torch()
    real = try_real_paddle() if with_real_paddle else None
    rows = []
    rng = np.random.default_rng(0)
    for label, shape, axis in cases:
        for dt in dtypes:
            # bfloat16 (no NumPy type): our tensors are cast from float32 values; the copy is of
            # a 16-bit buffer and NumPy's, torch's and Paddle's columns run on float32 data.
            bf16 = dt == "bfloat16"
            a = rng.standard_normal(shape).astype(np.float32 if bf16 else dt)
            n = a.size
            src = a.view(np.uint16)[..., ::2].copy() if bf16 else a
            dst = np.empty_like(src)
            t_copy = median_time(lambda: np.copyto(dst, src), repeat)

            def ours(v, **kw):
                t = paddle.to_tensor(v, **kw)
                return paddle.cast(t, "bfloat16") if bf16 else t
            x = ours(a)
            row = {"case": label, "dtype": dt, "n": n, "copy_ns": t_copy / n * 1e9}
            row["lcse_ns"] = median_time(lambda: paddle.logcumsumexp(x, axis=axis), repeat) / n * 1e9
            row["cumsum_ns"] = median_time(lambda: paddle.cumsum(x, axis=axis), repeat) / n * 1e9
            row["np_lae_ns"] = median_time(lambda: np.logaddexp.accumulate(a, axis=axis), repeat) / n * 1e9
            row["np_cumsum_ns"] = median_time(lambda: np.cumsum(a, axis=axis), repeat) / n * 1e9
            if with_backward:
                if bf16:  # a leaf of type bfloat16
                    xg = ours(a)
                    xg.stop_gradient = False
                else:
                    xg = paddle.to_tensor(a, stop_gradient=False)
                g = ours(rng.standard_normal(shape).astype(np.float32 if bf16 else dt))

                def fwd_bwd():
                    y = paddle.logcumsumexp(xg, axis=axis)
                    paddle.grad([y], [xg], [g])
                row["lcse_fwd_bwd_ns"] = median_time(fwd_bwd, repeat) / n * 1e9
            if scaling and hasattr(paddle, "set_num_threads"):
                saved = paddle.get_num_threads()
                for t in (1, 2):
                    paddle.set_num_threads(t)
                    row[f"lcse_{t}t_ns"] = median_time(lambda: paddle.logcumsumexp(x, axis=axis), repeat) / n * 1e9
                    row[f"cumsum_{t}t_ns"] = median_time(lambda: paddle.cumsum(x, axis=axis), repeat) / n * 1e9
                paddle.set_num_threads(saved)
            if torch is not None:
                tx = torch.from_numpy(a)
                row["torch_lcse_ns"] = median_time(lambda: torch.logcumsumexp(tx, dim=axis), repeat) / n * 1e9
            if real is not None and not bf16:
                px = real.to_tensor(a)
                row["paddle_lcse_ns"] = median_time(lambda: real.logcumsumexp(px, axis=axis), repeat) / n * 1e9
            rows.append(row)
    return rows


def print_table(rows, out=sys.stdout):
    hdr = ("case", "dtype", "copy", "ours lcse", "x copy", "np.logaddexp", "x ours/np", "torch", "x ours/torch",
           "paddle 3.x", "x ours/paddle", "ours cumsum", "x copy", "np.cumsum", "fwd+bwd", "fwd+bwd/fwd", "1 thr",
           "2 thr", "speed-up", "cumsum 1 thr", "2 thr", "speed-up")
    print("ns per element (median); 'x' columns are ratios measured in the same run", file=out)
    print("| " + " | ".join(hdr) + " |", file=out)
    print("|" + "---|" * len(hdr), file=out)
    for r in rows:
        torch_s = f"{r['torch_lcse_ns']:.2f}" if "torch_lcse_ns" in r else "n/a"
        torch_x = f"{r['lcse_ns'] / r['torch_lcse_ns']:.2f}" if "torch_lcse_ns" in r else "n/a"
        pd_s = f"{r['paddle_lcse_ns']:.2f}" if "paddle_lcse_ns" in r else "n/a"
        pd_x = f"{r['lcse_ns'] / r['paddle_lcse_ns']:.3f}" if "paddle_lcse_ns" in r else "n/a"
        fb = r.get("lcse_fwd_bwd_ns")
        t1, t2 = r.get("lcse_1t_ns"), r.get("lcse_2t_ns")
        c1, c2 = r.get("cumsum_1t_ns"), r.get("cumsum_2t_ns")
        print("| " + " | ".join([
            r["case"], r["dtype"], f"{r['copy_ns']:.2f}", f"{r['lcse_ns']:.2f}", f"{r['lcse_ns'] / r['copy_ns']:.1f}",
            f"{r['np_lae_ns']:.2f}", f"{r['lcse_ns'] / r['np_lae_ns']:.2f}", torch_s, torch_x,
            pd_s, pd_x, f"{r['cumsum_ns']:.2f}", f"{r['cumsum_ns'] / r['copy_ns']:.1f}", f"{r['np_cumsum_ns']:.2f}", f"{fb:.2f}" if fb else "n/a",
            f"{fb / r['lcse_ns']:.2f}" if fb else "n/a", f"{t1:.2f}" if t1 else "n/a", f"{t2:.2f}" if t2 else "n/a",
            f"{t1 / t2:.2f}" if t1 and t2 else "n/a", f"{c1:.2f}" if c1 else "n/a", f"{c2:.2f}" if c2 else "n/a",
            f"{c1 / c2:.2f}" if c1 and c2 else "n/a",
        ]) + " |", file=out)


def overhead_rows(calls, rounds):
    """µs per call of the direct call, the public function and the front door's full path."""
    import inspect

    from paddle_ops import _C
    from paddle_ops._front_native import call
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.random(16).astype("float32"))
    a = paddle.to_tensor(rng.random((1, 16, 1)).astype("float32"))
    q, k, v = (paddle.to_tensor(rng.standard_normal((1, 1, 16, 16)).astype("float32")) for _ in range(3))
    gk = paddle.to_tensor(-rng.random((1, 1, 16, 16)).astype("float32"))
    cases = [  # (op, direct call, public call's arguments)
        ("logcumsumexp", lambda: _C.ops.logcumsumexp(x, 0, False, False, False), (x, 0), {}),
        ("cumsum", lambda: _C.ops.cumsum(x, 0, False, False, False), (x, 0), {}),
        ("pscan", lambda: _C.ops.pscan(a, a, None, False), (a, a), {}),
        ("right_flood", lambda: _C.ops.right_flood(x, -1, False, "zero", False), (x,), {}),
        ("repeat_interleave", lambda: _C.ops.repeat_interleave(x, 2, 0), (x, 2, 0), {}),
        ("gla", lambda: _C.ops.gla(q, k, v, gk, None, None, 0.25, False, True), (q, k, v, gk), {"scale": 0.25}),
    ]
    print(f"per-call overhead, CPU, µs per call (median of {rounds} rounds of {calls} calls)")
    print(f"{'op':<19}{'direct':>8}{'public':>8}{'full path':>11}{'public-direct':>15}")
    rows = []
    for op, direct, args, kwargs in cases:
        fn = getattr(paddle, op)
        bound = inspect.signature(fn).bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        fns = {"direct": direct, "public": lambda fn=fn, args=args, kwargs=kwargs: fn(*args, **kwargs),
               "full": lambda op=op, arguments=arguments: call(op, arguments)}
        t = interleaved(fns, calls, rounds)
        rows.append({"op": op, **t, "public_minus_direct": t["public"] - t["direct"]})
        print(f"{op:<19}{t['direct']:>8.2f}{t['public']:>8.2f}{t['full']:>11.2f}{t['public'] - t['direct']:>15.2f}")
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    p.add_argument("--quick", action="store_true", help="smaller shapes (about 1M elements)")
    p.add_argument("--dtypes", default="float32,float64")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--no-backward", action="store_true")
    p.add_argument("--threads", type=int, help="paddle_ops.set_num_threads for the main figures")
    p.add_argument("--scaling", action="store_true", help="also time logcumsumexp and cumsum with 1 and 2 threads")
    p.add_argument("--isa", choices=["auto", "avx512", "avx2", "baseline"],
                   help="PADDLE_OPS_CPU_ISA for our figures (baseline: the generic engine)")
    p.add_argument("--no-paddle", action="store_true", help="skip real PaddlePaddle's logcumsumexp column")
    p.add_argument("--json", help="also write the figures here")
    p.add_argument("--overhead", action="store_true", help="only the public functions' per-call overhead")
    p.add_argument("--calls", type=int, default=5000, help="--overhead: calls per round")
    p.add_argument("--rounds", type=int, default=7, help="--overhead: rounds")
    args = p.parse_args()
    if args.overhead:
        overhead_rows(args.calls, args.rounds)
        return
    if args.threads:
        paddle.set_num_threads(args.threads)
    if args.isa:
        paddle.set_flags({"PADDLE_OPS_CPU_ISA": args.isa})
    threads = paddle.get_num_threads() if hasattr(paddle, "get_num_threads") else "?"
    print(f"threads: {threads} (OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}), "
          f"cores: {os.cpu_count()}, PADDLE_OPS_CPU_ISA={paddle.get_flags()['PADDLE_OPS_CPU_ISA']}")
    rows = run(QUICK_CASES if args.quick else FULL_CASES, args.dtypes.split(","), args.repeat,
               not args.no_backward, args.scaling, not args.no_paddle)
    print_table(rows)
    if args.json:  # the rows with the environment they ran in (tools/bench/report.py reads it)
        isa = paddle.get_flags()["PADDLE_OPS_CPU_ISA"]
        for r in rows:
            r["threads"], r["isa"] = threads, isa
        write_json(args.json, rows, "bench_cpu.py")


if __name__ == "__main__":
    main()
