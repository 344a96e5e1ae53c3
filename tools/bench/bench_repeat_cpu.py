"""CPU benchmark of repeat_interleave: the cases of bench_flood.py (float32; counts drawn from
{0, 1, 2, 3} as an int64 tensor, with and without output_size; one int count), ms per call, x a
memcpy of the output's bytes and x NumPy's np.repeat, all measured in one run.

    PYTHONPATH=build/python python3 tools/bench/bench_repeat_cpu.py [--quick] [--repeat N]

Each figure is the median of --repeat calls after a warm-up; the output is allocated by every
call (as NumPy's is).
"""
import argparse

import numpy as np

import paddle_ops as paddle
from bench_common import batch_ms


def median_ms(fn, repeat):
    return batch_ms(fn, lambda: None, repeat, 1)  # (the CPU ops return when done)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="small shapes (a smoke run)")
    p.add_argument("--repeat", type=int, default=9)
    args = p.parse_args()
    q = args.quick
    rng = np.random.default_rng(0)
    cases = [("1-D 2^24, counts", (1 << 18,) if q else (1 << 24,), 0, "counts"),
             ("[2^16, 256] axis 0, counts", (1 << 10, 256) if q else (1 << 16, 256), 0, "counts"),
             ("[256, 2^16] axis 1, counts", (16, 1 << 12) if q else (256, 1 << 16), 1, "counts"),
             ("1-D 2^24, int 2", (1 << 18,) if q else (1 << 24,), 0, 2)]
    print(f"threads {paddle.get_num_threads()}")
    print(f"{'case':30s} {'ours ms':>9s} {'out_size':>9s} {'x copy':>7s} {'np ms':>8s} {'x np':>6s}")
    for label, shape, axis, kind in cases:
        a = rng.standard_normal(shape).astype(np.float32)
        x = paddle.to_tensor(a)
        if kind == "counts":
            c = rng.integers(0, 4, size=shape[axis]).astype(np.int64)
            reps, np_reps, total = paddle.to_tensor(c), c, int(c.sum())
        else:
            reps = np_reps = kind
            total = shape[axis] * kind
        want = np.repeat(a, np_reps, axis=axis)
        assert np.array_equal(paddle.repeat_interleave(x, reps, axis=axis).numpy(), want), label
        dst = np.empty_like(want)
        r = {"case": label,
             "copy_ms": median_ms(lambda: np.copyto(dst, want), args.repeat),
             "ours_ms": median_ms(lambda: paddle.repeat_interleave(x, reps, axis=axis), args.repeat),
             "numpy_ms": median_ms(lambda: np.repeat(a, np_reps, axis=axis), args.repeat)}
        if kind == "counts":
            r["ours_output_size_ms"] = median_ms(
                lambda: paddle.repeat_interleave(x, reps, axis=axis, output_size=total), args.repeat)
        print(f"{label:30s} {r['ours_ms']:9.2f} {r.get('ours_output_size_ms', float('nan')):9.2f} "
              f"{r['ours_ms'] / r['copy_ms']:7.2f} {r['numpy_ms']:8.2f} {r['ours_ms'] / r['numpy_ms']:6.2f}")


if __name__ == "__main__":
    main()
