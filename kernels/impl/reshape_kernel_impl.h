// Reshape and its grad share the input's allocation: no data moves, on any device, so one
// definition serves the CPU and GPU registrations.
#pragma once

#include "kernels/reshape_kernel.h"

namespace phi {

template <typename T, typename Context>
void ReshapeKernel(const Context& dev_ctx, const DenseTensor& x, const IntArray& shape,
                   DenseTensor* out) {
  // ShareDataWith copies x's meta too, so keep the dims ReshapeInferMeta set.
  const DDim dims = out->dims();
  PADDLE_ENFORCE_EQ(product(dims), x.numel(),
                    errors::InvalidArgument("cannot reshape a tensor of shape %s into %s",
                                            x.dims().to_str(), dims.to_str()));
  out->ShareDataWith(x);
  out->Resize(dims);
}

template <typename T, typename Context>
void ReshapeGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                       DenseTensor* x_grad) {
  const DDim dims = x.dims();
  PADDLE_ENFORCE_EQ(product(dims), out_grad.numel(),
                    errors::InvalidArgument("reshape_grad: out_grad of shape %s does not match x of "
                                            "shape %s",
                                            out_grad.dims().to_str(), dims.to_str()));
  x_grad->ShareDataWith(out_grad);
  x_grad->Resize(dims);
}

}  // namespace phi
