"""DLPack exchange, named as in Paddle (paddle.utils.dlpack.to_dlpack / from_dlpack).

`from_dlpack` takes any object with `__dlpack__` (a NumPy array, a torch, JAX or CuPy
tensor, one of ours) or a bare DLPack capsule, and wraps the producer's memory without a
copy when it can (docs/usage.md, "DLPack").
"""
from .. import _C

__all__ = ["to_dlpack", "from_dlpack"]


def to_dlpack(x):
    """A legacy ("dltensor") DLPack capsule sharing the memory of the Tensor `x`.

    Example:
        >>> import numpy as np
        >>> import paddle_ops as paddle
        >>> from paddle_ops.utils.dlpack import from_dlpack, to_dlpack
        >>> t = paddle.to_tensor([1.0, 2.0])
        >>> from_dlpack(to_dlpack(t)).numpy()
        array([1., 2.], dtype=float32)
    """
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"to_dlpack(): argument 'x' must be a Tensor, but got {type(x).__name__}")
    return x.__dlpack__()


def from_dlpack(dlpack, *, copy=None):
    """A Tensor on the memory of `dlpack`: an object with `__dlpack__` (a NumPy array, a torch,
    JAX or CuPy tensor, a Tensor), or a DLPack capsule (Paddle's name for the argument).

    copy=None shares the memory when the layout allows and copies otherwise (a strided or a
    read-only CPU array); copy=True always copies; copy=False never does and raises BufferError
    where sharing is impossible. A GPU producer is asked to order its pending work before our
    stream of that device, so the data is complete for every op that follows.

    Example:
        >>> import numpy as np
        >>> import paddle_ops as paddle
        >>> a = np.arange(4, dtype=np.float32)
        >>> t = paddle.from_dlpack(a)
        >>> t.data_ptr() == a.ctypes.data
        True
    """
    x = dlpack
    if type(x).__name__ == "PyCapsule" or not hasattr(x, "__dlpack__"):
        return _C._from_dlpack_capsule(x, copy)  # a capsule, or the TypeError naming what x is
    device_type, device_id = x.__dlpack_device__()
    # Paddle 3.3 gives (kDLCPU, None) for a CPU tensor: no device number is device 0
    stream = _C._dlpack_consumer_stream(int(device_type), 0 if device_id is None else int(device_id))
    try:
        capsule = x.__dlpack__(stream=stream, max_version=(1, 0))
    except TypeError as e:  # a producer older than DLPack 1.0 takes no max_version
        if "max_version" not in str(e):
            raise
        capsule = x.__dlpack__(stream=stream)
    return _C._from_dlpack_capsule(capsule, copy)
