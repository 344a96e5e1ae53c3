// full_like: a tensor of x's shape filled with `value`, in the kernel's dtype T (the `dtype`
// argument, or x's dtype when it is not given). A value that does not fit T (an integer type's
// range, or a finite value that overflows a float type to inf; NaN/inf into an integer type)
// raises InvalidArgument, as Paddle does. For bool, any non-zero value is true.
// Same declaration as Paddle's phi::FullLikeKernel.
#pragma once

#include "paddle_ops/common/scalar.h"
#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void FullLikeKernel(const Context& dev_ctx, const DenseTensor& x, const Scalar& value,
                    DataType dtype, DenseTensor* out);

}  // namespace phi
