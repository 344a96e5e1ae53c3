#include "kernels/gpu/logcumsumexp_tiles.cuh"
#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/impl/cum_scan_ops.h"
#include "kernels/logcumsumexp_grad_kernel.h"

namespace phi {

// One reverse gated-recurrence scan (cum_scan_ops.h), against the forward's direction; float32
// and 16-bit inputs take the fast tiles of logcumsumexp_tiles.cuh where they are exact.
template <typename T, typename Context>
void LogcumsumexpGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out,
                            const DenseTensor& d_out, int axis, bool flatten, bool exclusive,
                            bool reverse, DenseTensor* d_x) {
  funcs::LogcumsumexpGradOp<T, double> op;
  op.x = x.data<T>();
  op.out = out.data<T>();
  op.out_grad = d_out.data<T>();
  op.x_grad = dev_ctx.template Alloc<T>(d_x);
  op.exclusive = exclusive;
  funcs::Scan(dev_ctx, CumScanLayout(x.dims(), axis, flatten), exclusive, !reverse, op);
}

}  // namespace phi

PD_REGISTER_KERNEL(logcumsumexp_grad, GPU, ALL_LAYOUT, phi::LogcumsumexpGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
