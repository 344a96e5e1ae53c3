// add / subtract / multiply and their grads on the GPU, with NumPy broadcasting (util/broadcast.h).
#include "kernels/elementwise_kernel.h"

#include "kernels/util/broadcast.h"
#include "kernels/util/gpu_launch.cuh"
#include "kernels/util/reduce_gpu.cuh"

namespace phi {
namespace funcs {

// out[k] = f(x[...], y[...]) over the broadcast shape, computed in float for 16-bit types.
template <typename T, typename F>
void BinaryBroadcastGpu(const GPUContext& ctx, const DenseTensor& x, const DenseTensor& y, DenseTensor* out, F f) {
  const auto l = MakeBroadcastLayout<2>(out->dims(), {x.dims(), y.dims()});
  const T* px = x.data<T>();
  const T* py = y.data<T>();
  T* po = ctx.Alloc<T>(out);
  using C = typename GpuComputeType<T>::type;
  ForEachIndex(ctx, l.numel, [=] __device__(int64_t k) {
    const C a = static_cast<C>(px[BroadcastOffset(l, 0, k)]);
    const C b = static_cast<C>(py[BroadcastOffset(l, 1, k)]);
    po[k] = CastValue<T>(f(a, b));
  });
}

struct AddFn {
  template <typename C>
  HOSTDEVICE C operator()(C a, C b) const { return a + b; }
};
struct SubFn {
  template <typename C>
  HOSTDEVICE C operator()(C a, C b) const { return a - b; }
};
struct MulFn {
  template <typename C>
  HOSTDEVICE C operator()(C a, C b) const { return a * b; }
};
// Integers wrap (two's complement) instead of overflowing as signed.
template <typename T>
struct WrapFn {
  int op;  // 0 add, 1 subtract, 2 multiply
  HOSTDEVICE T operator()(T a, T b) const {
    using U = typename std::make_unsigned<T>::type;
    const U ua = static_cast<U>(a), ub = static_cast<U>(b);
    return static_cast<T>(op == 0 ? ua + ub : op == 1 ? ua - ub : ua * ub);
  }
};

template <typename T, typename F>
void BinaryOp(const GPUContext& ctx, const DenseTensor& x, const DenseTensor& y, DenseTensor* out, F f, int op) {
  if constexpr (std::is_integral<T>::value) {
    BinaryBroadcastGpu<T>(ctx, x, y, out, WrapFn<T>{op});
  } else {
    BinaryBroadcastGpu<T>(ctx, x, y, out, f);
  }
}

}  // namespace funcs

template <typename T, typename Context>
void AddKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y, DenseTensor* out) {
  funcs::BinaryOp<T>(dev_ctx, x, y, out, funcs::AddFn(), 0);
}
template <typename T, typename Context>
void SubtractKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y, DenseTensor* out) {
  funcs::BinaryOp<T>(dev_ctx, x, y, out, funcs::SubFn(), 1);
}
template <typename T, typename Context>
void MultiplyKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y, DenseTensor* out) {
  funcs::BinaryOp<T>(dev_ctx, x, y, out, funcs::MulFn(), 2);
}

}  // namespace phi

PD_REGISTER_KERNEL(add, GPU, ALL_LAYOUT, phi::AddKernel, float, double, phi::dtype::float16, phi::dtype::bfloat16,
                   int32_t, int64_t) {}
PD_REGISTER_KERNEL(subtract, GPU, ALL_LAYOUT, phi::SubtractKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(multiply, GPU, ALL_LAYOUT, phi::MultiplyKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16, int32_t, int64_t) {}

// ---- gradients ----------------------------------------------------------------------------------
// Grads of add / subtract / multiply on the GPU: each grad in out's shape, summed over the
// broadcast dims back to its input's shape (deterministic block reductions).

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
