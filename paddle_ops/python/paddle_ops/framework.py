"""dtypes and places: the objects users pass as `dtype=` and `place=`, and their parsing; the
seed (paddle.seed)."""
import builtins

import numpy as np

from . import _C

DataType = _C.DataType
DataType.__repr__ = lambda self: "paddle." + self.name_str
DataType.__str__ = DataType.__repr__
bool = DataType.BOOL  # noqa: A001 (paddle.bool, as in Paddle)
uint8 = DataType.UINT8
int8 = DataType.INT8
int16 = DataType.INT16
int32 = DataType.INT32
int64 = DataType.INT64
float16 = DataType.FLOAT16
bfloat16 = DataType.BFLOAT16
float32 = DataType.FLOAT32
float64 = DataType.FLOAT64

UNDEFINED = _C.dtype_from_string("undefined")  # 'not given' for DataType attributes
FLOATING = (float16, bfloat16, float32, float64)
INTEGER = (uint8, int8, int16, int32, int64)

_NUMPY_TO_DTYPE = {
    np.dtype("bool"): bool, np.dtype("uint8"): uint8, np.dtype("int8"): int8,
    np.dtype("int16"): int16, np.dtype("int32"): int32, np.dtype("int64"): int64,
    np.dtype("float16"): float16, np.dtype("float32"): float32, np.dtype("float64"): float64,
}


def convert_dtype(dtype, what="dtype"):
    """A DataType from a DataType, a name ('float32', 'bfloat16', ...) or a NumPy dtype."""
    if isinstance(dtype, DataType):
        return dtype
    if dtype is None or isinstance(dtype, (int, float)):  # NumPy would read None as float64
        raise TypeError(f"{what}: expected a dtype (paddle_ops.float32, 'float32', numpy dtype), "
                        f"but got {dtype!r}")
    if isinstance(dtype, str):
        t = _C.dtype_from_string(dtype)
        if t is None or int(t) == 0:
            raise TypeError(f"{what}: unknown dtype '{dtype}' (expected one of float16, bfloat16, "
                            f"float32, float64, int32, int64, bool, ...)")
        return t
    try:
        npd = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{what}: expected a dtype (paddle_ops.float32, 'float32', numpy dtype), "
                        f"but got {type(dtype).__name__}") from None
    if npd not in _NUMPY_TO_DTYPE:
        raise TypeError(f"{what}: dtype {npd} is not supported by paddle_ops")
    return _NUMPY_TO_DTYPE[npd]


def dtype_from_numpy(npd):
    npd = np.dtype(npd)
    if npd.kind == "c":
        raise TypeError(f"complex data ({npd}) is not supported by paddle_ops")
    if npd not in _NUMPY_TO_DTYPE:
        raise TypeError(f"data of NumPy dtype {npd} cannot become a Tensor")
    return _NUMPY_TO_DTYPE[npd]


def is_floating(dtype):
    return dtype in FLOATING


Place = _C.Place


def CPUPlace():
    return Place("cpu")


def CUDAPlace(device_id=0):
    return Place("gpu", int(device_id))


# The place of new tensors and results (paddle.device.set_device sets it). Kept here, below the
# device module, so that the two do not import each other.
_current = {"place": Place("cpu")}


def _current_place():
    return _current["place"]


def _set_current_place(place):
    _current["place"] = place


def convert_place(place):
    """A Place from a Place or a string 'cpu', 'gpu', 'gpu:1'."""
    if place is None:
        return _current_place()
    if isinstance(place, Place):
        return place
    if isinstance(place, str):
        name = place.strip().lower()
        if name == "cpu":
            return CPUPlace()
        if name.startswith("gpu") or name.startswith("cuda"):
            _, _, idx = name.partition(":")
            if idx and not idx.isdigit():
                raise ValueError(f"place: bad device index in '{place}'")
            return CUDAPlace(int(idx) if idx else 0)
        raise ValueError(f"place: expected 'cpu', 'gpu' or 'gpu:N', but got '{place}'")
    raise TypeError(f"place: expected a Place or a string, but got {type(place).__name__}")


class Generator:
    """The random generator paddle.seed returns (Paddle returns its default CPU generator).
    No op of paddle_ops draws random numbers, so it only keeps the seed: manual_seed sets it,
    initial_seed reads it. It does not seed NumPy or anything else."""

    def __init__(self, seed_value=0):
        self._seed = seed_value

    def manual_seed(self, seed_value):
        if isinstance(seed_value, builtins.bool) or not isinstance(seed_value, (int, np.integer)):
            raise TypeError(f"seed(): argument 'seed' must be int, but got {type(seed_value).__name__}")
        seed_value = int(seed_value)
        if not -2 ** 63 <= seed_value < 2 ** 64:
            raise ValueError(f"seed(): argument 'seed' must fit 64 bits, but got {seed_value}")
        self._seed = seed_value
        return self

    def initial_seed(self):
        return self._seed

    def __repr__(self):
        return f"Generator(seed={self._seed})"


_DEFAULT_GENERATOR = Generator()


def seed(seed_value):
    """Paddle's paddle.seed: sets the seed of the default generator and returns it."""
    return _DEFAULT_GENERATOR.manual_seed(seed_value)
