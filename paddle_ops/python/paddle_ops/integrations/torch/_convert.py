"""torch <-> paddle_ops tensors through DLPack, without copies, for the generated kernels.

converters(t) gives the pair (to_ours, to_torch) of the device of torch tensor `t`:
  * CPU: the legacy capsule both ways (torch.utils.dlpack.to_dlpack, torch._C._from_dlpack):
    the shortest path, about 1.5 and 2.5 us a tensor;
  * CUDA: the DLPack stream rules: the input's producer (torch) orders the work pending on
    its current stream before our stream of the device, and our work is ordered before
    torch's current stream when the result crosses back (events, no host synchronization).
A non-contiguous input is made contiguous by torch first (our import would copy it slower).
"""
import torch

from ... import _C

_DTYPE_NAMES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
                "complex64", "complex128"]
TO_OURS = {getattr(torch, n): _C.dtype_from_string(n) for n in _DTYPE_NAMES}
TO_TORCH = {str(v): k for k, v in TO_OURS.items()}
_UNDEFINED = _C.dtype_from_string("undefined")
_KDLCUDA = 2
_from_capsule = _C._from_dlpack_capsule
_torch_to_capsule = torch.utils.dlpack.to_dlpack
_torch_from_capsule = torch._C._from_dlpack


def ours_dtype(dt):
    """Our DataType of torch dtype `dt` (TypeError when we have none)."""
    try:
        return TO_OURS[dt]
    except KeyError:
        raise TypeError(f"paddle_ops has no dtype for {dt}") from None


def ours_dtype_or_undefined(dt):
    """A ScalarType? argument: None is 'not given' (DataType UNDEFINED)."""
    return _UNDEFINED if dt is None else ours_dtype(dt)


def _empty_like_ours(x, device):
    return torch.empty(x.shape, dtype=TO_TORCH[str(x.dtype)], device=device)


def cpu_to_ours(t):
    return _from_capsule(_torch_to_capsule(t if t.is_contiguous() else t.contiguous()), None)


def cpu_to_torch(x):
    try:
        return _torch_from_capsule(x.__dlpack__())
    except BufferError:
        if 0 not in x.shape:
            raise
        return _empty_like_ours(x, "cpu")  # an empty result holds no memory to share


def _cuda_converters(index):
    device = torch.device("cuda", index)
    our_stream = _C._dlpack_consumer_stream(_KDLCUDA, index)

    def to_ours(t):
        t = t.detach()
        if not t.is_contiguous():
            t = t.contiguous()
        return _from_capsule(t.__dlpack__(stream=our_stream), None)

    def to_torch(x):
        try:
            # torch's legacy default stream has the handle 0, which DLPack spells 1 (0 is not a stream there)
            stream = torch.cuda.current_stream(device).cuda_stream or 1
            return _torch_from_capsule(x.__dlpack__(stream=stream))
        except BufferError:
            if 0 not in x.shape:
                raise
            return _empty_like_ours(x, device)

    return to_ours, to_torch


_CPU = (cpu_to_ours, cpu_to_torch)
_CUDA = {}


def converters(t):
    """(to_ours, to_torch) for the device of torch tensor `t`."""
    if not t.is_cuda:
        return _CPU
    index = t.device.index
    pair = _CUDA.get(index)
    if pair is None:
        pair = _CUDA[index] = _cuda_converters(index)
    return pair


def to_paddle(t):
    """A paddle_ops Tensor on the memory of torch tensor `t` (no copy when `t` is contiguous)."""
    return converters(t)[0](t)


def to_torch(x):
    """A torch tensor on the memory of paddle_ops Tensor `x` (no copy)."""
    if x.place.is_gpu_place():
        return _cuda_converters(x.place.gpu_device_id())[1](x)
    return cpu_to_torch(x)
