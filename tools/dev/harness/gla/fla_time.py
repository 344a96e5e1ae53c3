"""fla's chunk_gla forward timed beside the gla harness (same machine, same command): bf16,
fla's [B, T, H, D] layout, warmed up past its autotuning, median of 10 batches of 5 calls.

    PYTHONPATH=<fla-core 0.6.0 installed here> python3 tools/dev/harness/gla/fla_time.py
"""
import torch
import torch.nn.functional as F
from fla.ops.gla import chunk_gla

SHAPES = [("seed B32 T2048 H4 128/256", 32, 2048, 4, 128, 256), ("B4 T2048 H16 D128", 4, 2048, 16, 128, 128),
          ("B2 T16384 H16 D128", 2, 16384, 16, 128, 128)]


def median_ms(fn, batch=5, repeat=10):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(repeat):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(batch):
            fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) / batch)
    return sorted(ts)[len(ts) // 2]


for name, B, T, H, Dk, Dv in SHAPES:
    dev = "cuda"
    q = torch.randn(B, T, H, Dk, device=dev, dtype=torch.bfloat16)
    k = torch.randn(B, T, H, Dk, device=dev, dtype=torch.bfloat16)
    v = torch.randn(B, T, H, Dv, device=dev, dtype=torch.bfloat16)
    g = (F.logsigmoid(torch.randn(B, T, H, Dk, device=dev)) / 16).to(torch.bfloat16)
    fwd = lambda: chunk_gla(q, k, v, g, scale=Dk ** -0.5, output_final_state=True)
    ms = median_ms(fwd)
    print(f"| fla chunk_gla fwd | {name} | {ms:.4f} ms |", flush=True)
