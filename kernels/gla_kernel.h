// gla: chunked gated linear attention (SPEC.md §5, seed 002). q, k, gk [B, H, T, Dk] and
// v [B, H, T, Dv] (head_first; otherwise [B, T, H, D], Paddle's flash_attn layout):
//   h_t = h_{t-1} * exp(gk_t)[:, None] + k_t ⊗ v_t,   o_t = (q_t * scale) @ h_t
// with h_{-1} = initial_state ([B, H, Dk, Dv] float32; absent: 0). o is like v; final_state
// (h_{T-1}, float32) is written only when output_final_state. Paddle has no such kernel; the
// declaration follows phi's conventions (inputs, attributes, outputs). The state and the
// cumulative decays are kept in float32 (float64 for float64).
#pragma once

#include "paddle_ops/common/optional.h"
#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void GlaKernel(const Context& dev_ctx, const DenseTensor& q, const DenseTensor& k, const DenseTensor& v,
               const DenseTensor& gk, const paddle::optional<DenseTensor>& initial_state, double scale,
               bool output_final_state, bool head_first, DenseTensor* o, DenseTensor* final_state);

}  // namespace phi
