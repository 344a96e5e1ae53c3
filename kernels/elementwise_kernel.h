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

// Grads of add / subtract / multiply. Each grad is computed in out's (broadcast) shape and
// summed over the broadcast dims back to x's and y's shapes:
//   add:      x_grad = out_grad,      y_grad = out_grad
//   subtract: x_grad = out_grad,      y_grad = -out_grad
//   multiply: x_grad = out_grad * y,  y_grad = out_grad * x
// Paddle's declarations have an extra `int axis` (the legacy fluid broadcast axis) after
// out_grad; it is dropped deliberately: only NumPy broadcasting exists here. x_grad and
// y_grad are required (their dims/dtypes set by GeneralBinaryGradInferMeta).
template <typename T, typename Context>
void AddGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y,
                   const DenseTensor& out_grad, DenseTensor* x_grad, DenseTensor* y_grad);

template <typename T, typename Context>
void SubtractGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y,
                        const DenseTensor& out_grad, DenseTensor* x_grad, DenseTensor* y_grad);

template <typename T, typename Context>
void MultiplyGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y,
                        const DenseTensor& out_grad, DenseTensor* x_grad, DenseTensor* y_grad);

}  // namespace phi
