"""Benchmark of pscan (docs/spec.md §3; peers and targets: docs/benchmarks.md): ours against the
seed's cumsum (log-space) form written in torch from the seed's formulas and a copy of x, all in
one run; ms and x floor, where the floor is the copy time scaled to the bytes pscan reads and writes.

    PYTHONPATH=build/python python3 tools/bench/bench_pscan.py            # GPU table
    PYTHONPATH=build/python python3 tools/bench/bench_pscan.py --cpu      # CPU table
    options: --quick (small shapes), --repeat N, --json out.json

GPU cases (float32):
  * the seed's shape: a [4, T], x [4, T, 4096], T = 8192 and 40960 (one gate per step,
    broadcast over D; the scan runs down the columns of each [T, 4096] slab).
  * a and x both [8, 1536, T], T = 1024, 8192, 65536, the recurrence along the LAST axis
    (one recurrence per row, gates per element). pscan scans axis 1 of [N, T, D], so this is
    the contiguous view a [8*1536, T], x [8*1536, T, 1] (a reshape, no data moved): N = 12288
    rows, D = 1. The seed's form gets the same view (its D = 1).
Bytes: ours reads x and a and writes y; the copy reads and writes x. floor = copy_ms *
(bytes(x) + bytes(a) + bytes(y)) / (2 * bytes(x)).

Timing: each figure is the median over --repeat batches of --batch back-to-back calls,
timed on the host between device synchronizations (so launch overhead overlaps the GPU
work as it does in a model); ours, the seed's form and the copy alike.

Gates are drawn from U(0.999, 1) so that the seed's form stays finite on these lengths and
the numeric comparison (max |ours - seed| / max |seed|, with ours given the seed's shifted
gates) means something; with gates in (0, 1) it overflows from T ~ 128 on (see
test_pscan_op.py), which changes nothing in its speed.

CPU mode: pscan and logcumsumexp (the scan engine's reference op) on the same x in one run,
ns per element, and their ratio (target pscan <= 1.5x logcumsumexp), with a memcpy of x.
"""
import argparse
import sys

import numpy as np

import paddle_ops as paddle
from bench_common import batch_ms, write_json

GPU_CASES = [("seed a [4,T], x [4,T,4096]", 4, T, 4096, True) for T in (8192, 40960)] + \
            [("a, x [8,1536,T], last axis", 8 * 1536, T, 1, False) for T in (1024, 8192, 65536)]
GPU_QUICK = [("seed a [4,T], x [4,T,4096]", 4, 1024, 4096, True),
             ("a, x [8,1536,T], last axis", 8 * 1536, 1024, 1, False)]
CPU_CASES = [("seed a [4,T], x [4,T,4096]", 4, 2048, 4096, True),
             ("a, x [8,1536,T], last axis", 8 * 1536, 1024, 1, False),
             ("one row, T = 2^24", 1, 1 << 24, 1, False),
             ("a, x [4,T,1024] (gates per element)", 4, 2048, 1024, False)]
CPU_QUICK = [("seed a [4,T], x [4,T,256]", 4, 1024, 256, True),
             ("a, x [1536,1024], last axis", 1536, 1024, 1, False)]


def make_inputs(N, T, D, per_step, rng):
    x = rng.standard_normal((N, T, D), dtype=np.float32)
    a = rng.uniform(0.999, 1.0, size=(N, T) if per_step else (N, T, D)).astype(np.float32)
    return a, x


def seed_gates(a):
    """pscan's gates for the seed's convention Y_t = A_{t-1} Y_{t-1} + X_t: [1, A_0, .., A_{T-2}]."""
    return np.concatenate([np.ones_like(a[:, :1]), a[:, :-1]], axis=1)


def seed_cumsum_form_torch(torch, A, X):
    """The seed's Y = X + exp(V) * cumsum(exp(W) * X) (its §3.4), for A [N, T] and X [N, T, D],
    its convention Y_0 = X_0, Y_t = A_{t-1} Y_{t-1} + X_t. With C = cumsum(log A):
    Y_t = X_t + exp(C_{t-1}) * sum_{j<t} exp(-C_{j-1}) X_j, i.e. V_t = C_{t-1}, W_j = -C_{j-1}.
    Real logs: the benchmark's gates are positive (the seed takes complex logs otherwise)."""
    C = torch.cumsum(torch.log(A), dim=1)
    V = torch.nn.functional.pad(C[:, :-1], (1, 0))          # C_{t-1}, C_{-1} = 0
    S = torch.cumsum(torch.exp(-V).unsqueeze(-1) * X, dim=1)  # sum_{j<=t} exp(W_j) X_j
    Y = X.clone()
    Y[:, 1:] += torch.exp(V[:, 1:]).unsqueeze(-1) * S[:, :-1]
    return Y


def run_gpu(cases, repeat, batch):
    import torch
    rng = np.random.default_rng(0)
    rows = []
    sync_ours = paddle.device.synchronize
    sync_torch = torch.cuda.synchronize
    for label, N, T, D, per_step in cases:
        a, x = make_inputs(N, T, D, per_step, rng)
        # The seed's shifted gates, so that ours and the seed's form compute the same Y.
        pa, px = paddle.to_tensor(seed_gates(a), place="gpu"), paddle.to_tensor(x, place="gpu")
        row = {"case": label, "T": T, "N": N, "D": D}
        row["ours_ms"] = batch_ms(lambda: paddle.pscan(pa, px), sync_ours, repeat, batch)
        ours = paddle.pscan(pa, px).numpy()
        del pa, px
        paddle.device.cuda.empty_cache()
        tx = torch.from_numpy(x).cuda()
        ta = torch.from_numpy(a).cuda()
        row["copy_ms"] = batch_ms(lambda: tx.clone(), sync_torch, repeat, batch)
        ta2 = ta.reshape(N, T)  # the seed's A [N, T] (with D == 1, one gate per element)
        row["seed_ms"] = batch_ms(lambda: seed_cumsum_form_torch(torch, ta2, tx), sync_torch, repeat, batch)
        seed = seed_cumsum_form_torch(torch, ta2, tx).cpu().numpy()
        row["seed_finite"] = bool(np.isfinite(seed).all())
        row["max_rel_diff"] = float(np.max(np.abs(ours - seed)) / max(np.max(np.abs(seed)), 1e-30))
        del tx, ta, ta2, seed, ours
        torch.cuda.empty_cache()
        bytes_x = x.nbytes
        row["floor_ms"] = row["copy_ms"] * (2 * bytes_x + a.nbytes) / (2 * bytes_x)
        rows.append(row)
        print_gpu_row(row, flush=True)
    return rows


def print_gpu_header():
    hdr = ["case", "T", "copy ms", "floor ms", "ours ms", "ours x floor", "seed form ms", "seed x floor",
           "ours vs seed (rel)"]
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))


def print_gpu_row(r, flush=False):
    f = r["floor_ms"]
    check = f"{r['max_rel_diff']:.1e}" + ("" if r["seed_finite"] else " (seed non-finite)")
    print(f"| {r['case']} | {r['T']} | {r['copy_ms']:.3f} | {f:.3f} | {r['ours_ms']:.3f} | "
          f"{r['ours_ms'] / f:.2f} | {r['seed_ms']:.3f} | {r['seed_ms'] / f:.2f} | {check} |", flush=flush)


def run_cpu(cases, repeat):
    rng = np.random.default_rng(0)
    rows = []
    for label, N, T, D, per_step in cases:
        a, x = make_inputs(N, T, D, per_step, rng)
        n = x.size
        dst = np.empty_like(x)
        pa, px = paddle.to_tensor(a), paddle.to_tensor(x)
        nop = lambda: None  # noqa: E731
        row = {"case": label, "N": N, "T": T, "D": D, "threads": paddle.get_num_threads()}
        row["copy_ns"] = batch_ms(lambda: np.copyto(dst, x), nop, repeat, 1) * 1e6 / n
        row["pscan_ns"] = batch_ms(lambda: paddle.pscan(pa, px), nop, repeat, 1) * 1e6 / n
        row["lcse_ns"] = batch_ms(lambda: paddle.logcumsumexp(px, axis=1), nop, repeat, 1) * 1e6 / n
        rows.append(row)
        print(f"| {label} | {N}x{T}x{D} | {row['threads']} | {row['copy_ns']:.2f} | {row['pscan_ns']:.2f} | "
              f"{row['lcse_ns']:.2f} | {row['pscan_ns'] / row['lcse_ns']:.2f} |", flush=True)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cpu", action="store_true", help="the CPU table instead of the GPU one")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--batch", type=int, default=10, help="GPU calls per timed batch")
    p.add_argument("--json")
    args = p.parse_args()
    if args.cpu:
        print("| case | N x T x D | threads | copy ns/el | pscan ns/el | logcumsumexp ns/el | pscan / lcse |")
        print("|---|---|---|---|---|---|---|")
        rows = run_cpu(CPU_QUICK if args.quick else CPU_CASES, args.repeat)
    else:
        if not (paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0):
            print("no GPU: run with --cpu, or on the GPU machine")
            sys.exit(1)
        print_gpu_header()
        rows = run_gpu(GPU_QUICK if args.quick else GPU_CASES, args.repeat, args.batch)
    if args.json:
        write_json(args.json, rows, "bench_pscan --cpu" if args.cpu else "bench_pscan")


if __name__ == "__main__":
    main()
