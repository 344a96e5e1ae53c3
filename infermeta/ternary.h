// Shape functions of three-input ops (Paddle keeps these in phi/infermeta/ternary.h).
#pragma once

#include "paddle_ops/core/meta_tensor.h"

namespace phi {

// pscan(a, x, initial_state?, reverse) -> out: x is [N, T, D] of a floating type; a is
// [N, T] or [N, T, D]; initial_state (absent: a null MetaTensor) is [N, D]; a and
// initial_state have x's dtype. out is like x. A shape mismatch raises InvalidArgument
// (ValueError) naming both tensors and their shapes; a dtype mismatch InvalidType.
void PscanInferMeta(const MetaTensor& a, const MetaTensor& x, const MetaTensor& initial_state,
                    bool reverse, MetaTensor* out);

// pscan_grad(a, initial_state?, out, out_grad, reverse) -> a_grad (like a), x_grad (like
// out), initial_state_grad (like initial_state; left unset when it is absent).
void PscanGradInferMeta(const MetaTensor& a, const MetaTensor& initial_state, const MetaTensor& out,
                        const MetaTensor& out_grad, bool reverse, MetaTensor* a_grad,
                        MetaTensor* x_grad, MetaTensor* initial_state_grad);

}  // namespace phi
