#include "kernels/gpu/logcumsumexp_tiles.cuh"
#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/impl/cum_scan_ops.h"
#include "kernels/logcumsumexp_kernel.h"

namespace phi {

// GPU logcumsumexp: the (max, compensated sum) state in float64 for every input type, so
// float32 rows of 2^26 stay within the SPEC bound (a float32 running state would not). For
// float32 and 16-bit inputs the engine takes the fast tiles of logcumsumexp_tiles.cuh (one
// float32 exp per element) wherever they are exact, the generic state elsewhere.
template <typename T, typename Context>
void LogcumsumexpKernel(const Context& dev_ctx, const DenseTensor& x, int axis, bool flatten,
                        bool exclusive, bool reverse, DenseTensor* out) {
  funcs::LogcumsumexpOp<T, double> op;
  op.x = x.data<T>();
  op.out = dev_ctx.template Alloc<T>(out);
  funcs::Scan(dev_ctx, CumScanLayout(x.dims(), axis, flatten), exclusive, reverse, op);
}

}  // namespace phi

PD_REGISTER_KERNEL(logcumsumexp, GPU, ALL_LAYOUT, phi::LogcumsumexpKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
