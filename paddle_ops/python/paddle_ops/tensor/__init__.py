"""The public tensor functions (hand-written, thin wrappers over the generated _C_ops).

Each module lists its public functions in its own `__all__`; this package and `paddle_ops`
re-export them from there, so a new function is written once, in one module, with its
`__all__` entry. (`sum` is one of them: it shadows the builtin here, as in Paddle.)
"""
from . import attention, creation, manipulation, math
from .creation import *  # noqa: F401,F403
from .manipulation import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403,A004
from .attention import *  # noqa: F401,F403

# `+=` of each module's __all__ (not one expression) is the form type checkers follow.
__all__ = []
__all__ += creation.__all__
__all__ += manipulation.__all__
__all__ += math.__all__
__all__ += attention.__all__
