"""The CPU float32 logcumsumexp gradient of two builds side by side: python3 tools/dev/ab_cpu_grad.py
DIR_A DIR_B, each DIR holding python/paddle_ops (e.g. a build directory). Each build in its own
process, alternating A B three times; per shape the median of 7 calls, then the best of the 3."""
import os, subprocess, sys, json
CHILD = r'''
import time, numpy as np, paddle_ops as paddle, json
rng = np.random.default_rng(0)
res = {}
for name, shape in (("1-D 2^22", (1 << 22,)), ("[256, 16384]", (256, 16384)), ("[2^16, 64]", (1 << 16, 64))):
    a = rng.standard_normal(shape).astype(np.float32)
    x = paddle.to_tensor(a, stop_gradient=False); g = paddle.to_tensor(rng.standard_normal(shape).astype(np.float32))
    y = paddle.logcumsumexp(x, axis=-1)
    f = lambda: paddle.grad([y], [x], [g], retain_graph=True)
    f(); ts = []
    for _ in range(7):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    ts.sort(); res[name] = ts[3] * 1e3
print("JSON" + json.dumps(res))
'''
out = {}
for r in range(3):
    for v in sys.argv[1:3]:
        env = dict(os.environ, PYTHONPATH=f"{v}/python", LD_LIBRARY_PATH=f"{v}/python/paddle_ops")
        p = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True)
        line = [l for l in p.stdout.splitlines() if l.startswith("JSON")]
        if not line: print(p.stderr[-800:]); continue
        for k, t in json.loads(line[0][4:]).items(): out.setdefault(k, {}).setdefault(v, []).append(t)
A, B = sys.argv[1:3]
for k, d in out.items():
    print(f"{k}: A {min(d[A]):.2f} ms, B {min(d[B]):.2f} ms, B/A {min(d[B]) / min(d[A]):.3f}")
