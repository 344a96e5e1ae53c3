"""Static-vs-dynamic check: an op's OpInfo samples (op_db.py) run in dynamic mode and as a
static Program (built with paddle_ops.static, run by an Executor on the same place), forward
and gradients, and the two must agree bitwise.

Each sample is built twice in static mode: with its real shape declared, and with the first
dim declared unknown (-1), so build-time shape inference with unknown dims is exercised on
every sample too. Used by test_static_vs_dynamic.py; any op added to OP_DB is covered.
"""
import contextlib

import numpy as np

import paddle_ops as paddle
from op_test import dtype_name, make_tensor


@contextlib.contextmanager
def static_graph():
    """Static mode within the block, with a fresh main Program (returned)."""
    was_dynamic = paddle.in_dynamic_mode()
    paddle.enable_static()
    main = paddle.static.Program()
    try:
        with paddle.static.program_guard(main, paddle.static.Program()):
            yield main
    finally:
        if was_dynamic:
            paddle.disable_static()


def bits(a):
    """A byte view that compares NaN payloads and signed zeros exactly."""
    a = np.ascontiguousarray(np.asarray(a))
    return a.dtype.str, a.shape, a.tobytes()


def assert_bitwise(static, dynamic, what):
    s, d = np.asarray(static), np.asarray(dynamic)
    assert s.dtype == d.dtype, '%s: dtype %s (static) != %s (dynamic)' % (what, s.dtype, d.dtype)
    assert s.shape == d.shape, '%s: shape %s (static) != %s (dynamic)' % (what, s.shape, d.shape)
    if bits(s) != bits(d):
        bad = np.argwhere(s.reshape(-1).view(np.uint8) != d.reshape(-1).view(np.uint8))
        raise AssertionError('%s: static and dynamic differ (first differing byte %s):\nstatic=%s\ndynamic=%s'
                             % (what, bad[:1].tolist(), s, d))


def declared_shapes(shape):
    """The shapes a sample is declared with: known, and (when it has dims) first dim -1."""
    shapes = [list(shape)]
    if len(shape) > 0:
        shapes.append([-1] + list(shape[1:]))
    return shapes


def check_static_matches_dynamic(op_info, sample, dtype, place, rng, with_grad):
    """Run `sample` both ways; returns the number of (declared shape) static runs compared."""
    what = '%s %s on %s, %r' % (op_info.name, dtype, place, sample)
    # Dynamic reference (forward, and the gradient for a random mixed-sign out_grad).
    x = make_tensor(sample.input, dtype, place, stop_gradient=not with_grad)
    out = op_info.op(x, *sample.args, **sample.kwargs)
    x_values = x.numpy()
    g_values = None
    dyn_grad = None
    if with_grad:
        g = make_tensor(rng.standard_normal(tuple(out.shape)), dtype_name(out.dtype), place)
        g_values = g.numpy()
        (dyn_grad,) = paddle.grad([out], [x], [g])
    dyn_out = out.numpy()

    runs = 0
    shapes = declared_shapes(np.shape(sample.input))
    for shape in shapes if op_info.static_unknown_dims else shapes[:1]:
        with static_graph() as main:
            xv = paddle.static.data('x', shape, dtype)
            yv = op_info.op(xv, *sample.args, **sample.kwargs)
            assert isinstance(yv, paddle.static.Variable), '%s: static call returned %r' % (what, yv)
            assert yv.dtype == out.dtype, '%s: static dtype %s != dynamic %s' % (what, yv.dtype, out.dtype)
            assert all(d == -1 or d == e for d, e in zip(yv.shape, out.shape)) and \
                len(yv.shape) == len(out.shape), '%s: build-time shape %s vs run-time %s (declared %s)' % (
                    what, yv.shape, list(out.shape), shape)
            fetch, feed = [yv], {'x': x_values}
            if with_grad:
                gv = paddle.static.data('out_grad', yv.shape, dtype_name(out.dtype))
                (xg,) = paddle.static.gradients([yv], [xv], [gv])
                assert xg is not None, '%s: no static gradient for x' % what
                fetch.append(xg)
                feed['out_grad'] = g_values
        results = paddle.static.Executor(place).run(main, feed=feed, fetch_list=fetch)
        tag = '%s declared %s' % (what, shape)
        assert_bitwise(results[0], dyn_out, tag + ' forward')
        if with_grad:
            assert_bitwise(results[1], dyn_grad.numpy(), tag + ' x_grad')
        runs += 1
    return runs


def check_static_error(op_info, err, place):
    """An OpInfo error case raises the same exception type in static mode, at build time
    (the input becomes a data variable of the tensor's shape and dtype)."""
    made = err.make(place)
    with static_graph():
        if isinstance(made, paddle.Tensor):
            arg = paddle.static.data('x', list(made.shape), made.dtype)
        else:
            arg = made
        try:
            op_info.op(arg, **err.kwargs)
        except err.error_type as e:
            return str(e)
        except Exception as e:  # noqa: BLE001 (report what was raised instead)
            raise AssertionError('%s (%s): static mode raised %s: %s, expected %s' % (
                err.desc, err.kwargs, type(e).__name__, e, err.error_type.__name__))
    raise AssertionError('%s (%s): static mode raised nothing at build time, expected %s' % (
        err.desc, err.kwargs, err.error_type.__name__))
