"""Paddle's behaviour where Paddle's own unit tests for these ops call it (issue 17 item 13):
flatten with axis 0 at the _C_ops level, stop_gradient=False on integer tensors, uint16 arrays
as bfloat16 bits, NumPy 2's __array__ protocol and np.sum, a dtype in third position,
clear_grad setting zeros, paddle.seed, and the one documented difference (the exclusive head)."""
import numpy as np
import pytest

import paddle_ops as paddle
from op_test import available_places, make_tensor

PLACES = available_places()


# ------------------------------------------------------------------------------------------
# _C_ops: flatten=True takes axis 0 or -1, as Paddle's kernels do
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('op', ['logcumsumexp', 'cumsum'])
@pytest.mark.parametrize('exclusive,reverse', [(False, False), (True, True)])
def test_flatten_with_axis_0_is_the_flattened_scan(place, op, exclusive, reverse):
    x = make_tensor(np.arange(12.0).reshape(3, 4) / 4, 'float64', place)
    fn = getattr(paddle._C_ops, op)
    a = fn(x, 0, True, exclusive, reverse)
    b = fn(x, -1, True, exclusive, reverse)
    assert a.shape == [12]
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(a.numpy(), getattr(paddle, op)(x, None, exclusive, reverse).numpy())


@pytest.mark.parametrize('op', ['logcumsumexp', 'cumsum'])
def test_flatten_with_another_axis_is_refused(op):
    x = paddle.to_tensor(np.ones((3, 4)))
    with pytest.raises(ValueError, match='0 or -1'):
        getattr(paddle._C_ops, op)(x, 1, True, False, False)


def test_flatten_axis_0_records_a_gradient():
    x = paddle.to_tensor(np.arange(6.0).reshape(2, 3), stop_gradient=False)
    (g0,) = paddle.grad(paddle._C_ops.logcumsumexp(x, 0, True, False, True), [x])
    (g1,) = paddle.grad(paddle.logcumsumexp(x, None, reverse=True), [x])
    np.testing.assert_array_equal(g0.numpy(), g1.numpy())


# ------------------------------------------------------------------------------------------
# stop_gradient=False on integer tensors: allowed, no gradient flows to them
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['int32', 'int64', 'bool', 'uint8'])
def test_integer_tensor_takes_stop_gradient_false(place, dtype):
    t = paddle.to_tensor(np.array([1, 0, 2]).astype(dtype), place=place)
    t.stop_gradient = False
    assert t.stop_gradient is False
    t2 = paddle.to_tensor(np.array([1, 0, 2]).astype(dtype), place=place, stop_gradient=False)
    assert t2.stop_gradient is False
    t.stop_gradient = True
    assert t.stop_gradient is True


@pytest.mark.parametrize('place', PLACES)
def test_no_gradient_reaches_an_integer_tensor(place):
    x = paddle.to_tensor([1.0, 2.0, 3.0], place=place, stop_gradient=False)
    counts = paddle.to_tensor([2, 0, 1], place=place, stop_gradient=False)
    i = paddle.to_tensor([1, 2, 3], dtype='int32', place=place, stop_gradient=False)
    y = paddle.repeat_interleave(x, counts) * 2
    z = paddle.cumsum(i)  # an integer op on its own: records nothing
    assert z.stop_gradient
    (x * i).sum().backward()
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1 + 4, 2 + 0, 3 + 2])
    assert counts.grad is None and i.grad is None


# ------------------------------------------------------------------------------------------
# to_tensor of a uint16 NumPy array: the bfloat16 bits, as Paddle reads it
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
def test_uint16_array_is_bfloat16_bits(place):
    bits = np.array([[0x3F80, 0x4000], [0xC040, 0x7F80]], dtype=np.uint16)  # 1, 2, -3, +inf
    t = paddle.to_tensor(bits, place=place)
    assert t.dtype == paddle.bfloat16 and t.shape == [2, 2]
    np.testing.assert_array_equal(t.astype('float32').numpy(), np.array([[1.0, 2.0], [-3.0, np.inf]], np.float32))
    # and numpy() gives them back, as Paddle's numpy() of a bfloat16 tensor does
    assert t.numpy().dtype == np.uint16 and np.array_equal(t.numpy(), bits)
    t0 = paddle.to_tensor(np.uint16(0x3FC0), place=place)  # a NumPy scalar too: 1.5
    assert t0.dtype == paddle.bfloat16 and t0.shape == [] and float(t0) == 1.5
    assert paddle.to_tensor(bits, dtype='bfloat16', place=place).numpy().tolist() == bits.tolist()
    # Another dtype asked for: the numbers are converted as numbers (0x3F80 == 16256).
    assert paddle.to_tensor(bits[:1], dtype='float32', place=place).numpy().tolist() == [[16256.0, 16384.0]]
    assert paddle.to_tensor(bits[:1], dtype='int32', place=place).numpy().tolist() == [[16256, 16384]]


@pytest.mark.parametrize('place', PLACES)
def test_bfloat16_numpy_is_its_bits_as_in_paddle(place):
    """Paddle's convention for bfloat16 in NumPy, the other way (issue 32 item 8): numpy(),
    np.array(t) and tolist() give the uint16 bits; item(), float() and repr give the values; the
    values as NumPy: astype('float32').numpy(), or the bits viewed as ml_dtypes.bfloat16."""
    values = np.array([1.0, -2.5, 2.0 ** 120, -0.0], np.float32)
    t = paddle.to_tensor(values, dtype='bfloat16', place=place)
    bits = (values.view(np.uint32) >> 16).astype(np.uint16)  # each value is a bfloat16: exact
    assert t.numpy().dtype == np.uint16 and np.array_equal(t.numpy(), bits)
    assert np.array_equal(np.array(t), bits) and np.asarray(t).dtype == np.uint16
    assert t.tolist() == bits.tolist()
    assert paddle.to_tensor([-2.5], dtype='bfloat16', place=place).item() == -2.5
    assert float(paddle.to_tensor(-2.5, dtype='bfloat16', place=place)) == -2.5
    assert '-2.5' in repr(t) and '16256' not in repr(t)  # repr shows the values, as Paddle's
    assert np.array_equal(t.astype('float32').numpy(), values)
    ml = pytest.importorskip('ml_dtypes', reason='ml_dtypes is not installed (tools/setup_deps.sh installs it)')
    assert np.array_equal(t.numpy().view(ml.bfloat16).astype(np.float32), values)


@pytest.mark.parametrize('place', PLACES)
def test_static_feed_of_uint16_into_bfloat16_is_the_bits(place):
    """A uint16 array fed into a bfloat16 data variable gives a bfloat16 tensor with those bits (it
    was refused: "feed 'X' has NumPy dtype uint16 but the data variable is paddle.bfloat16"); a
    fetched bfloat16 result comes back as its bits (return_numpy=True), as Paddle's Executor does."""
    bits = np.array([[0x3F80, 0x4000], [0xC040, 0x7F81]], np.uint16)  # 1, 2, -3, a signalling NaN
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('X', [2, 2], 'bfloat16')
            y = paddle.cumsum(x, axis=1)
        exe = paddle.static.Executor(place)
        fetched_x, fetched_y = exe.run(main, feed={'X': bits}, fetch_list=[x, y])
        (as_tensor,) = exe.run(main, feed={'X': bits}, fetch_list=[y], return_numpy=False)
    finally:
        paddle.disable_static()
    assert fetched_x.dtype == np.uint16 and np.array_equal(fetched_x, bits)
    assert fetched_y.dtype == np.uint16
    assert as_tensor.dtype == paddle.bfloat16
    got = as_tensor.astype('float32').numpy()
    assert got[0].tolist() == [1.0, 3.0] and got[1, 0] == -3.0 and np.isnan(got[1, 1])
    # uint16 into a variable of another dtype stays refused (numbers are not bits there)
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            z = paddle.static.data('Z', [2], 'float32') * 1
        with pytest.raises(TypeError, match="feed 'Z' has NumPy dtype uint16"):
            paddle.static.Executor(place).run(main, feed={'Z': np.array([1, 2], np.uint16)}, fetch_list=[z])
    finally:
        paddle.disable_static()


# ------------------------------------------------------------------------------------------
# NumPy 2: np.array(t) (dtype=, copy=) and np.sum / np.mean of a Tensor
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
def test_numpy_array_protocol(place):
    t = make_tensor([[1.0, 2.0], [3.0, 4.5]], 'float32', place)
    a = np.array(t)
    assert a.dtype == np.float32 and a.tolist() == [[1.0, 2.0], [3.0, 4.5]]
    assert np.array(t, dtype=np.float64).dtype == np.float64
    assert np.asarray(t, dtype='int64').tolist() == [[1, 2], [3, 4]]
    assert np.array(t, copy=True).tolist() == a.tolist()
    with pytest.raises(ValueError, match='copy'):
        np.array(t, copy=False)
    a[0, 0] = 100  # the array is a copy
    assert t.numpy()[0, 0] == 1.0


@pytest.mark.parametrize('place', PLACES)
def test_numpy_reductions_of_a_tensor(place):
    t = make_tensor([[1, 2], [3, 4]], 'int64', place)
    s = np.sum(t)
    assert isinstance(s, paddle.Tensor) and s.shape == [] and int(s) == 10
    assert np.sum(t, axis=0).numpy().tolist() == [4, 6]
    f = make_tensor([[1.0, 2.0], [3.0, 5.0]], 'float64', place)
    assert float(np.mean(f)) == 2.75
    assert np.mean(f, axis=1).numpy().tolist() == [1.5, 4.0]
    with pytest.raises(TypeError, match='out'):
        t.sum(out=np.zeros(()))


# ------------------------------------------------------------------------------------------
# A dtype in third position (Paddle's shipped order (x, axis, dtype, name))
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['float32', 'float64', paddle.float64, np.float32, np.dtype('float64')])
def test_logcumsumexp_dtype_in_third_position(place, dtype):
    x = make_tensor(np.arange(6.0).reshape(2, 3), 'float32', place)
    y = paddle.logcumsumexp(x, -1, dtype)
    ref = paddle.logcumsumexp(x, -1, dtype=dtype)
    assert y.dtype == ref.dtype
    np.testing.assert_array_equal(y.numpy(), ref.numpy())
    np.testing.assert_array_equal(x.logcumsumexp(-1, dtype).numpy(), ref.numpy())
    np.testing.assert_array_equal(paddle.logcumsumexp(x, -1, dtype, 'a_name').numpy(), ref.numpy())


@pytest.mark.parametrize('place', PLACES)
def test_cumsum_dtype_in_third_position(place):
    x = make_tensor(np.arange(12).reshape(3, 4), 'int64', place)
    y = paddle.cumsum(x, 0, 'int32')
    assert y.dtype == paddle.int32 and y.numpy().tolist() == np.cumsum(np.arange(12).reshape(3, 4), 0).tolist()
    assert paddle.cumsum(x, None, np.float64).dtype == paddle.float64
    assert x.cumsum(1, 'float32').dtype == paddle.float32


def test_the_seed_order_still_holds_and_a_dtype_is_never_a_bool():
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(paddle.cumsum(x, 0, True, True).numpy(), [5.0, 3.0, 0.0])
    with pytest.raises(TypeError, match='dtype'):
        paddle.logcumsumexp(x, 0, 'float64', dtype='float32')
    with pytest.raises(TypeError, match='exclusive'):
        paddle.logcumsumexp(x, 0, 'yes')  # not a dtype name: still the exclusive flag, refused
    with pytest.raises(TypeError, match='floating'):
        paddle.logcumsumexp(x, 0, 'int32')  # a dtype in third position is checked as dtype=


def test_dtype_in_third_position_in_static_mode():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            v = paddle.static.data('x', [2, 3], 'float32')
            y = paddle.logcumsumexp(v, -1, 'float64')
            z = paddle.cumsum(v, 0, 'float64')
        out = paddle.static.Executor().run(main, feed={'x': np.ones((2, 3), np.float32)}, fetch_list=[y, z])
    finally:
        paddle.disable_static()
    assert out[0].dtype == np.float64 and out[1].dtype == np.float64
    np.testing.assert_allclose(out[1], [[1, 1, 1], [2, 2, 2]])


# ------------------------------------------------------------------------------------------
# clear_grad sets zeros
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
def test_clear_grad_sets_zeros_of_the_grad_shape(place):
    x = make_tensor([[1.0, 2.0, 3.0]], 'float64', place, stop_gradient=False)
    (x * x).sum().backward()
    kept = x.grad
    x.clear_grad()
    assert x.grad is not None and x.grad.shape == [1, 3] and x.grad.dtype == paddle.float64
    assert x.grad.place == x.place
    assert x.grad.numpy().tolist() == [[0.0, 0.0, 0.0]]
    assert kept.numpy().tolist() == [[2.0, 4.0, 6.0]]  # a grad taken before keeps its values
    (x * 5).sum().backward()
    assert x.grad.numpy().tolist() == [[5.0, 5.0, 5.0]]
    x.clear_gradient(set_to_zero=False)
    assert x.grad is None
    x.clear_grad()  # no grad yet: stays None
    assert x.grad is None


# ------------------------------------------------------------------------------------------
# paddle.seed
# ------------------------------------------------------------------------------------------

def test_seed_returns_a_generator_with_the_seed():
    g = paddle.seed(2022)
    assert isinstance(g, paddle.Generator) and g.initial_seed() == 2022
    assert paddle.seed(np.int64(7)) is g and g.initial_seed() == 7
    state = np.random.get_state()[1].copy()
    paddle.seed(1)
    assert (np.random.get_state()[1] == state).all()  # NumPy's generator is not touched
    with pytest.raises(TypeError, match='seed'):
        paddle.seed(1.5)
    with pytest.raises(ValueError, match='seed'):
        paddle.seed(2 ** 64)


# ------------------------------------------------------------------------------------------
# The documented difference: an exclusive logcumsumexp starts at -inf, not Paddle's lowest()
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_exclusive_head_is_minus_inf(place, dtype):
    x = make_tensor(np.arange(6.0).reshape(2, 3), dtype, place)
    y = paddle.logcumsumexp(x, 1, exclusive=True).numpy()
    assert (y[:, 0] == -np.inf).all()
    y = paddle.logcumsumexp(x, 1, exclusive=True, reverse=True).numpy()
    assert (y[:, -1] == -np.inf).all()


# ------------------------------------------------------------------------------------------
# What else Paddle's own tests of these ops call
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
def test_cumsum_axis_as_a_one_element_integer_tensor(place):
    x = make_tensor(np.arange(6.0).reshape(2, 3), 'float64', place)
    for dt in ('int32', 'int64'):
        axis = paddle.to_tensor([1], dtype=dt, place=place)
        np.testing.assert_array_equal(paddle.cumsum(x, axis=axis).numpy(), np.cumsum(np.arange(6.0).reshape(2, 3), 1))
    with pytest.raises(TypeError, match='axis'):
        paddle.cumsum(x, axis=paddle.to_tensor([0, 1], place=place))
    with pytest.raises(TypeError, match='axis'):
        paddle.cumsum(x, axis=paddle.to_tensor([1.0], place=place))


def test_static_unknown_dim_may_match_the_count_of_repeats():
    # x [-1, 4] repeated along axis 0 by 3 counts: the unknown dim may be 3; checked at run time.
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            x = paddle.static.data('x', [-1, 4], 'float32')
            r = paddle.static.data('r', [3], 'int32')
            z = paddle.repeat_interleave(x, r, axis=0)
        exe = paddle.static.Executor('cpu')
        data = np.arange(12, dtype=np.float32).reshape(3, 4)
        (out,) = exe.run(main, feed={'x': data, 'r': np.array([1, 2, 1], np.int32)}, fetch_list=[z])
        with pytest.raises(ValueError, match='repeats'):
            exe.run(main, feed={'x': data[:2], 'r': np.array([1, 2, 1], np.int32)}, fetch_list=[z])
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(out, np.repeat(data, [1, 2, 1], axis=0))


def test_disable_static_with_a_place_makes_it_the_device():
    before = paddle.get_device()
    try:
        paddle.enable_static()
        paddle.disable_static(paddle.CPUPlace())
        assert paddle.in_dynamic_mode() and paddle.get_device() == 'cpu'
        if 'gpu' in PLACES:
            paddle.disable_static(paddle.CUDAPlace(0))
            assert paddle.get_device() == 'gpu:0' and paddle.to_tensor([1.0]).place.is_gpu_place()
    finally:
        paddle.set_device(before)


def test_paddle_tests_harness_runs_an_optest(tmp_path):
    """tools/dev/paddle_tests (which runs Paddle's own tests of these ops; docs/testing.md) works:
    in a child, `import paddle` is paddle_ops, and an OpTest of cumsum in bfloat16 (uint16 inputs
    and outputs, Paddle's convention) and in float64 passes its output and gradient checks, while
    a wrong expected output fails."""
    import os
    import subprocess
    import sys
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = '''
import sys, unittest
import numpy as np
sys.path.insert(0, %r)
import shim
shim.GPU_AS_CPU = True
import op_test
import paddle
assert paddle.__name__ == "paddle_ops"

def cumsum_wrapper(x, axis=-1, flatten=False, exclusive=False, reverse=False):
    return paddle._C_ops.cumsum(x, axis, flatten, exclusive, reverse)

class Base(op_test.OpTest):
    wrong = False
    def setUp(self):
        self.op_type, self.python_api = "cumsum", cumsum_wrapper
        x = np.random.random((3, 7)).astype(np.float32)
        out = x.cumsum(axis=1) + (1.0 if self.wrong else 0.0)
        self.attrs = {"axis": 1}
        if self.dtype == np.uint16:
            self.inputs = {"X": op_test.convert_float_to_uint16(x)}
            self.outputs = {"Out": op_test.convert_float_to_uint16(out)}
        else:
            self.inputs, self.outputs = {"X": x.astype(np.float64)}, {"Out": out.astype(np.float64)}
    def test_output(self):
        self.check_output()
    def test_grad(self):
        self.check_grad(["X"], "Out")

class Bf16(Base):
    def setUp(self):
        self.dtype = np.uint16
        super().setUp()

class F64(Base):
    def setUp(self):
        self.dtype = np.float64
        super().setUp()

class F64Wrong(F64):
    wrong = True

results = {}
for cls in (Bf16, F64, F64Wrong):
    r = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(cls).run(r)
    results[cls.__name__] = (r.testsRun, len(r.failures) + len(r.errors))
print(results)
''' % os.path.join(repo, 'tools', 'dev', 'paddle_tests')
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "{'Bf16': (2, 0), 'F64': (2, 0), 'F64Wrong': (2, 1)}", r.stdout + r.stderr
