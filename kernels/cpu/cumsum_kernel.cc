#include "kernels/cumsum_kernel.h"

#include <type_traits>

#include "kernels/cpu/cum_scan_fast.h"
#include "kernels/impl/cum_scan_ops.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {

// Shared by CumsumKernel and CumsumGradKernel.
template <typename T>
void CumsumCpu(const T* x, T* out, const funcs::ScanLayout& layout, bool exclusive, bool reverse) {
  if constexpr (std::is_integral<T>::value) {
    funcs::CumsumIntOp<T> op;
    op.x = x;
    op.out = out;
    funcs::ScanCpu(layout, exclusive, reverse, op);
  } else {
    funcs::CumsumFloatOp<T, typename funcs::CpuAccType<T>::type> op;
    op.x = x;
    op.out = out;
    funcs::ScanCpu(layout, exclusive, reverse, op);
  }
}

template <typename T, typename Context>
void CumsumKernel(const Context& dev_ctx, const DenseTensor& x, const Scalar& axis, bool flatten,
                  bool exclusive, bool reverse, DenseTensor* out) {
  T* out_data = dev_ctx.template Alloc<T>(out);
  CumsumCpu<T>(x.data<T>(), out_data, CumScanLayout(x.dims(), axis.to<int64_t>(), flatten), exclusive,
               reverse);
}

template <typename T, typename Context>
void CumsumGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                      const Scalar& axis, bool flatten, bool exclusive, bool reverse,
                      DenseTensor* x_grad) {
  T* dx = dev_ctx.template Alloc<T>(x_grad);
  CumsumCpu<T>(out_grad.data<T>(), dx, CumScanLayout(x.dims(), axis.to<int64_t>(), flatten), exclusive,
               !reverse);
}

}  // namespace phi

PD_REGISTER_KERNEL(cumsum, CPU, ALL_LAYOUT, phi::CumsumKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(cumsum_grad, CPU, ALL_LAYOUT, phi::CumsumGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16, int32_t, int64_t) {}
