// Shape functions of ops with four or more inputs (Paddle keeps these in phi/infermeta/multiary.h).
#pragma once

#include "paddle_ops/common/scalar.h"
#include "paddle_ops/core/meta_tensor.h"

namespace phi {

// gla(q, k, v, gk, initial_state?, cu_seqlens?, scale, output_final_state, head_first) -> o,
// final_state? (docs/spec.md §5). head_first: q, k, gk [B, H, T, Dk] and v [B, H, T, Dv];
// otherwise [B, T, H, Dk] / [B, T, H, Dv]. q, k, v, gk share one floating dtype (gk may be
// float32 beside 16-bit q); initial_state is [N, H, Dk, Dv] float32 with N = B, or with
// cu_seqlens (1-D int32/int64, N + 1 offsets; B must be 1) the number of sequences. o is like
// v; final_state [N, H, Dk, Dv] float32, set only when output_final_state. A shape mismatch raises InvalidArgument (ValueError) naming the tensors
// and their shapes; a dtype mismatch InvalidType (TypeError).
void GlaInferMeta(const MetaTensor& q, const MetaTensor& k, const MetaTensor& v, const MetaTensor& gk,
                  const MetaTensor& initial_state, const MetaTensor& cu_seqlens, double scale,
                  bool output_final_state, bool head_first, MetaTensor* o, MetaTensor* final_state);

// gla_grad(q, k, v, gk, initial_state?, cu_seqlens?, o_grad, final_state_grad?, scale,
//   head_first) -> q_grad, k_grad, v_grad, gk_grad (like their inputs), initial_state_grad
//   (float32, set only when there is an initial_state). o_grad must be like v, final_state_grad
//   [N, H, Dk, Dv] float32.
void GlaGradInferMeta(const MetaTensor& q, const MetaTensor& k, const MetaTensor& v,
                      const MetaTensor& gk, const MetaTensor& initial_state, const MetaTensor& cu_seqlens,
                      const MetaTensor& o_grad, const MetaTensor& final_state_grad, double scale,
                      bool head_first, MetaTensor* q_grad, MetaTensor* k_grad, MetaTensor* v_grad,
                      MetaTensor* gk_grad, MetaTensor* initial_state_grad);

}  // namespace phi
