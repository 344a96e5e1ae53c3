// Gradient of gla (SPEC.md §5): q_grad, k_grad, v_grad, gk_grad and initial_state_grad from
// o_grad and final_state_grad (absent: 0). gk_grad is the reverse cumulative sum along T of
// q * q_grad - k * k_grad, plus sum_j (final_state_grad * final_state)[:, j] at every step.
// initial_state_grad (float32) is left unallocated when there is no initial_state.
#pragma once

#include "paddle_ops/common/optional.h"
#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void GlaGradKernel(const Context& dev_ctx, const DenseTensor& q, const DenseTensor& k,
                   const DenseTensor& v, const DenseTensor& gk,
                   const paddle::optional<DenseTensor>& initial_state, const DenseTensor& o_grad,
                   const paddle::optional<DenseTensor>& final_state_grad, double scale, bool head_first,
                   DenseTensor* q_grad, DenseTensor* k_grad, DenseTensor* v_grad, DenseTensor* gk_grad,
                   DenseTensor* initial_state_grad);

}  // namespace phi
