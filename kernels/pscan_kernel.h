// pscan: the first-order linear recurrence y[:, t] = a[:, t] * y[:, t-1] + x[:, t] along T of
// x [N, T, D] (SPEC.md §3), with y[:, -1] = initial_state (absent: y[:, 0] = x[:, 0]);
// reverse=true runs from t = T-1 down (y[:, T] = initial_state). `a` is [N, T] (one gate per
// step, broadcast over D) or [N, T, D]; initial_state is [N, D]. Paddle has no such kernel;
// the declaration follows phi's conventions (inputs, attributes, outputs).
// 16-bit types and float32 accumulate in float32, float64 in float64; exact for negative and
// zero gates (no log-space form).
#pragma once

#include "paddle_ops/common/optional.h"
#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void PscanKernel(const Context& dev_ctx, const DenseTensor& a, const DenseTensor& x,
                 const paddle::optional<DenseTensor>& initial_state, bool reverse, DenseTensor* out);

}  // namespace phi
