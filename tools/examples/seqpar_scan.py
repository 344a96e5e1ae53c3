"""Sequence-parallel scans and gla: one sequence split along time over the ranks of a torch.distributed job.

    torchrun --nproc-per-node 2 tools/examples/seqpar_scan.py            # check against one process
    torchrun --nproc-per-node 2 tools/examples/seqpar_scan.py --bench    # times for docs/seqpar.md

(PYTHONPATH=build/python, with a Python that has torch.) Every rank builds the same whole
sequence from a seed and takes its shard (rank r: steps [r*T, (r+1)*T)); NCCL with one GPU per
rank where CUDA is there, gloo on the CPU otherwise (--backend to choose). NVLink multicast is
left off (NCCL_NVLS_ENABLE=0). If torchrun's default port (29500) is taken, add --master-port N.

--check (default): logcumsumexp, pscan and gla forward and backward on each rank's shard against the
whole sequence run in one process, the largest error over the ranks printed by rank 0.
--bench: per op, the median over --repeat runs of (a) the local scan of the shard alone (the
op as one GPU runs it), (b) one all_gather of the carries alone, (c) the distributed forward and
(d) forward + backward, for logcumsumexp and cumsum (e) the same with the earlier fix-up design
(distributed.py's PADDLE_OPS_SEQPAR_FIXUP, set per call here: local scan, exchange, fix-up pass;
the other columns scan each shard once from the carry, on the CPU too), and for pscan and gla (e) the point-to-point
design pipelined over --pipeline blocks of lines (``pipeline=`` of the functions), each run's time
the slowest rank's, printed by rank 0 as a table (the measured points of docs/seqpar.md).
"""
import argparse
import os
import statistics
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import paddle_ops.integrations.torch  # noqa: E402,F401 (registers torch.ops.paddle_ops.*)
from paddle_ops.integrations.torch import distributed as sp  # noqa: E402

ops = torch.ops.paddle_ops


def setup(backend):
    if backend is None:
        backend = "nccl" if torch.cuda.is_available() and dist.is_nccl_available() else "gloo"
    if backend == "nccl":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", 0)))
        device = torch.device("cuda", torch.cuda.current_device())
    else:
        device = torch.device("cpu")
    dist.init_process_group(backend)
    return backend, device


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed(fn, device, repeat):
    ts = []
    for _ in range(repeat + 1):  # the first run warms up
        dist.barrier()
        sync(device)
        t0 = time.perf_counter()
        fn()
        sync(device)
        # the job's time: the slowest rank's (rank 0 is first in scan order and skips the fix-up)
        t = torch.tensor([time.perf_counter() - t0], dtype=torch.float64, device=device)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        ts.append(t.item())
    return statistics.median(ts[1:])


def inputs(op, B, T, D, dtype, device, seed=0):
    g = torch.Generator().manual_seed(seed)
    if op == "gla":  # [B, H=4, T, Dk=Dv=D]
        q, k, v = (torch.randn(B, 4, T, D, generator=g, dtype=torch.float64).to(device, dtype) for _ in range(3))
        gk = torch.nn.functional.logsigmoid(torch.randn(B, 4, T, D, generator=g, dtype=torch.float64)) / 16
        return [q, k, v, gk.to(device, dtype)]
    if op == "logcumsumexp":
        return [torch.randn(B, T, D, generator=g, dtype=torch.float64).to(device, dtype)]
    a = (torch.rand(B, T, D, generator=g, dtype=torch.float64) * 0.5 + 0.5).to(device, dtype)
    return [a, torch.randn(B, T, D, generator=g, dtype=torch.float64).to(device, dtype)]


def run_dist(op, args, pipeline=None):
    if op == "gla":
        return sp.gla(*args, pipeline=pipeline)
    if op == "cumsum":
        return sp.cumsum(args[0], axis=1)
    return sp.logcumsumexp(args[0], axis=1) if op == "logcumsumexp" else sp.pscan(args[0], args[1], pipeline=pipeline)


def run_fixup(op, args):
    """logcumsumexp or cumsum with the fix-up design (distributed.py's PADDLE_OPS_SEQPAR_FIXUP)."""
    before, sp._FIXUP = sp._FIXUP, True
    try:
        return run_dist(op, args)
    finally:
        sp._FIXUP = before


def run_local(op, args):
    if op == "gla":
        return ops.gla(*args, None, None, args[0].shape[-1] ** -0.5)
    if op == "cumsum":
        return ops.cumsum(args[0], 1)
    return ops.logcumsumexp(args[0], 1) if op == "logcumsumexp" else ops.pscan(args[0], args[1])


def time_slice(op, t, sl):
    return t[:, :, sl] if op == "gla" else t[:, sl]


def check(device, world, rank, B, T, D):
    worst = {}
    for op, pipeline in (("logcumsumexp", None), ("pscan", None), ("pscan", 2), ("gla", None), ("gla", 2)):
        for dtype in (torch.float32, torch.float64):
            full = inputs(op, B, T * world, D, dtype, device, seed=1)
            w = torch.randn(run_local(op, full).shape, dtype=torch.float64,
                            generator=torch.Generator().manual_seed(2)).to(device, dtype)
            ref_in = [t.detach().clone().requires_grad_() for t in full]
            ref = run_local(op, ref_in)
            (ref * w).sum().backward()
            sl = slice(rank * T, (rank + 1) * T)
            mine = [time_slice(op, t, sl).detach().clone().requires_grad_() for t in full]
            out = run_dist(op, mine, pipeline)
            (out * time_slice(op, w, sl)).sum().backward()
            errs = [(out - time_slice(op, ref, sl)).abs().max()]
            errs += [(m.grad - time_slice(op, r.grad, sl)).abs().max() / time_slice(op, r.grad, sl).abs().max().clamp(min=1)
                     for m, r in zip(mine, ref_in)]
            e = torch.stack(errs).double()
            dist.all_reduce(e, op=dist.ReduceOp.MAX)
            worst[f"{op}{' pipelined' if pipeline else ''} {str(dtype).split('.')[-1]}"] = e.tolist()
    if rank == 0:
        print(f"{world} ranks, shard [{B}, {T}, {D}] per rank: largest |error| against one process "
              "(out absolute, grads relative to max |grad|)")
        for k, v in worst.items():
            print(f"  {k:32s} out {v[0]:.2e}  " + "  ".join(f"grad{i} {x:.2e}" for i, x in enumerate(v[1:])))


def bench(device, world, rank, B, T, D, repeat, pipeline):
    sp._FIXUP = False  # the distributed columns: one scan from the carry, on every device
    rows = []
    for op in ("logcumsumexp", "cumsum", "pscan", "gla"):
        if op == "gla":  # the seed's gla shape per rank: [B=1, H=4, T, 128], T = --shape's T / 4
            args = inputs(op, 1, max(T // 4, 1), 128, torch.float32, device)
            carry = torch.zeros(1, 4, 128, 129, dtype=torch.float64, device=device)  # decay + state
        else:
            args = inputs("logcumsumexp" if op == "cumsum" else op, B, T, D, torch.float32, device)
            carry = torch.zeros(2 if op == "pscan" else 1, B, D, dtype=torch.float64, device=device)
        parts = [torch.empty_like(carry) for _ in range(world)]
        t_local = timed(lambda: run_local(op, args), device, repeat)
        t_gather = timed(lambda: dist.all_gather(parts, carry), device, repeat)
        t_fwd = timed(lambda: run_dist(op, args), device, repeat)
        leaves = [t.detach().clone().requires_grad_() for t in args]
        t_fb = timed(lambda: run_dist(op, leaves).sum().backward(), device, repeat)
        t_fb_local = timed(lambda: run_local(op, leaves).sum().backward(), device, repeat)
        t_pf = t_pfb = None
        if op in ("logcumsumexp", "cumsum"):  # the fix-up design, in the same run
            t_pf = timed(lambda: run_fixup(op, args), device, repeat)
            t_pfb = timed(lambda: run_fixup(op, leaves).sum().backward(), device, repeat)
        elif pipeline:  # the point-to-point design
            t_pf = timed(lambda: run_dist(op, args, pipeline), device, repeat)
            t_pfb = timed(lambda: run_dist(op, leaves, pipeline).sum().backward(), device, repeat)
        rows.append((op, t_local, t_gather, t_fwd, t_fb_local, t_fb, carry.numel() * 8, t_pf, t_pfb))
    if rank == 0:
        print(f"P={world} ({device.type}), shard [{B}, {T}, {D}] float32 per rank (gla: q, k, v, gk "
              f"[1, 4, {max(T // 4, 1)}, 128]), the slowest rank's time, median of {repeat}:")
        print("| op | local scan ms | all_gather ms | dist fwd ms | fwd ratio | local f+b ms | dist f+b ms | f+b ratio |"
              f" carry bytes/rank | fix-up design (lse, cumsum) or pipelined ({pipeline} blocks) fwd ms | ratio |"
              " same f+b ms | ratio |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for op, tl, tg, tf, tfbl, tfb, nb, tpf, tpfb in rows:
            pipe = (f"{tpf * 1e3:.3f} | {tpf / tl:.2f} | {tpfb * 1e3:.3f} | {tpfb / tfbl:.2f}" if tpf is not None
                    else "- | - | - | -")
            print(f"| {op} | {tl * 1e3:.3f} | {tg * 1e3:.3f} | {tf * 1e3:.3f} | {tf / tl:.2f} | {tfbl * 1e3:.3f} | "
                  f"{tfb * 1e3:.3f} | {tfb / tfbl:.2f} | {nb} | {pipe} |")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", choices=["gloo", "nccl"], default=None)
    p.add_argument("--bench", action="store_true")
    p.add_argument("--shape", type=int, nargs=3, default=None, metavar=("B", "T", "D"),
                   help="the shard's [B, T, D] (default 2 37 8 for the check, 8 4096 64 for the bench)")
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--pipeline", type=int, default=8,
                   help="blocks of lines of the point-to-point design, timed beside the collective one "
                        "(pscan, gla; 0: not timed)")
    a = p.parse_args()
    backend, device = setup(a.backend)
    world, rank = dist.get_world_size(), dist.get_rank()
    B, T, D = a.shape or ((8, 4096, 64) if a.bench else (2, 37, 8))
    if a.bench:
        bench(device, world, rank, B, T, D, a.repeat, a.pipeline)
    else:
        check(device, world, rank, B, T, D)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
