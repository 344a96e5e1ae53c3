#include <type_traits>

#include "kernels/cumsum_grad_kernel.h"
#include "kernels/cumsum_kernel.h"
#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/impl/cum_scan_ops.h"

namespace phi {

// Floats accumulate in compensated float64 and round once; integers exactly in their type.
template <typename T>
void CumsumGpu(const GPUContext& ctx, const T* x, T* out, const funcs::ScanLayout& layout, bool exclusive,
               bool reverse) {
  if constexpr (std::is_integral<T>::value) {
    funcs::CumsumIntOp<T> op;
    op.x = x;
    op.out = out;
    funcs::Scan(ctx, layout, exclusive, reverse, op);
  } else {
    funcs::CumsumFloatOp<T, double> op;
    op.x = x;
    op.out = out;
    funcs::Scan(ctx, layout, exclusive, reverse, op);
  }
}

template <typename T, typename Context>
void CumsumKernel(const Context& dev_ctx, const DenseTensor& x, const Scalar& axis, bool flatten,
                  bool exclusive, bool reverse, DenseTensor* out) {
  T* o = dev_ctx.template Alloc<T>(out);
  CumsumGpu<T>(dev_ctx, x.data<T>(), o, CumScanLayout(x.dims(), axis.to<int64_t>(), flatten), exclusive, reverse);
}

template <typename T, typename Context>
void CumsumGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                      const Scalar& axis, bool flatten, bool exclusive, bool reverse, DenseTensor* x_grad) {
  T* dx = dev_ctx.template Alloc<T>(x_grad);
  CumsumGpu<T>(dev_ctx, out_grad.data<T>(), dx, CumScanLayout(x.dims(), axis.to<int64_t>(), flatten), exclusive,
               !reverse);
}

}  // namespace phi

PD_REGISTER_KERNEL(cumsum, GPU, ALL_LAYOUT, phi::CumsumKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(cumsum_grad, GPU, ALL_LAYOUT, phi::CumsumGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16, int32_t, int64_t) {}
