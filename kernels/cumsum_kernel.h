// cumsum along `axis` (SPEC.md §2). Same declaration as Paddle's phi::CumsumKernel.
#pragma once

#include "paddle_ops/common/scalar.h"
#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void CumsumKernel(const Context& dev_ctx, const DenseTensor& x, const Scalar& axis, bool flatten,
                  bool exclusive, bool reverse, DenseTensor* out);

}  // namespace phi
