// logcumsumexp: out[i] = log(sum_{j in window(i)} exp(x[j])) along `axis` (docs/spec.md §1).
// Same declaration as Paddle's phi::LogcumsumexpKernel (paddle/phi/kernels/cum_kernel.h).
// Deliberate difference: exclusive=true writes -inf (the log of an empty sum) as the first
// element, where Paddle writes the lowest finite value.
#pragma once

#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void LogcumsumexpKernel(const Context& dev_ctx, const DenseTensor& x, int axis, bool flatten,
                        bool exclusive, bool reverse, DenseTensor* out);

// Gradient of logcumsumexp: x_grad[i] = sum_{j in window(i)} d_out[j] * exp(x[i] - out[j]),
// computed in one pass as a reverse gated recurrence whose gates are <= 1 (docs/spec.md §1).
// Same declaration as Paddle's phi::LogcumsumexpGradKernel.
template <typename T, typename Context>
void LogcumsumexpGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out,
                            const DenseTensor& d_out, int axis, bool flatten, bool exclusive,
                            bool reverse, DenseTensor* d_x);

}  // namespace phi
