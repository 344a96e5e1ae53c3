// add / subtract / multiply with NumPy broadcasting (out's dims come from
// ElementwiseInferMeta). Same declarations as Paddle's phi::AddKernel etc. Integer results
// wrap on overflow; float16/bfloat16 compute in float and round once.
#pragma once

#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void AddKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y, DenseTensor* out);

template <typename T, typename Context>
void SubtractKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y,
                    DenseTensor* out);

template <typename T, typename Context>
void MultiplyKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y,
                    DenseTensor* out);

}  // namespace phi
