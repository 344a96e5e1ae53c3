// Grads of add / subtract / multiply on the GPU: each grad in out's shape, summed over the
// broadcast dims back to its input's shape (deterministic block reductions).
#include "kernels/elementwise_kernel.h"
#include "kernels/util/broadcast.h"
#include "kernels/util/reduce_gpu.cuh"

namespace phi {
namespace {

// grad = scale * out_grad * (other, broadcast) in out's shape, reduced to `target`'s shape.
// `other` null means no factor.
template <typename T>
void ReducedGrad(const GPUContext& ctx, const DenseTensor& out_grad, const DenseTensor* other, double scale,
                 DenseTensor* grad) {
  if (!grad) return;
  const DDim& od = out_grad.dims();
  const T* g = out_grad.data<T>();
  const int64_t n = out_grad.numel();
  const T* src_t = g;
  using C = typename funcs::GpuComputeType<T>::type;
  DenseTensor prod;
  if (other != nullptr || scale != 1.0) {
    prod = DenseTensor(out_grad.dtype(), od);
    T* pp = ctx.Alloc<T>(&prod);
    const T* po = other ? other->data<T>() : nullptr;
    const auto l = funcs::MakeBroadcastLayout<1>(od, {other ? other->dims() : od});
    funcs::ForEachIndex(ctx, n, [=] __device__(int64_t k) {
      C v = static_cast<C>(g[k]) * static_cast<C>(scale);
      if (po) v = v * static_cast<C>(po[funcs::BroadcastOffset(l, 0, k)]);
      pp[k] = CastValue<T>(v);
    });
    src_t = pp;
  }
  const std::vector<bool> mask = funcs::BroadcastReduceMask(od, grad->dims());
  T* out = ctx.Alloc<T>(grad);
  funcs::ReduceSumGpu<T, double, T>(ctx, src_t, od, mask, out);
}

}  // namespace

template <typename T, typename Context>
void AddGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y, const DenseTensor& out_grad,
                   DenseTensor* x_grad, DenseTensor* y_grad) {
  ReducedGrad<T>(dev_ctx, out_grad, nullptr, 1.0, x_grad);
  ReducedGrad<T>(dev_ctx, out_grad, nullptr, 1.0, y_grad);
}

template <typename T, typename Context>
void SubtractGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y,
                        const DenseTensor& out_grad, DenseTensor* x_grad, DenseTensor* y_grad) {
  ReducedGrad<T>(dev_ctx, out_grad, nullptr, 1.0, x_grad);
  ReducedGrad<T>(dev_ctx, out_grad, nullptr, -1.0, y_grad);
}

template <typename T, typename Context>
void MultiplyGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y,
                        const DenseTensor& out_grad, DenseTensor* x_grad, DenseTensor* y_grad) {
  ReducedGrad<T>(dev_ctx, out_grad, &y, 1.0, x_grad);
  ReducedGrad<T>(dev_ctx, out_grad, &x, 1.0, y_grad);
}

}  // namespace phi

PD_REGISTER_KERNEL(add_grad, GPU, ALL_LAYOUT, phi::AddGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(subtract_grad, GPU, ALL_LAYOUT, phi::SubtractGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(multiply_grad, GPU, ALL_LAYOUT, phi::MultiplyGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
