"""A check of tools/dev/fla_warm.py's patch against the real Triton autotuner, with no GPU: a
fake kernel (a .run that records its config) under triton.runtime.autotuner.Autotuner and under a
subclass made like fla's CachedAutotuner (cache_results=True, its own run). Not in the test suite
(Triton is not installed where the suite runs); run by hand where Triton imports, e.g. with
Triton 3.6's wheel unpacked for Python 3.12:

    python3.12 -m pip install --no-deps --target /tmp/tsite triton-3.6.0-cp312-*.whl
    PYTHONPATH=/tmp/tsite python3.12 tools/dev/check_fla_warm.py [<fla-core unpacked>]

Given the folder of an unpacked fla-core wheel, it also checks fla's own CachedAutotuner
(fla/ops/utils/cache.py loaded alone; torch stubbed where it is missing, as its import needs
only torch.cuda.is_available at that point).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fla_warm  # noqa: E402
from triton.runtime import autotuner  # noqa: E402

Config = autotuner.Config


def kernel(x, n, BLOCK):  # the "source" the autotuner finds as base_fn
    pass


class FakeJit:
    """Stands for a JITFunction: .fn is the Python function, .run launches (here: records)."""
    arg_names = ["x", "n"]

    def __init__(self):
        self.fn = kernel
        self.runs = []

    def run(self, *args, **kwargs):
        self.runs.append((kwargs["BLOCK"], kwargs["num_warps"]))


def make(cls, nconfigs, prune=None, cache_results=False):
    jit = FakeJit()
    configs = [Config({"BLOCK": 16 * (j + 1)}, num_warps=4 if j % 2 else 8) for j in range(nconfigs)]
    tuner = cls(jit, jit.arg_names, configs, ["n"], None, None, cache_results=cache_results,
                prune_configs_by={"early_config_prune": prune} if prune else None)
    return tuner, jit, [(c.kwargs["BLOCK"], c.num_warps) for c in configs]


def fresh(base, part, parts, seen=None):
    cls = type(f"Patched{part}", (base,), {})
    fla_warm.patch(cls, part, parts, seen)
    return cls


def check_parts(nconfigs, parts, prune=None):
    union = []
    for part in range(parts):
        seen = {}
        tuner, jit, all_cfg = make(fresh(autotuner.Autotuner, part, parts, seen), nconfigs, prune)
        tuner.run(object(), 64)
        tuned = jit.runs[:-1]  # the last run is the launch with the chosen config
        del jit.runs[:]
        tuner.run(object(), 64)  # the same key again: the share runs again (another specialization)
        assert jit.runs[:-1] == tuned
        kept = [c for c in all_cfg if prune is None or c[0] % 32 == 0]
        want = kept[part::parts] or [kept[part % len(kept)]]
        assert tuned == want, (nconfigs, parts, part, tuned, want)
        assert jit.runs[-1] == want[0], "the first config of the share is launched"
        assert list(seen) == ["kernel"] and len(seen["kernel"]) == 2 * len(want), seen
        assert tuner.__dict__["do_bench"] is fla_warm._run_once
        union += tuned
    if nconfigs >= parts:
        assert sorted(union) == sorted(kept), "the parts together run every config once"


def check_cache_results():
    """A subclass like fla's CachedAutotuner asks for cache_results=True: the patch, made at the
    base class after the subclass and one instance exist, must keep the disk cache
    (check_disk_cache, which would write the skewed timings to TRITON_CACHE_DIR) out of it."""
    base = type("Base", (autotuner.Autotuner,), {})
    disk = []

    class Cached(base):
        def run(self, *args, **kwargs):
            return super().run(*args, **kwargs)

        def check_disk_cache(self, *args, **kwargs):
            disk.append(1)
            return super().check_disk_cache(*args, **kwargs)

    early, jit_early, _ = make(Cached, 5, cache_results=True)
    assert early.cache_results is True
    fla_warm.patch(base, 1, 3)
    late, jit, all_cfg = make(Cached, 5, cache_results=True)
    assert early.cache_results is False and late.cache_results is False
    late.run(object(), 8)
    early.run(object(), 8)
    assert not disk, "no autotuning result written"
    assert jit.runs[:-1] == all_cfg[1::3] and jit_early.runs[:-1] == all_cfg[1::3]


def check_refusal():
    class Old:  # an autotuner without the methods
        pass

    try:
        fla_warm.patch(Old, 0, 2)
    except SystemExit as e:
        assert e.code == 3
    else:
        raise AssertionError("a class without prune_configs/_bench was accepted")


def check_fla(root):
    import importlib.util
    import types
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.modules["torch"] = types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: False))
    spec = importlib.util.spec_from_file_location("fla_cache", os.path.join(root, "fla", "ops", "utils", "cache.py"))
    cache = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cache)
    early, jit_early, _ = make(cache.CachedAutotuner, 7, cache_results=True)
    assert early.cache_results is True
    fla_warm.patch(autotuner.Autotuner, 2, 3)  # at Triton's class, as fla_warm.main does
    tuner, jit, all_cfg = make(cache.CachedAutotuner, 7, cache_results=True)
    assert tuner.cache_results is False and early.cache_results is False
    disk = []
    autotuner.Autotuner.check_disk_cache = lambda *args, **kwargs: disk.append(1)
    tuner.run(object(), 4)
    early.run(object(), 4)
    tuner.run(object(), 4)
    share = [all_cfg[2], all_cfg[5], all_cfg[2]]  # configs 2 and 5, then the launch with 2
    assert not disk and jit.runs == share * 2 and jit_early.runs == share, jit.runs


if __name__ == "__main__":
    import triton
    for nconfigs, parts in [(2, 2), (7, 3), (20, 14), (5, 14), (14, 14), (3, 1)]:
        check_parts(nconfigs, parts)
    check_parts(12, 4, prune=lambda configs, nargs, **kw: [c for c in configs if c.kwargs["BLOCK"] % 32 == 0])
    check_cache_results()
    check_refusal()
    if len(sys.argv) > 1:
        check_fla(sys.argv[1])  # last: it patches Triton's own class
    print(f"check_fla_warm: ok (Triton {triton.__version__}{', fla ' + sys.argv[1] if len(sys.argv) > 1 else ''})")
