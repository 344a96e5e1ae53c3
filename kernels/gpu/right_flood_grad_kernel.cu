#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/impl/cum_scan_ops.h"
#include "kernels/impl/flood_ops.h"
#include "kernels/right_flood_grad_kernel.h"

namespace phi {

template <typename T, typename Context>
void RightFloodGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad, int axis,
                          bool reverse, const std::string& hole, DenseTensor* x_grad) {
  funcs::RightFloodGradOp<T, typename funcs::FloodGradAcc<T>::type> op;
  op.x = x.data<T>();
  op.out_grad = out_grad.data<T>();
  op.x_grad = dev_ctx.template Alloc<T>(x_grad);
  op.hole = ParseFloodHole(hole);
  funcs::Scan(dev_ctx, CumScanLayout(x.dims(), axis, false), false, !reverse, op);
}

}  // namespace phi

PD_REGISTER_KERNEL(right_flood_grad, GPU, ALL_LAYOUT, phi::RightFloodGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
