"""Device selection: set_device / get_device, what this build can run on, and GPU helpers."""
from .. import _C
from ..framework import Place, _current_place, _set_current_place, convert_place


def is_compiled_with_cuda():
    """True when paddle_ops was built with its CUDA backend."""
    return bool(_C.is_compiled_with_cuda())


def _gpu_count():
    return int(_C.gpu_device_count())


def _gpu_id(device):
    """The GPU number `device` names (None: the current GPU, else 0)."""
    if device is None:
        place = _current_place()
        return place.gpu_device_id() if place.is_gpu_place() else 0
    if isinstance(device, bool) or not isinstance(device, (int, str, Place)):
        raise TypeError(f"device must be an int, 'gpu:N' or a Place, but got {type(device).__name__}")
    if isinstance(device, int):
        if device < 0:
            raise ValueError(f"device must be a GPU number >= 0, but got {device}")
        return device
    place = convert_place(device)
    if not place.is_gpu_place():
        raise ValueError(f"device must be a GPU, but got {device!r}")
    return place.gpu_device_id()


def _memory_stat(index, doc):
    """A paddle.device.cuda statistic: entry `index` of _C.gpu_memory_stats (reserved, allocated,
    peak reserved, peak allocated)."""
    def stat(device=None):
        return _C.gpu_memory_stats(_gpu_id(device))[index]
    stat.__doc__ = doc
    return stat


def set_device(device):
    """Make `device` ('cpu', 'gpu', 'gpu:N') the place of new tensors and results; returns it."""
    place = convert_place(device)
    if place.is_gpu_place():
        if not is_compiled_with_cuda():
            raise ValueError(f"cannot use device '{device}': paddle_ops was built without CUDA")
        if place.gpu_device_id() >= _gpu_count():
            raise ValueError(f"cannot use device '{device}': {_gpu_count()} GPU(s) visible")
    _set_current_place(place)
    return place


def get_device():
    """The current device as a string: 'cpu' or 'gpu:N'."""
    return _current_place().short_string()


def gpu_scan_backend():
    """The GPU scan backend the cum kernels use: 'engine' (kernels/funcs/gpu/scan_dispatch.cuh, the
    deterministic scan engine) or 'thrust' (the seed design's reference path, thrust's
    transformed scans, whose float rounding can change from run to run): the flag
    PADDLE_OPS_GPU_SCAN (paddle.get_flags / set_flags; the environment variable at start)."""
    return _C.get_flag("PADDLE_OPS_GPU_SCAN")


def synchronize(device=None):
    """Wait for all work queued on the GPU(s) (a no-op without one)."""
    _C.device_synchronize()


class cuda:  # noqa: N801  (paddle.device.cuda.device_count())
    @staticmethod
    def device_count():
        return _gpu_count()

    @staticmethod
    def synchronize(device=None):
        synchronize(device)

    @staticmethod
    def empty_cache():
        """Return the caching allocator's wholly free segments to the driver."""
        _C.gpu_empty_cache()

    # The caching allocator's bytes on one GPU (torch and Paddle name them so): `device` is
    # None (the current GPU, else 0), an int, 'gpu:N' or a Place. 0 before the first
    # allocation there and in a build without CUDA.
    memory_reserved = staticmethod(_memory_stat(0, "Bytes held from the driver in segments (in use or cached)."))
    memory_allocated = staticmethod(_memory_stat(1, "Bytes in the blocks of live tensors (each rounded up to 512)."))
    max_memory_reserved = staticmethod(_memory_stat(2, "The most bytes ever reserved (since start or the last reset)."))
    max_memory_allocated = staticmethod(_memory_stat(3, "The most bytes ever allocated (since start or the last reset)."))

    @staticmethod
    def reset_max_memory_allocated(device=None):
        """Start both peaks again from the present figures."""
        _C.gpu_reset_peak_memory_stats(_gpu_id(device))

    reset_max_memory_reserved = reset_max_memory_allocated


class cpu:  # noqa: N801  (paddle.device.cpu.empty_cache())
    """The CPU allocator keeps freed blocks of 1 MiB and more for reuse (no page faults on the
    next tensor of that size), up to PADDLE_OPS_CPU_CACHE_MB megabytes (default 2048; 0 turns
    it off; read at start only: see paddle.get_flags)."""

    @staticmethod
    def empty_cache():
        """Return the cached free blocks to the system."""
        _C.cpu_empty_cache()

    @staticmethod
    def cached_bytes():
        """Bytes held in the cache of free blocks."""
        return _C.cpu_cached_bytes()

    @staticmethod
    def cache_limit():
        """The most bytes the cache holds."""
        return _C.cpu_cache_limit()
