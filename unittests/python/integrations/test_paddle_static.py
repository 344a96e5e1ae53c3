"""paddle_ops.integrations.paddle in Paddle's static graph (Program + Executor, PIR) and through
paddle.jit.to_static, paddle.jit.save and paddle.jit.load (the load in a fresh process, which
registers the ops by importing the integration)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from paddle_setup import paddle, po

RNG = np.random.default_rng(11)


@pytest.fixture
def static_mode():
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


def run(main, startup, feed, fetch):
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed=feed, fetch_list=fetch)


def test_static_graph_forward_and_gradients(static_mode):
    xn = RNG.standard_normal((3, 7))
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3, 7], "float64")
        x.stop_gradient = False
        y = po.logcumsumexp(x, axis=1, reverse=True)
        c = po.cumsum(x, axis=0, exclusive=True)
        assert y.shape == [3, 7] and c.shape == [3, 7]
        loss = paddle.sum(y) + paddle.sum(c * c)
        (g,) = paddle.static.gradients([loss], [x])
    y_v, c_v, g_v = run(main, startup, {"x": xn}, [y, c, g])
    with paddle.base.dygraph.guard():  # the same in the dynamic graph
        xt = paddle.to_tensor(xn, stop_gradient=False)
        yd, cd = po.logcumsumexp(xt, axis=1, reverse=True), po.cumsum(xt, axis=0, exclusive=True)
        (gd,) = paddle.grad(paddle.sum(yd) + paddle.sum(cd * cd), xt)
        np.testing.assert_array_equal(y_v, yd.numpy())
        np.testing.assert_array_equal(c_v, cd.numpy())
        np.testing.assert_allclose(g_v, gd.numpy(), rtol=1e-14, atol=1e-14)
    ref = np.log(np.cumsum(np.exp(xn)[:, ::-1], axis=1)[:, ::-1])
    np.testing.assert_allclose(y_v, ref, rtol=1e-13)


def test_static_graph_shapes_and_dtypes_of_every_op(static_mode):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 6], "float32")
        q = paddle.static.data("q", [1, 2, 5, 4], "float64")
        counts = paddle.static.data("counts", [6], "int64")
        r = po.repeat_interleave(x, counts, axis=1)      # known only when it runs
        r2 = po.repeat_interleave(x, 3, axis=0)
        f, idx = po.right_flood(x, return_index=True)
        p = po.pscan(x, paddle.reshape(x, [2, 6, 1]))
        o, fs = po.gla(q, q, q, -paddle.abs(q), output_final_state=True)
        assert r.shape == [2, -1] and r2.shape == [6, 6] and p.shape == [2, 6, 1]
        assert idx.dtype == paddle.int64 and f.dtype == paddle.float32
        assert o.dtype == paddle.float64 and o.shape == [1, 2, 5, 4]
        assert fs.dtype == paddle.float32 and fs.shape == [1, 2, 4, 4]
    xn = np.array([[1, 0, 0, 2, 0, 3], [0, 4, 0, 0, 5, 0]], np.float32)
    cn = np.array([1, 0, 2, 0, 3, 1])
    qn = RNG.standard_normal((1, 2, 5, 4))
    r_v, f_v, idx_v, o_v = run(main, startup, {"x": xn, "counts": cn, "q": qn}, [r, f, idx, o])
    np.testing.assert_array_equal(r_v, np.repeat(xn, cn, axis=1))
    np.testing.assert_array_equal(f_v, [[1, 1, 1, 2, 2, 3], [0, 4, 4, 4, 5, 5]])
    np.testing.assert_array_equal(idx_v, [[0, 0, 0, 3, 3, 5], [-1, 1, 1, 1, 4, 4]])
    with paddle.base.dygraph.guard():
        qt = paddle.to_tensor(qn)
        np.testing.assert_array_equal(o_v, po.gla(qt, qt, qt, -paddle.abs(qt))[0].numpy())


def test_static_graph_unknown_batch_dim(static_mode):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 6], "float32")
        lse = po.logcumsumexp(x, axis=1)
        flat = po.cumsum(x)                      # axis=None: the flattened tensor
        rep = po.repeat_interleave(x, 2, axis=0)
        rep1 = po.repeat_interleave(x, 3, axis=1)
        assert lse.shape == [-1, 6] and flat.shape == [-1] and rep.shape == [-1, 6] and rep1.shape == [-1, 18]
    xn = RNG.standard_normal((3, 6)).astype("float32")
    lse_v, flat_v, rep_v = run(main, startup, {"x": xn}, [lse, flat, rep])
    np.testing.assert_allclose(lse_v, np.logaddexp.accumulate(xn.astype(np.float64), axis=1), rtol=1e-6)
    np.testing.assert_allclose(flat_v, np.cumsum(xn.astype(np.float64)), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(rep_v, np.repeat(xn, 2, axis=0))


class Block(paddle.nn.Layer):
    """A small block that uses logcumsumexp, pscan and gla."""

    def __init__(self):
        super().__init__()
        self.proj = paddle.nn.Linear(8, 8)

    def forward(self, x):                       # x: [2, 6, 8]
        h = self.proj(x)
        gates = paddle.nn.functional.sigmoid(h)
        s = po.pscan(gates, h)                  # [2, 6, 8]
        q = paddle.reshape(s, [2, 1, 6, 8])
        o, _ = po.gla(q, q, q, -paddle.nn.functional.softplus(q))
        return po.logcumsumexp(paddle.reshape(o, [2, 48]), axis=1)


def test_to_static_matches_eager_and_trains():
    paddle.seed(5)
    block = Block()
    x = paddle.to_tensor(RNG.standard_normal((2, 6, 8)).astype("float32"))
    eager = block(x)
    eager.sum().backward()
    g_eager = block.proj.weight.grad.numpy().copy()
    block.clear_gradients()
    static = paddle.jit.to_static(block, full_graph=True)
    out = static(x)
    np.testing.assert_array_equal(out.numpy(), eager.numpy())
    out.sum().backward()
    np.testing.assert_allclose(block.proj.weight.grad.numpy(), g_eager, rtol=1e-6, atol=1e-7)


def scan_both(x):
    return po.logcumsumexp(x, axis=1, reverse=True) + po.cumsum(x, axis=0)


def test_to_static_with_an_unknown_batch_dim():
    fn = paddle.jit.to_static(scan_both, input_spec=[paddle.static.InputSpec([None, 5], "float64")],
                              full_graph=True)
    for rows in (2, 7):
        xn = RNG.standard_normal((rows, 5))
        ref = po.logcumsumexp(paddle.to_tensor(xn), axis=1, reverse=True) + po.cumsum(paddle.to_tensor(xn), axis=0)
        np.testing.assert_array_equal(fn(paddle.to_tensor(xn)).numpy(), ref.numpy())


def test_jit_save_and_load_in_a_fresh_process(tmp_path):
    paddle.seed(6)
    block = Block()
    block.eval()
    x = RNG.standard_normal((2, 6, 8)).astype("float32")
    expected = block(paddle.to_tensor(x)).numpy()
    static = paddle.jit.to_static(block, input_spec=[paddle.static.InputSpec([2, 6, 8], "float32", "x")],
                                  full_graph=True)
    path = str(tmp_path / "block")
    paddle.jit.save(static, path)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "expected.npy", expected)
    child = textwrap.dedent(f"""
        import numpy as np, paddle
        import paddle_ops.integrations.paddle  # registers the custom operators
        model = paddle.jit.load({path!r})
        out = model(paddle.to_tensor(np.load({str(tmp_path / 'x.npy')!r}))).numpy()
        np.testing.assert_array_equal(out, np.load({str(tmp_path / 'expected.npy')!r}))
        print("loaded ok")
    """)
    res = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, env=dict(os.environ),
                         timeout=600)
    assert res.returncode == 0 and "loaded ok" in res.stdout, res.stdout[-3000:] + res.stderr[-3000:]
