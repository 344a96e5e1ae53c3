"""What calling our ops from PyTorch costs (paddle_ops.integrations.torch, torch.ops.paddle_ops.*).

    PYTHONPATH=build/python <python with torch> tools/bench/bench_torch.py [--device cpu|cuda]
        [--quick] [--calls N] [--rounds R] [--only overhead|large|fla] [--json out.json]

The last lines print the two figures issue 18 sets targets for (the worst op of each).
On CUDA the torch ops run on torch's current stream (our kernels run there in place of our own
stream for the call), the direct calls on our own stream. The torch ops take the path
paddle_ops.integrations.torch chose (its BACKEND: the C++ kernels of torch_ext.cc unless
PADDLE_OPS_TORCH_CPP=0 or they cannot be built); on the C++ path the Python custom_op path is
registered again under torch.ops.paddle_ops_py and measured beside it in the same rounds (the
"torch py" columns and the summary's "Python path" lines). PADDLE_OPS_TORCH_OUTPUTS=torch or
=ours sets who allocates the C++ kernels' outputs (default: torch on CUDA, ours on the CPU):
run twice to compare the allocators at 2^26 elements.

1. Per-call overhead, small tensors (16 elements; gla [1, 1, 16, 16]), many calls: µs per call
   of the direct call (_C_ops on our tensors, converted once beforehand), of the public
   function (paddle.logcumsumexp ...), of the torch op on torch tensors, and of a trivial
   torch custom_op (torch.empty_like in the same custom_op machinery: torch's own dispatch
   floor on this machine). Columns: torch op - direct call (the cost of the torch path; target
   <= 15 µs), and torch op - trivial custom op (what our conversions add).
2. At 2^26 elements (2^22 with --quick), logcumsumexp and cumsum float32 on one row: ms of the
   direct call and of the torch op, and the difference in % (target <= 2%).
3. gla from torch beside fla's chunk_gla (flash-linear-attention) on the same torch tensors, on
   CUDA, when fla is importable: ms forward and forward+backward, and their max difference.

Each figure is the median over --rounds rounds; in each round every variant runs --calls
calls back to back, the variants interleaved (so a change of machine load hits all alike).
On CUDA each round ends with torch.cuda.synchronize(). Rows print as they finish.
"""
import argparse
import json
import os
import platform
import subprocess
import sys

try:
    import torch
except ImportError:
    sys.exit("bench_torch.py needs torch (pip install torch); it is not installed here")

import paddle_ops as paddle
from paddle_ops import _C
from paddle_ops.integrations import torch as pt
from bench_common import interleaved

ops = torch.ops.paddle_ops
# The torch ops run the path paddle_ops.integrations.torch chose (pt.BACKEND: "cpp", the C++
# kernels of torch_ext.cc, or "python", the custom_op kernels). Beside the C++ path the Python
# path is registered again as torch.ops.paddle_ops_py (the same custom_op machinery and
# kernels), so both are measured in one run: the "torch py" columns.
PY_NAMESPACE = "paddle_ops_py"
if pt.BACKEND == "cpp":
    pt._register_python(PY_NAMESPACE)
    py_ops = getattr(torch.ops, PY_NAMESPACE)
else:
    py_ops = None


@torch.library.custom_op("paddle_ops_bench::trivial", mutates_args=())
def _trivial(x: torch.Tensor, axis: int = -1) -> torch.Tensor:
    return torch.empty_like(x)


@_trivial.register_fake
def _(x, axis=-1):
    return torch.empty_like(x)


def environment(device):
    env = {"python": platform.python_version(), "torch": torch.__version__, "machine": platform.processor() or
           platform.machine(), "cpus": os.cpu_count(), "load": os.getloadavg(), "device": device,
           "torch_path": pt.BACKEND, "cpp_cuda": pt.CPP_CUDA,
           # who allocates the C++ kernels' outputs (PADDLE_OPS_TORCH_OUTPUTS; unset: torch on CUDA, ours on the CPU)
           "torch_outputs": os.environ.get("PADDLE_OPS_TORCH_OUTPUTS", "default")}
    try:  # BENCH_COMMIT: as in bench_common.environment
        env["commit"] = os.environ.get("BENCH_COMMIT") or subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                       cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    except OSError:
        pass
    if device == "cuda":
        env["gpu"] = torch.cuda.get_device_name()
        env["cuda"] = torch.version.cuda
    return env


def overhead_rows(device, calls, rounds, sync):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(16, generator=gen).to(device)
    a = torch.rand(1, 16, 1, generator=gen).to(device)
    q, k, v = (torch.randn(1, 1, 16, 16, generator=gen).to(device) for _ in range(3))
    gk = (-torch.rand(1, 1, 16, 16, generator=gen)).to(device)
    px, pa, pq, pk, pv, pg = (pt.to_paddle(t) for t in (x, a, q, k, v, gk))
    cases = [  # (op, direct call, public function, torch op of namespace `o`)
        ("logcumsumexp", lambda: _C.ops.logcumsumexp(px, 0, False, False, False),
         lambda: paddle.logcumsumexp(px, 0), lambda o: lambda: o.logcumsumexp(x, 0)),
        ("cumsum", lambda: _C.ops.cumsum(px, 0, False, False, False),
         lambda: paddle.cumsum(px, 0), lambda o: lambda: o.cumsum(x, 0)),
        ("pscan", lambda: _C.ops.pscan(pa, pa, None, False),
         lambda: paddle.pscan(pa, pa), lambda o: lambda: o.pscan(a, a)),
        ("gla", lambda: _C.ops.gla(pq, pk, pv, pg, None, None, 0.25, False, True),
         lambda: paddle.gla(pq, pk, pv, pg, scale=0.25), lambda o: lambda: o.gla(q, k, v, gk, None, None, 0.25)),
    ]
    rows = []
    print(f"\n1. per-call overhead, {device}, µs per call (median of {rounds} rounds of {calls} calls); "
          f"torch op: the {pt.BACKEND} path" + (", torch py: the Python path" if py_ops else ""))
    py_head = f"{'torch py':>10}{'py-direct':>11}" if py_ops else ""
    print(f"{'op':<14}{'direct':>9}{'public':>9}{'torch op':>10}{'trivial':>9}{'torch-direct':>14}"
          f"{'torch-trivial':>15}" + py_head)
    for name, direct, public, torch_op in cases:
        fns = {"direct": direct, "public": public, "torch": torch_op(ops),
               "trivial": lambda: torch.ops.paddle_ops_bench.trivial(x, 0)}
        if py_ops:
            fns["torch_py"] = torch_op(py_ops)
        t = interleaved(fns, calls, rounds, sync)
        row = {"op": name, "device": device, "path": pt.BACKEND, **t, "torch_minus_direct": t["torch"] - t["direct"],
               "torch_minus_trivial": t["torch"] - t["trivial"]}
        cells = ""
        if py_ops:
            row["torch_py_minus_direct"] = t["torch_py"] - t["direct"]
            cells = f"{t['torch_py']:>10.2f}{row['torch_py_minus_direct']:>11.2f}"
        rows.append(row)
        print(f"{name:<14}{t['direct']:>9.2f}{t['public']:>9.2f}{t['torch']:>10.2f}{t['trivial']:>9.2f}"
              f"{row['torch_minus_direct']:>14.2f}{row['torch_minus_trivial']:>15.2f}" + cells, flush=True)
    return rows


def large_rows(device, log2n, rounds, sync, bursts=(1, 8)):
    """ms per call at 2^log2n elements. Each round times `calls` back-to-back calls and one
    device synchronize: 1 call is the latency of a lone synchronized call (the host's work of the
    call cannot overlap its kernel); 8 is the steady state of a model's stream of calls, where the
    host's work of the next call overlaps the kernel of this one."""
    n = 1 << log2n
    x = torch.randn(n, generator=torch.Generator().manual_seed(1)).to(device)
    px = pt.to_paddle(x)
    rows = []
    print(f"\n2. one row of 2^{log2n} float32 elements, {device}, ms per call (median of {rounds} rounds of "
          f"1 call and of {bursts[-1]} back-to-back calls); torch op: the {pt.BACKEND} path"
          + (", torch py: the Python path" if py_ops else ""))
    print(f"{'op':<14}{'calls':>6}{'direct':>10}{'torch op':>10}{'diff %':>9}"
          + (f"{'torch py':>10}{'py diff %':>11}" if py_ops else ""))
    for name, direct, torch_op in (
            ("logcumsumexp", lambda: _C.ops.logcumsumexp(px, 0, False, False, False),
             lambda o: lambda: o.logcumsumexp(x, 0)),
            ("cumsum", lambda: _C.ops.cumsum(px, 0, False, False, False), lambda o: lambda: o.cumsum(x, 0))):
        fns = {"direct": direct, "torch": torch_op(ops)}
        if py_ops:
            fns["torch_py"] = torch_op(py_ops)
        for calls in bursts:
            t = interleaved(fns, calls, rounds, sync)
            pct = 100.0 * (t["torch"] - t["direct"]) / t["direct"]
            row = {"op": name, "device": device, "path": pt.BACKEND, "elements": n, "calls": calls,
                   "direct_ms": t["direct"] / 1e3, "torch_ms": t["torch"] / 1e3, "diff_pct": pct}
            cells = ""
            if py_ops:
                row["torch_py_ms"] = t["torch_py"] / 1e3
                row["py_diff_pct"] = 100.0 * (t["torch_py"] - t["direct"]) / t["direct"]
                cells = f"{row['torch_py_ms']:>10.2f}{row['py_diff_pct']:>11.2f}"
            rows.append(row)
            print(f"{name:<14}{calls:>6}{t['direct'] / 1e3:>10.2f}{t['torch'] / 1e3:>10.2f}{pct:>9.2f}" + cells,
                  flush=True)
    return rows


def fla_rows(device, rounds, sync, quick):
    print("\n3. gla from torch beside fla's chunk_gla")
    if device != "cuda":
        print("   skipped: fla's kernels are Triton kernels for CUDA; run with --device cuda")
        return []
    try:
        from fla.ops.gla import chunk_gla
    except ImportError as e:
        print(f"   skipped: fla is not importable ({e})")
        return []
    cases = [(4, 2048, 16, 128, 128)] if quick else [(4, 2048, 16, 128, 128), (32, 2048, 4, 128, 256),
                                                      (8, 1024, 8, 64, 64)]
    rows = []
    print(f"{'B T H Dk Dv':<22}{'ours fwd':>10}{'fla fwd':>10}{'ours f+b':>10}{'fla f+b':>10}{'max |diff|':>12}")
    for B, T, H, Dk, Dv in cases:
        gen = torch.Generator(device="cuda").manual_seed(2)
        mk = (lambda *s: torch.randn(*s, device="cuda", dtype=torch.bfloat16, generator=gen))
        q, k = mk(B, T, H, Dk), mk(B, T, H, Dk)
        v = mk(B, T, H, Dv)
        gk = torch.nn.functional.logsigmoid(mk(B, T, H, Dk).float()).div(16).to(torch.bfloat16)
        for t in (q, k, v, gk):
            t.requires_grad_()
        do = mk(B, T, H, Dv)
        scale = Dk ** -0.5

        def ours():
            return ops.gla(q, k, v, gk, None, None, scale, False)  # head_first=False: fla's [B, T, H, D]

        def theirs():
            try:
                return chunk_gla(q, k, v, gk, scale=scale, head_first=False)[0]
            except TypeError:  # fla versions without head_first take [B, T, H, D] only
                return chunk_gla(q, k, v, gk, scale=scale)[0]

        def fwd_bwd(f):
            return lambda: torch.autograd.grad(f(), (q, k, v, gk), do)

        with torch.no_grad():
            f = interleaved({"ours": ours, "fla": theirs}, 5, rounds, sync)
        fb = interleaved({"ours": fwd_bwd(ours), "fla": fwd_bwd(theirs)}, 3, rounds, sync)
        figures = {"ours_fwd_ms": f["ours"], "fla_fwd_ms": f["fla"], "ours_fwd_bwd_ms": fb["ours"],
                   "fla_fwd_bwd_ms": fb["fla"]}
        figures = {key: us / 1e3 for key, us in figures.items()}
        figures["max_abs_diff"] = (ours().float() - theirs().float()).abs().max().item()
        rows.append(dict(B=B, T=T, H=H, Dk=Dk, Dv=Dv, **figures))
        cells = [f"{v:>10.3f}" for v in list(figures.values())[:4]] + [f"{figures['max_abs_diff']:>12.3g}"]
        print(f"{f'{B} {T} {H} {Dk} {Dv}':<22}" + "".join(cells), flush=True)
    return rows


def summary(out):
    """The two figures issue 18 sets targets for, printed last: the torch path's µs per call over
    the direct call (<= 15) and its % over the direct call at 2^26 elements (<= 2), worst op."""
    res = {"path": pt.BACKEND}
    print(f"\nsummary (issue 18 targets: <= 15 µs per call over the direct call; <= 2 % at 2^26 elements); "
          f"the {pt.BACKEND} path" + ("" if pt.BACKEND == "cpp" else f" (no C++ path: {pt.CPP_UNAVAILABLE})"))
    if out.get("overhead"):
        worst = max(out["overhead"], key=lambda r: r["torch_minus_direct"])
        res["overhead_us"] = worst["torch_minus_direct"]
        res["overhead_us_by_op"] = {r["op"]: r["torch_minus_direct"] for r in out["overhead"]}
        print(f"  torch op over the direct call: {worst['torch_minus_direct']:+.2f} µs per call (worst: "
              f"{worst['op']}; " + ", ".join(f"{op} {v:+.2f}" for op, v in res["overhead_us_by_op"].items()) + ")")
        if py_ops:
            res["python_path_overhead_us_by_op"] = {r["op"]: r["torch_py_minus_direct"] for r in out["overhead"]}
            print("  the Python path, same run: " + ", ".join(
                f"{op} {v:+.2f}" for op, v in res["python_path_overhead_us_by_op"].items()) + " µs")
    if out.get("large"):
        worst = max(out["large"], key=lambda r: r["diff_pct"])
        res["large_elements"] = worst["elements"]
        res["large_pct"] = worst["diff_pct"]
        # keyed "op xN": N back-to-back calls per synchronize (1: a lone call's latency)
        res["large_pct_by_op"] = {f"{r['op']} x{r['calls']}": r["diff_pct"] for r in out["large"]}
        print(f"  torch op over the direct call at {worst['elements']} elements: {worst['diff_pct']:+.2f} % "
              f"(worst: {worst['op']} x{worst['calls']}; "
              + ", ".join(f"{op} {v:+.2f}" for op, v in res["large_pct_by_op"].items()) + ")")
        if py_ops:
            res["python_path_large_pct_by_op"] = {f"{r['op']} x{r['calls']}": r["py_diff_pct"] for r in out["large"]}
            print("  the Python path, same run: " + ", ".join(
                f"{op} {v:+.2f}" for op, v in res["python_path_large_pct_by_op"].items()) + " %")
    return res


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--quick", action="store_true", help="2^22 elements instead of 2^26, fewer calls and cases")
    p.add_argument("--calls", type=int, default=None, help="calls per round in part 1 (default 5000, 1000 quick)")
    p.add_argument("--rounds", type=int, default=None, help="rounds (default 7, 3 quick)")
    p.add_argument("--only", choices=["overhead", "large", "fla"], action="append",
                   help="run only this part (repeatable; default: all three)")
    p.add_argument("--json", help="also write the figures and the environment here")
    args = p.parse_args()
    if args.device == "cuda" and not (torch.cuda.is_available() and paddle.is_compiled_with_cuda()):
        sys.exit("--device cuda needs a GPU visible to torch and a CUDA build of paddle_ops")
    calls = args.calls or (1000 if args.quick else 5000)
    rounds = args.rounds or (3 if args.quick else 7)
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    env = environment(args.device)
    print("environment:", json.dumps(env))
    parts = args.only or ["overhead", "large", "fla"]
    out = {"environment": env}
    if "overhead" in parts:
        out["overhead"] = overhead_rows(args.device, calls, rounds, sync)
    if "large" in parts:
        out["large"] = large_rows(args.device, 22 if args.quick else 26, rounds, sync)
    if "fla" in parts:
        out["fla"] = fla_rows(args.device, rounds, sync, args.quick)
    out["summary"] = summary(out)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
