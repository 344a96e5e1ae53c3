// right_flood and its gradient, written once for both devices: one fill-forward scan of
// source offsets, and one segmented-sum scan against the forward direction (flood_ops.h). On
// the GPU both take the op's tiles of kernels/gpu/flood_tiles.cuh (values carried in registers,
// vector loads and stores, a segment's total found by searching back from its end, few long
// rows split instead of looked back); the CPU runs the engine's generic path.
#pragma once

#include <string>

#include "kernels/funcs/scan.h"
#include "kernels/impl/cum_scan_ops.h"
#include "kernels/impl/flood_ops.h"
#include "kernels/right_flood_kernel.h"

namespace phi {

template <typename T, typename Context>
void RightFloodKernel(const Context& dev_ctx, const DenseTensor& x, int axis, bool reverse,
                      const std::string& hole, bool return_index, DenseTensor* out, DenseTensor* index) {
  const funcs::ScanLayout l = CumScanLayout(x.dims(), axis, false);
  funcs::RightFloodOp<T> op;
  op.x = x.data<T>();
  op.out = dev_ctx.template Alloc<T>(out);
  op.index = return_index ? dev_ctx.template Alloc<int64_t>(index) : nullptr;
  op.hole = ParseFloodHole(hole);
  op.axis = funcs::AxisIndexOf(l);
  funcs::Scan(dev_ctx, l, false, reverse, op);
}

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
