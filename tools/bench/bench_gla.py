"""Benchmark of gla (docs/spec.md §5; peers and targets: docs/benchmarks.md) on the GPU: ours
forward and forward+backward in bfloat16, with torch's causal scaled_dot_product_attention (where
Dk == Dv) and a copy of q measured in the same run, and flash-linear-attention's chunk_gla when it
is importable.

    PYTHONPATH=build/python python3 tools/bench/bench_gla.py [--quick] [--repeat N] [--json out.json]
        [--compare-v1]               # also time version 1 of the chunked kernels (chunked_v1)
    PYTHONPATH=build/python python3 tools/bench/bench_gla.py --cpu [--quick] [--threads N] \
        [--repeat 3 --batch 1]       # float32 on the CPU: chunked vs recurrent form
    PYTHONPATH=build/python nsys profile --stats=true python3 tools/bench/bench_gla.py --only seed \
        --repeat 1 --batch 1        # time per kernel (state, intra, output, dqk, dg)

Cases (bf16, head_first [B, H, T, D]): the seed's B=32 T=2048 H=4 Dk=128 Dv=256, and
B=4 T=2048 H=16 D=128; B=8 T=1024 H=8 D=64; B=2 T=16384 H=16 D=128.

Columns: ms forward and forward+backward (paddle.grad of o with a random o_grad into q, k, v
and gk); floor = the copy time of q scaled to the bytes the forward must move (read q, k, gk,
v, write o); SDPA forward (torch, causal) for scale; fla's numbers on the H100 from
docs/benchmarks.md ("Peers and targets") and the target; and rel_rms, o of batch 0 against a float32 recurrent loop in
torch (a sanity check of the run, not the accuracy test: that is unittests/python/test_gla_op.py).

--compare-v1 adds a column: the same forward / forward+backward with PADDLE_OPS_GLA_GPU=chunked_v1
(the original kernels) in the same run, and the speed-up of the default version 2 over it.

Timing: each figure is the median over --repeat batches of --batch back-to-back calls, timed
on the host between device synchronizations.
"""
import argparse
import sys

import numpy as np

import paddle_ops as paddle
from bench_common import batch_ms, write_json

# (label, B, T, H, Dk, Dv, fla forward ms, fla forward+backward ms) from docs/benchmarks.md, "Peers and targets" (H100).
CASES = [
    ("seed", 32, 2048, 4, 128, 256, 1.33, 5.84),
    ("B4 T2048 H16 D128", 4, 2048, 16, 128, 128, 0.86, 3.49),
    ("B8 T1024 H8 D64", 8, 1024, 8, 64, 64, 0.47, 1.96),
    ("B2 T16384 H16 D128", 2, 16384, 16, 128, 128, 1.87, 8.11),
]
QUICK = [("small", 2, 512, 4, 64, 64, None, None)]
TARGET = {"seed": (1.0, 5.0)}  # docs/benchmarks.md: forward <= 1.0 ms, forward+backward <= 5.0 ms


def make_inputs(B, T, H, Dk, Dv, rng):
    q = rng.standard_normal((B, H, T, Dk), dtype=np.float32)
    k = rng.standard_normal((B, H, T, Dk), dtype=np.float32)
    v = rng.standard_normal((B, H, T, Dv), dtype=np.float32)
    # logsigmoid(x) / 16, as the seed's layer makes its decays.
    x = rng.standard_normal((B, H, T, Dk), dtype=np.float32)
    g = -np.logaddexp(0.0, -x) / 16.0
    return q, k, v, g.astype(np.float32)


def torch_recurrent(torch, q, k, v, g, scale):
    """o of the recurrence in float32 (one batch element), step by step."""
    H, T, Dk = q.shape
    h = torch.zeros(H, Dk, v.shape[-1], device=q.device)
    o = torch.empty(H, T, v.shape[-1], device=q.device)
    for t in range(T):
        h = h * torch.exp(g[:, t])[:, :, None] + k[:, t, :, None] * v[:, t, None, :]
        o[:, t] = torch.einsum("hi,hij->hj", q[:, t] * scale, h)
    return o


def fla_chunk_gla():
    try:
        from fla.ops.gla import chunk_gla  # noqa: F401
        return chunk_gla
    except Exception:  # not installed (or an incompatible version): the column stays empty
        return None


def time_ours(pt, pdo, repeat, batch):
    """(forward ms, forward+backward ms) of paddle.gla on the tensors pt with o_grad pdo."""
    sync = paddle.device.synchronize
    with paddle.no_grad():
        fwd = batch_ms(lambda: paddle.gla(*pt), sync, repeat, batch)

    def fwd_bwd():
        o, _ = paddle.gla(*pt)
        return paddle.grad([o], pt, [pdo])

    return fwd, batch_ms(fwd_bwd, sync, repeat, max(1, batch // 2))


def run(cases, repeat, batch, compare_v1=False):
    import torch
    rng = np.random.default_rng(0)
    tsync = torch.cuda.synchronize
    chunk_gla = fla_chunk_gla()
    rows = []
    for label, B, T, H, Dk, Dv, fla_f, fla_fb in cases:
        q, k, v, g = make_inputs(B, T, H, Dk, Dv, rng)
        do = rng.standard_normal(v.shape, dtype=np.float32)
        pt = [paddle.to_tensor(a, dtype="bfloat16", place="gpu", stop_gradient=False) for a in (q, k, v, g)]
        pdo = paddle.to_tensor(do, dtype="bfloat16", place="gpu")
        row = {"case": label, "B": B, "T": T, "H": H, "Dk": Dk, "Dv": Dv}
        row["fwd_ms"], row["fwdbwd_ms"] = time_ours(pt, pdo, repeat, batch)
        if compare_v1:
            saved = paddle.get_flags("PADDLE_OPS_GLA_GPU")
            paddle.set_flags({"PADDLE_OPS_GLA_GPU": "chunked_v1"})
            try:
                row["v1_fwd_ms"], row["v1_fwdbwd_ms"] = time_ours(pt, pdo, repeat, batch)
            finally:
                paddle.set_flags(saved)
        o0 = paddle.gla(*pt)[0].astype("float32").numpy()[0]  # the values (numpy() of bfloat16: its bits)
        del pt, pdo
        paddle.device.cuda.empty_cache()

        tq = torch.from_numpy(q).cuda().to(torch.bfloat16)
        row["copy_ms"] = batch_ms(lambda: tq.clone(), tsync, repeat, batch)
        moved = 3 * q.nbytes + 2 * v.nbytes  # q, k, gk, v read and o written (bf16 = half of float32)
        row["floor_ms"] = row["copy_ms"] * moved / (2 * q.nbytes)
        if Dk == Dv:
            tk = torch.from_numpy(k).cuda().to(torch.bfloat16)
            tv = torch.from_numpy(v).cuda().to(torch.bfloat16)
            sdpa = torch.nn.functional.scaled_dot_product_attention
            row["sdpa_ms"] = batch_ms(lambda: sdpa(tq, tk, tv, is_causal=True), tsync, repeat, batch)
            del tk, tv
        if chunk_gla is not None:
            # fla in its own layout, [B, T, H, D] (head_first=False). fla 0.6 takes head_first and
            # ignores head_first=True: [B, H, T, D] read as [B, T, H, D] gave Triton "invalid
            # argument" on the H100. Versions without the argument take [B, T, H, D] only.
            args = [torch.from_numpy(a).cuda().to(torch.bfloat16).transpose(1, 2).contiguous() for a in (q, k, v, g)]
            try:
                row["fla_fwd_ms"] = batch_ms(lambda: chunk_gla(*args, head_first=False), tsync, repeat, batch)
            except TypeError:
                row["fla_fwd_ms"] = batch_ms(lambda: chunk_gla(*args), tsync, repeat, batch)
            del args
        # Sanity: batch 0 against the float32 loop on the bf16-rounded inputs.
        r = [torch.from_numpy(a[0]).cuda().to(torch.bfloat16).float() for a in (q, k, v, g)]
        ref = torch_recurrent(torch, *r, Dk ** -0.5).cpu().numpy()
        row["rel_rms"] = float(np.sqrt(np.mean((o0 - ref) ** 2) / np.mean(ref ** 2)))
        del tq, r
        torch.cuda.empty_cache()
        row["fla_ref_fwd_ms"], row["fla_ref_fwdbwd_ms"] = fla_f, fla_fb
        row["target"] = TARGET.get(label)
        rows.append(row)
        print_row(row, flush=True)
    return rows


CPU_CASES = [("cpu", 1, 2048, 4, 128, 128)]  # (label, B, T, H, Dk, Dv), float32
CPU_QUICK = [("cpu small", 1, 512, 2, 64, 64)]


def run_cpu(cases, repeat, batch):
    """float32 on the CPU: forward and forward+backward of the chunked and the recurrent form
    (the flag PADDLE_OPS_GLA_CPU), and o of the two against each other."""
    rng = np.random.default_rng(0)
    saved = paddle.get_flags("PADDLE_OPS_GLA_CPU")
    rows = []
    try:
        for label, B, T, H, Dk, Dv in cases:
            q, k, v, g = make_inputs(B, T, H, Dk, Dv, rng)
            pt = [paddle.to_tensor(a, dtype="float32", place="cpu", stop_gradient=False) for a in (q, k, v, g)]
            pdo = paddle.to_tensor(rng.standard_normal(v.shape, dtype=np.float32), place="cpu")
            row = {"case": label, "B": B, "T": T, "H": H, "Dk": Dk, "Dv": Dv,
                   "threads": paddle.get_num_threads()}
            outs = {}
            for path in ("chunked", "recurrent"):
                paddle.set_flags({"PADDLE_OPS_GLA_CPU": path})
                with paddle.no_grad():
                    row[path + "_fwd_ms"] = batch_ms(lambda: paddle.gla(*pt), lambda: None, repeat, batch)

                def fwd_bwd():
                    o, _ = paddle.gla(*pt)
                    return paddle.grad([o], pt, [pdo])

                row[path + "_fwdbwd_ms"] = batch_ms(fwd_bwd, lambda: None, repeat, batch)
                outs[path] = paddle.gla(*pt)[0].numpy()
            a, b = outs["chunked"], outs["recurrent"]
            row["rel_rms"] = float(np.sqrt(np.mean((a - b) ** 2) / np.mean(b ** 2)))
            rows.append(row)
            print(f"| {label} | {B} | {T} | {H} | {Dk} | {Dv} | {row['threads']} | "
                  f"{fmt(row['chunked_fwd_ms'], 1)} | {fmt(row['recurrent_fwd_ms'], 1)} | "
                  f"{row['recurrent_fwd_ms'] / row['chunked_fwd_ms']:.1f} | "
                  f"{fmt(row['chunked_fwdbwd_ms'], 1)} | {fmt(row['recurrent_fwdbwd_ms'], 1)} | "
                  f"{row['recurrent_fwdbwd_ms'] / row['chunked_fwdbwd_ms']:.1f} | {row['rel_rms']:.1e} |",
                  flush=True)
    finally:
        paddle.set_flags(saved)
    return rows


CPU_HEADER = ("| case | B | T | H | Dk | Dv | threads | chunked fwd ms | recurrent fwd ms | x | "
              "chunked fwd+bwd ms | recurrent fwd+bwd ms | x | rel_rms chunked vs recurrent |")


def fmt(x, nd=3):
    return "-" if x is None else f"{x:.{nd}f}"


HEADER = ("| case | B | T | H | Dk | Dv | floor ms | ours fwd ms | x floor | ours fwd+bwd ms | "
          "SDPA fwd ms | fla fwd ms (this run) | fla fwd / fwd+bwd ms (docs/benchmarks.md) | target | rel_rms |")
V1_HEADER = " chunked_v1 fwd / fwd+bwd ms | speed-up fwd / fwd+bwd |"


def print_row(r, flush=False):
    tgt = "-" if r["target"] is None else f"{r['target'][0]} / {r['target'][1]}"
    ref = "-" if r["fla_ref_fwd_ms"] is None else f"{r['fla_ref_fwd_ms']} / {r['fla_ref_fwdbwd_ms']}"
    print(f"| {r['case']} | {r['B']} | {r['T']} | {r['H']} | {r['Dk']} | {r['Dv']} | {fmt(r['floor_ms'])} | "
          f"{fmt(r['fwd_ms'])} | {r['fwd_ms'] / r['floor_ms']:.1f} | {fmt(r['fwdbwd_ms'])} | "
          f"{fmt(r.get('sdpa_ms'))} | {fmt(r.get('fla_fwd_ms'))} | {ref} | {tgt} | {r['rel_rms']:.1e} |"
          + (f" {fmt(r['v1_fwd_ms'])} / {fmt(r['v1_fwdbwd_ms'])} | {r['v1_fwd_ms'] / r['fwd_ms']:.2f} / "
             f"{r['v1_fwdbwd_ms'] / r['fwdbwd_ms']:.2f} |" if 'v1_fwd_ms' in r else ""),
          flush=flush)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="one small shape")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--only", help="run only the case of this label (e.g. seed), to profile it")
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--cpu", action="store_true",
                    help="time the CPU instead (float32, chunked vs recurrent; --repeat/--batch apply)")
    ap.add_argument("--threads", type=int, help="with --cpu: paddle_ops.set_num_threads")
    ap.add_argument("--compare-v1", action="store_true",
                    help="also time version 1 of the chunked GPU kernels (PADDLE_OPS_GLA_GPU=chunked_v1)")
    args = ap.parse_args()
    if args.cpu:
        if args.threads:
            paddle.set_num_threads(args.threads)
        print(CPU_HEADER)
        print("|" + "---|" * (CPU_HEADER.count("|") - 1))
        rows = run_cpu(CPU_QUICK if args.quick else CPU_CASES, args.repeat, args.batch)
        if args.json:
            write_json(args.json, rows, "bench_gla --cpu")
        return 0
    if not (paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0):
        print("bench_gla: no GPU (this benchmark runs on the device)", file=sys.stderr)
        return 2
    header = HEADER + (V1_HEADER if args.compare_v1 else "")
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    cases = QUICK if args.quick else CASES
    if args.only:
        cases = [c for c in cases if c[0] == args.only]
        if not cases:
            print(f"bench_gla: no case named {args.only!r}", file=sys.stderr)
            return 2
    rows = run(cases, args.repeat, args.batch, args.compare_v1)
    if args.json:
        write_json(args.json, rows, "bench_gla")
    return 0


if __name__ == "__main__":
    sys.exit(main())
