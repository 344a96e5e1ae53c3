"""Element and byte counts that overflow int64 (issue 17, items 2 and 7): every shape product is
checked (the checked product of paddle_ops/common/ddim.h and the byte count of an allocation),
so a shape whose element count or byte count does not fit int64 is a ValueError naming the
shape, and an allocation of a representable size that fails is a MemoryError, never a segfault
or a tensor of the wrong size. The rule (as NumPy's): the product of a shape's nonzero dims
must fit int64 (so no stride or sub-product of a shape that passes can wrap).

Before the fix `empty([2**62]) + 1.0` (and cumsum / right_flood of [2**62, 1]) allocated 0
bytes and wrote past them (SIGSEGV), `empty([2**40, 2**40])` gave a tensor of size 0, and
repeat_interleave's counts [2**62] * 4 + [3] gave a wrong shape: the cases that killed the
process run in a child interpreter and assert on its exit code."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import paddle_ops as paddle
from op_test import available_places

BIG = 2 ** 62


def run_child(code):
    """Runs code in a fresh interpreter; returns (returncode, output)."""
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ))
    return r.returncode, r.stdout + r.stderr


def expect_value_error(fn, shape_text):
    with pytest.raises(ValueError) as info:
        fn()
    msg = str(info.value)
    assert re.search(r"2\*\*63 - 1", msg), msg
    assert shape_text in msg, msg


# ---- the cases that crashed: each in a child process ------------------------------------------

@pytest.mark.parametrize("place", available_places())
@pytest.mark.parametrize("expr,shape_text", [
    ("paddle.empty([2**62], 'float32', place=place) + 1.0", "[4611686018427387904]"),
    ("paddle.cumsum(paddle.empty([2**62, 1], 'float32', place=place), axis=0)", "[4611686018427387904, 1]"),
    ("paddle.right_flood(paddle.empty([2**62, 1], 'float32', place=place), axis=0)", "[4611686018427387904, 1]"),
    ("paddle.logcumsumexp(paddle.empty([2**62, 1], 'float32', place=place), axis=0)", "[4611686018427387904, 1]"),
])
def test_huge_shape_is_a_value_error_not_a_crash(place, expr, shape_text):
    rc, out = run_child(f"""
        import paddle_ops as paddle
        place = {place!r}
        try:
            {expr}
            print("no error")
        except ValueError as e:
            print("ValueError:", e)
    """)
    assert rc == 0, f"the child died (exit {rc}): {out}"
    assert "ValueError:" in out and shape_text in out and "2**63 - 1" in out, out


# ---- creation, reshape, broadcasting ----------------------------------------------------------

@pytest.mark.parametrize("place", available_places())
@pytest.mark.parametrize("shape,dtype,shape_text", [
    ([2 ** 40, 2 ** 40], "float32", "[1099511627776, 1099511627776]"),  # elements overflow (was size 0)
    ([2 ** 62], "float32", "[4611686018427387904]"),                    # bytes overflow
    ([2 ** 61], "float64", "[2305843009213693952]"),
    ([2 ** 62, 2], "int8", "[4611686018427387904, 2]"),
    ([0, 2 ** 40, 2 ** 40], "float32", "[0, 1099511627776, 1099511627776]"),  # nonzero dims overflow
    ([0, 2 ** 62], "float32", "[0, 4611686018427387904]"),  # no element, but NumPy's rule: bytes of nonzero dims
    ([2 ** 31, 2 ** 31, 2 ** 31], "float32", "[2147483648, 2147483648, 2147483648]"),
])
def test_empty_with_overflowing_shape(place, shape, dtype, shape_text):
    expect_value_error(lambda: paddle.empty(shape, dtype, place=place), shape_text)


@pytest.mark.parametrize("place", available_places())
def test_representable_but_impossible_allocation_is_a_memory_error(place):
    # 2**60 float32 elements: 4 EiB, representable in int64 but no machine has it
    with pytest.raises(MemoryError):
        paddle.empty([2 ** 60], "float32", place=place)
    # the library still works
    x = paddle.to_tensor(np.arange(4, dtype=np.float32), place=place)
    np.testing.assert_array_equal(paddle.cumsum(x, axis=0).numpy(), [0, 1, 3, 6])


def test_empty_with_zero_and_large_dims_is_fine():
    # the product of the nonzero dims (and its byte count) fits: a valid empty tensor, as in NumPy
    for shape in ([0, 2 ** 60], [2 ** 60, 0], [3, 0, 2 ** 59], [0, 2 ** 30, 2 ** 30]):
        t = paddle.empty(shape, "float32")
        assert list(t.shape) == shape and t.numpy().size == 0


@pytest.mark.parametrize("place", available_places())
def test_reshape_to_overflowing_shape(place):
    x = paddle.empty([4, 0], "float32", place=place)  # (a 0 in the shape copies x's dim)
    expect_value_error(lambda: paddle.reshape(x, [2 ** 40, 0, 2 ** 40]), "[1099511627776, 0, 1099511627776]")
    expect_value_error(lambda: paddle.reshape(x, [-1, 2 ** 40, 2 ** 40]), "[1, 1099511627776, 1099511627776]")
    y = paddle.to_tensor(np.ones(6, np.float32), place=place)
    with pytest.raises(ValueError):
        paddle.reshape(y, [2 ** 62, 4])


@pytest.mark.parametrize("place", available_places())
def test_broadcast_to_overflowing_shape(place):
    a = paddle.empty([2 ** 40, 1, 0], "float32", place=place)
    b = paddle.empty([1, 2 ** 40, 0], "float32", place=place)
    # [2**40, 1, 0] + [1, 2**40, 0] -> [2**40, 2**40, 0]: no element, but its nonzero dims overflow
    for op in (paddle.add, paddle.subtract, paddle.multiply):
        expect_value_error(lambda: op(a, b), "[1099511627776, 1099511627776, 0]")


# ---- repeat_interleave: counts whose sum overflows (item 7) ------------------------------------

@pytest.mark.parametrize("place", available_places())
@pytest.mark.parametrize("form", ["list", "tensor"])
@pytest.mark.parametrize("output_size", [None, 5])
def test_repeat_interleave_counts_sum_overflow(place, form, output_size):
    x = paddle.to_tensor(np.arange(5, dtype=np.float32), place=place)
    counts = [BIG] * 4 + [3]
    reps = counts if form == "list" else paddle.to_tensor(np.array(counts, np.int64), place=place)
    kwargs = {} if output_size is None else {"output_size": output_size}
    if place == "gpu" and form == "tensor" and output_size is not None:
        pytest.skip("the GPU trusts a given output_size (documented): its counts are not read on the host")
    with pytest.raises(ValueError, match=r"sum of repeats .*2\*\*63 - 1"):
        paddle.repeat_interleave(x, reps, axis=0, **kwargs)


@pytest.mark.parametrize("place", available_places())
def test_repeat_interleave_broadcast_count_overflow(place):
    # one count for each of 4 slices of zero-size rows: the sum 4 * 2**62 overflows
    x = paddle.empty([4, 0], "float32", place=place)
    reps = paddle.to_tensor(np.array([BIG], np.int64), place=place)
    with pytest.raises(ValueError, match=r"2\*\*63 - 1"):
        paddle.repeat_interleave(x, reps, axis=0)
    # an int count: the axis length times the count overflows
    y = paddle.empty([0, 2 ** 61], "float16", place=place)
    with pytest.raises(ValueError, match=r"repeated 4 times each are more than 2\*\*63 - 1"):
        paddle.repeat_interleave(y, 4, axis=1)


@pytest.mark.parametrize("place", available_places())
def test_repeat_interleave_large_sums_that_fit(place):
    x = paddle.empty([2, 0], "float32", place=place)
    reps = paddle.to_tensor(np.array([2 ** 59, 2 ** 59], np.int64), place=place)
    assert list(paddle.repeat_interleave(x, reps, axis=0).shape) == [2 ** 60, 0]
    # exactly 2**63 - 1 slices: the sum fits (no "sum of repeats" error); the float32 output's
    # byte count does not (NumPy's rule on the nonzero dims): the allocation's ValueError
    reps = paddle.to_tensor(np.array([2 ** 62, 2 ** 62 - 1], np.int64), place=place)
    with pytest.raises(ValueError) as info:
        paddle.repeat_interleave(x, reps, axis=0)
    assert "bytes" in str(info.value) and "[9223372036854775807, 0]" in str(info.value), str(info.value)
