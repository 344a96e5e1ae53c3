#include "kernels/full_kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/impl/full_kernel_impl.h"
#include "kernels/util/broadcast.h"
#include "kernels/util/eigen.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {

template <typename T, typename Context>
void FullLikeKernel(const Context& dev_ctx, const DenseTensor& x, const Scalar& value,
                    DataType dtype, DenseTensor* out) {
  const T v = CheckedFillValue<T>(value);
  T* o = dev_ctx.template Alloc<T>(out);
  funcs::ParallelForChunks(out->numel(), [&](int64_t b, int64_t e) { std::fill(o + b, o + e, v); });
}

}  // namespace phi

PD_REGISTER_KERNEL(full_like, CPU, ALL_LAYOUT, phi::FullLikeKernel, bool, uint8_t, int8_t, int16_t,
                   int32_t, int64_t, phi::dtype::float16, phi::dtype::bfloat16, float, double) {}
