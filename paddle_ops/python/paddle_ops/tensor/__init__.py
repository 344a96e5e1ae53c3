"""The public tensor functions (hand-written, thin wrappers over the generated _C_ops)."""
from .creation import empty, full_like, ones_like, to_tensor, zeros_like  # noqa: F401
from .manipulation import cast, repeat_interleave, reshape  # noqa: F401
from .math import add, cumsum, logcumsumexp, mean, multiply, pscan, right_flood, subtract, sum  # noqa: F401,A004
from .attention import gla  # noqa: F401
