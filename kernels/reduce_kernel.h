// sum and mean over `axis` (empty: all axes); out's dims/dtype come from
// SumInferMeta / ReduceInferMeta. Same declarations as Paddle's phi::SumKernel/MeanKernel.
//   sum: float inputs accumulate in double, integer and bool inputs in int64 (exact), and
//        the result is written in out->dtype() (the `dtype` argument, or int64 for int32/bool
//        x). When a float x is summed into an integer or bool dtype, each element is cast to
//        that dtype first (as NumPy's sum(dtype=...) and Paddle do).
//   mean: float types; the mean of zero elements is NaN.
#pragma once

#include "paddle_ops/common/scalar.h"
#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void SumKernel(const Context& dev_ctx, const DenseTensor& x, const IntArray& axis,
               DataType out_dtype, bool keepdim, DenseTensor* out);

template <typename T, typename Context>
void MeanKernel(const Context& dev_ctx, const DenseTensor& x, const IntArray& axis, bool keepdim,
                DenseTensor* out);

// Grads of sum and mean: out_grad broadcast back over the reduced axes (divided by the
// number of reduced elements for mean). T is out_grad's dtype; x_grad is written in its own
// dtype (x's), which differs from T when sum was given a `dtype`.
// Same declarations as Paddle's phi::SumGradKernel/MeanGradKernel (Paddle's sum_grad has an
// extra `reduce_all` flag; here an empty axis means all axes).
template <typename T, typename Context>
void SumGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                   const IntArray& axis, bool keepdim, DenseTensor* x_grad);

template <typename T, typename Context>
void MeanGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                    const IntArray& axis, bool keepdim, DenseTensor* x_grad);

}  // namespace phi
