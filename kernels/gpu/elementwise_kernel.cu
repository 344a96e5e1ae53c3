// add / subtract / multiply on the GPU, with NumPy broadcasting (layout from util/broadcast.h).
#include "kernels/elementwise_kernel.h"
#include "kernels/util/broadcast.h"
#include "kernels/util/gpu_launch.cuh"

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
