// The fill value of full_like, checked against the output type; shared by the CPU and GPU
// kernels.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/util/cast_value.h"
#include "paddle_ops/common/enforce.h"
#include "paddle_ops/common/scalar.h"

namespace phi {

// `value` as a T, or InvalidArgument if T cannot hold it (see full_kernel.h).
template <typename T>
inline T CheckedFillValue(const Scalar& value) {
  const bool is_int = value.is_integer();
  // Read the value only as what it is: a float beyond int64 cast to int64 would be UB.
  const int64_t iv = is_int ? value.to<int64_t>() : 0;
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
    const double back = CastValue<double>(v);
    fits = !(std::isinf(back) && (is_int || std::isfinite(dv)));
  }
  PADDLE_ENFORCE(fits, errors::InvalidArgument(
                           "full_like(): argument 'fill_value' must fit dtype %s, but got %s",
                           DataTypeToString(CppTypeToDataType<T>::Type()),
                           is_int ? std::to_string(iv) : Sprintf("%g", dv)));
  return is_int ? CastValue<T>(iv) : CastValue<T>(dv);
}


}  // namespace phi
