"""cast to and from float16 / bfloat16 on the CPU through the run-time dispatched vector
conversions (kernels/funcs/simd/convert.h): the same bits under every instruction set the flag
PADDLE_OPS_CPU_ISA allows (the baseline path is the scalar conversion of
paddle_ops/common/{float16,bfloat16}.h), round to nearest even as NumPy's float16, and the pairs
that go through float32 (integers, float64, float16 <-> bfloat16) as the element rule says.
unittests/cpp/test_convert.cc checks each path on all 2^16 inputs."""
import numpy as np
import pytest

import paddle_ops as paddle
from paddle_ops import _cpu_info
from paddle_ops._cpu_info import missing_for


def require(isa):
    # The library's own CPUID check decides (an emulator's /proc/cpuinfo can claim more).
    if isa not in _cpu_info.supported_isas():
        missing = missing_for(isa)
        why = f'this CPU lacks {missing}' if missing else \
            f"the library's CPUID check gives {_cpu_info.library_isa()[0]} (/proc/cpuinfo claims more)"
        pytest.skip(f'{why}: the {isa} path cannot run here')


def test_cpuinfo_reader(tmp_path):
    """paddle_ops._cpu_info, the one reader of /proc/cpuinfo (python -m paddle_ops, these tests,
    tools/bench/): the first processor's fields, its `flags` line and not `vmx flags`."""
    info = tmp_path / 'cpuinfo'
    info.write_text('processor\t: 0\nmodel name\t: Some CPU @ 2.0GHz\nflags\t\t: fpu avx2 fma f16c\n'
                    'vmx flags\t: ept avx512f\n\nprocessor\t: 1\nmodel name\t: Other\nflags\t\t: fpu\n')
    fields = _cpu_info.read_cpuinfo(str(info))
    assert fields['model name'] == 'Some CPU @ 2.0GHz'
    assert fields['flags'].split() == ['fpu', 'avx2', 'fma', 'f16c']
    assert _cpu_info.read_cpuinfo(str(tmp_path / 'missing')) == {}
    flags = _cpu_info.cpu_flags()
    isas = _cpu_info.supported_isas()
    assert isas[0] == 'baseline' and isas == list(_cpu_info.ISA_ORDER[:len(isas)])
    for isa in ('avx2', 'avx512'):
        # What the library runs needs the features (CPUID and /proc/cpuinfo agree off emulators).
        assert isa not in isas or _cpu_info.ISA_NEEDS[isa] <= flags
    assert _cpu_info.shown_flags() == [f for f in _cpu_info.SHOWN_FLAGS if f in flags]
    assert isinstance(_cpu_info.cpu_model(), str) and _cpu_info.cpu_model()


@pytest.fixture
def set_isa():
    saved = paddle.get_flags()
    yield lambda isa: paddle.set_flags({'PADDLE_OPS_CPU_ISA': isa})
    paddle.set_flags(saved)


def edge_float32(rng, n_random=300_001):
    """Ties and neighbours of both 16-bit formats, NaN payloads, infinities, subnormals, the fp16
    overflow tie, then random bit patterns (an odd count, so that the vector loops end in tails)."""
    h = np.arange(1 << 16, dtype=np.uint32)
    f16 = h.astype(np.uint16).view(np.float16).astype(np.float32).view(np.uint32)
    parts = [f16 + d for d in (0, 1, 0xfff, 0x1000, 0x1001)] + [(h << 16) + d for d in (0, 0x7fff, 0x8000, 0x8001)]
    special = [0x7f800001, 0x7fc00001, 0xffbfffff, 0x7f800000, 0xff800000, 0x477ff000, 0x477fefff,
               0x00000001, 0x807fffff, 0x00012345, 0x33000000, 0x33000001]
    parts.append(np.array(special, dtype=np.uint32))
    parts.append(rng.integers(0, 1 << 32, n_random, dtype=np.uint64).astype(np.uint32))
    return np.concatenate(parts).view(np.float32)


def bits(t):
    """The bit patterns: numpy() of a bfloat16 tensor already is (uint16, Paddle's convention)."""
    a = t.numpy()
    return a.view(np.uint16) if a.dtype in (np.float16, np.uint16) else a.view(np.uint32)


@pytest.mark.parametrize('isa', ['avx2', 'avx512'])
@pytest.mark.parametrize('dst', ['float16', 'bfloat16'])
def test_cast_down_same_bits_on_every_isa(isa, dst, set_isa):
    require(isa)
    x = paddle.to_tensor(edge_float32(np.random.default_rng(4)))
    set_isa('baseline')
    want = bits(x.cast(dst))
    set_isa(isa)
    got = bits(x.cast(dst))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize('isa', ['avx2', 'avx512'])
@pytest.mark.parametrize('src', ['float16', 'bfloat16'])
def test_cast_up_same_bits_on_every_isa(isa, src, set_isa):
    require(isa)
    all16 = np.arange(1 << 16, dtype=np.uint16)
    if src == 'float16':
        x = paddle.to_tensor(all16.view(np.float16))
    else:
        x = paddle.to_tensor(all16)  # a uint16 array is read as bfloat16 bits
    assert x.dtype == getattr(paddle, src)
    for dst in ('float32', 'float64', 'int32'):
        set_isa('baseline')
        want = x.cast(dst).numpy()
        set_isa(isa)
        got = x.cast(dst).numpy()
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8), err_msg=dst)


@pytest.mark.parametrize('isa', ['auto', 'baseline'])
def test_cast_float16_matches_numpy(isa, set_isa):
    set_isa(isa)
    x = edge_float32(np.random.default_rng(5))
    x = x[~np.isnan(x)]  # NumPy keeps NaN payloads; ours makes every NaN 0x7e00 (with its sign)
    with np.errstate(over='ignore'):
        want = x.astype(np.float16)
    np.testing.assert_array_equal(bits(paddle.to_tensor(x).cast('float16')), want.view(np.uint16))
    # And back up: exact.
    np.testing.assert_array_equal(paddle.to_tensor(want).cast('float32').numpy(), want.astype(np.float32))


def test_cast_through_float32_pairs(set_isa):
    """float64, integers and float16 <-> bfloat16 go through float32 in blocks: the result is
    the two-step rule (to float32, then to the 16-bit type), also across block ends."""
    set_isa('auto')
    rng = np.random.default_rng(6)
    d = rng.standard_normal(5000) * 1e3
    want = d.astype(np.float32).astype(np.float16)
    np.testing.assert_array_equal(bits(paddle.to_tensor(d).cast('float16')), want.view(np.uint16))
    i = rng.integers(-70000, 70000, 3001).astype(np.int64)
    with np.errstate(over='ignore'):
        np.testing.assert_array_equal(bits(paddle.to_tensor(i).cast('float16')),
                                      i.astype(np.float32).astype(np.float16).view(np.uint16))
    h = paddle.to_tensor(rng.standard_normal(2049).astype(np.float16))
    hb = h.cast('bfloat16')
    set_isa('baseline')
    np.testing.assert_array_equal(bits(h.cast('bfloat16')), bits(hb))
    np.testing.assert_array_equal(hb.cast('float16').numpy().view(np.uint16),
                                  paddle.to_tensor(hb.astype('float32').numpy()).cast('float16').numpy().view(np.uint16))


def test_library_isa_follows_the_flag():
    """_C.cpu_isa: the widest set the build and the CPU's CPUID allow, and the one in use, which
    PADDLE_OPS_CPU_ISA caps (never above the supported one)."""
    supported, in_use = _cpu_info.library_isa()
    order = _cpu_info.ISA_ORDER
    assert supported in order and in_use == supported  # the flag's default is auto
    saved = paddle.get_flags()
    try:
        for cap in order:
            paddle.set_flags({'PADDLE_OPS_CPU_ISA': cap})
            want = order[min(order.index(cap), order.index(supported))]
            assert _cpu_info.library_isa() == (supported, want), cap
    finally:
        paddle.set_flags(saved)
