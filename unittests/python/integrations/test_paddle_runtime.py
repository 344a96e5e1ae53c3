"""The integrations' one runtime library (paddle_ops/integrations/_native/libpaddle_ops_runtime.so):
the Paddle extension (and, where JAX is installed, the XLA FFI handlers) run their kernels in one
loaded copy of it, and paddle_ops.set_flags reaches that copy (its own flags, otherwise read once
from the environment) as set_num_threads does (test_paddle_threads.py): the runtime's flags equal
the module's after an op, and a flag that changes what a kernel computes changes it alike through
Paddle and through paddle_ops' own API, bit for bit."""
import os

import numpy as np
import pytest

from paddle_setup import _runtime, paddle, paddle_ops, po

RNG = np.random.default_rng(11)


def _loaded_runtimes():
    """The paths of every libpaddle_ops*.so mapped into this process."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if len(line.split()) >= 6}
    return sorted(p for p in paths if os.path.basename(p).startswith("libpaddle_ops"))


@pytest.fixture
def restore_settings():
    flags = paddle_ops.get_flags()
    yield
    paddle_ops.set_flags({k: v for k, v in flags.items()
                          if not next(r for r in paddle_ops.flags.flag_table() if r["name"] == k)["start_only"]})
    paddle_ops.set_num_threads(0)


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs Linux's /proc/self/maps")
def test_one_runtime_library_is_loaded():
    po.cumsum(paddle.to_tensor(np.arange(5.0)))
    assert _loaded_runtimes() == [os.path.realpath(_runtime.library_path())]


def test_both_integrations_share_the_runtime(restore_settings):
    """Paddle's and JAX's ops in one process: one mapped runtime, and the thread count and flags
    set once reach the ops of both."""
    pytest.importorskip("jax", reason="JAX is not installed here (CI installs none): this test needs Paddle "
                                      "and JAX in one process")
    from paddle_ops.integrations import jax as pj
    x = RNG.standard_normal((64, 4096)).astype(np.float32)  # above the parallel threshold
    results = []
    for n, run in ((3, "jax"), (1, "paddle"), (2, "jax"), (3, "paddle")):
        paddle_ops.set_num_threads(n)
        if run == "jax":
            results.append(np.asarray(pj.logcumsumexp(x, axis=1)))
        else:
            results.append(po.logcumsumexp(paddle.to_tensor(x), axis=1).numpy())
        assert _runtime.last_num_threads() == n, run
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])
    paddle_ops.set_flags({"PADDLE_OPS_GLA_CPU": "recurrent"})
    pj.cumsum(x[:2], axis=1)
    assert _runtime.get_flags()["PADDLE_OPS_GLA_CPU"] == "recurrent"
    assert _loaded_runtimes() == [os.path.realpath(_runtime.library_path())]


def _other_value(row):
    """A value of flag `row` other than its current one."""
    if row["kind"] == "integer":
        return 0 if paddle_ops.get_flags(row["name"])[row["name"]] else 1
    now = paddle_ops.get_flags(row["name"])[row["name"]]
    return next(c for c in row["choices"] if c != now)


def test_set_flags_reaches_the_runtime(restore_settings):
    """Every flag set_flags may change is the runtime's after the next op (in the stored form the
    module holds); flags read at start only stay as the environment gave them, in both."""
    x = paddle.to_tensor(np.arange(6.0).reshape(2, 3))
    po.cumsum(x, axis=1)
    assert _runtime.get_flags() == paddle_ops.get_flags()
    changeable = [r for r in paddle_ops.flags.flag_table() if not r["start_only"]]
    assert changeable
    for row in changeable:
        value = _other_value(row)
        paddle_ops.set_flags({row["name"]: value})
        assert _runtime.get_flags()[row["name"]] != value  # not before an op runs there
        po.cumsum(x, axis=1)
        assert _runtime.get_flags()[row["name"]] == value, row["name"]
        assert _runtime.get_flags() == paddle_ops.get_flags()


def test_flags_change_the_kernels_run_through_paddle(restore_settings):
    """PADDLE_OPS_GLA_CPU (chunked / recurrent: different rounding) and PADDLE_OPS_CPU_ISA
    (baseline / auto) give, through Paddle, what paddle_ops' own API gives under the same flag."""
    q, k, v = (RNG.standard_normal((1, 2, 64, 128)).astype(np.float32) for _ in range(3))
    gk = (-0.1 * np.abs(RNG.standard_normal((1, 2, 64, 128)))).astype(np.float32)
    ours, theirs = {}, {}
    for path in ("chunked", "recurrent"):
        paddle_ops.set_flags({"PADDLE_OPS_GLA_CPU": path})
        ours[path] = paddle_ops.gla(*(paddle_ops.to_tensor(a) for a in (q, k, v, gk)))[0].numpy()
        theirs[path] = po.gla(*(paddle.to_tensor(a) for a in (q, k, v, gk)))[0].numpy()
        np.testing.assert_array_equal(theirs[path], ours[path])
    assert not np.array_equal(ours["chunked"], ours["recurrent"])  # the flag does change the result
    x = RNG.standard_normal((4, 1000)).astype(np.float32)
    for isa in ("baseline", "auto"):
        paddle_ops.set_flags({"PADDLE_OPS_CPU_ISA": isa})
        np.testing.assert_array_equal(po.logcumsumexp(paddle.to_tensor(x), axis=1).numpy(),
                                      paddle_ops.logcumsumexp(paddle_ops.to_tensor(x), axis=1).numpy())
