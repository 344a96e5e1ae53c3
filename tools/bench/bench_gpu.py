"""GPU benchmark of logcumsumexp (and cumsum): ours per GPU scan backend, torch.logcumsumexp
and jax.lax.cumlogsumexp when importable, and a device-to-device copy of the same tensor,
all in one run; prints ms and x copy (the shapes of docs/benchmarks.md, "Peers and targets").

    PYTHONPATH=build/python python3 tools/bench/bench_gpu.py [--json out.json] [--backends thrust]
    PYTHONPATH=build/python python3 tools/bench/bench_gpu.py --per-call   (small tensors: µs per call)

Ours is timed by wall clock over batches of --repeat calls issued back to back (the device
synchronized before and after each batch, so the Python call overlaps the kernels of the
calls before it), per call, median of 5 batches; torch and the copy with CUDA events; medians.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

from bench_common import interleaved, write_json

SHAPES = [("1-D 2^26", (1 << 26,), 0), ("[4096, 16384], last", (4096, 16384), 1),
          ("[16384, 4096], axis 0", (16384, 4096), 0), ("[2^20, 64], last", (1 << 20, 64), 1),
          ("[32, 4, 2048, 128], axis 2", (32, 4, 2048, 128), 2)]


def ours_ms(x, axis, repeat, fn):
    import paddle_ops as paddle
    fn(x, axis)
    paddle.device.synchronize()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn(x, axis)
        paddle.device.synchronize()
        times.append((time.perf_counter() - t0) * 1e3 / repeat)
    return statistics.median(times)


def torch_ms(fn, repeat):
    import torch
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def run_backend(backend, dtypes, repeat, fwd_bwd, stream=False):
    """Our figures for one backend (the backend is chosen per process, by environment)."""
    import paddle_ops as paddle
    rows = []
    rng = np.random.default_rng(0)
    for label, shape, axis in SHAPES:
        for dt in dtypes:
            a = rng.standard_normal(shape).astype(np.float32)
            x = paddle.to_tensor(a, dtype=dt, place="gpu")
            row = {"case": label, "dtype": dt, "backend": backend,
                   "ours_ms": ours_ms(x, axis, repeat, lambda t, ax: paddle.logcumsumexp(t, axis=ax))}
            if dt == "float32":
                row["cumsum_ms"] = ours_ms(x, axis, repeat, lambda t, ax: paddle.cumsum(t, axis=ax))
                xi = paddle.to_tensor(rng.integers(-1000, 1000, shape), dtype="int64", place="gpu")
                row["cumsum_i64_ms"] = ours_ms(xi, axis, repeat, lambda t, ax: paddle.cumsum(t, axis=ax))
                del xi
            if fwd_bwd and dt == "float32":
                xg = paddle.to_tensor(a, place="gpu", stop_gradient=False)
                g = paddle.to_tensor(rng.standard_normal(shape).astype(np.float32), place="gpu")

                def fb(t, ax):
                    y = paddle.logcumsumexp(t, axis=ax)
                    paddle.grad([y], [t], [g])
                row["fwd_bwd_ms"] = ours_ms(xg, axis, repeat, fb)
            rows.append(row)
            if stream:  # one JSON line per row, read by the parent as it comes
                print(json.dumps(row), flush=True)
            del x
    return rows


def peers(dtypes, repeat):
    rows = {}
    try:
        import torch
    except Exception:
        return rows
    rng = np.random.default_rng(0)
    for label, shape, axis in SHAPES:
        for dt in dtypes:
            tdt = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
                   "float64": torch.float64}[dt]
            t = torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).to("cuda", tdt)
            r = {"copy_ms": torch_ms(lambda: t.clone(), repeat),
                 "torch_ms": torch_ms(lambda: torch.logcumsumexp(t, dim=axis), repeat)}
            if dt == "float32":
                tg = t.clone().requires_grad_(True)
                go = torch.randn_like(t)

                def fb():
                    y = torch.logcumsumexp(tg, dim=axis)
                    torch.autograd.grad(y, tg, go)
                r["torch_fwd_bwd_ms"] = torch_ms(fb, repeat)
            rows[(label, dt)] = r
            del t
    torch.cuda.empty_cache()
    try:
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        import jax
        import jax.numpy as jnp
        for label, shape, axis in SHAPES:
            for dt in dtypes:
                if dt == "float64":
                    continue
                jx = jnp.asarray(rng.standard_normal(shape).astype(np.float32)).astype(dt)
                f = jax.jit(lambda v, ax=axis: jax.lax.cumlogsumexp(v, axis=ax))
                f(jx).block_until_ready()
                ts = []
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    f(jx).block_until_ready()
                    ts.append((time.perf_counter() - t0) * 1e3)
                rows.setdefault((label, dt), {})["jax_ms"] = statistics.median(ts)
                del jx
    except Exception as e:  # JAX missing or failing: reported, not fatal
        print(f"(jax not measured: {type(e).__name__}: {e})")
    return rows


def per_call(calls=5000, rounds=9):
    """µs per call on small tensors, where the allocator and the launch are the whole cost: the
    direct binding and the public function on 16 elements, and an empty tensor of 4096 floats
    (allocation and free alone); bench_common.interleaved, each batch synchronized."""
    import paddle_ops as paddle
    from paddle_ops import _C
    x = paddle.to_tensor(np.random.default_rng(0).random(16, dtype=np.float32), place="gpu")
    t = interleaved({"logcumsumexp, direct, 16": lambda: _C.ops.logcumsumexp(x, 0, False, False, False),
                     "logcumsumexp, public, 16": lambda: paddle.logcumsumexp(x, 0),
                     "empty 4096 float32": lambda: paddle.empty([4096], "float32", place="gpu")},
                    calls, rounds, paddle.device.synchronize)
    print(f"µs per call (median of {rounds} rounds of {calls} calls)\n| call | µs per call |\n|---|---|")
    for name, us in t.items():
        print(f"| {name} | {us:.2f} |")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dtypes", default="float32,float16,bfloat16,float64")
    p.add_argument("--backends", default="engine")
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--json")
    p.add_argument("--per-call", action="store_true", help="only µs per call on small tensors")
    p.add_argument("--_child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.per_call:
        per_call()
        return
    dtypes = args.dtypes.split(",")
    if args._child:  # one backend, in its own process (the backend is read from the environment)
        run_backend(args._child, dtypes, args.repeat, True, stream=True)
        return
    # The peers first (torch, JAX, the copy), then our backends, each in a child process that
    # sends a row as soon as it is measured; each table row is printed when it is complete.
    peer = peers(dtypes, args.repeat)
    hdr = ["case", "dtype", "backend", "copy ms", "ours ms", "x copy", "torch ms", "x copy", "jax ms", "x copy",
           "cumsum x copy", "cumsum int64 x copy", "fwd+bwd x copy", "torch fwd+bwd x copy"]
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr), flush=True)
    ours = []
    for b in args.backends.split(","):
        env = dict(os.environ, PADDLE_OPS_GPU_SCAN=b)
        child = subprocess.Popen([sys.executable, __file__, "--_child", b, "--dtypes", args.dtypes,
                                  "--repeat", str(args.repeat)], env=env, stdout=subprocess.PIPE, text=True)
        for line in child.stdout:
            if not line.startswith("{"):  # anything else the child printed
                print(line, end="")
                continue
            r = json.loads(line)
            q = peer.get((r["case"], r["dtype"]), {})
            c = q.get("copy_ms")
            r.update(q)
            ours.append(r)

            def f(v, ratio=True):
                if v is None:
                    return "n/a"
                return f"{v / c:.2f}" if ratio and c else f"{v:.3f}"
            print("| " + " | ".join([r["case"], r["dtype"], r["backend"], f(c, False), f(r["ours_ms"], False),
                                     f(r["ours_ms"]), f(q.get("torch_ms"), False), f(q.get("torch_ms")),
                                     f(q.get("jax_ms"), False), f(q.get("jax_ms")), f(r.get("cumsum_ms")),
                                     # an int64 tensor holds twice the float32 copy's bytes
                                     f(r["cumsum_i64_ms"] / 2 if r.get("cumsum_i64_ms") else None),
                                     f(r.get("fwd_bwd_ms")), f(q.get("torch_fwd_bwd_ms"))]) + " |", flush=True)
        if child.wait() != 0:
            sys.exit(1)
    if args.json:
        # JSON keys must be strings: the peers are already merged into each row.
        write_json(args.json, ours, "bench_gpu")


if __name__ == "__main__":
    main()
