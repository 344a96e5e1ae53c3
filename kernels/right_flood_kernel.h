// right_flood: fill holes from the left along `axis` (SPEC.md §4, seed 003):
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

}  // namespace phi
