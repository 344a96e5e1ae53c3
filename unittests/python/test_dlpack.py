"""DLPack both ways (paddle_ops/python/dlpack.cc, paddle_ops.utils.dlpack): NumPy on the CPU
shares memory with our tensors in both directions (same address, a write through one is read
through the other), for every dtype, 0-D and empty tensors; strided, read-only and offset
arrays are copied or refused as the array API's `copy` argument says; legacy and versioned
capsules; a capsule is consumed once; memory lives as long as either side holds it and is
handed back when both let go. The GPU tests exchange with torch, JAX and CuPy (each skipped
when not importable) and check the stream order."""
import ctypes
import gc
import weakref

import numpy as np
import pytest

import paddle_ops as paddle
from paddle_ops.utils.dlpack import from_dlpack, to_dlpack
from op_test import available_places

PLACES = available_places()
GPU = 'gpu' in PLACES

# name -> (NumPy dtype of the shared memory, values)
NUMPY_DTYPES = {
    'bool': (np.bool_, [True, False, True]),
    'uint8': (np.uint8, [0, 7, 255]),
    'int8': (np.int8, [-128, 0, 127]),
    'int16': (np.int16, [-32768, 1, 32767]),
    'int32': (np.int32, [-2**31, 5, 2**31 - 1]),
    'int64': (np.int64, [-2**63, 5, 2**63 - 1]),
    'float16': (np.float16, [-1.5, 0.0, 65504.0]),
    'float32': (np.float32, [-1.5, np.inf, 3.25]),
    'float64': (np.float64, [-1.5, np.nan, 1e300]),
}

_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype = ctypes.c_char_p
_get_name.argtypes = [ctypes.py_object]


def capsule_name(c):
    return _get_name(c).decode()


def cpu_cached():
    return paddle.device.cpu.cached_bytes()


# ---- NumPy, both ways ------------------------------------------------------------------------
@pytest.mark.parametrize('name', sorted(NUMPY_DTYPES))
def test_numpy_from_our_tensor_shares_memory(name):
    npdt, vals = NUMPY_DTYPES[name]
    t = paddle.to_tensor(np.array(vals, dtype=npdt))
    a = np.from_dlpack(t)
    assert a.dtype == npdt and a.shape == (3,)
    assert a.ctypes.data == t.data_ptr()
    np.testing.assert_array_equal(a, np.array(vals, dtype=npdt))
    a[1] = a[0]  # written through NumPy, read through our tensor
    np.testing.assert_array_equal(t.numpy()[1], np.array(vals, dtype=npdt)[0])


@pytest.mark.parametrize('name', sorted(NUMPY_DTYPES))
def test_our_tensor_from_numpy_shares_memory(name):
    npdt, vals = NUMPY_DTYPES[name]
    a = np.array(vals, dtype=npdt)
    t = paddle.from_dlpack(a)
    assert t.dtype == getattr(paddle, name) and t.shape == [3]
    assert t.data_ptr() == a.ctypes.data
    np.testing.assert_array_equal(t.numpy(), a)
    a[2] = a[0]  # written through NumPy, read through our tensor
    np.testing.assert_array_equal(t.numpy()[2], a[0])


def test_bfloat16_round_trips_through_our_own_capsule():
    t = paddle.to_tensor([1.0, -2.5, 3.0e38], dtype='bfloat16')
    for versioned in (None, (1, 0)):
        u = paddle.from_dlpack(t.__dlpack__(max_version=versioned))
        assert u.dtype == paddle.bfloat16 and u.data_ptr() == t.data_ptr()
        np.testing.assert_array_equal(u.numpy(), t.numpy())


def test_ops_run_on_an_imported_array():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    t = paddle.from_dlpack(a)
    np.testing.assert_allclose(paddle.cumsum(t, axis=1).numpy(), np.cumsum(a, axis=1))


@pytest.mark.parametrize('shape', [(), (0,), (2, 0, 3)])
def test_0d_and_empty_both_ways(shape):
    a = np.full(shape, 7.0, dtype=np.float32)
    t = paddle.from_dlpack(a)
    assert t.shape == list(shape)
    np.testing.assert_array_equal(t.numpy(), a)
    b = np.from_dlpack(paddle.to_tensor(a))
    assert b.shape == shape and b.dtype == np.float32
    np.testing.assert_array_equal(b, a)


def test_byte_offset_of_a_sliced_array_is_honoured():
    base = np.arange(10, dtype=np.int32)
    a = base[3:7]
    t = paddle.from_dlpack(a)
    assert t.data_ptr() == base.ctypes.data + 3 * 4
    np.testing.assert_array_equal(t.numpy(), [3, 4, 5, 6])
    np.testing.assert_array_equal(paddle.cumsum(t, axis=0).numpy(), [3, 7, 12, 18])  # kernels read from the offset
    b = np.from_dlpack(t)  # exported again: the offset travels as DLPack's byte_offset
    assert b.ctypes.data == t.data_ptr()


# ---- strided, read-only, the copy argument ------------------------------------------------------
@pytest.mark.parametrize('view', ['transposed', 'step', 'reversed'])
def test_strided_array_is_copied_by_default_and_refused_with_copy_false(view):
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = {'transposed': base.T, 'step': base[:, ::2], 'reversed': base[::-1]}[view]
    expect = a.copy()
    t = paddle.from_dlpack(a)
    np.testing.assert_array_equal(t.numpy(), expect)
    base[...] = -1.0  # a copy: later writes to the array do not show
    np.testing.assert_array_equal(t.numpy(), expect)
    with pytest.raises(BufferError, match='strided'):
        paddle.from_dlpack(a, copy=False)


def test_random_views_read_right():
    """Views of every kind (steps, negative steps, transposes, offsets, size-1 dims),
    each taken whole or copied, read back the view's values."""
    rng = np.random.default_rng(18)
    for _ in range(200):
        nd = int(rng.integers(1, 5))
        base = rng.standard_normal(rng.integers(1, 6, size=nd)).astype(np.float32)
        index = tuple(slice(int(rng.integers(0, n)), None, int(rng.choice([-2, -1, 1, 2, 3]))) for n in base.shape)
        view = base[index].transpose(rng.permutation(nd))
        t = paddle.from_dlpack(view)
        assert t.shape == list(view.shape)
        np.testing.assert_array_equal(t.numpy(), view)


def test_copy_true_copies_a_contiguous_array():
    a = np.arange(4, dtype=np.float32)
    t = paddle.from_dlpack(a, copy=True)
    assert t.data_ptr() != a.ctypes.data
    a[0] = 9.0
    assert t.numpy()[0] == 0.0


def test_read_only_array_is_copied_never_written_and_refused_with_copy_false():
    a = np.arange(4, dtype=np.float64)
    a.flags.writeable = False
    t = paddle.from_dlpack(a)  # NumPy marks its capsule read-only: we copy
    assert t.data_ptr() != a.ctypes.data
    np.testing.assert_array_equal(t.numpy(), a)
    with pytest.raises(BufferError, match='read-only'):
        paddle.from_dlpack(a, copy=False)


def test_non_native_byte_order_is_never_misread():
    a = np.arange(4, dtype='>f4' if np.little_endian else '<f4')
    with pytest.raises(BufferError):
        paddle.from_dlpack(a)  # NumPy refuses to export it


@pytest.mark.parametrize('npdt', [np.complex64, np.uint16, np.uint32])
def test_unsupported_dtype_is_refused_with_its_name(npdt):
    a = np.zeros(3, dtype=npdt)
    with pytest.raises(TypeError, match='not supported'):
        paddle.from_dlpack(a)
    # refused before consuming: the producer still frees the capsule (no leak, no crash)
    c = a.__dlpack__()
    with pytest.raises(TypeError):
        paddle.from_dlpack(c)
    assert capsule_name(c) == 'dltensor'


def test_bad_arguments_get_clear_errors():
    t = paddle.to_tensor([1.0])
    with pytest.raises(TypeError, match='DLPack capsule or an object with __dlpack__'):
        paddle.from_dlpack([1.0, 2.0])
    with pytest.raises(TypeError, match="'copy'"):
        paddle.from_dlpack(np.zeros(2), copy='yes')
    with pytest.raises(ValueError, match='stream=None'):
        t.__dlpack__(stream=1)
    with pytest.raises(BufferError, match='device type 7'):
        t.__dlpack__(dl_device=(7, 0))
    with pytest.raises(TypeError, match="'dl_device'.*'cpu'"):
        t.__dlpack__(dl_device='cpu')
    with pytest.raises(TypeError, match="'max_version'"):
        t.__dlpack__(max_version=1)


# ---- capsules ---------------------------------------------------------------------------------
def test_legacy_and_versioned_capsules():
    t = paddle.to_tensor([1.0, 2.0])
    assert capsule_name(t.__dlpack__()) == 'dltensor'
    assert capsule_name(to_dlpack(t)) == 'dltensor'
    assert capsule_name(t.__dlpack__(max_version=(0, 8))) == 'dltensor'
    assert capsule_name(t.__dlpack__(max_version=(1, 0))) == 'dltensor_versioned'
    assert capsule_name(t.__dlpack__(max_version=(1, 3))) == 'dltensor_versioned'
    assert t.__dlpack_device__() == (1, 0)
    # NumPy's own capsules, both kinds, are taken too
    a = np.arange(3.0)
    for c in (a.__dlpack__(), a.__dlpack__(max_version=(1, 0))):
        u = from_dlpack(c)
        assert u.data_ptr() == a.ctypes.data


def test_capsule_is_consumed_once():
    t = paddle.to_tensor([1.0, 2.0])
    for c in (t.__dlpack__(), t.__dlpack__(max_version=(1, 0))):
        u = from_dlpack(c)
        assert capsule_name(c).startswith('used_')
        with pytest.raises(BufferError, match='already consumed'):
            from_dlpack(c)
        np.testing.assert_array_equal(u.numpy(), [1.0, 2.0])


def test_dl_device_and_copy_on_export():
    t = paddle.to_tensor([1.0, 2.0])
    c = t.__dlpack__(dl_device=(1, 0), copy=False, max_version=(1, 0))
    assert from_dlpack(c).data_ptr() == t.data_ptr()
    u = from_dlpack(t.__dlpack__(copy=True, max_version=(1, 0)))
    assert u.data_ptr() != t.data_ptr()
    np.testing.assert_array_equal(u.numpy(), [1.0, 2.0])
    a = np.from_dlpack(t, copy=True)
    assert a.ctypes.data != t.data_ptr()


# ---- lifetime and the deleter -------------------------------------------------------------------
def test_import_keeps_the_producer_alive_and_lets_it_go():
    a = np.arange(1000, dtype=np.float32)
    w = weakref.ref(a)
    t = paddle.from_dlpack(a)
    del a
    gc.collect()
    assert w() is not None  # our tensor holds NumPy's capsule context, which holds the array
    np.testing.assert_array_equal(t.numpy(), np.arange(1000, dtype=np.float32))
    u = paddle.cumsum(t, axis=0)
    del t
    gc.collect()
    assert w() is None  # the deleter ran when our last reference went
    assert u.numpy()[-1] == 999 * 1000 / 2


@pytest.mark.skipif(paddle.device.cpu.cache_limit() < (8 << 20),
                    reason="the CPU allocator's cache is off (as in the ASan build), so a freed block cannot be "
                           "watched coming back; ASan itself checks these lifetimes there")
def test_export_outlives_the_tensor_and_the_deleter_frees_it():
    n = 1 << 20  # 4 MiB: a freed block goes to the CPU allocator's cache, which we can watch
    paddle.device.cpu.empty_cache()
    t = paddle.to_tensor(np.arange(n, dtype=np.float32))
    a = np.from_dlpack(t)
    before = cpu_cached()
    del t
    gc.collect()
    assert cpu_cached() == before  # NumPy still holds the block
    assert a[-1] == n - 1
    del a
    gc.collect()
    assert cpu_cached() >= before + 4 * n  # the deleter ran: the block came back


@pytest.mark.skipif(paddle.device.cpu.cache_limit() < (8 << 20),
                    reason="the CPU allocator's cache is off (as in the ASan build), so a freed block cannot be "
                           "watched coming back; ASan itself checks these lifetimes there")
def test_unconsumed_capsule_frees_its_tensor():
    n = 1 << 20
    paddle.device.cpu.empty_cache()
    t = paddle.to_tensor(np.arange(n, dtype=np.float32))
    c = t.__dlpack__(max_version=(1, 0))
    before = cpu_cached()
    del t
    assert cpu_cached() == before
    del c
    gc.collect()
    assert cpu_cached() >= before + 4 * n


# ---- GPU: torch, JAX, CuPy ----------------------------------------------------------------------
needs_gpu = pytest.mark.skipif(not GPU, reason='no GPU in this build or machine')


def _import_or_skip(name):
    if not GPU:
        pytest.skip('no GPU in this build or machine')
    # (conftest.py keeps JAX from taking 75% of the GPU at its first array)
    return pytest.importorskip(name, reason=f'{name} is not installed')


@needs_gpu
def test_gpu_dlpack_device_and_own_round_trip():
    t = paddle.to_tensor(np.arange(5, dtype=np.float32), place='gpu')
    assert t.__dlpack_device__() == (2, 0)
    u = paddle.from_dlpack(t)
    assert u.data_ptr() == t.data_ptr()
    np.testing.assert_array_equal(u.numpy(), np.arange(5))
    for s in (None, 1, 2, -1):
        assert from_dlpack(t.__dlpack__(stream=s)).data_ptr() == t.data_ptr()
    with pytest.raises(ValueError, match='stream=0'):
        t.__dlpack__(stream=0)
    c = from_dlpack(t.__dlpack__(dl_device=(1, 0)))  # copied to the CPU
    assert c.place.is_cpu_place()
    np.testing.assert_array_equal(c.numpy(), np.arange(5))
    with pytest.raises(BufferError, match='copy=False'):
        t.__dlpack__(dl_device=(1, 0), copy=False)


def test_torch_both_ways():
    torch = _import_or_skip('torch')
    x = torch.arange(6, dtype=torch.float32, device='cuda').reshape(2, 3)
    t = paddle.from_dlpack(x)
    assert t.data_ptr() == x.data_ptr() and t.shape == [2, 3] and t.place.is_gpu_place()
    np.testing.assert_array_equal(t.numpy(), x.cpu().numpy())
    y = torch.from_dlpack(paddle.cumsum(t, axis=1))
    assert y.device.type == 'cuda'
    np.testing.assert_allclose(y.cpu().numpy(), np.cumsum(np.arange(6).reshape(2, 3), axis=1))
    z = torch.from_dlpack(t)
    assert z.data_ptr() == x.data_ptr()


def test_torch_stream_order():
    torch = _import_or_skip('torch')
    n = 1 << 24
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):  # the producer's pending work is on its side stream
        x = torch.ones(n, device='cuda')
        for _ in range(20):
            x = x * 1.0001 + 1.0
        t = paddle.from_dlpack(x)  # torch orders its current stream before ours
    got = t.numpy()                # read on our stream
    side.synchronize()
    expect_last = x[-1].item()
    assert got[-1] == pytest.approx(expect_last, rel=1e-6)
    # ours -> torch: our kernel on our stream, read on another torch stream
    u = paddle.logcumsumexp(paddle.to_tensor(np.zeros(n, dtype=np.float32), place='gpu'), axis=0)
    other = torch.cuda.Stream()
    with torch.cuda.stream(other):
        y = torch.from_dlpack(u)  # torch passes `other`; we make our work visible to it
        last = y[-1].clone()
    other.synchronize()
    assert last.item() == pytest.approx(np.log(n), rel=1e-4)


def test_cupy_both_ways():
    cp = _import_or_skip('cupy')
    x = cp.arange(8, dtype=cp.float64)
    t = paddle.from_dlpack(x)
    assert t.data_ptr() == x.data.ptr
    np.testing.assert_array_equal(t.numpy(), cp.asnumpy(x))
    y = cp.from_dlpack(paddle.cumsum(t, axis=0))
    np.testing.assert_array_equal(cp.asnumpy(y), np.cumsum(np.arange(8.0)))
    z = cp.from_dlpack(t)
    assert z.data.ptr == x.data.ptr


def test_jax_both_ways():
    _import_or_skip('jax')
    import jax
    import jax.numpy as jnp
    gpus = [d for d in jax.devices() if d.platform == 'gpu']
    if not gpus:
        pytest.skip('JAX sees no GPU')
    x = jax.device_put(jnp.arange(8, dtype=jnp.float32), gpus[0])
    x.block_until_ready()
    ptr = x.unsafe_buffer_pointer()
    try:
        t = paddle.from_dlpack(x, copy=False)
        assert t.data_ptr() == ptr
    except BufferError as e:  # JAX arrays are immutable: a read-only capsule is only copied
        assert 'read-only' in str(e)
        t = paddle.from_dlpack(x)
        assert t.data_ptr() != ptr
    np.testing.assert_array_equal(t.numpy(), np.arange(8))
    y = jax.dlpack.from_dlpack(paddle.cumsum(t, axis=0))
    np.testing.assert_array_equal(np.asarray(y), np.cumsum(np.arange(8.0)))
    u = paddle.to_tensor(np.arange(4, dtype=np.float32), place='gpu')
    z = jax.dlpack.from_dlpack(u)
    assert z.unsafe_buffer_pointer() == u.data_ptr()
