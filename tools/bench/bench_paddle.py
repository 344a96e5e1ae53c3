"""paddle_ops' kernels called from real Paddle (paddle_ops.integrations.paddle) against Paddle's
own logcumsumexp and cumsum on the CPU, one thread, in one process: ns per element, as a
multiple of a copy of the same buffer, and the float32 error at 2^24 elements against a float64
reference.

    PYTHONPATH=build/python taskset -c 0 python3 tools/bench/bench_paddle.py [--quick] [--json out.json]

One thread: the script sets OMP_NUM_THREADS=1 (and MKL's) before Paddle and paddle_ops start
(re-running itself when they were set otherwise). Each time is the median of --repeat calls
after a warm-up; every call allocates its output (Paddle's own ops and ours alike). The copy
is NumPy's copyto of the same bytes. paddle_ops' own API (paddle_ops.logcumsumexp on a
paddle_ops Tensor) is timed beside them: the difference is what the Paddle custom-operator path
costs per call. The data: standard normal float32 (seed 0); the error is the largest
|ours - ref| / max(1, |ref|) over the row, with ref the float64 scan of the same float32 values
(np.logaddexp.accumulate / np.cumsum in float64).
"""
import argparse
import json
import os
import subprocess
import sys

THREAD_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
if any(os.environ.get(k) != v for k, v in THREAD_ENV.items()):
    os.execve(sys.executable, [sys.executable] + sys.argv, {**os.environ, **THREAD_ENV})

import numpy as np  # noqa: E402
import paddle  # noqa: E402

import paddle_ops  # noqa: E402
from paddle_ops._cpu_info import cpu_model  # noqa: E402
from bench_common import batch_ms  # noqa: E402
from paddle_ops.integrations import paddle as po  # noqa: E402

FULL = [("1-D 2^24", (1 << 24,), 0), ("[1024, 16384], last", (1024, 16384), 1),
        ("[16384, 1024], axis 0", (16384, 1024), 0)]
QUICK = [("1-D 2^20", (1 << 20,), 0), ("[256, 4096], last", (256, 4096), 1)]


def median_s(fn, repeat, batch=1):
    """Median seconds per call (bench_common.batch_ms: a warm-up call, then `repeat` batches)."""
    return batch_ms(fn, lambda: None, repeat, batch) / 1e3


def rel_err(got, ref):
    return float(np.max(np.abs(got.astype(np.float64) - ref) / np.maximum(1.0, np.abs(ref))))


def speed_rows(cases, dtypes, repeat):
    rng = np.random.default_rng(0)
    for label, shape, axis in cases:
        for dt in dtypes:
            a = rng.standard_normal(shape).astype(dt)
            n = a.size
            dst = np.empty_like(a)
            copy = median_s(lambda: np.copyto(dst, a), repeat) / n * 1e9
            x = paddle.to_tensor(a)
            own = paddle_ops.to_tensor(a)
            row = {"case": label, "dtype": dt, "n": n, "copy_ns": copy}
            for op in ("logcumsumexp", "cumsum"):
                mine, theirs, direct = getattr(po, op), getattr(paddle, op), getattr(paddle_ops, op)
                row[f"{op}_ours_ns"] = median_s(lambda: mine(x, axis=axis), repeat) / n * 1e9
                row[f"{op}_paddle_ns"] = median_s(lambda: theirs(x, axis=axis), repeat) / n * 1e9
                row[f"{op}_direct_ns"] = median_s(lambda: direct(own, axis=axis), repeat) / n * 1e9
            yield row


def overhead_row(repeat):
    """Per-call time on 16 elements: the custom-operator path against the direct API."""
    a = np.arange(16, dtype=np.float32)
    x, own = paddle.to_tensor(a), paddle_ops.to_tensor(a)
    def per_call(fn):
        return median_s(fn, max(3, repeat // 2), batch=2000) * 1e6
    return {"ours_us": per_call(lambda: po.logcumsumexp(x, axis=0)),
            "paddle_us": per_call(lambda: paddle.logcumsumexp(x, axis=0)),
            "direct_us": per_call(lambda: paddle_ops.logcumsumexp(own, axis=0))}


def error_row(n):
    a = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    x = paddle.to_tensor(a)
    ref_l = np.logaddexp.accumulate(a.astype(np.float64))
    ref_c = np.cumsum(a.astype(np.float64))
    return {"n": n,
            "logcumsumexp_ours": rel_err(po.logcumsumexp(x, axis=0).numpy(), ref_l),
            "logcumsumexp_paddle": rel_err(paddle.logcumsumexp(x, axis=0).numpy(), ref_l),
            "cumsum_ours": rel_err(po.cumsum(x, axis=0).numpy(), ref_c),
            "cumsum_paddle": rel_err(paddle.cumsum(x, axis=0).numpy(), ref_c)}


def environment():
    def run(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.strip()
        except Exception:
            return None
    return {"paddle": paddle.__version__, "numpy": np.__version__, "python": sys.version.split()[0],
            "cpu": cpu_model(),
            "affinity": sorted(os.sched_getaffinity(0)), "load": os.getloadavg(),
            "commit": run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "rev-parse", "--short", "HEAD"]),
            "threads": THREAD_ENV["OMP_NUM_THREADS"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="2^20-element cases, float32 only")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", help="also write the rows and the environment here")
    ap.add_argument("--output-allocation", choices=["paddle_ops", "paddle"], default="paddle_ops",
                    help="where our outputs are allocated (po.set_output_allocation)")
    args = ap.parse_args()
    po.set_output_allocation(args.output_allocation)
    cases, dtypes = (QUICK, ["float32"]) if args.quick else (FULL, ["float32", "float64"])
    env = environment()
    env["output_allocation"] = args.output_allocation
    print(f"# paddle {env['paddle']}, 1 thread, cpus {env['affinity']}, load {env['load']}, commit {env['commit']}, "
          f"outputs allocated by {args.output_allocation}")
    print("# ns/element (x copy); ours = paddle_ops through Paddle's custom operator, direct = paddle_ops' own API")
    print(f"{'case':24s} {'dtype':8s} {'copy':>6s} | {'lcse ours':>16s} {'lcse paddle':>16s} {'direct':>7s} |"
          f" {'cumsum ours':>16s} {'cumsum paddle':>16s} {'direct':>7s}")
    rows = []
    for r in speed_rows(cases, dtypes, args.repeat):
        rows.append(r)
        c = r["copy_ns"]
        cells = []
        for op in ("logcumsumexp", "cumsum"):
            cells.append(f"{r[op + '_ours_ns']:6.2f} ({r[op + '_ours_ns'] / c:5.1f}x) "
                         f"{r[op + '_paddle_ns']:6.2f} ({r[op + '_paddle_ns'] / c:5.1f}x) {r[op + '_direct_ns']:7.2f}")
        print(f"{r['case']:24s} {r['dtype']:8s} {c:6.2f} | {cells[0]} | {cells[1]}", flush=True)
    ov = overhead_row(args.repeat)
    print(f"# per call on 16 elements: ours through Paddle {ov['ours_us']:.1f} us, Paddle's own "
          f"{ov['paddle_us']:.1f} us, paddle_ops direct {ov['direct_us']:.1f} us", flush=True)
    err = error_row(1 << 24)
    print(f"# float32 error at 2^24 elements (max |y - ref| / max(1, |ref|), ref float64): "
          f"logcumsumexp ours {err['logcumsumexp_ours']:.2e}, Paddle {err['logcumsumexp_paddle']:.2e}; "
          f"cumsum ours {err['cumsum_ours']:.2e}, Paddle {err['cumsum_paddle']:.2e}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": env, "rows": rows, "overhead": ov, "error": err}, f, indent=1)


if __name__ == "__main__":
    main()
