#include "kernels/logcumsumexp_grad_kernel.h"

#include "kernels/cpu/cum_scan_fast.h"
#include "kernels/impl/cum_scan_ops.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {

template <typename T, typename Context>
void LogcumsumexpGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out,
                            const DenseTensor& d_out, int axis, bool flatten, bool exclusive,
                            bool reverse, DenseTensor* d_x) {
  using Acc = typename funcs::CpuAccType<T>::type;
  funcs::LogcumsumexpGradOp<T, Acc> op;
  op.x = x.data<T>();
  op.out = out.data<T>();
  op.out_grad = d_out.data<T>();
  op.x_grad = dev_ctx.template Alloc<T>(d_x);
  op.exclusive = exclusive;
  // The gradient flows against the forward direction.
  funcs::ScanCpu(CumScanLayout(x.dims(), axis, flatten), exclusive, !reverse, op);
}

}  // namespace phi

PD_REGISTER_KERNEL(logcumsumexp_grad, CPU, ALL_LAYOUT, phi::LogcumsumexpGradKernel, float,
                   double, phi::dtype::float16, phi::dtype::bfloat16) {}
