"""`python -m paddle_ops`: what this copy of paddle_ops is and whether it works here, as Paddle's
``paddle.utils.run_check``.

It prints the version, the build options (CUDA architectures, the CPU scan kernels' ISA path,
OpenMP threads), the visible devices, then runs a small check of every op on every device: the
forward result against NumPy, in float32, and the gradient against central differences, in
float64. One line per check, `ok` or `FAIL`. The exit code is 0 when every check passed, 1
otherwise (an op of the generated API without a check here is a failure too). `--help` prints
the usage; any other argument is refused (exit 2) before anything runs.
"""
import os
import platform
import sys
import traceback

import numpy as np

import paddle_ops as paddle
from paddle_ops import _C
from paddle_ops._cpu_info import cpu_model, library_isa, shown_flags

try:
    from paddle_ops import _build_config as build_config
except ImportError:  # a package tree copied by hand, without the CMake-written file
    build_config = None

# ---- the facts ------------------------------------------------------------------------------


def _cudart():
    """The CUDA runtime library the module loaded (ctypes), or None."""
    import ctypes
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "libcudart" in line}
    except OSError:
        return None
    for path in sorted(paths):
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


def _gpu_capabilities(count):
    """{device id: (major, minor)} by cudaDeviceGetAttribute; empty when the runtime cannot be
    reached (the checks below still run)."""
    import ctypes
    rt = _cudart()
    caps = {}
    if rt is None:
        return caps
    for dev in range(count):
        major, minor = ctypes.c_int(), ctypes.c_int()
        # cudaDevAttrComputeCapabilityMajor = 75, cudaDevAttrComputeCapabilityMinor = 76
        if (rt.cudaDeviceGetAttribute(ctypes.byref(major), 75, dev) == 0
                and rt.cudaDeviceGetAttribute(ctypes.byref(minor), 76, dev) == 0):
            caps[dev] = (major.value, minor.value)
    return caps


def arch_coverage(archs, cap):
    """How a GPU of compute capability `cap` (major, minor) runs this build's kernels, given the
    CMAKE_CUDA_ARCHITECTURES list `archs` ("80-real;90a-real;80-virtual"): 'machine code for
    sm_XY', 'PTX for compute_XY, compiled by the driver', None (no kernel image), or 'unknown'
    for CMake's "native", "all" and "all-major", whose list is CMake's to choose."""
    cc = cap[0] * 10 + cap[1]
    real, virtual = [], []
    for entry in filter(None, archs.split(";")):
        num, _, kind = entry.partition("-")
        digits = "".join(ch for ch in num if ch.isdigit())
        if not digits:
            return f"unknown (built for CMake's '{entry}')"
        digits = int(digits)
        if kind in ("", "real"):
            real.append((digits, num))
        if kind in ("", "virtual"):
            virtual.append((digits, num))
    # sm_XY machine code runs on X.Y and later minor versions of the same major (an 'a' target
    # only on X.Y itself: sm_90a code runs on 9.0 only); the closest one is loaded.
    runs = [(d, n) for d, n in real if d == cc or (not n.endswith("a") and d // 10 == cc // 10 and d < cc)]
    if runs:
        return f"machine code for sm_{max(runs)[1]}"
    fits = [(d, n) for d, n in virtual if d <= cc and not n.endswith("a")]
    if fits:
        return f"PTX for compute_{max(fits)[1]}, compiled by the driver"
    return None


def describe():
    """The report's header lines: version, build, CPU, threads, devices."""
    lines = [f"paddle_ops {paddle.__version__} ({os.path.dirname(paddle.__file__)})",
             f"Python {platform.python_version()}, NumPy {np.__version__}, {platform.platform()}"]
    if build_config is not None:
        lines.append(f"build: {build_config.BUILD_TYPE}, {build_config.CXX_COMPILER}, "
                     f"OpenMP {build_config.OPENMP}")
        if build_config.WITH_GPU:
            lines.append(f"CUDA backend: CUDA {build_config.CUDA_VERSION}, architectures "
                         f"{build_config.CUDA_ARCHITECTURES}")
        else:
            lines.append("CUDA backend: not built")
    else:
        lines.append(f"build: (no _build_config.py) CUDA backend {'built' if paddle.is_compiled_with_cuda() else 'not built'}")
    supported, in_use = library_isa()
    path = (f"{in_use} kernels (this build and CPU run up to {supported}, by CPUID; "
            "the flag PADDLE_OPS_CPU_ISA caps the choice)")
    lines.append(f"CPU: {cpu_model()}, {os.cpu_count()} logical cores; ISA: {' '.join(shown_flags()) or 'baseline'}")
    lines.append(f"CPU scan path: {path}")
    lines.append(f"OpenMP threads: {paddle.get_num_threads()}")
    lines.append("flags: " + ", ".join(f"{k}={v}" for k, v in paddle.get_flags().items()))
    devices = ["cpu"]
    if paddle.is_compiled_with_cuda():
        count = int(_C.gpu_device_count())
        caps = _gpu_capabilities(count)
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        lines.append(f"GPUs visible: {count}" + (f" (CUDA_VISIBLE_DEVICES={visible})" if visible is not None else ""))
        for dev in range(count):
            devices.append(f"gpu:{dev}")
            if dev in caps:
                cov = arch_coverage(build_config.CUDA_ARCHITECTURES, caps[dev]) if build_config else "?"
                cap = f"compute capability {caps[dev][0]}.{caps[dev][1]}"
                lines.append(f"  gpu:{dev}: {cap}: " + (cov or "NO kernel image in this build (rebuild with "
                                                         f"-DPADDLE_OPS_CUDA_ARCHS={caps[dev][0]}{caps[dev][1]}-real)"))
    lines.append("devices: " + ", ".join(devices))
    return lines, devices


# ---- the checks -------------------------------------------------------------------------------
# One per op of the generated API (_C.ops): check(place) raises AssertionError on a wrong result.

_RNG = np.random.default_rng(0)


def _t(a, place, stop_gradient=True):
    return paddle.to_tensor(a, place=place, stop_gradient=stop_gradient)


def _close(got, want, what, rtol=1e-5, atol=1e-6):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        raise AssertionError(f"{what}: shape {got.shape}, expected {want.shape}")
    if not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
        err = np.max(np.abs(got - want) / (atol + rtol * np.abs(want)))
        raise AssertionError(f"{what}: off by {err:.3g} x the tolerance (rtol {rtol}, atol {atol})")


def _check_grad(fn, arrays, place, what):
    """The float64 gradient of sum(fn(*tensors) * w) (fixed random w) against central
    differences of the same function evaluated through NumPy copies."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    w = None

    def loss(values):
        nonlocal w
        out = fn(*[_t(v, place) for v in values]).numpy()
        if w is None:
            w = _RNG.standard_normal(out.shape)
        return float(np.sum(out * w))

    loss(arrays)
    xs = [_t(a, place, stop_gradient=False) for a in arrays]
    out = fn(*xs)
    grads = paddle.grad([paddle.sum(paddle.multiply(out, _t(w, place)))], xs)
    eps = 1e-6
    for i, (a, g) in enumerate(zip(arrays, grads)):
        num = np.zeros_like(a)
        for j in range(a.size):
            up, down = [v.copy() for v in arrays], [v.copy() for v in arrays]
            up[i].reshape(-1)[j] += eps
            down[i].reshape(-1)[j] -= eps
            num.reshape(-1)[j] = (loss(up) - loss(down)) / (2 * eps)
        _close(g.numpy(), num, f"{what}: gradient of input {i}", rtol=1e-5, atol=1e-7)


def check_logcumsumexp(place):
    x = _RNG.standard_normal((3, 5)) * 3
    _close(paddle.logcumsumexp(_t(x.astype(np.float32), place), axis=1).numpy(),
           np.logaddexp.accumulate(x, axis=1), "forward", rtol=1e-6)
    _check_grad(lambda t: paddle.logcumsumexp(t, axis=0, reverse=True), [x[:, :3]], place, "logcumsumexp")


def check_cumsum(place):
    x = _RNG.standard_normal((4, 3))
    _close(paddle.cumsum(_t(x.astype(np.float32), place), axis=0).numpy(), np.cumsum(x.astype(np.float32), 0),
           "forward")
    ints = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int64)
    got = paddle.cumsum(_t(ints, place), axis=1, exclusive=True).numpy()
    if not np.array_equal(got, np.array([[0, 1, 3], [0, 4, 9]])):
        raise AssertionError(f"int64 exclusive cumsum: {got.tolist()}")
    _check_grad(lambda t: paddle.cumsum(t, axis=1), [x[:2]], place, "cumsum")


def _pscan_ref(a, x):
    y = x.copy()
    for t in range(1, x.shape[1]):
        y[:, t] += a[:, t, None] * y[:, t - 1]
    return y


def check_pscan(place):
    a, x = _RNG.uniform(0.5, 1.0, (2, 6)), _RNG.standard_normal((2, 6, 3))
    _close(paddle.pscan(_t(a.astype(np.float32), place), _t(x.astype(np.float32), place)).numpy(),
           _pscan_ref(a, x), "forward", rtol=1e-5, atol=1e-5)
    _check_grad(lambda ta, tx: paddle.pscan(ta, tx), [a[:1, :4], x[:1, :4, :2]], place, "pscan")


def check_right_flood(place):
    x = np.array([0., 2., 0., 0., 5., 0.], dtype=np.float32)
    out, idx = paddle.right_flood(_t(x, place), return_index=True)
    _close(out.numpy(), [0., 2., 2., 2., 5., 5.], "forward")
    if idx.numpy().tolist() != [-1, 1, 1, 1, 4, 4]:
        raise AssertionError(f"index: {idx.numpy().tolist()}")
    # Each value's gradient collects the weights of the holes it fills (central differences
    # cannot be taken at a hole: moving a zero makes it a value).
    w = np.array([0.5, -1.0, 2.0, 3.0])
    tx = _t(np.array([1.5, 0., -2., 0.]), place, stop_gradient=False)
    (g,) = paddle.grad([paddle.sum(paddle.multiply(paddle.right_flood(tx), _t(w, place)))], [tx])
    _close(g.numpy(), [-0.5, 0., 5.0, 0.], "gradient")


def check_repeat_interleave(place):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    _close(paddle.repeat_interleave(_t(x, place), 2, axis=1).numpy(), np.repeat(x, 2, axis=1), "int repeats")
    counts = np.array([0, 3], dtype=np.int64)
    _close(paddle.repeat_interleave(_t(x, place), _t(counts, place), axis=0).numpy(), np.repeat(x, counts, axis=0),
           "tensor repeats")
    _check_grad(lambda t: paddle.repeat_interleave(t, 3), [x[0].astype(np.float64)], place, "repeat_interleave")


def _gla_ref(q, k, v, g, scale):
    B, H, T, Dk = q.shape
    h = np.zeros((B, H, Dk, v.shape[-1]))
    o = np.zeros(v.shape)
    for t in range(T):
        h = h * np.exp(g[:, :, t, :, None]) + k[:, :, t, :, None] * v[:, :, t, None, :]
        o[:, :, t] = np.einsum("bhk,bhkv->bhv", q[:, :, t] * scale, h)
    return o, h


def check_gla(place):
    B, H, T, Dk, Dv = 1, 2, 5, 4, 3
    q, k = _RNG.standard_normal((2, B, H, T, Dk))
    v = _RNG.standard_normal((B, H, T, Dv))
    g = -_RNG.uniform(0.05, 1.0, (B, H, T, Dk))
    o, h = paddle.gla(*[_t(a.astype(np.float32), place) for a in (q, k, v, g)], output_final_state=True)
    o_ref, h_ref = _gla_ref(q, k, v, g, Dk ** -0.5)
    _close(o.numpy(), o_ref, "o", rtol=1e-4, atol=1e-5)
    _close(h.numpy(), h_ref, "final_state", rtol=1e-4, atol=1e-5)
    small = [a[:1, :1, :3, :2] for a in (q, k, v, g)]
    _check_grad(lambda *ts: paddle.gla(*ts)[0], small, place, "gla")


def check_elementwise(place):
    x, y = _RNG.standard_normal((2, 3)), _RNG.standard_normal((3,))
    tx, ty = _t(x.astype(np.float32), place), _t(y.astype(np.float32), place)
    _close(paddle.add(tx, ty).numpy(), x + y, "add")
    _close(paddle.subtract(tx, ty).numpy(), x - y, "subtract")
    _close(paddle.multiply(tx, ty).numpy(), x * y, "multiply")
    _check_grad(lambda a, b: paddle.multiply(paddle.subtract(a, b), paddle.add(a, b)), [x, y], place, "elementwise")


def check_reductions(place):
    x = _RNG.standard_normal((3, 4))
    tx = _t(x.astype(np.float32), place)
    _close(paddle.sum(tx, axis=1).numpy(), x.sum(1), "sum")
    _close(paddle.mean(tx).numpy(), x.mean(), "mean")
    _check_grad(lambda t: paddle.mean(t, axis=0), [x], place, "mean")


def check_shape_and_cast(place):
    x = np.arange(6, dtype=np.float32)
    tx = _t(x, place)
    _close(paddle.reshape(tx, [2, -1]).numpy(), x.reshape(2, 3), "reshape")
    if paddle.cast(tx, "int32").numpy().tolist() != list(range(6)):
        raise AssertionError("cast to int32")
    _close(paddle.full_like(tx, 7.0).numpy(), np.full(6, 7.0), "full_like")
    _check_grad(lambda t: paddle.reshape(paddle.cast(t, "float64"), [3, 2]), [x], place, "reshape and cast")


# The ops of the generated API (_C.ops) each check covers.
CHECKS = {
    "logcumsumexp": (check_logcumsumexp, ["logcumsumexp"]),
    "cumsum": (check_cumsum, ["cumsum"]),
    "pscan": (check_pscan, ["pscan"]),
    "right_flood": (check_right_flood, ["right_flood"]),
    "repeat_interleave": (check_repeat_interleave, ["repeat_interleave", "repeat_interleave_with_tensor_index"]),
    "gla": (check_gla, ["gla"]),
    "add, subtract, multiply": (check_elementwise, ["add", "subtract", "multiply"]),
    "sum, mean": (check_reductions, ["sum", "mean"]),
    "reshape, cast, full_like": (check_shape_and_cast, ["reshape", "cast", "full_like"]),
}


def unchecked_ops(checks=None):
    """The ops of the generated API that no check covers."""
    covered = {op for _, ops in (checks or CHECKS).values() for op in ops}
    return sorted(name for name in dir(_C.ops) if not name.startswith("_") and name not in covered)


def run_checks(devices, checks=None, out=print):
    """Runs every check on every device; returns the number of failures."""
    checks = checks or CHECKS
    failures = 0
    for op in unchecked_ops(checks):
        out(f"FAIL  {op}: an op of the generated API with no check in paddle_ops/__main__.py")
        failures += 1
    for place in devices:
        for name, (fn, _) in checks.items():
            try:
                fn(place)
                out(f"ok    {place:6s} {name}")
            except Exception as e:  # a wrong value, or an op that raised: both are failures
                failures += 1
                out(f"FAIL  {place:6s} {name}: {type(e).__name__}: {e}")
                if os.environ.get("PADDLE_OPS_CHECK_TRACEBACK"):
                    traceback.print_exc()
    return failures


def _parser():
    import argparse
    return argparse.ArgumentParser(
        prog="python -m paddle_ops",
        description="Print what this copy of paddle_ops is (version, build options, CPU, devices) and check "
                    "every op on every device: the forward result against NumPy, the gradient against central "
                    "differences. Exit code 0 when every check passed, 1 otherwise.",
        epilog="PADDLE_OPS_CHECK_TRACEBACK=1 prints the traceback of a failed check.")


def main(argv=None, checks=None):
    """The check; argv takes only --help (usage, exit 0): an unknown argument is argparse's usage
    error (exit 2), before anything runs."""
    _parser().parse_args([] if argv is None else argv)
    lines, devices = describe()
    for line in lines:
        print(line)
    print()
    failures = run_checks(devices, checks)
    n = len(checks or CHECKS) * len(devices)
    if failures:
        print(f"\n{failures} check(s) FAILED ({n} run on {', '.join(devices)})")
        return 1
    print(f"\nall {n} checks passed on {', '.join(devices)}: paddle_ops works here")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
