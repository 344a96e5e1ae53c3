"""GPU benchmark of right_flood and repeat_interleave (docs/spec.md §4; peers and targets:
docs/benchmarks.md), all in one run: ours, torch's equivalent, and a device-to-device copy; ms
and x floor.

    PYTHONPATH=build/python python3 tools/bench/bench_flood.py [--quick] [--repeat N] [--json out.json]

The floor of an op is the time of a copy moving the bytes the op reads and writes: a torch
clone of a uint8 tensor of (read + written) / 2 bytes, timed in the same run.

right_flood, float32 with 70% zero holes: the 2^26 vector and a [4096, 16384] batch along
its last axis (the shapes of docs/benchmarks.md's peers), and [16384, 4096] along axis 0 (columns). Ours
reads x and writes y (8 bytes an element); with return_index also the int64 index (16); its
gradient reads x and out_grad and writes x_grad (12). torch has no fill-forward: its
`where + cummax + gather` (indices of the non-holes, a running max, a gather) is the usual
way, and the anchor of docs/benchmarks.md (204 ms for the vector on the H100).

repeat_interleave, float32, counts drawn from {0, 1, 2, 3} (a quarter zeros) as an int64
tensor: a 1-D x of 2^24 and x [2^16, 256] along axis 0 (rows of 1 KB); also one int count
(x 2^24, repeats 2) and the tensor form with output_size (no device-to-host copy of the
total). Bytes: the counts read once (8 bytes a slice), x read once, out written once (scratch
not counted); torch.repeat_interleave with the same tensor of counts (and output_size).

Timing: the median over --repeat batches of --batch back-to-back calls, timed on the host
between device synchronizations (launches overlap the GPU work, as in a model); ours, torch
and the copy alike (torch's flood, which takes ~1000x longer, over 3 single calls).
"""
import argparse

import numpy as np

import paddle_ops as paddle
from bench_common import batch_ms, write_json


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="small shapes (a smoke run)")
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--batch", type=int, default=10)
    p.add_argument("--json")
    args = p.parse_args()
    import torch

    def ours(fn):
        return batch_ms(fn, paddle.device.synchronize, args.repeat, args.batch)

    def theirs(fn):
        return batch_ms(fn, torch.cuda.synchronize, args.repeat, args.batch)

    def floor(nbytes):
        buf = torch.empty(nbytes // 2, dtype=torch.uint8, device="cuda")
        ms = theirs(lambda: buf.clone())
        del buf
        return ms

    def f(v, base=None):
        if v is None:
            return "n/a"
        return f"{v / base:.2f}" if base else f"{v:.3f}"

    def print_row(r):
        fl = r["floor_ms"]
        if r["op"] == "right_flood":
            more = (f"with index {f(r['ours_index_ms'])} ms = {f(r['ours_index_ms'], r['floor_index_ms'])}x its floor; "
                    f"grad {f(r['ours_grad_ms'])} ms = {f(r['ours_grad_ms'], r['floor_grad_ms'])}x its floor")
        elif "ours_output_size_ms" in r:
            more = (f"output_size: ours {f(r['ours_output_size_ms'])} ms = {f(r['ours_output_size_ms'], fl)}x, "
                    f"torch {f(r['torch_output_size_ms'])} ms = {f(r['torch_output_size_ms'], fl)}x")
        else:
            more = ""
        print(f"| {r['op']} | {r['case']} | {f(fl)} | {f(r['ours_ms'])} | {f(r['ours_ms'], fl)} | "
              f"{f(r['torch_ms'])} | {f(r['torch_ms'], fl)} | {more} |", flush=True)

    print(f"device: {torch.cuda.get_device_name()}")
    print("| op | case | floor ms | ours ms | x floor | torch ms | x floor | more |")
    print("|---|---|---|---|---|---|---|---|", flush=True)
    rows = []
    rng = np.random.default_rng(0)
    q = args.quick
    flood_cases = [("1-D 2^26", (1 << 20,) if q else (1 << 26,), 0),
                   ("[4096, 16384], last", (256, 4096) if q else (4096, 16384), 1),
                   ("[16384, 4096], axis 0", (4096, 256) if q else (16384, 4096), 0)]
    for label, shape, axis in flood_cases:
        a = rng.standard_normal(shape).astype(np.float32)
        a[rng.random(shape) < 0.7] = 0.0
        x = paddle.to_tensor(a, place="gpu")
        xg = paddle.to_tensor(a, place="gpu", stop_gradient=False)
        g = paddle.to_tensor(rng.standard_normal(shape).astype(np.float32), place="gpu")
        t = torch.from_numpy(a).cuda()
        n = a.size
        ar = torch.arange(shape[axis], device="cuda").view([-1 if d == axis else 1 for d in range(len(shape))])

        def torch_flood():
            idx = torch.where(t != 0, ar, torch.zeros_like(ar))
            return torch.gather(t, axis, torch.cummax(idx, dim=axis)[0])

        # Same result (where torch's has a source: it sends leading holes to element 0).
        ours_y, ours_i = paddle.right_flood(x, axis=axis, return_index=True)
        ty = torch_flood().cpu().numpy()
        has = ours_i.numpy() >= 0
        assert np.array_equal(ours_y.numpy()[has], ty[has]), label

        def fwd_bwd():
            y = paddle.right_flood(xg, axis=axis)
            paddle.grad([y], [xg], [g])

        r = {"op": "right_flood", "case": label,
             "floor_ms": floor(8 * n), "floor_index_ms": floor(16 * n), "floor_grad_ms": floor(12 * n),
             "ours_ms": ours(lambda: paddle.right_flood(x, axis=axis)),
             "ours_index_ms": ours(lambda: paddle.right_flood(x, axis=axis, return_index=True)),
             "ours_fwd_bwd_ms": ours(fwd_bwd)}
        r["ours_grad_ms"] = r["ours_fwd_bwd_ms"] - r["ours_ms"]
        r["torch_ms"] = batch_ms(torch_flood, torch.cuda.synchronize, 3, 1)  # slow: few calls
        rows.append(r)
        print_row(r)
        del x, xg, g, t, ours_y, ours_i
        torch.cuda.empty_cache()

    rep_cases = [("1-D 2^24, counts", (1 << 18,) if q else (1 << 24,), 0, "counts"),
                 ("[2^16, 256] axis 0, counts", (1 << 10, 256) if q else (1 << 16, 256), 0, "counts"),
                 ("1-D 2^24, int 2", (1 << 18,) if q else (1 << 24,), 0, 2)]
    for label, shape, axis, kind in rep_cases:
        a = rng.standard_normal(shape).astype(np.float32)
        x = paddle.to_tensor(a, place="gpu")
        t = torch.from_numpy(a).cuda()
        if kind == "counts":
            c = rng.integers(0, 4, size=shape[axis]).astype(np.int64)
            reps, treps = paddle.to_tensor(c, place="gpu"), torch.from_numpy(c).cuda()
            total = int(c.sum())
        else:
            reps = treps = kind
            total = shape[axis] * kind
        out_elems = a.size // shape[axis] * total
        nbytes = 4 * (a.size + out_elems) + (8 * shape[axis] if kind == "counts" else 0)
        got = paddle.repeat_interleave(x, reps, axis=axis).numpy()
        assert np.array_equal(got, torch.repeat_interleave(t, treps, dim=axis).cpu().numpy()), label
        r = {"op": "repeat_interleave", "case": label, "floor_ms": floor(nbytes),
             "ours_ms": ours(lambda: paddle.repeat_interleave(x, reps, axis=axis)),
             "torch_ms": theirs(lambda: torch.repeat_interleave(t, treps, dim=axis))}
        if kind == "counts":
            r["ours_output_size_ms"] = ours(lambda: paddle.repeat_interleave(x, reps, axis=axis, output_size=total))
            r["torch_output_size_ms"] = theirs(lambda: torch.repeat_interleave(t, treps, dim=axis, output_size=total))
        rows.append(r)
        print_row(r)
        del x, t
        torch.cuda.empty_cache()

    if args.json:
        write_json(args.json, rows, "bench_flood")


if __name__ == "__main__":
    main()
