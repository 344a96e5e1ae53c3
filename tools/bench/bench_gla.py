"""Benchmark of gla (docs/spec.md §5; peers and targets: docs/benchmarks.md) on the GPU: ours
forward and forward+backward in bfloat16, with torch's causal scaled_dot_product_attention (where
Dk == Dv) and a copy of q measured in the same run, and flash-linear-attention's chunk_gla when it
is importable.

    PYTHONPATH=build/python python3 tools/bench/bench_gla.py [--quick] [--repeat N] [--json out.json]
    PYTHONPATH=build/python python3 tools/bench/bench_gla.py --cpu [--quick] [--threads N] \
        [--repeat 3 --batch 1]       # float32 on the CPU: chunked vs recurrent form
    PYTHONPATH=build/python python3 tools/bench/bench_gla.py --only decode,varlen   # those tables alone
    PYTHONPATH=build/python nsys profile --stats=true python3 tools/bench/bench_gla.py --only seed \
        --repeat 1 --batch 1        # time per kernel (state, intra, output, dqk, dg)

Cases (bf16, head_first [B, H, T, D]): the seed's B=32 T=2048 H=4 Dk=128 Dv=256, and
B=4 T=2048 H=16 D=128; B=8 T=1024 H=8 D=64; B=2 T=16384 H=16 D=128.

Then two more tables: a decode step (T = 1 with a state in and out, [B, 1, H, D]) beside fla's
fused_recurrent_gla, and a varlen case (8 sequences of mixed lengths, 16384 tokens, packed with
cu_seqlens, [1, T, H, D]) beside fla's chunk_gla with cu_seqlens, forward and forward+backward.
fla is called with a float32 g (as its layers pass it) only where ours is given the same: every
case gives both bf16 q, k, v, g.

Columns: ms forward and forward+backward (paddle.grad of o with a random o_grad into q, k, v
and gk); floor = the copy time of q scaled to the bytes the forward must move (read q, k, gk,
v, write o); SDPA forward (torch, causal) for scale; fla's numbers on the H100 from
docs/benchmarks.md ("Peers and targets") and the target; and rel_rms, o of batch 0 against a float32 recurrent loop in
torch (a sanity check of the run, not the accuracy test: that is unittests/python/test_gla_op.py).

Timing: each figure is the median over --repeat batches of --batch back-to-back calls, timed
on the host between device synchronizations. fla is first called FLA_WARMUP times in each mode
(forward, forward+backward), past Triton's autotuning, before it is timed.
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
# (label, B, H, Dk, Dv): one decode step, a state in and out.
DECODE = [("decode B1 H16 D128", 1, 16, 128, 128), ("decode B32 H16 D128", 32, 16, 128, 128),
          ("decode B8 H4 Dk128 Dv256", 8, 4, 128, 256)]
# (label, sequence lengths, H, Dk, Dv): packed along T with cu_seqlens, B = 1.
VARLEN = [("varlen 8 seqs 16384 H16 D128", [512, 4096, 1024, 3072, 256, 2048, 4608, 768], 16, 128, 128)]
VARLEN_QUICK = [("varlen small", [100, 300, 112], 4, 64, 64)]
FLA_WARMUP = 5
TARGET = {"seed": (0.375, 2.3)}  # issue 30: forward within 3x its memory floor, forward+backward half of fla's


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


def fla_fused_recurrent_gla():
    try:
        from fla.ops.gla import fused_recurrent_gla  # noqa: F401
        return fused_recurrent_gla
    except Exception:
        return None


def time_torch(fn, args, do, repeat, batch):
    """(forward ms, forward+backward ms) of a torch function fn(*args) -> (o, ...) with o_grad do,
    after FLA_WARMUP calls of each (Triton's autotuning runs in the first ones)."""
    import torch
    tsync = torch.cuda.synchronize

    def fwd_bwd():
        o = fn(*args)[0]
        return torch.autograd.grad(o, [a for a in args if a.requires_grad], do)

    with torch.no_grad():
        for _ in range(FLA_WARMUP):
            fn(*args)
        fwd = batch_ms(lambda: fn(*args), tsync, repeat, batch)
    for _ in range(FLA_WARMUP):
        fwd_bwd()
    return fwd, batch_ms(fwd_bwd, tsync, repeat, max(1, batch // 2))


def time_ours(pt, pdo, repeat, batch):
    """(forward ms, forward+backward ms) of paddle.gla on the tensors pt with o_grad pdo."""
    sync = paddle.device.synchronize
    with paddle.no_grad():
        fwd = batch_ms(lambda: paddle.gla(*pt), sync, repeat, batch)

    def fwd_bwd():
        o, _ = paddle.gla(*pt)
        return paddle.grad([o], pt, [pdo])

    return fwd, batch_ms(fwd_bwd, sync, repeat, max(1, batch // 2))


def run(cases, repeat, batch):
    import torch
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1))
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
            # fla in its own layout, [B, T, H, D] (head_first=False, its default).
            args = [torch.from_numpy(a).cuda().to(torch.bfloat16).transpose(1, 2).contiguous().requires_grad_()
                    for a in (q, k, v, g)]
            tdo = torch.from_numpy(do).cuda().to(torch.bfloat16).transpose(1, 2).contiguous()
            row["fla_fwd_ms"], row["fla_fwdbwd_ms"] = time_torch(
                lambda *a: chunk_gla(*a, scale=Dk ** -0.5), args, tdo, repeat, batch)
            del args, tdo
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


DECODE_HEADER = ("| decode case | B | H | Dk | Dv | ours ms | fla fused_recurrent_gla ms | ours / fla | "
                 "rel. diff of o |")
VARLEN_HEADER = ("| varlen case | lengths | H | Dk | Dv | ours fwd ms | ours fwd+bwd ms | fla fwd ms | "
                 "fla fwd+bwd ms | rel. diff of o |")


def _rel(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.sqrt(np.mean((a - b) ** 2) / np.mean(b ** 2)))


def run_decode(cases, repeat, batch):
    """One decode step, a state in and out: ours (T = 1 takes the decode kernel) beside fla's
    fused_recurrent_gla, both [B, 1, H, D] bf16 with a float32 state; o of the two compared."""
    import torch
    rng = np.random.default_rng(1)
    fused = fla_fused_recurrent_gla()
    rows = []
    for label, B, H, Dk, Dv in cases:
        q, k, v, g = make_inputs(B, 1, H, Dk, Dv, rng)
        q, k, v, g = (np.swapaxes(a, 1, 2).copy() for a in (q, k, v, g))  # [B, 1, H, D]
        h0 = rng.standard_normal((B, H, Dk, Dv), dtype=np.float32)
        pt = [paddle.to_tensor(a, dtype="bfloat16", place="gpu") for a in (q, k, v, g)]
        ph = paddle.to_tensor(h0, place="gpu")
        row = {"case": label, "B": B, "H": H, "Dk": Dk, "Dv": Dv}
        with paddle.no_grad():
            step = lambda: paddle.gla(*pt, initial_state=ph, output_final_state=True, head_first=False)  # noqa: E731
            row["ours_ms"] = batch_ms(step, paddle.device.synchronize, repeat, batch)
            ours_o = step()[0].astype("float32").numpy()
        if fused is not None:
            ta = [torch.from_numpy(a).cuda().to(torch.bfloat16) for a in (q, k, v, g)]
            th = torch.from_numpy(h0).cuda()
            with torch.no_grad():
                fn = lambda: fused(*ta, scale=Dk ** -0.5, initial_state=th, output_final_state=True)  # noqa: E731
                for _ in range(FLA_WARMUP):
                    fn()
                row["fla_ms"] = batch_ms(fn, torch.cuda.synchronize, repeat, batch)
                row["rel_diff"] = _rel(ours_o, fn()[0].float().cpu().numpy())
        rows.append(row)
        ratio = None if row.get("fla_ms") is None else row["ours_ms"] / row["fla_ms"]
        diff = "-" if "rel_diff" not in row else f"{row['rel_diff']:.1e}"
        print(f"| {label} | {B} | {H} | {Dk} | {Dv} | {fmt(row['ours_ms'], 4)} | {fmt(row.get('fla_ms'), 4)} | "
              f"{fmt(ratio, 2)} | {diff} |", flush=True)
    return rows


def run_varlen(cases, repeat, batch):
    """Packed sequences (cu_seqlens, B = 1, [1, T, H, D]) forward and forward+backward, ours beside
    fla's chunk_gla with the same cu_seqlens."""
    import torch
    rng = np.random.default_rng(2)
    chunk_gla = fla_chunk_gla()
    rows = []
    for label, lengths, H, Dk, Dv in cases:
        T = sum(lengths)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        q, k, v, g = (np.swapaxes(a, 1, 2).copy() for a in make_inputs(1, T, H, Dk, Dv, rng))
        do = rng.standard_normal(v.shape, dtype=np.float32)
        pt = [paddle.to_tensor(a, dtype="bfloat16", place="gpu", stop_gradient=False) for a in (q, k, v, g)]
        pdo = paddle.to_tensor(do, dtype="bfloat16", place="gpu")
        pcu = paddle.to_tensor(offsets, place="gpu")
        row = {"case": label, "lengths": lengths, "H": H, "Dk": Dk, "Dv": Dv}
        call = lambda: paddle.gla(*pt, head_first=False, cu_seqlens=pcu)  # noqa: E731
        with paddle.no_grad():
            row["fwd_ms"] = batch_ms(call, paddle.device.synchronize, repeat, batch)
            ours_o = call()[0].astype("float32").numpy()
        row["fwdbwd_ms"] = batch_ms(lambda: paddle.grad([call()[0]], pt, [pdo]), paddle.device.synchronize, repeat,
                                    max(1, batch // 2))
        if chunk_gla is not None:
            args = [torch.from_numpy(a).cuda().to(torch.bfloat16).requires_grad_() for a in (q, k, v, g)]
            tcu = torch.from_numpy(offsets).cuda()
            fn = lambda *a: chunk_gla(*a, scale=Dk ** -0.5, cu_seqlens=tcu)  # noqa: E731
            row["fla_fwd_ms"], row["fla_fwdbwd_ms"] = time_torch(
                fn, args, torch.from_numpy(do).cuda().to(torch.bfloat16), repeat, batch)
            with torch.no_grad():
                row["rel_diff"] = _rel(ours_o, fn(*args)[0].float().cpu().numpy())
        rows.append(row)
        diff = "-" if "rel_diff" not in row else f"{row['rel_diff']:.1e}"
        print(f"| {label} | {'/'.join(map(str, lengths))} | {H} | {Dk} | {Dv} | {fmt(row['fwd_ms'])} | "
              f"{fmt(row['fwdbwd_ms'])} | {fmt(row.get('fla_fwd_ms'))} | {fmt(row.get('fla_fwdbwd_ms'))} | "
              f"{diff} |", flush=True)
        del pt, pdo
        paddle.device.cuda.empty_cache()
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
          "SDPA fwd ms | fla fwd ms (this run) | fla fwd+bwd ms (this run) | fla fwd / fwd+bwd ms "
          "(docs/benchmarks.md, H100) | target | rel_rms |")


def print_row(r, flush=False):
    tgt = "-" if r["target"] is None else f"{r['target'][0]} / {r['target'][1]}"
    ref = "-" if r["fla_ref_fwd_ms"] is None else f"{r['fla_ref_fwd_ms']} / {r['fla_ref_fwdbwd_ms']}"
    print(f"| {r['case']} | {r['B']} | {r['T']} | {r['H']} | {r['Dk']} | {r['Dv']} | {fmt(r['floor_ms'])} | "
          f"{fmt(r['fwd_ms'])} | {r['fwd_ms'] / r['floor_ms']:.1f} | {fmt(r['fwdbwd_ms'])} | "
          f"{fmt(r.get('sdpa_ms'))} | {fmt(r.get('fla_fwd_ms'))} | {fmt(r.get('fla_fwdbwd_ms'))} | {ref} | {tgt} | "
          f"{r['rel_rms']:.1e} |", flush=flush)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="one small shape")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--only", help="run only the cases whose labels start with these (comma-separated: "
                                   "seed, decode, varlen, ...), e.g. to profile one")
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--cpu", action="store_true",
                    help="time the CPU instead (float32, chunked vs recurrent; --repeat/--batch apply)")
    ap.add_argument("--threads", type=int, help="with --cpu: paddle_ops.set_num_threads")
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
    only = [w.strip() for w in args.only.split(",")] if args.only else None
    pick = lambda table: [c for c in table if only is None or any(c[0].startswith(w) for w in only)]  # noqa: E731
    cases = pick(QUICK if args.quick else CASES)
    decode = pick(DECODE[:1] if args.quick else DECODE)
    varlen = pick(VARLEN_QUICK if args.quick else VARLEN)
    if not (cases or decode or varlen):
        print(f"bench_gla: no case named {args.only!r}", file=sys.stderr)
        return 2
    rows = run(cases, args.repeat, args.batch) if cases else []
    if decode:
        print()
        print(DECODE_HEADER)
        print("|" + "---|" * (DECODE_HEADER.count("|") - 1))
        rows += run_decode(decode, args.repeat, args.batch)
    if varlen:
        print()
        print(VARLEN_HEADER)
        print("|" + "---|" * (VARLEN_HEADER.count("|") - 1))
        rows += run_varlen(varlen, args.repeat, args.batch)
    if args.json:
        write_json(args.json, rows, "bench_gla")
    return 0


if __name__ == "__main__":
    sys.exit(main())
