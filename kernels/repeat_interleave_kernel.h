// repeat_interleave: each slice of x along `axis` repeated, as Paddle's
// phi::RepeatInterleaveKernel (an int count for every slice) and
// phi::RepeatInterleaveWithTensorIndexKernel (a 1-D tensor of int32/int64 counts, one per
// slice, or a single count for all). The tensor form is the seed's stream decompaction
// (kernels/impl/flood_ops.h): exclusive cumsum of the counts, scatter of each slice's index
// to its first output, index flood, gather.
// Deliberate difference: `output_size` (>= 0) gives the length of the output axis, so the
// kernel needs no device-to-host copy of the total (as torch's output_size); -1 computes it.
// On the CPU it is checked against the counts; on the GPU it is trusted (checking would need
// the copy it saves).
#pragma once

#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void RepeatInterleaveKernel(const Context& dev_ctx, const DenseTensor& x, int repeats, int axis, DenseTensor* out);

template <typename T, typename Context>
void RepeatInterleaveWithTensorIndexKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& repeats,
                                           int axis, int64_t output_size, DenseTensor* out);

// Gradients of repeat_interleave: x_grad of a slice is the sum of out_grad over its copies (a
// segment sum, in a fixed order: deterministic). A slice repeated 0 times gets 0.
template <typename T, typename Context>
void RepeatInterleaveGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                                int repeats, int axis, DenseTensor* x_grad);

template <typename T, typename Context>
void RepeatInterleaveWithTensorIndexGradKernel(const Context& dev_ctx, const DenseTensor& x,
                                               const DenseTensor& repeats, const DenseTensor& out_grad, int axis,
                                               DenseTensor* x_grad);

}  // namespace phi
