"""Autograd under stress (issue 17 items 3, 5, 9): a graph of 200,000 nodes is freed and
backpropagated without deep recursion; backward passes on several threads that share a leaf
(or part of a graph) lose no accumulation; paddle.grad's no_grad_vars cuts the gradient."""

import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import available_places, make_tensor

PLACES = available_places()
CHAIN = 200_000


def run_child(code):
    """Runs `code` in a fresh interpreter (a crash there must not take the suite down)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=600)


# ---- item 3: long chains -----------------------------------------------------------------

CHAIN_PROLOGUE = """
    import paddle_ops as paddle
    place = {place!r}
    x = paddle.to_tensor([3.0], dtype='float64', place=place, stop_gradient=False)
    w = paddle.to_tensor([1.0], dtype='float64', place=place, stop_gradient=False)
    y = x
    for _ in range({n}):
        y = y * w          # y = x * w**n: dy/dx = w**n = 1, dy/dw = n * x * w**(n-1) = 3n
"""


@pytest.mark.parametrize('place', PLACES)
def test_long_chain_built_and_freed(place):
    # Freeing the graph used to recurse once per node (nested grad-node destructors) and
    # overflow the stack: SIGSEGV.
    r = run_child(CHAIN_PROLOGUE.format(place=place, n=CHAIN) + """
    del y
    # a chain where each node holds its predecessor twice, and one with a fork per step
    y = x
    for _ in range({n}):
        y = y * y
    del y
    z = x
    for _ in range({n}):
        a = z * 1.0
        z = a + a
    del z, a
    print('freed')
    """.format(n=CHAIN))
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ['freed']


@pytest.mark.parametrize('place', PLACES)
def test_long_chain_backward_then_freed(place):
    r = run_child(CHAIN_PROLOGUE.format(place=place, n=CHAIN) + """
    y.backward()
    print(x.grad.numpy()[0], w.grad.numpy()[0])
    del y
    print('freed')
    """)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ['1.0', repr(3.0 * CHAIN), 'freed']


@pytest.mark.parametrize('place', PLACES)
def test_long_chain_retain_graph_and_second_backward(place):
    r = run_child(CHAIN_PROLOGUE.format(place=place, n=CHAIN) + """
    y.backward(retain_graph=True)
    y.backward()               # runs again on the kept graph, then frees its saved tensors
    print(x.grad.numpy()[0], w.grad.numpy()[0])
    try:
        y.backward()
    except RuntimeError as e:
        print('second-free' if 'retain_graph=True' in str(e) else 'other:' + str(e))
    del y
    print('freed')
    """)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ['2.0', repr(6.0 * CHAIN), 'second-free', 'freed']


# ---- item 5: backward on several threads ---------------------------------------------------

THREADS, ROUNDS = 8, 300


def run_threads(work):
    start = threading.Barrier(THREADS)
    errors = []

    def body():
        try:
            start.wait()
            for _ in range(ROUNDS):
                work()
        except BaseException as e:  # reported below: a thread's exception is not the test's
            errors.append(e)

    threads = [threading.Thread(target=body) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


@pytest.mark.parametrize('place', PLACES)
def test_threads_accumulate_into_one_leaf(place):
    # The case: every backward adds [C, C-1, ..., 1] per row into x.grad. Integer
    # values in float64 make the expected sum exact. Before the fix (no lock around the
    # read-add-store of .grad, the GIL released during backward) 0.73-0.84 of it arrived on
    # this [64, 256] shape, in every run.
    rows, cols = 64, 256
    x = make_tensor(np.arange(rows * cols).reshape(rows, cols), 'float64', place,
                    stop_gradient=False)
    run_threads(lambda: paddle.cumsum(x, axis=1).sum().backward())
    expected = np.broadcast_to(np.arange(cols, 0, -1, dtype=np.float64), (rows, cols))
    np.testing.assert_array_equal(x.grad.numpy(), expected * (THREADS * ROUNDS))


@pytest.mark.parametrize('place', PLACES)
def test_threads_share_part_of_a_graph(place):
    # y's grad node is shared by every thread's graph: it runs concurrently from 8 passes
    # (retain_graph keeps its saved tensors), and its gradient reaches x through it. Before
    # the fix x.grad lost accumulations here too.
    rows, cols = 64, 256
    x = make_tensor(np.ones((rows, cols)), 'float64', place, stop_gradient=False)
    y = x * 3.0
    run_threads(lambda: paddle.cumsum(y, axis=1).sum().backward(retain_graph=True))
    expected = 3.0 * np.broadcast_to(np.arange(cols, 0, -1, dtype=np.float64), (rows, cols))
    np.testing.assert_array_equal(x.grad.numpy(), expected * (THREADS * ROUNDS))


@pytest.mark.parametrize('place', PLACES)
def test_threads_grad_read_while_accumulating(place):
    # Reading and resetting .grad from Python while other threads add into it: every read
    # is a whole tensor (a multiple of one pass's gradient), never a torn one.
    x = make_tensor(np.ones((8, 32)), 'float64', place, stop_gradient=False)
    one_pass = np.broadcast_to(np.arange(32, 0, -1, dtype=np.float64), (8, 32))
    stop = threading.Event()
    seen = []

    def reader():
        while not stop.is_set():
            g = x.grad
            if g is not None and len(seen) < 1000:
                seen.append(g.numpy())
            time.sleep(0.0005)

    t = threading.Thread(target=reader)
    t.start()
    try:
        run_threads(lambda: paddle.cumsum(x, axis=1).sum().backward())
    finally:
        stop.set()
        t.join()
    np.testing.assert_array_equal(x.grad.numpy(), one_pass * (THREADS * ROUNDS))
    for g in seen:
        k = g[0, -1]
        assert k == int(k) and 1 <= k <= THREADS * ROUNDS
        np.testing.assert_array_equal(g, one_pass * k)


# ---- item 9: no_grad_vars ----------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
def test_no_grad_vars_cuts_the_path_through_them(place):
    # out = sum(a * b + a) with a = x * 2, b = x * x. Through every path:
    # d out/dx = (b + 1) * 2 + a * 2x = 6x^2 + 2; with b a constant, only the paths through
    # a remain: (b + 1) * 2 = 2x^2 + 2.
    values = np.array([1.0, 2.0, -3.0])
    x = make_tensor(values, 'float64', place, stop_gradient=False)
    a = x * 2.0
    b = x * x
    out = (a * b + a).sum()
    (full,) = paddle.grad(out, x, retain_graph=True)
    np.testing.assert_array_equal(full.numpy(), 6 * values ** 2 + 2)
    (cut_b,) = paddle.grad(out, x, retain_graph=True, no_grad_vars=b)
    np.testing.assert_array_equal(cut_b.numpy(), 2 * values ** 2 + 2)
    # a cut: the remaining path is b's (d out/db = a = 2x, db/dx = 2x)
    (cut_a,) = paddle.grad(out, [x], retain_graph=True, no_grad_vars=[a])
    np.testing.assert_array_equal(cut_a.numpy(), 2 * values * 2 * values)
    # both cut: x is then unused
    with pytest.raises(ValueError, match='allow_unused'):
        paddle.grad(out, x, retain_graph=True, no_grad_vars=(a, b))
    (none,) = paddle.grad(out, x, retain_graph=True, no_grad_vars={a, b}, allow_unused=True)
    assert none is None
    # for that call only: the graph is unchanged afterwards
    (again,) = paddle.grad(out, x)
    np.testing.assert_array_equal(again.numpy(), full.numpy())


@pytest.mark.parametrize('place', PLACES)
def test_no_grad_vars_leaf(place):
    # A leaf in no_grad_vars is a constant: with w cut, d(sum(x * w))/dx is still w, and w
    # itself, asked for, has no gradient.
    x = make_tensor([1.0, 2.0], 'float64', place, stop_gradient=False)
    w = make_tensor([5.0, 7.0], 'float64', place, stop_gradient=False)
    out = (x * w).sum()
    gx, gw = paddle.grad(out, [x, w], retain_graph=True, no_grad_vars=w, allow_unused=True)
    np.testing.assert_array_equal(gx.numpy(), [5.0, 7.0])
    assert gw is None
    # A tensor that needs no gradient anyway is accepted and changes nothing.
    c = make_tensor([1.0, 1.0], 'float64', place)
    (gx,) = paddle.grad(out, x, no_grad_vars=[c])
    np.testing.assert_array_equal(gx.numpy(), [5.0, 7.0])


@pytest.mark.parametrize('bad, message', [
    (3, 'no_grad_vars must be None, a Tensor or a list/tuple/set of Tensors, but got int'),
    ('x', 'but got str'),
    ({'a': 1}, 'but got dict'),
    ([None], r'no_grad_vars must hold only Tensors, but an entry is NoneType \(index 0\)'),
    (np.ones(2), 'but got ndarray'),
])
def test_no_grad_vars_wrong_type(bad, message):
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    out = (x * x).sum()
    with pytest.raises(TypeError, match=message):
        paddle.grad(out, x, retain_graph=True, no_grad_vars=bad)
    # the graph is untouched by the refused call
    (g,) = paddle.grad(out, x)
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])


def test_grad_and_backward_flags_must_be_bools():
    # They were read with bool(), so retain_graph='no' kept the graph; NumPy bools are bools.
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = (x * x).sum()
    with pytest.raises(TypeError, match='retain_graph must be a bool or None, but got str'):
        y.backward(retain_graph='no')
    with pytest.raises(TypeError, match='allow_unused must be a bool, but got int'):
        paddle.grad(y, x, allow_unused=1)
    with pytest.raises(NotImplementedError, match='only_inputs=False'):
        paddle.grad(y, x, only_inputs=False)
    (g,) = paddle.grad(y, x, retain_graph=np.bool_(True), allow_unused=np.bool_(False))
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])
    y.backward(retain_graph=None)
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])
