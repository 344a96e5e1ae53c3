"""What calling our ops from JAX costs (paddle_ops.integrations.jax, XLA FFI custom calls).

    PYTHONPATH=build/python <python with jax> tools/bench/bench_jax.py [--device cpu|gpu]
        [--calls N] [--rounds R] [--log2n L] [--json out.json]

1. Per-call overhead, 16 float32 elements, logcumsumexp on one row: µs per call of the direct
   call (_C.ops on our tensor), the public function (paddle.logcumsumexp), the JAX path eagerly
   (pj.logcumsumexp on a JAX array: the argument checks, then a cached jit-compiled FFI call),
   the JAX path inside the caller's jax.jit (one XLA dispatch), and jax.lax.cumlogsumexp under
   jax.jit (JAX's own dispatch floor). Columns: µs per call and the difference from the direct call.
2. At 2^L elements (default 2^22), float32, one row: ms of logcumsumexp and cumsum by the direct
   call, by the JAX path (jit), and of jax.lax.cumlogsumexp / jnp.cumsum (jit) in the same run,
   with a jitted copy (x + 0) as the yardstick.

Every call waits for its result (block_until_ready; the GPU direct call synchronizes), so the
figures are latencies; each is the median over --rounds batches of --calls calls. Rows print
as they finish.
"""
import argparse
import os
import sys

try:
    import jax
    import jax.numpy as jnp
except ImportError:
    sys.exit("bench_jax.py needs JAX (pip install jax); it is not installed here")
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import batch_ms, write_json  # noqa: E402

import paddle_ops as paddle  # noqa: E402
from paddle_ops import _C  # noqa: E402
from paddle_ops.integrations import jax as pj  # noqa: E402


def _ours(x, device):
    t = paddle.to_tensor(x)
    return t.cuda() if device == "gpu" else t


def _sync(device):
    if device == "gpu":
        return lambda: paddle.device.cuda.synchronize()
    return lambda: None


def _blocking(f, *args):
    return lambda: f(*args).block_until_ready()


def overhead_rows(device, calls, rounds):
    x = np.random.RandomState(0).randn(16).astype(np.float32)
    t = _ours(x, device)
    xj = jax.device_put(x, jax.devices(device)[0])
    direct_sync = _sync(device)
    variants = [
        ("direct call (_C.ops)", lambda: (_C.ops.logcumsumexp(t, 0, False, False, False), direct_sync())),
        ("public paddle.logcumsumexp", lambda: (paddle.logcumsumexp(t, axis=0), direct_sync())),
        ("JAX path, eager", _blocking(lambda x: pj.logcumsumexp(x, axis=0), xj)),
        ("JAX path in jax.jit", _blocking(jax.jit(lambda x: pj.logcumsumexp(x, axis=0)), xj)),
        ("jax.lax.cumlogsumexp in jax.jit", _blocking(jax.jit(lambda x: jax.lax.cumlogsumexp(x, axis=0)), xj)),
    ]
    rows, base = [], None
    print(f"per-call overhead, 16 float32 elements, {device} (µs per call)")
    for name, fn in variants:
        us = batch_ms(fn, lambda: None, rounds, calls) * 1e3
        base = us if base is None else base
        rows.append({"table": "overhead", "device": device, "variant": name, "us": us, "minus_direct_us": us - base})
        print(f"  {name:34s} {us:9.2f}  {us - base:+9.2f}", flush=True)
    return rows


def large_rows(device, log2n, rounds):
    n = 1 << log2n
    x = np.random.RandomState(1).randn(n).astype(np.float32)
    t = _ours(x, device)
    xj = jax.device_put(x, jax.devices(device)[0])
    direct_sync = _sync(device)
    copy_ms = batch_ms(_blocking(jax.jit(lambda x: x + 0), xj), lambda: None, rounds, 3)
    rows = []
    print(f"2^{log2n} float32 elements, one row, {device} (ms; x copy = jitted x + 0: {copy_ms:.3f} ms)")
    for op, theirs in (("logcumsumexp", lambda x: jax.lax.cumlogsumexp(x, axis=0)),
                       ("cumsum", lambda x: jnp.cumsum(x, axis=0))):
        direct = batch_ms(lambda: (getattr(_C.ops, op)(t, 0, False, False, False), direct_sync()), lambda: None,
                          rounds, 3)
        ours = batch_ms(_blocking(jax.jit(lambda x: getattr(pj, op)(x, axis=0)), xj), lambda: None, rounds, 3)
        jax_ms = batch_ms(_blocking(jax.jit(theirs), xj), lambda: None, rounds, 3)
        rows.append({"table": "large", "device": device, "op": op, "log2n": log2n, "direct_ms": direct,
                     "jax_path_ms": ours, "jax_own_ms": jax_ms, "copy_ms": copy_ms})
        print(f"  {op:13s} direct {direct:8.3f}  JAX path {ours:8.3f} ({100 * (ours / direct - 1):+.1f}%)  "
              f"JAX's own {jax_ms:8.3f}  (x copy: ours {ours / copy_ms:.1f}, JAX's {jax_ms / copy_ms:.1f})",
              flush=True)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--log2n", type=int, default=22)
    p.add_argument("--json", help="also write the figures and the environment here")
    args = p.parse_args()
    rows = overhead_rows(args.device, args.calls, args.rounds)
    rows += large_rows(args.device, args.log2n, args.rounds)
    if args.json:
        write_json(args.json, rows, "bench_jax.py")


if __name__ == "__main__":
    main()
