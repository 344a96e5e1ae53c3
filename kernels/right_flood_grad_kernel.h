// Gradient of right_flood: x_grad[j] = sum of out_grad[i] over the outputs with t(i) = j; holes
// (leading ones included: their output is a constant) get 0. One segmented-sum scan against
// the forward direction over out_grad, a run ending at every non-hole of x: deterministic, no
// atomics (the seed's kernel used atomicAdd and sent the leading holes' gradient to x[0]).
#pragma once

#include <string>

#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void RightFloodGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad, int axis,
                          bool reverse, const std::string& hole, DenseTensor* x_grad);

}  // namespace phi
