// Grads of sum and mean: out_grad broadcast back over the reduced axes (divided by the
// number of reduced elements for mean). T is out_grad's dtype; x_grad is written in its own
// dtype (x's), which differs from T when sum was given a `dtype`.
// Same declarations as Paddle's phi::SumGradKernel/MeanGradKernel (Paddle's sum_grad has an
// extra `reduce_all` flag; here an empty axis means all axes).
#pragma once

#include "paddle_ops/common/scalar.h"
#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void SumGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                   const IntArray& axis, bool keepdim, DenseTensor* x_grad);

template <typename T, typename Context>
void MeanGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                    const IntArray& axis, bool keepdim, DenseTensor* x_grad);

}  // namespace phi
