// logcumsumexp and its gradient, written once for both devices. The forward is one scan of the
// (max, compensated sum) state, the gradient one reverse gated-recurrence scan against the
// forward's direction (cum_scan_ops.h), both in CumAccType<T, Context>: float64 for every input
// type (on the GPU so that float32 rows of 2^26 stay within the docs/spec.md bound, which a float32
// running state would not). Where they are exact, float32 and 16-bit inputs take the
// op's fast paths instead: kernels/cpu/cum_scan_fast.h (SIMD) and
// kernels/gpu/logcumsumexp_tiles.cuh (one float32 exp per element).
#pragma once

#include "kernels/funcs/scan.h"
#include "kernels/impl/cum_scan_ops.h"
#include "kernels/logcumsumexp_kernel.h"

namespace phi {

template <typename T, typename Context>
void LogcumsumexpKernel(const Context& dev_ctx, const DenseTensor& x, int axis, bool flatten,
                        bool exclusive, bool reverse, DenseTensor* out) {
  funcs::LogcumsumexpOp<T, typename CumAccType<T, Context>::type> op;
  op.x = x.data<T>();
  op.out = dev_ctx.template Alloc<T>(out);
  funcs::Scan(dev_ctx, CumScanLayout(x.dims(), axis, flatten), exclusive, reverse, op);
}

template <typename T, typename Context>
void LogcumsumexpGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out,
                            const DenseTensor& d_out, int axis, bool flatten, bool exclusive,
                            bool reverse, DenseTensor* d_x) {
  funcs::LogcumsumexpGradOp<T, typename CumAccType<T, Context>::type> op;
  op.x = x.data<T>();
  op.out = out.data<T>();
  op.out_grad = d_out.data<T>();
  op.x_grad = dev_ctx.template Alloc<T>(d_x);
  op.exclusive = exclusive;
  // The gradient flows against the forward direction.
  funcs::Scan(dev_ctx, CumScanLayout(x.dims(), axis, flatten), exclusive, !reverse, op);
}

}  // namespace phi
