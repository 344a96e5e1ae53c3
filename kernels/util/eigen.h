// Eigen glue and element-type traits shared by the elementwise, reduce and cast kernels.
// Eigen is used on plain 1-D maps of contiguous buffers (no rank-templated tensors), so one
// helper serves every shape; 16-bit types never go through Eigen (they compute in float).
#pragma once

#include <cstdint>
#include <type_traits>

#include <Eigen/Core>

#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"

namespace phi {
namespace funcs {

template <typename T>
struct IsLowPrecisionFloat
    : std::integral_constant<bool, std::is_same<T, dtype::float16>::value ||
                                       std::is_same<T, dtype::bfloat16>::value> {};

// Any floating type, the 16-bit ones included.
template <typename T>
struct IsFloatLike
    : std::integral_constant<bool, std::is_floating_point<T>::value || IsLowPrecisionFloat<T>::value> {};

// The type elementwise math is done in: float for the 16-bit types (rounded once when
// stored), the type itself otherwise.
template <typename T>
struct ComputeType {
  using type = typename std::conditional<IsLowPrecisionFloat<T>::value, float, T>::type;
};

// Eigen runs only on the native floating types: integers use unsigned-wrap loops instead
// (signed overflow in an Eigen expression would be UB), 16-bit types go through float.
template <typename T>
struct UseEigen
    : std::integral_constant<bool, std::is_same<T, float>::value || std::is_same<T, double>::value> {};

template <typename T>
using EigenVec = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstEigenVec = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// Sum of n contiguous float/double elements in double. double goes through Eigen's
// vectorized redux; for float, Eigen's cast<double>().sum() is not vectorized (6x slower at
// -O2), so a SIMD loop widens instead. Both orders are fixed, hence reproducible.
template <typename T>
inline double EigenSumAsDouble(const T* p, int64_t n) {
  static_assert(UseEigen<T>::value, "EigenSumAsDouble: float or double only");
  if constexpr (std::is_same<T, double>::value) {
    return n == 0 ? 0.0 : ConstEigenVec<T>(p, n).sum();
  } else {
    double acc = 0;
#pragma omp simd reduction(+ : acc)
    for (int64_t i = 0; i < n; ++i) acc += static_cast<double>(p[i]);
    return acc;
  }
}

// Sum of n contiguous elements of any type in double, in a fixed order: EigenSumAsDouble for
// float and double, otherwise a left-to-right loop over the elements widened through their
// compute type (16-bit types via float). The segment sum of the CPU reductions that round
// once from double (mean, and the grads summed back over broadcast dims).
template <typename T>
inline double SumAsDouble(const T* p, int64_t n) {
  if constexpr (UseEigen<T>::value) {
    return EigenSumAsDouble(p, n);
  } else {
    double acc = 0;
    for (int64_t i = 0; i < n; ++i) acc += static_cast<double>(static_cast<typename ComputeType<T>::type>(p[i]));
    return acc;
  }
}

}  // namespace funcs
}  // namespace phi
