"""No value wraps on its way into an integer tensor (issue 17 item 8): to_tensor of Python
scalars, nested lists and NumPy arrays, full / full_like, and the Python number of an arithmetic
operand refuse what the target cannot hold, as NumPy 2 does: OverflowError for a value out of
range, ValueError for NaN or inf; in-range floats truncate toward zero. Floating targets keep
NumPy's rules (a large int becomes the nearest float)."""
import numpy as np
import pytest

import paddle_ops as paddle
from op_test import available_places

PLACES = available_places()
INT_TARGETS = ['uint8', 'int8', 'int16', 'int32', 'int64']


def _limits(dtype):
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


@pytest.mark.parametrize('place', PLACES)
def test_python_ints_beyond_int64_are_refused_by_default(place):
    for data in (2 ** 63, -2 ** 63 - 1, 2 ** 64, 2 ** 100, [1, 2 ** 63], [[0], [-2 ** 70]], (2 ** 64, 1)):
        with pytest.raises(OverflowError, match='int64'):
            paddle.to_tensor(data, place=place)
    # The edges themselves fit.
    t = paddle.to_tensor([2 ** 63 - 1, -2 ** 63], place=place)
    assert t.dtype == paddle.int64 and t.numpy().tolist() == [2 ** 63 - 1, -2 ** 63]


def _as_numpy(v):
    """A 1-element NumPy integer array holding v, or None if no NumPy integer type holds it."""
    for t in (np.int64, np.uint64):
        if np.iinfo(t).min <= v <= np.iinfo(t).max:
            return np.array([v], dtype=t)
    return None


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', INT_TARGETS)
@pytest.mark.parametrize('form', ['scalar', 'list', 'nested', 'numpy'])
def test_each_integer_target_takes_its_range_and_refuses_one_past_it(place, dtype, form):
    make = {'scalar': lambda v: v, 'list': lambda v: [v], 'nested': lambda v: [[0], [v]], 'numpy': _as_numpy}[form]
    lo, hi = _limits(dtype)
    for ok in (lo, hi):
        assert int(paddle.to_tensor(make(ok), dtype=dtype, place=place).numpy().reshape(-1)[-1]) == ok
    for bad in (hi + 1, lo - 1):
        if make(bad) is None:
            continue
        with pytest.raises(OverflowError, match=dtype) as info:
            paddle.to_tensor(make(bad), dtype=dtype, place=place)
        assert str(bad) in str(info.value)


@pytest.mark.parametrize('place', PLACES)
def test_the_issue_examples(place):
    with pytest.raises(OverflowError, match='int64'):
        paddle.to_tensor(2 ** 63, place=place)             # was INT64_MIN
    with pytest.raises(OverflowError, match='uint8'):
        paddle.to_tensor([300], dtype='uint8', place=place)  # was 44
    with pytest.raises(ValueError, match='nan'):
        paddle.to_tensor(float('nan'), dtype='int32', place=place)  # was INT_MIN


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', INT_TARGETS)
@pytest.mark.parametrize('src', ['python', 'float16', 'float32', 'float64'])
def test_nan_and_inf_into_an_integer_type_are_value_errors(place, dtype, src):
    for v in (np.nan, np.inf, -np.inf):
        data = [1.0, v] if src == 'python' else np.array([1.0, v], dtype=src)
        with pytest.raises(ValueError, match=dtype):
            paddle.to_tensor(data, dtype=dtype, place=place)


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('src', ['python', 'float32', 'float64'])
def test_floats_truncate_in_range_and_overflow_outside(place, src):
    conv = (lambda v: v) if src == 'python' else (lambda v: np.asarray(v, dtype=src))
    t = paddle.to_tensor(conv([1.9, -1.9, 127.99, -128.99]), dtype='int8', place=place)
    assert t.numpy().tolist() == [1, -1, 127, -128]
    for bad in (128.0, -129.0, 1e10, -3e38):
        with pytest.raises(OverflowError, match='int8'):
            paddle.to_tensor(conv([0.0, bad]), dtype='int8', place=place)
    with pytest.raises(OverflowError, match='int64'):
        paddle.to_tensor(conv([2.0 ** 63]), dtype='int64', place=place)
    assert paddle.to_tensor(conv([-2.0 ** 63]), dtype='int64', place=place).numpy().tolist() == [-2 ** 63]


@pytest.mark.parametrize('place', PLACES)
def test_numpy_integer_arrays_into_a_narrower_type(place):
    a = np.array([0, 255, 256], dtype=np.int64)
    with pytest.raises(OverflowError, match='256'):
        paddle.to_tensor(a, dtype='uint8', place=place)
    with pytest.raises(OverflowError, match='-1'):
        paddle.to_tensor(np.array([-1, 3], np.int32), dtype='uint8', place=place)
    with pytest.raises(OverflowError, match=str(2 ** 63)):
        paddle.to_tensor(np.array([2 ** 63], np.uint64), dtype='int64', place=place)
    assert paddle.to_tensor(a[:2], dtype='uint8', place=place).numpy().tolist() == [0, 255]
    # A NumPy integer scalar as data.
    with pytest.raises(OverflowError, match='int16'):
        paddle.to_tensor(np.int64(40000), dtype='int16', place=place)


@pytest.mark.parametrize('place', PLACES)
def test_floating_targets_take_large_ints(place):
    t = paddle.to_tensor([2 ** 70, -2 ** 64], dtype='float32', place=place)
    np.testing.assert_array_equal(t.numpy(), np.array([2.0 ** 70, -2.0 ** 64], np.float32))
    assert paddle.to_tensor(2 ** 63, dtype='float64', place=place).numpy() == 2.0 ** 63


@pytest.mark.parametrize('place', PLACES)
def test_bool_target_takes_any_number(place):
    assert paddle.to_tensor([0, 2 ** 40, -1.5], dtype='bool', place=place).numpy().tolist() == [False, True, True]
    assert paddle.to_tensor([0, 2 ** 70], dtype='bool', place=place).numpy().tolist() == [False, True]


@pytest.mark.parametrize('place', PLACES)
def test_full_and_full_like_refuse_what_would_wrap(place):
    x = paddle.to_tensor([1, 2], dtype='int32', place=place)
    for op in (lambda v, dt=None: paddle.full_like(x, v, dt), lambda v, dt='int32': paddle.full([2], v, dt, place)):
        with pytest.raises(OverflowError, match='int32'):
            op(2 ** 31)
        with pytest.raises(OverflowError, match='int32'):
            op(-3e9)
        with pytest.raises(ValueError, match='int32'):
            op(float('nan'))
        assert op(2 ** 31 - 1).numpy().tolist() == [2 ** 31 - 1] * 2
        assert op(-7.9).numpy().tolist() == [-7, -7]
    with pytest.raises(OverflowError, match='uint8'):
        paddle.full_like(x, 256, 'uint8')
    with pytest.raises(OverflowError, match='int64'):
        paddle.full([1], 2 ** 63, place=place)


@pytest.mark.parametrize('place', PLACES)
def test_full_default_dtype_follows_the_value(place):
    assert paddle.full([2], True, place=place).dtype == paddle.bool
    assert paddle.full([2], 3, place=place).dtype == paddle.int64
    assert paddle.full([2], 3.5, place=place).dtype == paddle.float32
    t = paddle.full(3, 1.5, 'float64', place=place)
    assert t.shape == [3] and t.numpy().tolist() == [1.5] * 3


@pytest.mark.parametrize('place', PLACES)
@pytest.mark.parametrize('dtype', ['int32', 'int64'])
def test_a_python_number_operand_does_not_wrap(place, dtype):
    x = paddle.to_tensor([1, 2], dtype=dtype, place=place)
    lo, hi = _limits(dtype)
    for bad in (hi + 1, lo - 1):
        for call in (lambda: x + bad, lambda: bad - x, lambda: x * bad, lambda: paddle.add(x, bad)):
            with pytest.raises(OverflowError, match=dtype):
                call()
    assert (x + (hi - 2)).numpy().tolist() == [hi - 1, hi]
    # A float operand makes the result float32 (spec §12), NaN included: no integer conversion.
    assert np.isnan((x * float('nan')).numpy()).all()


def _expected(v, dtype):
    """What converting v into `dtype` must give: the value, or the exception type."""
    lo, hi = _limits(dtype)
    if isinstance(v, float):
        if v != v or v in (float('inf'), float('-inf')):
            return ValueError
        v = int(v)  # truncates toward zero
    return v if lo <= v <= hi else OverflowError


def test_random_values_into_every_integer_type():
    """A seeded random sweep (the fuzzer's job for this Python-level conversion): ints around
    every type's edges and beyond 64 bits, floats of every magnitude, NaN and inf, as scalars,
    lists and NumPy arrays."""
    rng = np.random.default_rng(17)
    edges = [b + d for dt in INT_TARGETS for b in _limits(dt) for d in (-1, 0, 1)] + [2 ** 64, -2 ** 64 - 1]
    ints = edges + [int(v) for v in rng.integers(-2 ** 62, 2 ** 62, 50)] + [int(x) << int(s) for x, s in
                                                                          zip(rng.integers(-9, 9, 30),
                                                                              rng.integers(0, 70, 30))]
    floats = [float(s * 10.0 ** e) for s, e in zip(rng.uniform(-10, 10, 60), rng.integers(-3, 25, 60))]
    floats += [float('nan'), float('inf'), -float('inf'), 2.0 ** 63, -2.0 ** 63, 2.0 ** 31 - 0.5, -2.0 ** 31 - 0.5]
    for dtype in INT_TARGETS:
        for v in ints + floats:
            want = _expected(v, dtype)
            forms = [v, [v]]
            if isinstance(v, float):
                forms.append(np.array([v]))
            elif -2 ** 63 <= v < 2 ** 63:
                forms.append(np.array([v], np.int64))
            for data in forms:
                if isinstance(want, type):
                    with pytest.raises(want, match=dtype):
                        paddle.to_tensor(data, dtype=dtype)
                else:
                    assert int(paddle.to_tensor(data, dtype=dtype).numpy().reshape(-1)[0]) == want, (v, dtype)
