// cumsum along `axis` (docs/spec.md §2). Same declaration as Paddle's phi::CumsumKernel.
#pragma once

#include "paddle_ops/common/scalar.h"
#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void CumsumKernel(const Context& dev_ctx, const DenseTensor& x, const Scalar& axis, bool flatten,
                  bool exclusive, bool reverse, DenseTensor* out);

// Gradient of cumsum: the cumsum of out_grad in the opposite direction (same exclusive).
// Same declaration as Paddle's phi::CumsumGradKernel.
template <typename T, typename Context>
void CumsumGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                      const Scalar& axis, bool flatten, bool exclusive, bool reverse,
                      DenseTensor* x_grad);

}  // namespace phi
