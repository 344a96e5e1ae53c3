// Gradients of repeat_interleave: x_grad of a slice is the sum of out_grad over its copies (a
// segment sum, in a fixed order: deterministic). A slice repeated 0 times gets 0.
#pragma once

#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void RepeatInterleaveGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                                int repeats, int axis, DenseTensor* x_grad);

template <typename T, typename Context>
void RepeatInterleaveWithTensorIndexGradKernel(const Context& dev_ctx, const DenseTensor& x,
                                               const DenseTensor& repeats, const DenseTensor& out_grad, int axis,
                                               DenseTensor* x_grad);

}  // namespace phi
