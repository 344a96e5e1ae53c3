"""The Tensor and module-level API the op tests stand on: to_tensor, dtypes, places, numpy(),
astype (with 16-bit rounding), arithmetic with broadcasting, sum/mean/reshape, devices."""

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import (ALL_DTYPES, FLOAT_DTYPES, available_places, dtype_name, gpu_available,
                     round_to_bfloat16)

PLACES = available_places()


# ------------------------------------------------------------------------------------------
# to_tensor and dtypes
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('data,dtype,shape', [
    ([1.0, 2.0, 3.0], paddle.float32, [3]),
    ([1, 2, 3], paddle.int64, [3]),
    ([[1, 2.5], [3, 4]], paddle.float32, [2, 2]),
    ([True, False], paddle.bool, [2]),
    (2.5, paddle.float32, []),
    (7, paddle.int64, []),
    (np.arange(6, dtype=np.float64).reshape(2, 3), paddle.float64, [2, 3]),
    (np.arange(6, dtype=np.float32).reshape(3, 2), paddle.float32, [3, 2]),
    (np.arange(4, dtype=np.int32), paddle.int32, [4]),
    (np.arange(4, dtype=np.int64), paddle.int64, [4]),
    (np.zeros((2, 0, 3), dtype=np.float32), paddle.float32, [2, 0, 3]),
])
def test_to_tensor_default_dtype_and_shape(data, dtype, shape):
    x = paddle.to_tensor(data)
    assert x.dtype == dtype
    assert x.shape == shape
    assert x.ndim == len(shape)
    assert x.size == int(np.prod(shape))
    assert np.array_equal(x.numpy(), np.asarray(data))


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ALL_DTYPES)
def test_to_tensor_with_dtype(dtype, place):
    data = [[0, 1, 2], [3, 4, 5]]
    for spelled in (dtype, getattr(paddle, dtype)):
        x = paddle.to_tensor(data, dtype=spelled, place=place)
        assert x.dtype == getattr(paddle, dtype)
        assert dtype_name(x.dtype) == dtype
        assert x.shape == [2, 3]
        assert np.array_equal(x.numpy().astype(np.float64), np.array(data, dtype=bool if
                              dtype == 'bool' else np.float64).astype(np.float64))


@pytest.mark.parametrize('dtype,numpy_dtype', [
    ('float16', np.float16), ('bfloat16', np.float32), ('float32', np.float32),
    ('float64', np.float64), ('int32', np.int32), ('int64', np.int64), ('bool', np.bool_),
])
def test_numpy_dtype(dtype, numpy_dtype):
    a = paddle.to_tensor([1, 0, 3], dtype=dtype).numpy()
    assert isinstance(a, np.ndarray)
    assert a.dtype == numpy_dtype


def test_dtype_objects_are_distinct_and_compare_to_dtypes():
    dtypes = [getattr(paddle, name) for name in ALL_DTYPES]
    for i, a in enumerate(dtypes):
        for j, b in enumerate(dtypes):
            assert (a == b) == (i == j), (ALL_DTYPES[i], ALL_DTYPES[j])
    assert paddle.to_tensor([1.0]).dtype == paddle.float32
    assert paddle.to_tensor([1.0]).dtype != paddle.float64


def test_to_tensor_from_tensor_copies_values():
    x = paddle.to_tensor([1.0, 2.0])
    y = paddle.to_tensor(x)
    assert y.dtype == x.dtype and np.array_equal(y.numpy(), x.numpy())
    z = paddle.to_tensor(x, dtype='float64')
    assert z.dtype == paddle.float64 and z.numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', [None, 'float32', 'float64'])
def test_to_tensor_of_a_tensor_is_a_detached_copy(dtype, place):
    """to_tensor(tensor), as Paddle: a copy in new memory (writing into the source does not show
    in it), a leaf with stop_gradient=True whose gradient never reaches the source (issue 32
    item 5: it aliased the source and kept its graph). stop_gradient=False makes it a leaf of its
    own."""
    x = paddle.to_tensor([1.0, 2.0], place=place, stop_gradient=False)
    src = x * 2  # not a leaf, in a graph
    y = paddle.to_tensor(src, dtype=dtype)
    assert y.stop_gradient is True and y.is_leaf and y.grad is None
    assert y.data_ptr() != src.data_ptr()
    assert y.numpy().tolist() == [2.0, 4.0]
    # Writing into the source (through DLPack on the CPU) leaves the copy as it was.
    if place == 'cpu':
        np.from_dlpack(src)[0] = 100.0
        assert src.numpy()[0] == 100.0 and y.numpy().tolist() == [2.0, 4.0]
    w = paddle.to_tensor(src, dtype=dtype, stop_gradient=False)
    assert w.is_leaf and w.stop_gradient is False
    (w * 3).sum().backward()
    assert w.grad.numpy().tolist() == [3.0, 3.0]
    assert x.grad is None  # nothing reached the source's graph
    # A leaf source: the same.
    v = paddle.to_tensor(x)
    assert v.stop_gradient is True and v.data_ptr() != x.data_ptr()


def test_to_tensor_does_not_alias_numpy_input():
    a = np.array([1.0, 2.0, 3.0])
    x = paddle.to_tensor(a)
    a[0] = 100.0
    assert x.numpy()[0] == 1.0


@pytest.mark.parametrize('data', [[1 + 2j], np.array([1j, 2.0]), 3j,
                                  np.array([1, 2], dtype=np.complex64)])
def test_complex_input_raises_type_error(data):
    with pytest.raises(TypeError):
        paddle.to_tensor(data)


@pytest.mark.parametrize('bad', ['float33', 'floaty', 'int3', ''])
def test_bad_dtype_string_raises(bad):
    with pytest.raises((TypeError, ValueError)):
        paddle.to_tensor([1.0], dtype=bad)
    with pytest.raises((TypeError, ValueError)):
        paddle.to_tensor([1.0]).astype(bad)


def test_stop_gradient_default_and_settable():
    x = paddle.to_tensor([1.0])
    assert x.stop_gradient is True
    x.stop_gradient = False
    assert x.stop_gradient is False
    assert paddle.to_tensor([1.0], stop_gradient=False).stop_gradient is False
    assert x.grad is None


# ------------------------------------------------------------------------------------------
# astype and 16-bit rounding
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('value,expected', [
    (1 + 2 ** -9, 1.0),                 # a quarter ulp: rounds down
    (1 + 2 ** -8, 1.0),                 # a tie: to even (1.0)
    (1 + 3 * 2 ** -8, 1 + 2 ** -6),     # a tie: to even (1 + 2 ulp)
    (1 + 3 * 2 ** -9, 1 + 2 ** -7),     # three quarters of an ulp: rounds up
    (-(1 + 2 ** -9), -1.0),
    (256 + 1, 256.0),                   # bf16 has 8 significant bits
    (3.0, 3.0),
])
def test_bfloat16_rounding(value, expected):
    x = paddle.to_tensor([value], dtype='float32')
    y = x.astype('bfloat16')
    assert y.dtype == paddle.bfloat16
    got = y.numpy()
    assert got.dtype == np.float32 and got[0] == expected
    # and straight from data
    assert paddle.to_tensor([value], dtype='bfloat16').numpy()[0] == expected


@pytest.mark.parametrize('value,expected', [
    (1 + 2 ** -12, 1.0),
    (1 + 2 ** -11, 1.0),                # tie to even
    (1 + 3 * 2 ** -11, 1 + 2 ** -9),    # tie to even (up)
    (2049.0, 2048.0),                   # float16 has 11 significant bits
    (65504.0, 65504.0),                 # the largest float16
    (65520.0, np.inf),                  # rounds past the largest: overflow
    (-70000.0, -np.inf),
    (2 ** -24, 2 ** -24),               # the smallest subnormal
])
def test_float16_rounding(value, expected):
    got = paddle.to_tensor([value], dtype='float32').astype('float16').numpy()
    assert got.dtype == np.float16 and float(got[0]) == expected


def test_bfloat16_matches_round_to_nearest_even_on_random_data():
    rng = np.random.default_rng(0)
    a = np.concatenate([rng.standard_normal(5000) * 10 ** rng.uniform(-30, 30, 5000),
                        [0.0, -0.0, np.inf, -np.inf, 1e-40, -3e-39]]).astype(np.float32)
    got = paddle.to_tensor(a).astype('bfloat16').numpy()
    assert np.array_equal(got, round_to_bfloat16(a))
    assert np.isnan(paddle.to_tensor([np.nan], dtype='float32').astype('bfloat16').numpy()[0])


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('src,dst', [('float32', 'float64'), ('float32', 'bfloat16'),
                                     ('float32', 'float16'), ('float64', 'float32'),
                                     ('int32', 'int64'), ('int64', 'float64'),
                                     ('bfloat16', 'float32'), ('float16', 'float64')])
def test_astype_round_trip(src, dst, place):
    """Values representable in both types survive src -> dst -> src exactly."""
    if 'int' in src or 'int' in dst:
        values = [[-4.0, -1.0, 0.0], [2.0, 3.0, 96.0]]
    else:
        values = [[-4.0, -0.5, 0.0], [0.25, 3.0, 96.0]]
    x = paddle.to_tensor(values, dtype=src, place=place)
    y = x.astype(dst)
    assert y.dtype == getattr(paddle, dst) and y.shape == [2, 3]
    back = y.astype(getattr(paddle, src))
    assert back.dtype == x.dtype
    assert np.array_equal(back.numpy(), x.numpy())
    assert np.array_equal(y.numpy().astype(np.float64), np.array(values))


def _nearest_bfloat16_bits(v):
    """The bits of the bfloat16 nearest to the float64 or int `v` (ties to even), exactly: the
    candidates around v's float32 rounding compared by Fraction distance; past the largest
    bfloat16 by half an ulp or more, infinity."""
    from fractions import Fraction
    exact = Fraction(v)
    sign = 0x8000 if (v < 0 or (v == 0 and np.signbit(float(v)))) else 0
    largest = Fraction(float(np.array(0x7f7f0000, np.uint32).view(np.float32)))
    if abs(exact) >= largest + Fraction(2) ** 119:
        return 0x7f80 | sign
    with np.errstate(over='ignore'):
        top = int(np.array(np.float32(float(v))).view(np.uint32)) >> 16
    best = None
    for bits in (top - 1, top, top + 1):
        f = np.array((bits & 0xffff) << 16, np.uint32).view(np.float32)
        if 0 <= bits <= 0xffff and np.isfinite(f):
            key = (abs(Fraction(float(f)) - exact), bits & 1)
            best = min(best, (key, bits)) if best else (key, bits)
    return best[1] | (sign if exact == 0 else 0)


def test_to_tensor_float64_to_bfloat16_rounds_once():
    """float64 values (arrays, lists, Python floats) and large integers into bfloat16 round once to the
    nearest (issue 32 item 7: through float32 first, 1 + 2**-8 + 2**-30 became 1.0, not 1.0078125);
    a static feed converts the same way."""
    assert paddle.to_tensor(np.array([1 + 2 ** -8 + 2 ** -30]), dtype='bfloat16').astype('float32').numpy().tolist() == [
        1.0078125]
    assert paddle.to_tensor(1 + 2 ** -8 + 2 ** -30, dtype='bfloat16').item() == 1.0078125
    assert paddle.to_tensor([-(1 + 2 ** -8 + 2 ** -30)], dtype='bfloat16').astype('float32').numpy().tolist() == [
        -1.0078125]
    rng = np.random.default_rng(7)
    ties = (1 + (2 * rng.integers(0, 128, 3000) + 1) * 2.0 ** -9) * (1 + rng.choice([-1, 1], 3000) * 2.0 ** -40)
    edges = [0.0, -0.0, 1e-50, -1e-50, 5e-324, 3.3961e38, 3.3962e38, 3.39e38, 1e39, -1e39, 2.0 ** -133, 1.5 * 2.0 ** -133]
    values = np.concatenate([rng.standard_normal(3000) * 10.0 ** rng.integers(-45, 39, 3000), ties, edges])
    bits = paddle.to_tensor(values, dtype='bfloat16').astype('float32').numpy().view(np.uint32) >> 16
    expected = np.array([_nearest_bfloat16_bits(v) for v in values.tolist()])
    bad = bits != expected
    assert not bad.any(), (values[bad][:5], bits[bad][:5], expected[bad][:5])
    ints = np.array([2 ** 24 + 2 ** 16 + 1, -(2 ** 24 + 2 ** 16 + 1), 2 ** 53 + 1, 2 ** 63 - 1, -2 ** 63, 2 ** 62 + 2 ** 54 + 1])
    bits = paddle.to_tensor(ints, dtype='bfloat16').astype('float32').numpy().view(np.uint32) >> 16
    assert bits.tolist() == [_nearest_bfloat16_bits(int(i)) for i in ints]
    with np.errstate(invalid='ignore'):
        special = paddle.to_tensor(np.array([np.inf, -np.inf, np.nan]), dtype='bfloat16').astype('float32').numpy()
    assert special[0] == np.inf and special[1] == -np.inf and np.isnan(special[2])
    # The static feed of a float64 array into a bfloat16 variable.
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            y = paddle.static.data('x', [2], 'bfloat16') * 1
        (out,) = paddle.static.Executor('cpu').run(main, feed={'x': np.array([1 + 2 ** -8 + 2 ** -30, 1.0])},
                                                   fetch_list=[y], return_numpy=False)
    finally:
        paddle.disable_static()
    assert out.astype('float32').numpy().tolist() == [1.0078125, 1.0]


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['float16', 'bfloat16', 'float32', 'float64', 'int32', 'int64'])
def test_negation(dtype, place):
    x = paddle.to_tensor([1, 0, -3], dtype=dtype, place=place)
    y = -x
    assert y.dtype == x.dtype and y.astype('float64').numpy().tolist() == [-1, 0, 3]


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['bool', 'uint8', 'int8', 'int16'])
def test_negation_of_other_dtypes_is_a_type_error(dtype, place):
    """Named errors (issue 32 item 7): -uint8 said 'value -1 out of range' (from to_tensor), -bool
    'no kernel for multiply'."""
    x = paddle.to_tensor(np.array([1, 0, 1]).astype(dtype), place=place)
    with pytest.raises(TypeError, match=r'unary -: a Tensor of dtype paddle.%s cannot be negated' % dtype):
        -x


def test_astype_float_to_int_truncates_and_to_bool():
    x = paddle.to_tensor([1.7, -1.7, 0.0, 2.0])
    assert x.astype('int32').numpy().tolist() == [1, -1, 0, 2]
    assert x.astype(paddle.int64).dtype == paddle.int64
    assert x.astype('bool').numpy().tolist() == [True, True, False, True]


# ------------------------------------------------------------------------------------------
# Places and devices
# ------------------------------------------------------------------------------------------

def test_is_compiled_with_cuda_returns_bool():
    assert isinstance(paddle.is_compiled_with_cuda(), bool)


def test_set_and_get_device_cpu():
    previous = paddle.get_device()
    try:
        paddle.set_device('cpu')
        assert paddle.get_device() == 'cpu'
        x = paddle.to_tensor([1.0, 2.0])
        assert 'cpu' in str(x.place).lower()
        assert (x * 2).numpy().tolist() == [2.0, 4.0]
    finally:
        paddle.set_device(previous)
    assert paddle.get_device() == previous


def test_place_objects_and_cpu_place():
    paddle.CPUPlace()
    x = paddle.to_tensor([1.0], place='cpu')
    assert 'cpu' in str(x.place).lower()
    assert x.numpy().tolist() == [1.0]


def test_gpu_place():
    if not gpu_available():
        pytest.skip('no GPU: paddle_ops is not compiled with CUDA or no device is present')
    paddle.CUDAPlace(0)
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], place='gpu')
    assert 'gpu' in str(x.place).lower() or 'cuda' in str(x.place).lower()
    assert x.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert ((x + 1) * x).sum().numpy().item() == 2 + 6 + 12 + 20


# ------------------------------------------------------------------------------------------
# Arithmetic, reductions, reshape, detach
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_elementwise_same_shape(dtype, place):
    a = np.array([[1.0, -2.0, 3.5], [0.0, 4.0, -0.25]])
    b = np.array([[0.5, 2.0, -1.0], [3.0, 0.125, 8.0]])
    x = paddle.to_tensor(a, dtype=dtype, place=place)
    y = paddle.to_tensor(b, dtype=dtype, place=place)
    for got, expected in [(x + y, a + b), (x - y, a - b), (x * y, a * b)]:
        assert got.dtype == getattr(paddle, dtype) and got.shape == [2, 3]
        assert np.array_equal(got.numpy(), expected)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('shape_a,shape_b,shape_out', [
    ((2, 3), (3,), [2, 3]), ((2, 1), (1, 3), [2, 3]), ((4, 1, 5), (3, 1), [4, 3, 5]),
    ((2, 3), (), [2, 3]), ((), (2,), [2]),
])
def test_elementwise_broadcasting(shape_a, shape_b, shape_out, place):
    rng = np.random.default_rng(1)
    a = rng.integers(-9, 9, shape_a).astype(np.float64)
    b = rng.integers(-9, 9, shape_b).astype(np.float64)
    x = paddle.to_tensor(a, place=place)
    y = paddle.to_tensor(b, place=place)
    for got, expected in [(x + y, a + b), (x - y, a - b), (x * y, a * b), (y - x, b - a)]:
        assert got.shape == shape_out
        assert np.array_equal(got.numpy(), expected)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'bfloat16', 'float16'])
def test_arithmetic_with_python_scalars_keeps_dtype(dtype, place):
    x = paddle.to_tensor([1.0, 2.0, -3.0], dtype=dtype, place=place)
    cases = [(x + 1.5, [2.5, 3.5, -1.5]), (x - 2, [-1.0, 0.0, -5.0]), (x * 3, [3.0, 6.0, -9.0]),
             (x * 0.5, [0.5, 1.0, -1.5])]
    for got, expected in cases:
        assert got.dtype == getattr(paddle, dtype)
        assert got.numpy().astype(np.float64).tolist() == expected


def test_reflected_arithmetic_with_python_scalars():
    x = paddle.to_tensor([1.0, 2.0, -3.0])
    assert (2 * x).numpy().tolist() == [2.0, 4.0, -6.0]
    assert (1 + x).numpy().tolist() == [2.0, 3.0, -2.0]
    assert (1 - x).numpy().tolist() == [0.0, -1.0, 4.0]
    assert (2 * x).dtype == paddle.float32


def test_integer_arithmetic_is_exact():
    a = np.array([2 ** 40 + 1, -7, 3], dtype=np.int64)
    x = paddle.to_tensor(a)
    assert (x + x).numpy().tolist() == (a + a).tolist()
    assert (x * 3).numpy().tolist() == (a * 3).tolist()
    assert (x - 1).dtype == paddle.int64


@pytest.mark.parametrize('place', PLACES)
def test_sum_and_mean(place):
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4) - 5
    x = paddle.to_tensor(a, place=place)
    total = x.sum()
    assert total.shape == [] and total.numpy().item() == a.sum()
    assert x.mean().shape == [] and x.mean().numpy().item() == pytest.approx(a.mean(), 1e-15)
    for axis in (0, 1, 2, -1):
        for keepdim in (False, True):
            s = x.sum(axis=axis, keepdim=keepdim)
            m = x.mean(axis=axis, keepdim=keepdim)
            assert s.shape == list(a.sum(axis=axis, keepdims=keepdim).shape)
            assert np.array_equal(s.numpy(), a.sum(axis=axis, keepdims=keepdim))
            np.testing.assert_allclose(m.numpy(), a.mean(axis=axis, keepdims=keepdim),
                                       rtol=1e-15)
    assert x.sum(keepdim=True).shape == [1, 1, 1]
    assert paddle.to_tensor([1.5, 2.5]).sum().dtype == paddle.float32


def test_sum_of_zero_size_is_zero():
    x = paddle.to_tensor(np.zeros((0, 3)))
    assert x.sum().numpy().item() == 0.0
    assert x.sum(axis=0).numpy().tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize('place', PLACES)
def test_reshape(place):
    a = np.arange(12.0).reshape(3, 4)
    x = paddle.to_tensor(a, place=place)
    for shape in ([4, 3], [12], [2, 3, 2], [2, -1], [-1]):
        y = x.reshape(shape)
        assert y.shape == list(a.reshape(shape).shape)
        assert np.array_equal(y.numpy(), a.reshape(shape))
    assert paddle.to_tensor(3.0).reshape([1]).shape == [1]
    assert paddle.to_tensor([3.0]).reshape([]).shape == []
    with pytest.raises(ValueError):
        x.reshape([5, 3])


def test_detach_shares_values_and_stops_gradient():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    d = (x * 2).detach()
    assert d.stop_gradient is True
    assert d.numpy().tolist() == [2.0, 4.0]
    assert x.detach().numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize('dtype', FLOAT_DTYPES)
def test_ndim_size_shape_are_python_ints(dtype):
    x = paddle.to_tensor(np.zeros((2, 3, 4)), dtype=dtype)
    assert x.ndim == 3 and isinstance(x.ndim, int)
    assert x.size == 24 and isinstance(x.size, int)
    assert x.shape == [2, 3, 4] and all(isinstance(d, int) for d in x.shape)


# ------------------------------------------------------------------------------------------
# Truth value (issue 32 item 2)
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ALL_DTYPES)
def test_truth_value_of_one_element(dtype, place):
    """bool() of a one-element tensor, of any shape, is the truth of its value, as NumPy's:
    [0.0] was True before (the default truth of an object)."""
    for shape in ([], [1], [1, 1, 1]):
        for value in (0, 1):
            t = paddle.to_tensor(np.full(shape, value), dtype=dtype, place=place)
            assert bool(t) is bool(value), (shape, value)
            assert (True if t else False) is bool(value)
    if dtype in FLOAT_DTYPES:
        assert bool(paddle.to_tensor([float('nan')], dtype=dtype, place=place)) is True
        assert bool(paddle.to_tensor([-0.0], dtype=dtype, place=place)) is False


@pytest.mark.parametrize('place', PLACES)
def test_truth_value_of_a_reduction(place):
    """`if paddle.sum(x):` (a 0-D result) raised `len() of a 0-D tensor` before."""
    x = paddle.to_tensor([1.0, -1.0], place=place)
    assert not paddle.sum(x)
    assert paddle.sum(x * x)
    assert paddle.mean(x * x)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('shape', [[2], [0], [2, 3], [1, 0]])
def test_truth_value_of_other_sizes_is_ambiguous(shape, place):
    """Any other size is a ValueError naming the ambiguity and the size (a multi-element tensor was
    True before, and an empty one False through len())."""
    t = paddle.to_tensor(np.zeros(shape, np.float32), place=place)
    n = int(np.prod(shape))
    with pytest.raises(ValueError, match=r'truth value of a Tensor with %d elements .* ambiguous' % n):
        bool(t)
    with pytest.raises(ValueError, match='ambiguous'):
        if t:
            pass
