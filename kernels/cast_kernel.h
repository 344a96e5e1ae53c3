// cast and its grad. Element conversion follows CastValue (util/cast_value.h), the one
// rule every kernel that changes dtype uses (cast, sum with a dtype, sum/mean grads, full_like):
//   - to bool: v != 0 (NaN is true);
//   - float -> integer: truncation toward zero (C++ / NumPy astype); values outside int64's
//     range and NaN become int64's lowest first (what x86, and so NumPy, give), and every
//     float -> narrower integer goes through int64, so out-of-range values wrap modulo 2^bits;
//   - integer -> integer: wraps modulo 2^bits (two's complement);
//   - to float16/bfloat16: round to nearest even (their constructors; from double or a wide
//     integer through float first);
//   - float16/bfloat16 sources are read as float.
// Same declarations as Paddle's phi::CastKernel/CastGradKernel.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/util/cast_value.h"
#include "paddle_ops/core/dense_tensor.h"

namespace phi {

template <typename T, typename Context>
void CastKernel(const Context& dev_ctx, const DenseTensor& x, DataType dtype, DenseTensor* out);

// x_grad = cast(out_grad, x.dtype); T is out_grad's dtype.
template <typename T, typename Context>
void CastGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                    DenseTensor* x_grad);

}  // namespace phi
