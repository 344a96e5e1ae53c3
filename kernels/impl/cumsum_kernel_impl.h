// cumsum and its gradient, written once for both devices: one scan of the sum op
// (cum_scan_ops.h) on the engine of the context. Floats accumulate in CumAccType<T, Context>
// (compensated, rounded once), integers exactly in their own type.
#pragma once

#include <type_traits>

#include "kernels/cumsum_kernel.h"
#include "kernels/funcs/scan.h"
#include "kernels/impl/cum_scan_ops.h"

namespace phi {

// Shared by CumsumKernel and CumsumGradKernel.
template <typename T, typename Context>
void CumsumScan(const Context& dev_ctx, const T* x, T* out, const funcs::ScanLayout& layout, bool exclusive,
                bool reverse) {
  if constexpr (std::is_integral<T>::value) {
    funcs::CumsumIntOp<T> op;
    op.x = x;
    op.out = out;
    funcs::Scan(dev_ctx, layout, exclusive, reverse, op);
  } else {
    funcs::CumsumFloatOp<T, typename CumAccType<T, Context>::type> op;
    op.x = x;
    op.out = out;
    funcs::Scan(dev_ctx, layout, exclusive, reverse, op);
  }
}

template <typename T, typename Context>
void CumsumKernel(const Context& dev_ctx, const DenseTensor& x, const Scalar& axis, bool flatten,
                  bool exclusive, bool reverse, DenseTensor* out) {
  T* out_data = dev_ctx.template Alloc<T>(out);
  CumsumScan<T>(dev_ctx, x.data<T>(), out_data, CumScanLayout(x.dims(), axis.to<int64_t>(), flatten), exclusive,
                reverse);
}

// The gradient flows against the forward direction.
template <typename T, typename Context>
void CumsumGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                      const Scalar& axis, bool flatten, bool exclusive, bool reverse,
                      DenseTensor* x_grad) {
  T* dx = dev_ctx.template Alloc<T>(x_grad);
  CumsumScan<T>(dev_ctx, out_grad.data<T>(), dx, CumScanLayout(x.dims(), axis.to<int64_t>(), flatten), exclusive,
                !reverse);
}

}  // namespace phi
