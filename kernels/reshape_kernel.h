// reshape and its grad. Both are views: the output shares the input's allocation with the
// new dims (ReshapeInferMeta resolves -1 and 0 entries and checks numel).
// Same declarations as Paddle's phi::ReshapeKernel/ReshapeGradKernel.
#pragma once

#include "paddle_ops/common/scalar.h"
#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void ReshapeKernel(const Context& dev_ctx, const DenseTensor& x, const IntArray& shape,
                   DenseTensor* out);

template <typename T, typename Context>
void ReshapeGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                       DenseTensor* x_grad);

}  // namespace phi
