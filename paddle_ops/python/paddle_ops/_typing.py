"""Names the public API's annotations share (the package is typed: py.typed)."""
from typing import Literal, Tuple, Union, overload

import numpy as np

from ._C import DataType

#: What a `dtype` argument takes: a paddle_ops dtype (paddle_ops.float32), its name ('float32'),
#: or a NumPy dtype or scalar type.
DTypeLike = Union[DataType, str, np.dtype, type]

__all__ = ["DTypeLike", "Literal", "Tuple", "Union", "overload"]
