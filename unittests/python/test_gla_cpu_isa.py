"""gla's chunked CPU form on every instruction set (kernels/gla/chunk_cpu.cc, one Highway source
for every target, chosen at run time; the flag PADDLE_OPS_CPU_ISA caps the choice): values and every gradient
against the float64 recurrent reference of test_gla_op.py within docs/spec.md §5's bounds, on
shapes with several chunks, partial chunks and secondary chunks, both layouts; and each ISA's
result against the fallback target's on the same inputs. A set this CPU lacks is skipped,
saying so (the flag would run a narrower path and the test would prove nothing)."""
import numpy as np
import pytest

import test_gla_op as G
from test_cast_convert import require

ISAS = ['baseline', 'avx2', 'avx512']
SHAPES = [(1, 2, 100, 128, 40), (2, 1, 67, 33, 130), (1, 1, 64, 128, 128)]


@pytest.fixture(autouse=True)
def chunked(set_flag):
    set_flag('PADDLE_OPS_GLA_CPU', 'chunked')


@pytest.fixture
def set_flag():
    saved = G.paddle.get_flags()
    yield lambda name, value: G.paddle.set_flags({name: value})
    G.paddle.set_flags(saved)


def use_isa(isa, set_flag):
    if isa != 'baseline':
        require(isa)
    set_flag('PADDLE_OPS_CPU_ISA', isa)


@pytest.mark.parametrize('isa', ISAS)
@pytest.mark.parametrize('dtype', ['float32', 'bfloat16', 'float16'])
@pytest.mark.parametrize('shape', SHAPES, ids=lambda s: 'B%dH%dT%dDk%dDv%d' % s)
@pytest.mark.parametrize('head_first', [True, False])
def test_chunked_against_reference(shape, head_first, dtype, isa, set_flag):
    use_isa(isa, set_flag)
    B, H, T, Dk, Dv = shape
    q, k, v, g, h0 = G.make_inputs(B, H, T, Dk, Dv, head_first, seed=T * 3 + Dk)
    G.check_values_and_grads(q, k, v, g, h0, dtype, 'cpu', head_first)


@pytest.mark.parametrize('isa', ['avx2', 'avx512'])
def test_isa_matches_baseline(isa, set_flag):
    """The same inputs through the fallback target (baseline) and through `isa`: every output within the
    float32 bound of each other (the products round in another order, so not bitwise), and
    not bitwise equal (the switch really changes the code that runs)."""
    q, k, v, g, h0 = G.make_inputs(2, 2, 150, 128, 64, head_first=False, seed=3)
    set_flag('PADDLE_OPS_CPU_ISA', 'baseline')
    base = G.grads_both(q, k, v, g, h0, 'float32', head_first=False)
    use_isa(isa, set_flag)
    other = G.grads_both(q, k, v, g, h0, 'float32', head_first=False)
    for name, a, b in zip(G.GRAD_NAMES, other, base):
        assert np.isfinite(a).all(), name
        err = G.rel_rms(a, b)
        assert err <= 2 * G.REL_RMS['float32'], f'{name}: {isa} vs baseline relative RMS {err:.3g}'
    assert not all(np.array_equal(a, b) for a, b in zip(other, base))


@pytest.mark.parametrize('isa', ISAS)
def test_isa_thread_count_independent(isa, set_flag):
    use_isa(isa, set_flag)
    q, k, v, g, h0 = G.make_inputs(2, 3, 96, 128, 32, seed=9)
    one = G.grads_both(q, k, v, g, h0, 'float32', threads=1)
    two = G.grads_both(q, k, v, g, h0, 'float32', threads=2)
    for name, a, b in zip(G.GRAD_NAMES, one, two):
        np.testing.assert_array_equal(a, b, err_msg=name)
