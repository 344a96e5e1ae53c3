"""Attention-like ops: gla, chunked gated linear attention (docs/spec.md §5, seed 002)."""
import builtins
import math
import numbers

from .. import _C_ops
from ..framework import FLOATING, float32
from .manipulation import _check_bool, _check_tensor

__all__ = ["gla"]


def _gla_attrs(q, scale, output_final_state, head_first):
    """gla's checks of its attributes (after those of the tensors), shared with
    paddle_ops.integrations.paddle: the two bools, and scale, returned as a float (None:
    Dk ** -0.5 from q's 4-D shape, Dk its last dim)."""
    for arg, val in (("output_final_state", output_final_state), ("head_first", head_first)):
        _check_bool(val, "gla", arg)
    if scale is None:
        if len(q.shape) != 4:
            raise ValueError(f"gla(): q must be a 4-D tensor, but got q of shape {list(q.shape)}")
        dk = q.shape[-1]
        if dk is None or dk < 0:
            raise ValueError("gla(): scale=None needs a known Dk (the last dim of q); pass scale explicitly")
        return dk ** -0.5 if dk > 0 else 1.0
    if isinstance(scale, builtins.bool) or not isinstance(scale, numbers.Real):  # int, float, numpy.float32, ...
        raise TypeError(f"gla(): argument 'scale' must be a float or None, but got {type(scale).__name__}")
    try:
        value = float(scale)
    except OverflowError:  # an int beyond the float range (10**400)
        raise ValueError(f"gla(): argument 'scale' must be finite, but got an int too large for a float "
                         f"({int(scale).bit_length()} bits)") from None
    if not math.isfinite(value):
        raise ValueError(f"gla(): argument 'scale' must be finite, but got {scale}")
    return value


def gla(q, k, v, gk, scale=None, initial_state=None, output_final_state=False, head_first=True, name=None):
    r"""Gated linear attention: a linear-attention recurrence whose state decays per key channel.

    .. math::
        h_t = h_{t-1} \odot \exp(gk_t)[:, \text{None}] + k_t \otimes v_t, \qquad
        o_t = (q_t \cdot \text{scale})\, h_t

    with :math:`h_{-1}` = initial_state (zeros when None). Computed in the chunked form of the
    seed (in-chunk cumulative decays, q and k scaled by them with every exponent <= 0, an
    inter-chunk state recurrence of matrix products, an intra-chunk causal block) on the GPU.
    On the CPU, float32 and the 16-bit types take a chunked form too (by default for T >= 32
    and Dk >= 128, elsewhere the recurrent form; flag PADDLE_OPS_GLA_CPU), and float64 the
    recurrent form. The state and the cumulative decays are float32
    (float64 for float64 inputs); 16-bit inputs round once when o is stored.

    Args:
        q (Tensor): queries, [B, H, T, Dk] (head_first) or [B, T, H, Dk]; float16, bfloat16,
            float32 or float64.
        k (Tensor): keys, shape and dtype of q.
        v (Tensor): values, [B, H, T, Dv] (or [B, T, H, Dv]), dtype of q.
        gk (Tensor): the log-space decay per step and key channel, shape and dtype of q; it
            should be <= 0 (e.g. ``logsigmoid(x) / 16``). Positive values are computed as given
            (the state then grows).
        scale (float, optional): the query scale; None (default) is ``Dk ** -0.5``.
        initial_state (Tensor, optional): [B, H, Dk, Dv] float32, the state before the first step.
        output_final_state (bool): also return the state after the last step.
        head_first (bool): True (default, as the seed): [B, H, T, D]; False: [B, T, H, D]
            (Paddle's flash_attn layout).

    Returns:
        tuple: (o, final_state). o has v's shape and dtype; final_state is [B, H, Dk, Dv]
        float32, or None unless output_final_state. Both are differentiable: gradients flow to
        q, k, v, gk and initial_state.

    Shapes and dtypes are checked before anything runs: a mismatch raises ValueError (shape)
    or TypeError (dtype) naming the tensors and their shapes or dtypes.

    Example:
        >>> import numpy as np
        >>> import paddle_ops
        >>> B, H, T, D = 1, 2, 5, 4
        >>> q, k, v = (paddle_ops.to_tensor(np.random.rand(B, H, T, D).astype('float32')) for _ in range(3))
        >>> gk = paddle_ops.to_tensor(-np.random.rand(B, H, T, D).astype('float32'))
        >>> o, h = paddle_ops.gla(q, k, v, gk, output_final_state=True)
        >>> o.shape, h.shape
        ([1, 2, 5, 4], [1, 2, 4, 4])
    """
    for arg, t in (("q", q), ("k", k), ("v", v), ("gk", gk)):
        _check_tensor(t, "gla", arg)
        if t.dtype not in FLOATING:
            raise TypeError(f"gla(): argument '{arg}' must be float16, bfloat16, float32 or float64, "
                            f"but got {t.dtype}")
    if initial_state is not None:
        _check_tensor(initial_state, "gla", "initial_state")
        if initial_state.dtype != float32:
            raise TypeError(f"gla(): argument 'initial_state' must be float32, but got {initial_state.dtype}")
    scale = _gla_attrs(q, scale, output_final_state, head_first)
    return _C_ops.gla(q, k, v, gk, initial_state, scale, output_final_state, head_first)
