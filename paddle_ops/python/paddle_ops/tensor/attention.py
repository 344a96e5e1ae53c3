"""Attention-like ops: gla, chunked gated linear attention (docs/spec.md §5, seed 002)."""
from __future__ import annotations

from .._C import Tensor
from .._front_native import front
from .._typing import Literal, overload

__all__ = ["gla"]


@overload
def gla(q: Tensor, k: Tensor, v: Tensor, gk: Tensor, scale: float | None = None, initial_state: Tensor | None = None,
        output_final_state: Literal[False] = False, head_first: bool = True,
        cu_seqlens: Tensor | None = None, name: str | None = None) -> tuple[Tensor, None]: ...
@overload
def gla(q: Tensor, k: Tensor, v: Tensor, gk: Tensor, scale: float | None = None, initial_state: Tensor | None = None,
        *, output_final_state: Literal[True], head_first: bool = True,
        cu_seqlens: Tensor | None = None, name: str | None = None) -> tuple[Tensor, Tensor]: ...
@overload
def gla(q: Tensor, k: Tensor, v: Tensor, gk: Tensor, scale: float | None, initial_state: Tensor | None,
        output_final_state: bool, head_first: bool = True,
        cu_seqlens: Tensor | None = None, name: str | None = None) -> tuple[Tensor, Tensor | None]: ...
def gla(q, k, v, gk, scale=None, initial_state=None, output_final_state=False, head_first=True, cu_seqlens=None,
        name=None):
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
        gk (Tensor): the log-space decay per step and key channel, shape of q, dtype of q or
            float32 beside float16/bfloat16 q (then computed in float32, o rounded once); it
            should be <= 0 (e.g. ``logsigmoid(x) / 16``). Positive values are computed as given
            (the state then grows).
        scale (float, optional): the query scale; None (default) is ``Dk ** -0.5``.
        initial_state (Tensor, optional): [N, H, Dk, Dv] float32, the state before the first step
            (N = B, or the number of sequences with cu_seqlens).
        output_final_state (bool): also return the state after the last step.
        head_first (bool): True (default, as the seed): [B, H, T, D]; False: [B, T, H, D]
            (Paddle's flash_attn layout).
        cu_seqlens (Tensor, optional): variable-length sequences packed along T (B must be 1):
            int32 or int64 offsets [0, t_1, ..., T] (N + 1 entries, never decreasing); each
            sequence runs from its own initial_state[n] (zeros without one) and ends in
            final_state[n].

    Returns:
        tuple: (o, final_state). o has v's shape and dtype; final_state is [N, H, Dk, Dv]
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
    return front.gla(q, k, v, gk, scale, initial_state, output_final_state, head_first, cu_seqlens, name)
