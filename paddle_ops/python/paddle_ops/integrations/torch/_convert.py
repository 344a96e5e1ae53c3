"""torch <-> paddle_ops tensors through DLPack, without copies, for the generated kernels.

op_converters(t), called by every generated torch op's kernel, gives (to_ours, to_torch,
leave) for the device of torch tensor `t`:
  * CPU: the legacy capsule both ways (torch.utils.dlpack.to_dlpack, torch._C._from_dlpack):
    the shortest path, about 1.5 and 2.5 us a tensor; leave() does nothing;
  * CUDA: our kernels run on torch's current stream of the device until leave(): the call
    pushes that stream in place of ours for this thread (_C._gpu_push_stream, gpu_info.h),
    so the tensors cross as on the CPU, with no event and no host wait: torch's work before
    the call, our kernels and torch's work after it are in one stream's order. The buffers
    our allocator gives the call (outputs, scratch) belong to that stream and are reused only
    on it (gpu_context.cu); imported torch buffers go back without waiting (torch's allocator
    orders their reuse on the same stream).
to_paddle / to_torch (public, outside an op call) follow the DLPack stream rules instead:
torch's pending work on its current stream is ordered before our stream, and ours before
torch's current stream when a result crosses back (events, no host synchronization).
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


def _cuda_to_torch(x, device, stream):
    """Our CUDA tensor `x` as a torch tensor, exported for consumer `stream` (DLPack's integer)."""
    try:
        return _torch_from_capsule(x.__dlpack__(stream=stream))
    except BufferError:
        if 0 not in x.shape:
            raise
        return _empty_like_ours(x, device)


def _cuda_converters(index):
    """(to_ours, to_torch) of CUDA device `index` across streams: torch's current stream and ours."""
    device = torch.device("cuda", index)
    our_stream = _C._dlpack_consumer_stream(_KDLCUDA, index)

    def to_ours(t):
        t = t.detach()
        if not t.is_contiguous():
            t = t.contiguous()
        return _from_capsule(t.__dlpack__(stream=our_stream), None)

    def to_torch(x):
        # torch's legacy default stream has the handle 0, which DLPack spells 1 (0 is not a stream there)
        return _cuda_to_torch(x, device, torch.cuda.current_stream(device).cuda_stream or 1)

    return to_ours, to_torch


# torch's current stream of a device as a raw cudaStream_t (0: the legacy default stream).
# torch._C._cuda_getCurrentRawStream is what torch's own generated code (Inductor) calls; the
# public spelling builds a Stream object (a few µs more).
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
    lambda index: torch.cuda.current_stream(index).cuda_stream)
_push_stream = _C._gpu_push_stream
_pop_stream = _C._gpu_pop_stream


# leave() of the CPU: a C-level callable with no effect (half the cost of an empty Python function)
_nothing = ().__len__


def _cuda_on_stream_converters(index):
    device = torch.device("cuda", index)

    def to_torch(x):
        # stream=-1: no exchange; the consumer's stream is the one our kernels ran on
        return _cuda_to_torch(x, device, -1)

    # Import on torch's current stream (pushed): the legacy capsule, as on the CPU, with no
    # stream exchange (torch records no event).
    return cpu_to_ours, to_torch, _pop_stream


_CPU_OP = (cpu_to_ours, cpu_to_torch, _nothing)
_CUDA_OP = {}
_CUDA = {}


def op_converters(t):
    """(to_ours, to_torch, leave) for a torch op's kernel on the device of torch tensor `t`.
    On CUDA our kernels of that device run on torch's current stream from here until leave()
    (call it in a `finally`)."""
    if not t.is_cuda:
        return _CPU_OP
    index = t.device.index
    conv = _CUDA_OP.get(index)
    if conv is None:
        conv = _CUDA_OP[index] = _cuda_on_stream_converters(index)
    _push_stream(index, _raw_stream(index))
    return conv


def to_paddle(t):
    """A paddle_ops Tensor on the memory of torch tensor `t` (no copy when `t` is contiguous)."""
    if not t.is_cuda:
        return cpu_to_ours(t)
    return _cuda_pair(t.device.index)[0](t)


def to_torch(x):
    """A torch tensor on the memory of paddle_ops Tensor `x` (no copy)."""
    if x.place.is_gpu_place():
        return _cuda_pair(x.place.gpu_device_id())[1](x)
    return cpu_to_torch(x)


def _cuda_pair(index):
    pair = _CUDA.get(index)
    if pair is None:
        pair = _CUDA[index] = _cuda_converters(index)
    return pair
