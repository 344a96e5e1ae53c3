// sum_grad / mean_grad on the GPU: out_grad broadcast back over the reduced axes.
#include "kernels/reduce_kernel.h"
#include "kernels/util/broadcast.h"
#include "kernels/util/gpu_launch.cuh"

namespace phi {
namespace {

template <typename T, typename Context>
void BroadcastReducedGradGpu(const Context& ctx, const DenseTensor& x, const DenseTensor& out_grad,
                             const IntArray& axis, bool is_mean, DenseTensor* x_grad) {
  const funcs::ReducedGradView view = funcs::MakeReducedGradView(x.dims(), axis.GetData(), out_grad.dims());
  const auto l = view.layout;
  const int64_t count = view.count;
  const T* g = out_grad.data<T>();
  const double inv = is_mean ? 1.0 / static_cast<double>(count) : 1.0;
  const DataType dtype = x_grad->dtype() != DataType::UNDEFINED ? x_grad->dtype() : x.dtype();
  PD_VISIT_ALL_TYPES(dtype, "sum_grad", [&] {
    data_t* o = ctx.template Alloc<data_t>(x_grad);
    funcs::ForEachIndex(ctx, l.numel, [=] __device__(int64_t k) {
      const double v = CastValue<double>(g[funcs::BroadcastOffset(l, 0, k)]);
      o[k] = CastValue<data_t>(is_mean ? v * inv : v);
    });
  });
}

}  // namespace

template <typename T, typename Context>
void SumGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad, const IntArray& axis,
                   bool keepdim, DenseTensor* x_grad) {
  BroadcastReducedGradGpu<T>(dev_ctx, x, out_grad, axis, false, x_grad);
}

template <typename T, typename Context>
void MeanGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad, const IntArray& axis,
                    bool keepdim, DenseTensor* x_grad) {
  BroadcastReducedGradGpu<T>(dev_ctx, x, out_grad, axis, true, x_grad);
}

}  // namespace phi

PD_REGISTER_KERNEL(sum_grad, GPU, ALL_LAYOUT, phi::SumGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(mean_grad, GPU, ALL_LAYOUT, phi::MeanGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
