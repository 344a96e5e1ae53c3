// gla: chunked gated linear attention (docs/spec.md §5, seed 002). q, k, gk [B, H, T, Dk] and
// v [B, H, T, Dv] (head_first; otherwise [B, T, H, D], Paddle's flash_attn layout):
//   h_t = h_{t-1} * exp(gk_t)[:, None] + k_t ⊗ v_t,   o_t = (q_t * scale) @ h_t
// with h_{-1} = initial_state ([B, H, Dk, Dv] float32; absent: 0). o is like v; final_state
// (h_{T-1}, float32) is written only when output_final_state. Paddle has no such kernel; the
// declaration follows phi's conventions (inputs, attributes, outputs). The state and the
// cumulative decays are kept in float32 (float64 for float64). gk may be float32 beside 16-bit
// q, k, v (computed in float32 then). cu_seqlens (int32 or int64, N + 1 offsets, B = 1): N
// packed sequences along T, each with its own initial_state and final_state ([N, H, Dk, Dv]).
#pragma once

#include "paddle_ops/common/optional.h"
#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void GlaKernel(const Context& dev_ctx, const DenseTensor& q, const DenseTensor& k, const DenseTensor& v,
               const DenseTensor& gk, const paddle::optional<DenseTensor>& initial_state,
               const paddle::optional<DenseTensor>& cu_seqlens, double scale, bool output_final_state,
               bool head_first, DenseTensor* o, DenseTensor* final_state);

// Gradient of gla (docs/spec.md §5): q_grad, k_grad, v_grad, gk_grad and initial_state_grad from
// o_grad and final_state_grad (absent: 0). gk_grad is the reverse cumulative sum along T of
// q * q_grad - k * k_grad, plus sum_j (final_state_grad * final_state)[:, j] at every step.
// initial_state_grad (float32) is left unallocated when there is no initial_state.
template <typename T, typename Context>
void GlaGradKernel(const Context& dev_ctx, const DenseTensor& q, const DenseTensor& k,
                   const DenseTensor& v, const DenseTensor& gk,
                   const paddle::optional<DenseTensor>& initial_state,
                   const paddle::optional<DenseTensor>& cu_seqlens, const DenseTensor& o_grad,
                   const paddle::optional<DenseTensor>& final_state_grad, double scale, bool head_first,
                   DenseTensor* q_grad, DenseTensor* k_grad, DenseTensor* v_grad, DenseTensor* gk_grad,
                   DenseTensor* initial_state_grad);

}  // namespace phi
