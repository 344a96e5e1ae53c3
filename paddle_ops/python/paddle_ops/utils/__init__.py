"""paddle_ops.utils: helpers named as in Paddle (paddle.utils.dlpack)."""
from . import dlpack  # noqa: F401

__all__ = ["dlpack"]
