// Shape functions of two-input ops.
#pragma once

#include "paddle_ops/core/meta_tensor.h"

namespace phi {

// Elementwise ops with NumPy broadcasting; x and y must have the same dtype.
void ElementwiseInferMeta(const MetaTensor& x, const MetaTensor& y, MetaTensor* out);
// Grads of a binary op: dx like x, dy like y.
void GeneralBinaryGradInferMeta(const MetaTensor& x, const MetaTensor& y, MetaTensor* dx,
                                MetaTensor* dy);
// repeat_interleave with a tensor of counts: repeats is int32/int64 (InvalidType otherwise),
// 0-D or 1-D with one count per slice of x along axis or a single count (InvalidArgument
// otherwise); output_size >= -1. out has x's dims (a 0-D x is taken as [1]) with output_size
// along axis: -1 (unknown until the kernel sums the counts) unless given.
void RepeatInterleaveWithTensorIndexInferMeta(const MetaTensor& x, const MetaTensor& repeats, int axis,
                                              int64_t output_size, MetaTensor* out);
// The broadcast shape of a and b (InvalidArgument naming both shapes if incompatible).
DDim BroadcastDims(const DDim& a, const DDim& b, const char* a_name = "x", const char* b_name = "y");

}  // namespace phi
