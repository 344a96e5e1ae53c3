#include "kernels/gpu/flood_tiles.cuh"
#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/impl/cum_scan_ops.h"
#include "kernels/impl/flood_ops.h"
#include "kernels/right_flood_kernel.h"

namespace phi {

// One fill-forward scan of source offsets on the GPU engine; rows take the fast tiles of
// flood_tiles.cuh (values carried in registers, vector loads and stores, a segment's total
// found by searching back from its end).
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

}  // namespace phi

PD_REGISTER_KERNEL(right_flood, GPU, ALL_LAYOUT, phi::RightFloodKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16, int32_t, int64_t) {}
