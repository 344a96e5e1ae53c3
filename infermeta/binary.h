// Shape functions of two-input ops.
#pragma once

#include "paddle_ops/core/meta_tensor.h"

namespace phi {

// Elementwise ops with NumPy broadcasting; x and y must have the same dtype.
void ElementwiseInferMeta(const MetaTensor& x, const MetaTensor& y, MetaTensor* out);
// Grads of a binary op: dx like x, dy like y.
void GeneralBinaryGradInferMeta(const MetaTensor& x, const MetaTensor& y, MetaTensor* dx,
                                MetaTensor* dy);
// The broadcast shape of a and b (InvalidArgument naming both shapes if incompatible).
DDim BroadcastDims(const DDim& a, const DDim& b, const char* a_name = "x", const char* b_name = "y");

}  // namespace phi
