#include "kernels/reduce_grad_kernel.h"

#include <array>
#include <vector>

#include "kernels/cast_kernel.h"
#include "kernels/funcs/broadcast.h"
#include "kernels/funcs/eigen.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {
namespace {

// x_grad[i] = out_grad[the output element x[i] was reduced into] * scale, written in
// x_grad's dtype. out_grad is viewed with keepdim dims (reduced axes of x set to 1), which
// is its own layout whether or not keepdim was set.
template <typename T, typename Context>
void BroadcastReducedGrad(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                          const IntArray& axis, bool is_mean, DenseTensor* x_grad) {
  const DDim& x_dims = x.dims();
  const std::vector<bool> mask = funcs::ReduceAxesMask(x_dims, axis.GetData());
  DDim kept = x_dims;
  int64_t count = 1;
  for (int i = 0; i < x_dims.size(); ++i) {
    if (mask[i]) {
      count *= x_dims[i];
      kept[i] = 1;
    }
  }
  PADDLE_ENFORCE_EQ(product(kept), out_grad.numel(),
                    errors::InvalidArgument("out_grad of shape %s does not match the reduction of "
                                            "x of shape %s",
                                            out_grad.dims().to_str(), x_dims.to_str()));
  const T* g = out_grad.data<T>();
  // Named `dtype`: PD_VISIT_ALL_TYPES substitutes its parameter into `::phi::dtype::...`.
  const DataType dtype = x_grad->dtype() != DataType::UNDEFINED ? x_grad->dtype() : x.dtype();
  const auto layout = funcs::MakeBroadcastLayout<1>(x_dims, {kept});
  PD_VISIT_ALL_TYPES(dtype, "sum_grad", [&] {
    data_t* out = dev_ctx.template Alloc<data_t>(x_grad);
    funcs::ForEachBroadcastRow(layout, [&](int64_t o, int64_t n, const int64_t* off,
                                           const int64_t* step) {
      const T* pg = g + off[0];
      data_t* pz = out + o;
      if (is_mean) {
        // Divide in double and round once (count may exceed float's exact integers).
        const double c = static_cast<double>(count);
        for (int64_t i = 0; i < n; ++i)
          pz[i] = CastValue<data_t>(
              static_cast<double>(static_cast<typename funcs::ComputeType<T>::type>(pg[i * step[0]])) / c);
      } else {
        for (int64_t i = 0; i < n; ++i) pz[i] = CastValue<data_t>(pg[i * step[0]]);
      }
    });
  });
}

}  // namespace

template <typename T, typename Context>
void SumGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                   const IntArray& axis, bool keepdim, DenseTensor* x_grad) {
  BroadcastReducedGrad<T>(dev_ctx, x, out_grad, axis, false, x_grad);
}

template <typename T, typename Context>
void MeanGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                    const IntArray& axis, bool keepdim, DenseTensor* x_grad) {
  BroadcastReducedGrad<T>(dev_ctx, x, out_grad, axis, true, x_grad);
}

}  // namespace phi

PD_REGISTER_KERNEL(sum_grad, CPU, ALL_LAYOUT, phi::SumGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(mean_grad, CPU, ALL_LAYOUT, phi::MeanGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
