// CastValue<To>(from): the one element conversion rule (see kernels/cast_kernel.h), for
// host and device code.
#pragma once

#include <cstdint>
#include <type_traits>

#include "paddle_ops/common/data_type.h"
#include "paddle_ops/common/macros.h"

namespace phi {

template <typename T>
struct IsHalfFloat : std::integral_constant<bool, std::is_same<T, dtype::float16>::value ||
                                                      std::is_same<T, dtype::bfloat16>::value> {};

template <typename To, typename From>
HOSTDEVICE inline To CastValue(From v) {
  if constexpr (std::is_same<To, From>::value) {
    return v;
  } else if constexpr (IsHalfFloat<From>::value) {
    return CastValue<To>(static_cast<float>(v));
  } else if constexpr (std::is_same<To, bool>::value) {
    return v != From(0);
  } else if constexpr (IsHalfFloat<To>::value) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_integral<To>::value && std::is_floating_point<From>::value) {
    // 2^63 is exact in float and double; the negated test also catches NaN.
    if (!(v >= From(-9.223372036854775808e18) && v < From(9.223372036854775808e18))) {
      return static_cast<To>(INT64_MIN);
    }
    return static_cast<To>(static_cast<int64_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace phi
