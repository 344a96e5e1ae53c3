"""Compile flash-linear-attention's Triton kernels ahead, in parallel processes, so that a later
ordinary run of tools/bench/bench_gla.py finds every autotuning config compiled.

    python3 tools/dev/fla_warm.py --part I --parts N -- bench <bench_gla.py arguments>
    python3 tools/dev/fla_warm.py --part I --parts N -- pytest <pytest arguments>

Why: fla (fla-core 0.6) autotunes each Triton kernel over its configs on first use, and from a
cold Triton cache almost all of that time is compiling the configs, one after another in one
process (the seed shape alone took about 470 s on the H200, 2026-11-30).

What: before running <what> (bench_gla.main with FLA_WARMUP = 1, or pytest.main), this process
changes triton.runtime.autotuner.Autotuner at class level, so fla's CachedAutotuner subclass
has it too:
- prune_configs returns only this part's share of the configs it would have returned: those at
  index j with j % N == I (if that share is empty, the one config at I % len);
- _bench runs the kernel once (compiling it when the cache lacks it) and times nothing: every
  config reports the same time, so the first of the share is launched;
- run forgets the autotuner's choices of earlier calls (its in-memory cache), so each call runs
  the share again: a later shape with the same autotuning key but another specialization (ints
  divisible by 16 or not, and the like) gets every config compiled too, whichever the ordinary
  run will have chosen at the first;
- cache_results is False on every instance (a class property that ignores assignment), so no
  autotuning result, skewed as it is, is written to the cache; only the compiled kernels land in
  TRITON_CACHE_DIR.
N processes started at once with the same TRITON_CACHE_DIR (and the same arguments) therefore
compile disjoint shares of each kernel's configs. A later ordinary run in that cache (no patch)
finds them all compiled and only times them: fla's own autotuning still picks its config by
timing, alone on the GPU, so the comparison stays fair. tools/dev/gpu_machine.sh's step flawarm
runs the parts (docs/testing.md, "GPU").

Triton versions without these methods (or where do_bench is not a cached property of the
autotuner) are refused with a message and exit status 3.
"""
import functools
import inspect
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NEEDED = ("prune_configs", "_bench", "run")


def _fail(msg):
    print(f"fla_warm: {msg}", file=sys.stderr)
    sys.exit(3)


def share(configs, part, parts):
    """This part's configs: index j with j % parts == part, else the one at part % len."""
    configs = list(configs)
    if not configs:
        return configs
    return configs[part::parts] or [configs[part % len(configs)]]


def _run_once(kernel_call, *args, **kwargs):
    """do_bench's stand-in: one call (compiling the config when needed), no timing."""
    kernel_call()
    try:
        import torch
        if torch.cuda.is_available():
            torch.cuda.synchronize()
    except ImportError:
        pass
    return [1.0, 1.0, 1.0]


def patch(autotuner_cls, part, parts, seen=None):
    """Change autotuner_cls (Triton's Autotuner) as the module docstring says; seen (a dict), if
    given, receives per kernel name the list of the configs this part ran (one entry a run)."""
    missing = [n for n in NEEDED if not callable(getattr(autotuner_cls, n, None))]
    if missing:
        _fail(f"{autotuner_cls.__module__}.{autotuner_cls.__name__} lacks {', '.join(missing)}: "
              "this Triton's autotuner is not the one fla_warm.py knows (3.6)")
    if not isinstance(inspect.getattr_static(autotuner_cls, "do_bench", None), functools.cached_property):
        _fail("Autotuner.do_bench is not a functools.cached_property in this Triton: fla_warm.py cannot "
              "replace the timing (it knows Triton 3.6)")
    bench_params = inspect.signature(autotuner_cls._bench).parameters
    if "config" not in bench_params:
        _fail(f"Autotuner._bench{inspect.signature(autotuner_cls._bench)} takes no config: not the Triton "
              "fla_warm.py knows (3.6)")
    if len(inspect.signature(autotuner_cls.prune_configs).parameters) < 2:
        _fail("Autotuner.prune_configs takes no kwargs: not the Triton fla_warm.py knows (3.6)")

    prune_configs, bench, run = autotuner_cls.prune_configs, autotuner_cls._bench, autotuner_cls.run

    def prune_configs_share(self, *args, **kwargs):
        return share(prune_configs(self, *args, **kwargs), part, parts)

    def bench_once(self, *args, config, **meta):
        self.__dict__["do_bench"] = _run_once  # the instance's dict wins over a cached_property
        if seen is not None:
            seen.setdefault(getattr(getattr(self, "base_fn", None), "__name__", "?"), []).append(str(config))
        return bench(self, *args, config=config, **meta)

    def run_again(self, *args, **kwargs):
        cache = getattr(self, "cache", None)
        if isinstance(cache, dict):
            cache.clear()
        return run(self, *args, **kwargs)

    autotuner_cls.prune_configs = prune_configs_share
    autotuner_cls.run = run_again
    autotuner_cls._bench = bench_once
    autotuner_cls.cache_results = property(lambda self: False, lambda self, value: None)


def main(argv):
    if "--" not in argv:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    cut = argv.index("--")
    opts, rest = argv[:cut], argv[cut + 1:]
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", type=int, required=True)
    ap.add_argument("--parts", type=int, required=True)
    args = ap.parse_args(opts)
    if not 0 <= args.part < args.parts:
        ap.error("need 0 <= --part < --parts")
    if not rest or rest[0] not in ("bench", "pytest"):
        ap.error("after --: bench <bench_gla.py arguments> or pytest <pytest arguments>")
    try:
        import triton
        from triton.runtime import autotuner
    except Exception as e:
        _fail(f"cannot import Triton's autotuner: {type(e).__name__}: {e}")
    Autotuner = getattr(autotuner, "Autotuner", None)
    if Autotuner is None:
        _fail("triton.runtime.autotuner has no Autotuner")
    seen = {}
    patch(Autotuner, args.part, args.parts, seen)
    print(f"fla_warm: part {args.part}/{args.parts}, Triton {getattr(triton, '__version__', '?')}, "
          f"TRITON_CACHE_DIR={os.environ.get('TRITON_CACHE_DIR', '(default)')}: {' '.join(rest)}", flush=True)
    try:
        if rest[0] == "bench":
            sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))
            import bench_gla
            bench_gla.FLA_WARMUP = 1
            sys.argv = [os.path.join(ROOT, "tools", "bench", "bench_gla.py")] + rest[1:]
            rc = bench_gla.main()
        else:
            import pytest
            rc = pytest.main(rest[1:])
    finally:
        runs = sum(len(v) for v in seen.values())
        distinct = sum(len(set(v)) for v in seen.values())
        print(f"fla_warm: part {args.part}/{args.parts} ran {distinct} configs of {len(seen)} kernels"
              f" ({runs} runs)", flush=True)
        print("fla_warm: configs run per kernel: "
              + ", ".join(f"{k} {len(set(v))}" for k, v in sorted(seen.items())), flush=True)
    return int(rc or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
