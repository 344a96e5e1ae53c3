#include "kernels/full_kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/cast_kernel.h"
#include "kernels/funcs/broadcast.h"
#include "kernels/funcs/eigen.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {
namespace {

// `value` as a T, or InvalidArgument if T cannot hold it (see full_kernel.h).
template <typename T>
T CheckedFillValue(const Scalar& value) {
  const bool is_int = value.is_integer();
  const int64_t iv = value.to<int64_t>();
  const double dv = value.to<double>();
  bool fits = true;
  if constexpr (std::is_same<T, bool>::value) {
    fits = true;
  } else if constexpr (std::is_integral<T>::value) {
    using L = std::numeric_limits<T>;
    if (is_int) {
      // T's range within int64 (uint64 is not a dtype here).
      fits = iv >= static_cast<int64_t>(L::lowest()) && iv <= static_cast<int64_t>(L::max());
    } else {
      // After truncation toward zero: [lowest, max] is [-2^digits, 2^digits) for signed T.
      const double t = std::trunc(dv);
      const double hi = std::ldexp(1.0, L::digits);
      const double lo = L::is_signed ? -hi : 0.0;
      fits = std::isfinite(dv) && t >= lo && t < hi;
    }
  } else {
    // A finite value that overflows T to inf does not fit; inf and NaN are kept.
    const T v = is_int ? CastValue<T>(iv) : CastValue<T>(dv);
    const double back = static_cast<double>(static_cast<typename funcs::ComputeType<T>::type>(v));
    fits = !(std::isinf(back) && (is_int || std::isfinite(dv)));
  }
  PADDLE_ENFORCE(fits, errors::InvalidArgument(
                           "full_like: the fill value %s is out of range for dtype %s",
                           is_int ? std::to_string(iv) : Sprintf("%g", dv),
                           DataTypeToString(CppTypeToDataType<T>::Type())));
  return is_int ? CastValue<T>(iv) : CastValue<T>(dv);
}

}  // namespace

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
