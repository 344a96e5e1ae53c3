"""Timing shared by the benchmarks in tools/bench/."""
import statistics
import time


def batch_ms(fn, sync, repeat, batch):
    """Median over `repeat` batches of `batch` back-to-back calls of fn, in ms per call, timed on
    the host between calls of `sync` (so launch overhead overlaps the device work, as in a
    model); one call first to warm up."""
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(batch):
            fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3 / batch)
    return statistics.median(times)


def interleaved(fns, calls, rounds, sync=lambda: None):
    """Median µs per call of each of `fns` (name -> fn): a warm-up of calls // 10 each, then
    `rounds` rounds of `calls` back-to-back calls of each, the fns interleaved in every round (so
    a change of machine load hits all alike), `sync` closing each timed batch."""
    for fn in fns.values():
        for _ in range(max(1, calls // 10)):
            fn()
    sync()
    times = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            sync()
            times[name].append((time.perf_counter() - t0) * 1e6 / calls)
    return {name: statistics.median(v) for name, v in times.items()}


def _run(cmd):
    import subprocess
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception:
        return ""


def _version(module):
    import importlib
    try:
        return getattr(importlib.import_module(module), "__version__", "?")
    except Exception:
        return None


def environment():
    """What a figure depends on: the commit, the machine (CPU model and ISA, cores, GPU, driver,
    CUDA) and the versions of this library and of every peer that is importable. Written into
    each benchmark's JSON (write_json) and shown by tools/bench/report.py."""
    import os
    import platform
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {"time_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
           # BENCH_COMMIT: the commit a copied tree was taken from (a machine whose copy has no
           # or an older .git)
           "commit": os.environ.get("BENCH_COMMIT") or _run(["git", "-C", root, "rev-parse", "--short", "HEAD"])
           or None,
           "dirty": bool(_run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"])),
           "python": platform.python_version(), "machine": platform.machine(), "cores": os.cpu_count(),
           "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")}
    try:
        from paddle_ops._cpu_info import cpu_model, shown_flags
        env["cpu"], env["isa"] = cpu_model(), shown_flags()
    except ImportError:  # (paddle_ops not importable: the rows say so by its missing version)
        pass
    gpu = _run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"])
    if gpu:
        env["gpu"] = gpu.splitlines()
    for name in ("paddle_ops", "numpy", "torch", "jax", "paddle", "fla", "cupy"):
        v = _version(name)
        if v is not None:
            env[name] = v
    try:
        import paddle_ops
        env["paddle_ops_threads"] = paddle_ops.get_num_threads()
        env["paddle_ops_cuda"] = bool(paddle_ops.is_compiled_with_cuda())
    except Exception:
        pass
    try:
        import torch
        if torch.cuda.is_available():
            env["torch_cuda"] = torch.version.cuda
    except Exception:
        pass
    return env


def write_json(path, rows, script):
    """The benchmark's rows with the environment they were measured in, for tools/bench/report.py."""
    import json
    with open(path, "w") as fh:
        json.dump({"script": script, "environment": environment(), "rows": rows}, fh, indent=1)
