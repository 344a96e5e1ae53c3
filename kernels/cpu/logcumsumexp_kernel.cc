#include "kernels/logcumsumexp_kernel.h"

#include "kernels/cpu/cum_scan_fast.h"
#include "kernels/impl/cum_scan_ops.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {

template <typename T, typename Context>
void LogcumsumexpKernel(const Context& dev_ctx, const DenseTensor& x, int axis, bool flatten,
                        bool exclusive, bool reverse, DenseTensor* out) {
  using Acc = typename funcs::CpuAccType<T>::type;
  funcs::LogcumsumexpOp<T, Acc> op;
  op.x = x.data<T>();
  op.out = dev_ctx.template Alloc<T>(out);
  funcs::ScanCpu(CumScanLayout(x.dims(), axis, flatten), exclusive, reverse, op);
}

}  // namespace phi

PD_REGISTER_KERNEL(logcumsumexp, CPU, ALL_LAYOUT, phi::LogcumsumexpKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
