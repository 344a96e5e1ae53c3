"""Static graph mode (paddle_ops.static): mode switching, Program building and printing,
feed/fetch, unknown (-1) dims, build-time errors, missing feeds, gradients, program_guard.
The op-by-op static-vs-dynamic agreement is test_static_vs_dynamic.py."""
import os
import subprocess
import sys

import numpy as np
import pytest

import paddle_ops as paddle
from static_check import static_graph

static = paddle.static
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


@pytest.fixture(autouse=True)
def _dynamic_afterwards():
    yield
    paddle.disable_static()


def run(main, feed, fetch, place='cpu', **kw):
    return static.Executor(place).run(main, feed=feed, fetch_list=fetch, **kw)


# ---- mode ---------------------------------------------------------------------------------------
def test_enable_disable_static():
    assert paddle.in_dynamic_mode()
    dynamic_fn = paddle._C_ops.logcumsumexp
    paddle.enable_static()
    assert not paddle.in_dynamic_mode()
    assert paddle._C_ops.logcumsumexp is not dynamic_fn
    paddle.enable_static()  # idempotent
    paddle.disable_static()
    assert paddle.in_dynamic_mode()
    assert paddle._C_ops.logcumsumexp is dynamic_fn
    out = paddle.logcumsumexp(paddle.to_tensor([1.0, 2.0]))
    assert isinstance(out, paddle.Tensor) and not isinstance(out, static.Variable)


def test_every_generated_op_has_a_static_builder():
    paddle.enable_static()
    for name in paddle._C_ops.DYNAMIC_FUNCTIONS:
        fn = getattr(paddle._C_ops, name)
        assert fn is not paddle._C_ops.DYNAMIC_FUNCTIONS[name] and fn.__name__ == name


def test_tensor_cannot_be_constructed_directly():
    with pytest.raises(TypeError):
        paddle.Tensor()
    with pytest.raises(TypeError):
        paddle.Tensor("x")


# ---- building and printing ---------------------------------------------------------------------------
def test_program_records_ops_with_yaml_attributes_and_prints():
    with static_graph() as main:
        x = static.data('x', [-1, 4], 'float32')
        y = paddle.logcumsumexp(x, axis=1, reverse=True)
        z = paddle.cumsum(y)
    block = main.global_block()
    assert [op.type for op in block.ops] == ['logcumsumexp', 'cumsum']
    op = block.ops[0]
    assert op.input_names == ['x'] and op.output_names == ['out']
    assert op.input('x') == ['x'] and op.output('out') == [y.name]
    assert list(op.attrs.items()) == [('axis', 1), ('flatten', False), ('exclusive', False), ('reverse', True)]
    assert block.ops[1].attrs == {'axis': -1, 'flatten': True, 'exclusive': False, 'reverse': False}
    assert y.shape == [-1, 4] and z.shape == [-1] and y.dtype == paddle.float32
    assert y.op is op and x.is_data and x.op is None
    text = str(main)
    assert 'x: float32[-1, 4]  (data)' in text
    assert ('logcumsumexp(x=x, axis=1, flatten=False, exclusive=False, reverse=True) -> (out=%s)' % y.name) in text
    assert 'cumsum(x=%s, axis=-1, flatten=True' % y.name in text
    assert text.startswith('Program(1 block, 2 ops)')


def test_variable_is_a_tensor_without_value():
    with static_graph():
        x = static.data('x', [2, -1], 'float64')
        assert isinstance(x, paddle.Tensor)
        assert x.shape == [2, -1] and x.ndim == 2 and x.size == -1 and x.dtype == paddle.float64
        for call in (x.numpy, x.item, x.backward, lambda: float(x), lambda: np.asarray(x)):
            with pytest.raises(RuntimeError, match="'x'"):
                call()
        assert 'name=x' in repr(x)


def test_data_arguments_are_checked():
    with static_graph():
        static.data('x', [3], 'float32')
        with pytest.raises(ValueError, match="'x' already exists"):
            static.data('x', [3], 'float32')
        with pytest.raises(ValueError, match='>= -1'):
            static.data('y', [-2], 'float32')
        with pytest.raises(TypeError, match='shape'):
            static.data('y', 3, 'float32')
        with pytest.raises(TypeError, match='dtype'):
            static.data('y', [3], 'complex64')
        assert static.data('none_dim', [None, 2]).shape == [-1, 2]


def test_python_scalars_and_eager_tensors_become_constants():
    with static_graph() as main:
        x = static.data('x', [3], 'float32')
        y = x * 2 + paddle.to_tensor([1.0, 2.0, 3.0])
    assert [op.type for op in main.global_block().ops] == ['multiply', 'add']
    assert sum(v.kind == 'constant' for v in main.list_vars()) == 2
    (out,) = run(main, {'x': np.array([1, 2, 3], 'float32')}, [y])
    np.testing.assert_array_equal(out, [3, 6, 9])


def test_wrapper_casts_are_recorded():
    with static_graph() as main:
        x = static.data('x', [4], 'int32')
        y = paddle.logcumsumexp(x)            # int -> float32 cast, as in dynamic mode
        s = paddle.sum(x)                     # int32 sums are int64
    assert [op.type for op in main.global_block().ops] == ['cast', 'logcumsumexp', 'sum']
    assert y.dtype == paddle.float32 and s.dtype == paddle.int64
    xv = np.array([1, 2, 3, 4], 'int32')
    out, total = run(main, {'x': xv}, [y, s])
    np.testing.assert_array_equal(out, paddle.logcumsumexp(paddle.to_tensor(xv)).numpy())
    assert total == 10 and total.dtype == np.int64


# ---- unknown dims -------------------------------------------------------------------------------------
def test_unknown_dims_stay_unknown_and_known_ones_are_inferred():
    with static_graph():
        x = static.data('x', [-1, 3, 4], 'float32')
        assert paddle.logcumsumexp(x, axis=2).shape == [-1, 3, 4]
        assert paddle.logcumsumexp(x).shape == [-1]                       # numel depends on -1
        assert paddle.sum(x, axis=0).shape == [3, 4]
        assert paddle.sum(x, axis=[1, 2], keepdim=True).shape == [-1, 1, 1]
        assert paddle.mean(x, axis=1).shape == [-1, 4]
        assert paddle.reshape(x, [-1, 12]).shape == [-1, 12]
        assert paddle.reshape(x, [0, 2, 6]).shape == [-1, 2, 6]
        assert paddle.reshape(x, [12, -1]).shape == [12, -1]
        y = static.data('y', [5, 1, 4], 'float32')
        assert paddle.add(x, y).shape == [5, 3, 4]                          # -1 must be 1 or 5
        z = static.data('z', [-1, 1, 4], 'float32')
        assert paddle.multiply(x, z).shape == [-1, 3, 4]
        assert paddle.cast(x, 'float16').shape == [-1, 3, 4]


def test_unknown_dims_run_with_any_size():
    with static_graph() as main:
        x = static.data('x', [-1, 3], 'float32')
        y = paddle.cumsum(x, axis=0)
        r = paddle.reshape(y, [-1])
    exe = static.Executor('cpu')
    for n in (0, 1, 5):
        xv = np.arange(n * 3, dtype='float32').reshape(n, 3)
        out, flat = exe.run(main, feed={'x': xv}, fetch_list=[y, r])
        np.testing.assert_array_equal(out, np.cumsum(xv, axis=0))
        assert flat.shape == (n * 3,)


# ---- errors -------------------------------------------------------------------------------------------
def test_build_time_errors_have_the_dynamic_types():
    with static_graph() as main:
        x = static.data('x', [-1, 3], 'float32')
        with pytest.raises(IndexError, match='range'):
            paddle.logcumsumexp(x, axis=2)
        with pytest.raises(IndexError):
            paddle.cumsum(x, axis=-3)
        with pytest.raises(IndexError):
            paddle.sum(x, axis=5)
        with pytest.raises(TypeError, match='dtype'):
            paddle.logcumsumexp(x, dtype='int32')
        with pytest.raises(TypeError, match='axis'):
            paddle.cumsum(x, axis=1.5)
        with pytest.raises(TypeError):
            paddle._C_ops.add(x, static.data('i', [3], 'int64'))                # same dtype required
        with pytest.raises(ValueError, match='broadcast'):
            paddle.add(x, static.data('w', [4], 'float32'))
        with pytest.raises(ValueError, match='reshape'):
            paddle.reshape(static.data('k', [2, 3], 'float32'), [4, 2])
        with pytest.raises(TypeError, match='argument'):
            paddle._C_ops.cumsum(x, -1, False, False)                         # missing argument
        with pytest.raises(TypeError):
            paddle._C_ops.cumsum([1.0], -1, False, False, False)
        with pytest.raises(RuntimeError, match='no kernel'):
            paddle._C_ops.logcumsumexp(static.data('b', [3], 'bool'), -1, False, False, False)
    assert main.global_block().ops == []          # a rejected call appends nothing


def test_same_errors_in_dynamic_mode():
    # The static checks mirror these (same exception types, messages from the same InferMeta).
    x = paddle.to_tensor(np.ones((2, 3), 'float32'))
    with pytest.raises(IndexError):
        paddle.logcumsumexp(x, axis=2)
    with pytest.raises(RuntimeError, match='no kernel'):
        paddle._C_ops.logcumsumexp(paddle.to_tensor([True]), -1, False, False, False)


def test_missing_feed_names_the_variable():
    with static_graph() as main:
        x = static.data('x', [3], 'float32')
        w = static.data('weights', [3], 'float32')
        y = x * w
    with pytest.raises(ValueError, match="'weights'.*not fed"):
        run(main, {'x': np.ones(3, 'float32')}, [y])


def test_feed_and_fetch_checks():
    with static_graph() as main:
        x = static.data('x', [-1, 2], 'float32')
        y = paddle.cumsum(x, axis=1)
    with pytest.raises(ValueError, match=r"'x' has shape \[3\]"):
        run(main, {'x': np.ones(3, 'float32')}, [y])
    with pytest.raises(ValueError, match=r"'x' has shape \[2, 3\]"):
        run(main, {'x': np.ones((2, 3), 'float32')}, [y])
    with pytest.raises(TypeError, match="'x'"):
        run(main, {'x': np.ones((2, 2), 'int64')}, [y])
    with pytest.raises(ValueError, match="'nope'"):
        run(main, {'x': np.ones((1, 2), 'float32'), 'nope': 1}, [y])
    with pytest.raises(ValueError, match="'other'"):
        run(main, {'x': np.ones((1, 2), 'float32')}, ['other'])
    # float64 data for a float32 variable is converted; lists too; Tensors are taken as they are.
    (a,) = run(main, {'x': np.ones((1, 2))}, [y])
    (b,) = run(main, {'x': [[1.0, 1.0]]}, [y.name])
    (c,) = run(main, {'x': paddle.ones_like(paddle.to_tensor([[0.0, 0.0]]))}, [y], return_numpy=False)
    assert isinstance(c, paddle.Tensor) and a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c.numpy())


# ---- feeds convert as to_tensor does: nothing wraps (issue 32 item 4) ------------------------------
def test_feed_out_of_range_integers_are_refused():
    """[2**40 + 5, 1] fed into int32 made cumsum return [5, 6] (the feed wrapped); a uint64 2**63
    fed as int64 counts became a 'negative count' error. Now both are to_tensor's OverflowError
    naming the feed, the value and the type; NaN into an integer variable its ValueError."""
    with static_graph() as main:
        x = static.data('x', [2], 'int32')
        y = paddle.cumsum(x)
    with static_graph() as main_r:
        counts = static.data('counts', [2], 'int64')
        r = paddle.repeat_interleave(paddle.to_tensor([7, 8]), counts)
    for bad in ([2 ** 40 + 5, 1], np.array([2 ** 40 + 5, 1]), np.array([2 ** 31, 0], np.uint32), [1, -2 ** 31 - 1],
                [2 ** 70, 1]):
        with pytest.raises(OverflowError, match=r"feed 'x': the value -?\d+ is out of range for paddle.int32"):
            run(main, {'x': bad}, [y])
    with pytest.raises(OverflowError, match=r"feed 'counts': the value 9223372036854775808 is out of range for paddle.int64"):
        run(main_r, {'counts': np.array([2 ** 63, 1], np.uint64)}, [r])
    # In range: the values themselves, through every integer kind NumPy has.
    (out,) = run(main, {'x': np.array([2 ** 31 - 1, -2 ** 31], np.int64)}, [y])
    assert out.tolist() == [2 ** 31 - 1, -1]
    (out,) = run(main, {'x': np.array([3, 4], np.uint64)}, [y])
    assert out.dtype == np.int32 and out.tolist() == [3, 7]
    (out,) = run(main_r, {'counts': np.array([2, 1], np.uint64)}, [r])
    assert out.tolist() == [7, 7, 8]


def test_feed_integer_sweep_matches_to_tensor():
    """A seeded sweep (the fuzzer's job for this Python-level path): integers of every NumPy type
    and Python ints around every integer variable type's limits, fed into a data variable, give
    what to_tensor of the same data into that dtype gives: the same values, or the same exception
    type (OverflowError)."""
    rng = np.random.default_rng(32)
    for dtype in ('int32', 'int64'):
        with static_graph() as main:
            x = static.data('x', [3], dtype)
            y = x * 1
        info = np.iinfo(dtype)
        edges = [int(info.min), int(info.max), int(info.min) - 1, int(info.max) + 1, 2 ** 63, 2 ** 64 - 1, -2 ** 63,
                 2 ** 31, -2 ** 31 - 1, 0, 2 ** 100]
        for _ in range(60):
            values = [int(rng.choice(edges)) + int(rng.integers(-2, 3)) for _ in range(3)]
            for np_type in (None, np.int64, np.uint64, np.int32, np.uint32):
                if np_type is None:
                    data = values
                elif all(np.iinfo(np_type).min <= v <= np.iinfo(np_type).max for v in values):
                    data = np.array(values, np_type)
                else:
                    continue
                try:
                    expected = paddle.to_tensor(data, dtype=dtype).numpy()
                except OverflowError:
                    with pytest.raises(OverflowError):
                        run(main, {'x': data}, [y])
                    continue
                (got,) = run(main, {'x': data}, [y])
                np.testing.assert_array_equal(got, expected, err_msg=str((dtype, np_type, values)))


def test_variable_of_another_program_is_rejected():
    with static_graph():
        x = static.data('x', [3], 'float32')
    with static_graph():
        with pytest.raises(ValueError, match='another Program'):
            paddle.cumsum(x)


# ---- gradients -------------------------------------------------------------------------------------------
def test_gradients_append_grad_ops_and_match_dynamic():
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((3, 4)).astype('float32')
    with static_graph() as main:
        x = static.data('x', [-1, 4], 'float32')
        y = paddle.logcumsumexp(x, axis=1)
        z = paddle.sum(y * x)                   # x used twice: its gradients are summed
        (dx,) = static.gradients([z], [x])
    types = [op.type for op in main.global_block().ops]
    assert types[:3] == ['logcumsumexp', 'multiply', 'sum']
    assert types[3:] == ['full_like', 'sum_grad', 'multiply_grad', 'logcumsumexp_grad', 'add']
    assert dx.name == 'x@GRAD' and dx.shape == [-1, 4]
    out, grad = run(main, {'x': xv}, [z, dx])

    xt = paddle.to_tensor(xv, stop_gradient=False)
    zt = paddle.sum(paddle.logcumsumexp(xt, axis=1) * xt)
    (gt,) = paddle.grad([zt], [xt])
    assert out.tobytes() == zt.numpy().tobytes()
    assert grad.tobytes() == gt.numpy().tobytes()


def test_gradients_with_target_gradients_and_unused_inputs():
    with static_graph() as main:
        x = static.data('x', [4], 'float64')
        u = static.data('unused', [4], 'float64')
        g = static.data('g', [4], 'float64')
        y = paddle.cumsum(x, reverse=True)
        dx, du = static.gradients(y, [x, u], target_gradients=[g])
    assert du is None
    gv = np.array([1.0, -2.0, 3.0, 0.5])
    (grad,) = run(main, {'x': np.zeros(4), 'g': gv}, [dx])
    np.testing.assert_array_equal(grad, np.cumsum(gv))
    with static_graph():
        x = static.data('x', [4], 'float64')
        with pytest.raises(ValueError, match='target_gradients'):
            static.gradients([paddle.cumsum(x)], [x], [None, None])
        with pytest.raises(TypeError, match='targets'):
            static.gradients(paddle.to_tensor([1.0]), [x])


def test_gradient_through_dtype_argument_and_integer_stops():
    with static_graph() as main:
        x = static.data('x', [5], 'float32')
        y = paddle.logcumsumexp(x, dtype='float64')          # cast + logcumsumexp
        (dx,) = static.gradients([y], [x])
        i = static.data('i', [5], 'int64')
        (di,) = static.gradients([paddle.cumsum(i)], [i])   # integers carry no gradient
    assert di is None
    assert [op.type for op in main.global_block().ops][:5] == [
        'cast', 'logcumsumexp', 'full_like', 'logcumsumexp_grad', 'cast_grad']
    assert dx.dtype == paddle.float32
    xv = np.linspace(-2, 2, 5).astype('float32')
    (grad,) = run(main, {'x': xv, 'i': np.arange(5)}, [dx])
    xt = paddle.to_tensor(xv, stop_gradient=False)
    (gt,) = paddle.grad([paddle.logcumsumexp(xt, dtype='float64')], [xt])
    assert grad.tobytes() == gt.numpy().tobytes()


def test_dynamic_backward_on_a_variable_points_to_gradients():
    with static_graph():
        x = static.data('x', [3], 'float32')
        with pytest.raises(RuntimeError, match='static.gradients'):
            paddle.cumsum(x).backward()


# ---- programs -------------------------------------------------------------------------------------------
def test_program_guard_nests_and_restores():
    paddle.enable_static()
    outer_default = static.default_main_program()
    a, b, sa = static.Program(), static.Program(), static.Program()
    with static.program_guard(a, sa):
        assert static.default_main_program() is a and static.default_startup_program() is sa
        xa = static.data('x', [2], 'float32')
        with static.program_guard(b):
            assert static.default_main_program() is b
            assert static.default_startup_program() is sa
            xb = static.data('x', [2], 'float32')           # same name, other program
            paddle.cumsum(xb)
        assert static.default_main_program() is a
        paddle.logcumsumexp(xa)
    assert static.default_main_program() is outer_default
    assert [op.type for op in a.global_block().ops] == ['logcumsumexp']
    assert [op.type for op in b.global_block().ops] == ['cumsum']
    with pytest.raises(TypeError, match='Program'):
        with static.program_guard('main'):
            pass
    with pytest.raises(KeyError):
        with static.program_guard(a):
            raise KeyError('restored even on error')
    assert static.default_main_program() is outer_default


def test_default_main_program_without_guard():
    paddle.enable_static()
    main = static.default_main_program()
    n = len(main.global_block().ops)
    x = static.data('dflt_%d' % n, [2], 'float32')
    y = paddle.cumsum(x)
    assert main.global_block().ops[-1].type == 'cumsum'
    exe = static.Executor()
    exe.run(static.default_startup_program())        # nothing to initialise
    (out,) = exe.run(feed={x.name: np.array([1, 2], 'float32')}, fetch_list=[y])
    np.testing.assert_array_equal(out, [1, 3])


# ---- the generator ----------------------------------------------------------------------------------------
def test_generated_static_entries_compile_for_multi_output_and_optional_ops(tmp_path):
    """The codegen fixtures (optional inputs and outputs, several outputs, str/float attrs)
    produce static_ops.inc that compiles against static_bind.h and the stub InferMeta."""
    gxx = os.environ.get('CXX', 'g++')
    inc = subprocess.run([sys.executable, '-m', 'pybind11', '--includes'], capture_output=True, text=True)
    if inc.returncode != 0:
        pytest.skip('pybind11 not importable')
    fixtures = os.path.join(HERE, 'codegen_fixtures')
    r = subprocess.run([sys.executable, os.path.join(REPO, 'tools', 'codegen', 'gen.py'),
                        '--ops', os.path.join(fixtures, 'ops.yaml'), '--backward', os.path.join(fixtures, 'backward.yaml'),
                        '--out', str(tmp_path / 'paddle_ops_gen'),
                        '--infermeta-header', 'unittests/python/codegen_fixtures/stub_infermeta.h'],
                       cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / 'paddle_ops_gen' / 'static_ops.inc').read_text()
    assert 'MetaOptionalInput(ins[4], kOp, "initial_state")' in text
    assert '"grad_of": "initial_state"' in text
    tu = tmp_path / 'tu.cc'
    tu.write_text('#include "paddle_ops/python/static_bind.h"\n'
                  '#include "unittests/python/codegen_fixtures/stub_infermeta.h"\n'
                  '#include "paddle_ops/core/kernel_factory.h"\n'
                  '#include "paddle_ops_gen/api.h"\n'
                  '#include "paddle_ops_gen/static_ops.inc"\n')
    c = subprocess.run([gxx, '-std=c++17', '-fsyntax-only', '-I' + REPO, '-I' + str(tmp_path),
                        '-I/usr/include/eigen3', *inc.stdout.split(), str(tu)],
                       cwd=REPO, capture_output=True, text=True, timeout=240)
    assert c.returncode == 0, c.stderr[-3000:]
