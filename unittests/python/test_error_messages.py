"""Errors in plain words (issue 17 item 14): no raw binding or C++ text reaches a user. Each
wrong argument gives a Python exception of the documented type whose message names the
argument, what was expected and what was given; NumPy scalars are taken wherever Python ones
are; out-of-memory is a MemoryError; a CUDA build with no visible GPU says so.
"""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import available_places, skip_under_asan

# Text that belongs to the bindings or to C++, never to a user's message.
RAW = re.compile(r"incompatible function arguments|C\+\+ type|std::|max_size|Unable to cast|pybind11")


def _raises(exc, fn, *names):
    """fn() raises `exc`; its message has no binding/C++ text and contains each of `names`."""
    with pytest.raises(exc) as info:
        fn()
    msg = str(info.value)
    assert not RAW.search(msg), msg
    for n in names:
        assert re.search(n, msg), "message lacks %r: %s" % (n, msg)
    return msg


def _x(place="cpu"):
    return paddle.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3), place=place)


# ---- wrong argument types reach the bindings: named, in plain words ---------------------------

def test_set_num_threads_wrong_type():
    _raises(TypeError, lambda: paddle.set_num_threads("2"), "'n'", "int", "str")
    _raises(TypeError, lambda: paddle.set_num_threads(2.5), "'n'", "int", "float")
    _raises(ValueError, lambda: paddle.set_num_threads(2 ** 40), "'n'", "32-bit", str(2 ** 40))
    n = paddle.get_num_threads()
    paddle.set_num_threads(np.int64(1))  # a NumPy int is an int
    assert paddle.get_num_threads() == 1
    paddle.set_num_threads(n)


def test_to_tensor_stop_gradient_wrong_type():
    _raises(TypeError, lambda: paddle.to_tensor([1.0], stop_gradient="no"), "stop_gradient", "bool", "str")


def test_empty_shape_beyond_int64():
    _raises(ValueError, lambda: paddle.empty([2 ** 63]), "'shape'", "64-bit", str(2 ** 63))
    _raises(TypeError, lambda: paddle.empty([2, "3"]), "'shape'", "int")
    assert paddle.empty([np.int64(2), 3]).shape == [2, 3]


def test_empty_binding_checks_its_arguments():
    # the binding itself, as a caller that skips the Python wrapper reaches it
    C = paddle._C
    _raises(TypeError, lambda: C.empty([2, 2.5], paddle.float32, paddle.CPUPlace()), "'shape'", "int", "float")
    _raises(ValueError, lambda: C.empty([-1], paddle.float32, paddle.CPUPlace()), "'shape'", "negative")
    _raises(TypeError, lambda: C.empty([2], 5, paddle.CPUPlace()), "'dtype'", "dtype")
    _raises(TypeError, lambda: C.empty([2], paddle.float32, "cpu"), "'place'", "Place", "str")


def test_reshape_shape_beyond_int64():
    _raises(ValueError, lambda: paddle.reshape(_x(), [-1, 2 ** 64]), "'shape'", "64-bit", str(2 ** 64))


def test_int_list_element_beyond_int64_named():
    _raises(ValueError, lambda: paddle.sum(_x(), axis=[0, 2 ** 64]), "'axis'", "64-bit", str(2 ** 64))
    _raises(ValueError, lambda: paddle.sum(_x(), axis=np.uint64(2 ** 63)), "'axis'", "64-bit", str(2 ** 63))


def test_float_attribute_too_large_named():
    big = 10 ** 400
    q = paddle.to_tensor(np.zeros((1, 1, 2, 4), np.float32))
    _raises(ValueError, lambda: paddle._C_ops.gla(q, q, q, q, None, None, big, False, True), "'scale'", "too large")


def test_wrong_typed_attribute_names_numpy_type():
    _raises(TypeError, lambda: paddle.cumsum(_x(), axis=np.float64(1.0)), "'axis'", "int", "float64")
    _raises(TypeError, lambda: paddle.cumsum(_x(), axis=1, exclusive=np.int64(1)), "'exclusive'", "bool", "int64")


# ---- NumPy scalars are taken wherever Python ones are -----------------------------------------

@pytest.mark.parametrize("place", available_places())
def test_numpy_scalars_accepted(place):
    x = _x(place)
    ref = paddle.cumsum(x, axis=1, exclusive=True).numpy()
    np.testing.assert_array_equal(paddle.cumsum(x, axis=1, exclusive=np.bool_(True)).numpy(), ref)
    np.testing.assert_array_equal(paddle.cumsum(x, axis=np.int64(1), exclusive=True).numpy(), ref)
    np.testing.assert_array_equal(paddle.cumsum(x, axis=np.int32(1), exclusive=np.True_).numpy(), ref)
    np.testing.assert_array_equal(
        paddle.logcumsumexp(x, axis=np.int64(-1), reverse=np.bool_(True)).numpy(),
        paddle.logcumsumexp(x, axis=-1, reverse=True).numpy())
    np.testing.assert_array_equal(paddle.sum(x, axis=np.int64(1)).numpy(), paddle.sum(x, axis=1).numpy())
    np.testing.assert_array_equal(paddle.sum(x, axis=[np.int64(0), np.int16(1)]).numpy(),
                                  paddle.sum(x, axis=[0, 1]).numpy())
    np.testing.assert_array_equal(paddle.reshape(x, [np.int64(3), np.int8(2)]).numpy(),
                                  paddle.reshape(x, [3, 2]).numpy())
    rng = np.random.default_rng(0)
    q = paddle.to_tensor(rng.standard_normal((1, 2, 8, 4)).astype(np.float32), place=place)
    gk = paddle.to_tensor(np.full((1, 2, 8, 4), -0.1, np.float32), place=place)
    o_ref = paddle.gla(q, q, q, gk, scale=0.5)[0].numpy()
    np.testing.assert_array_equal(paddle.gla(q, q, q, gk, scale=np.float32(0.5))[0].numpy(), o_ref)
    np.testing.assert_array_equal(paddle.gla(q, q, q, gk, scale=np.float64(0.5), head_first=np.bool_(True))[0].numpy(),
                                  o_ref)


def test_numpy_bool_is_not_an_int_nor_an_int_a_bool():
    _raises(TypeError, lambda: paddle.cumsum(_x(), axis=np.bool_(True)), "'axis'", "int", "bool")
    _raises(TypeError, lambda: paddle.cumsum(_x(), axis=1, exclusive=1), "'exclusive'", "bool", "int")


# ---- autograd and static mode ------------------------------------------------------------------

def test_grad_outputs_of_wrong_dtype_named():
    y = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    z = y * 2.0
    _raises(TypeError, lambda: paddle.grad([z], [y], grad_outputs=[paddle.to_tensor([1.0, 1.0], dtype="float64")]),
            "grad_outputs", "float32", "float64")
    _raises(ValueError, lambda: paddle.grad([z], [y], grad_outputs=[paddle.to_tensor([1.0, 1.0, 1.0])]),
            "grad_outputs", r"\[2\]", r"\[3\]")
    (g,) = paddle.grad([z], [y], grad_outputs=[paddle.to_tensor([1.0, 3.0])])
    np.testing.assert_array_equal(g.numpy(), [2.0, 6.0])


def test_static_variable_after_disable_static():
    paddle.enable_static()
    try:
        v = paddle.static.data("v_after", [2, 3], "float32")
    finally:
        paddle.disable_static()
    msg = _raises(TypeError, lambda: paddle.cumsum(v, axis=1), "'x'", "static", "v_after")
    assert "is None" not in msg


# ---- memory -------------------------------------------------------------------------------------

def _child(code, env=None):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300,
                          env=env)


@skip_under_asan
def test_host_allocation_failure_is_memory_error_in_plain_words():
    """A workspace the process cannot get (std::bad_alloc inside gla's OpenMP region, which
    once ended the process in std::terminate) is a MemoryError without C++ text."""
    r = _child("""
        import resource
        import numpy as np
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
        import paddle_ops as paddle
        q = paddle.to_tensor(np.zeros((1, 1, 1, 1 << 16), np.float32))  # a 2^16 x 2^16 state: 16 GiB
        try:
            paddle.gla(q, q, q, q, scale=1.0)
            print("no error")
        except MemoryError as e:
            print("MemoryError:", e)
        """)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "MemoryError: out of host memory" in r.stdout, r.stdout + r.stderr[-2000:]
    assert not RAW.search(r.stdout), r.stdout


def test_cpu_allocation_past_memory_and_swap_is_refused_at_once():
    """An output larger than the machine's memory and swap together (16 TiB here) is a
    MemoryError before anything is allocated, whatever the kernel's overcommit setting: with
    vm.overcommit_memory=1 the allocation itself would succeed and the writes end in the OOM
    killer (the H100 machine hung on this)."""
    x = paddle.to_tensor(np.ones(4096, np.float32), place="cpu")
    with pytest.raises(MemoryError, match=r"out of CPU memory: 17592186044416 bytes asked for, more than this "
                                          r"machine's memory and swap together \(\d+ bytes\)"):
        paddle.repeat_interleave(x, 2 ** 30)


def test_cuda_build_without_visible_gpu_says_so():
    if not paddle.device.is_compiled_with_cuda():
        _raises(RuntimeError, lambda: paddle.to_tensor([1.0], place="gpu"), "without support|without CUDA")
        return
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    r = _child("""
        import paddle_ops as paddle
        assert paddle.device.cuda.device_count() == 0
        for make in (lambda: paddle.to_tensor([1.0], place="gpu"), lambda: paddle.empty([4], place="gpu")):
            try:
                make()
                print("no error")
            except RuntimeError as e:
                print("RuntimeError:", e)
        """, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("RuntimeError: no GPU is visible") for line in lines), r.stdout
    assert "GiB" not in r.stdout
