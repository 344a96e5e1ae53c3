// pscan: the first-order linear recurrence y[:, t] = a[:, t] * y[:, t-1] + x[:, t] along T of
// x [N, T, D] (docs/spec.md §3), with y[:, -1] = initial_state (absent: y[:, 0] = x[:, 0]);
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

// Gradient of pscan (docs/spec.md §3), one scan against the forward's direction:
//   g[t] = out_grad[t] + a[t+1] * g[t+1],  x_grad = g,  a_grad[t] = g[t] * y[t-1]
//   (summed over D when a is [N, T]),  initial_state_grad = a[0] * g[0]
// with y[-1] = initial_state (t and t±1 mirrored when reverse). x itself is not needed: out
// has its shape. initial_state_grad is left unallocated when there is no initial_state.
template <typename T, typename Context>
void PscanGradKernel(const Context& dev_ctx, const DenseTensor& a,
                     const paddle::optional<DenseTensor>& initial_state, const DenseTensor& out,
                     const DenseTensor& out_grad, bool reverse, DenseTensor* a_grad,
                     DenseTensor* x_grad, DenseTensor* initial_state_grad);

}  // namespace phi
