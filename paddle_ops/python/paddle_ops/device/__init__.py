"""Device selection: set_device / get_device, and what this build can run on."""
from .. import _C
from ..framework import Place, convert_place

_state = {"place": Place("cpu")}


def is_compiled_with_cuda():
    """True when paddle_ops was built with its CUDA backend."""
    return bool(_C.is_compiled_with_cuda())


def _gpu_count():
    fn = getattr(_C, "gpu_device_count", None)
    return int(fn()) if fn is not None else 0


def set_device(device):
    """Make `device` ('cpu', 'gpu', 'gpu:N') the place of new tensors and results; returns it."""
    place = convert_place(device)
    if place.is_gpu_place():
        if not is_compiled_with_cuda():
            raise ValueError(f"cannot use device '{device}': paddle_ops was built without CUDA")
        if place.gpu_device_id() >= _gpu_count():
            raise ValueError(f"cannot use device '{device}': {_gpu_count()} GPU(s) visible")
    _state["place"] = place
    return place


def get_device():
    """The current device as a string: 'cpu' or 'gpu:N'."""
    return _state["place"].short_string()


def _current_place():
    return _state["place"]


def synchronize(device=None):
    """Wait for all work queued on the device (a no-op on the CPU)."""
    fn = getattr(_C, "device_synchronize", None)
    if fn is not None:
        fn()


class cuda:  # noqa: N801  (paddle.device.cuda.device_count())
    @staticmethod
    def device_count():
        return _gpu_count()

    @staticmethod
    def synchronize(device=None):
        synchronize(device)
