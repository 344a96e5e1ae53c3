"""paddle_ops: scan operators built the way PaddlePaddle's phi is built.

Use it as `import paddle_ops as paddle`: paddle.to_tensor, paddle.logcumsumexp,
paddle.cumsum, Tensor.backward, paddle.grad, ... behave as in Paddle (docs/spec.md).
"""
from . import _C, _C_ops  # noqa: F401
from .flags import get_flags, set_flags  # noqa: F401  (reads the PADDLE_OPS_* variables: first)
from ._C import Tensor  # noqa: F401
from ._C import get_num_threads, set_num_threads  # noqa: F401
from . import device  # noqa: F401
from .autograd import grad, is_grad_enabled, no_grad  # noqa: F401
from .device import get_device, is_compiled_with_cuda, set_device  # noqa: F401
from .framework import (  # noqa: F401
    CPUPlace, CUDAPlace, DataType, Generator, Place, bfloat16, bool, float16, float32, float64, int8, int16, int32,
    int64, seed, uint8,
)
from . import tensor
from .tensor import *  # noqa: F401,F403,A004  (the ops: each module's __all__)
# The same names once more, explicitly (`name as name`): what type checkers see (mypy drops the star
# import inside the import cycle of paddle_ops and paddle_ops.tensor). test_typing.py checks that
# this list is tensor.__all__.
from .tensor import (  # noqa: F401,A004
    add as add, cast as cast, cumsum as cumsum, empty as empty, full as full, full_like as full_like,
    gla as gla, logcumsumexp as logcumsumexp, mean as mean, multiply as multiply, ones_like as ones_like,
    pscan as pscan, repeat_interleave as repeat_interleave, reshape as reshape, right_flood as right_flood,
    subtract as subtract, sum as sum, to_tensor as to_tensor, zeros_like as zeros_like,
)
from .tensor import methods as _methods
from . import static  # noqa: F401
from . import utils  # noqa: F401
from .utils.dlpack import from_dlpack  # noqa: F401
from .static import disable_static, enable_static, in_dynamic_mode  # noqa: F401

_methods.install()
dtype = DataType

__version__ = "0.1.0"
__all__ = [
    "Tensor", "grad", "no_grad", "set_device", "get_device", "is_compiled_with_cuda", "CPUPlace", "CUDAPlace",
    "float16", "bfloat16", "float32", "float64", "int32", "int64", "bool", "static", "enable_static",
    "disable_static", "in_dynamic_mode", "from_dlpack", "set_num_threads", "get_num_threads", "get_flags", "set_flags", "seed",
]
# `+=` of the package's __all__ (not `[...] + tensor.__all__`): the form type checkers follow, so
# mypy sees every op at the top level (issue 31).
__all__ += tensor.__all__
