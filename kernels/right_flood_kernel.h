// right_flood: fill holes from the left along `axis` (docs/spec.md §4, seed 003):
//   out[i] = x[t(i)],  t(i) = max{ j <= i : x[j] is not a hole }
// holes being zeros (hole = "zero", the seed) or NaN ("nan", pandas' ffill); reverse=true
// fills from the right. Leading holes stay as they are. `index` (int64, t along the axis, -1
// for a leading hole) is written only when return_index is true; otherwise it stays
// unallocated (an absent optional output). Paddle has no such kernel; the declaration follows
// phi's conventions.
#pragma once

#include <string>

#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void RightFloodKernel(const Context& dev_ctx, const DenseTensor& x, int axis, bool reverse,
                      const std::string& hole, bool return_index, DenseTensor* out, DenseTensor* index);

// Gradient of right_flood: x_grad[j] = sum of out_grad[i] over the outputs with t(i) = j; holes
// (leading ones included: their output is a constant) get 0. One segmented-sum scan against
// the forward direction over out_grad, a run ending at every non-hole of x: deterministic, no
// atomics (the seed's kernel used atomicAdd and sent the leading holes' gradient to x[0]).
template <typename T, typename Context>
void RightFloodGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad, int axis,
                          bool reverse, const std::string& hole, DenseTensor* x_grad);

}  // namespace phi
