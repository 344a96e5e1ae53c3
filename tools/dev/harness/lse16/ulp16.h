// One ulp of float16 / bfloat16 at a value (a subnormal's: the type's smallest step), for the
// lse16 harness and its host emulation.
#pragma once

#include <algorithm>
#include <cmath>

#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"

template <typename T>
double Ulp16(double r);
template <>
inline double Ulp16<phi::dtype::float16>(double r) {
  return std::ldexp(1.0, std::max(std::ilogb(std::fabs(r)), -14) - 10);
}
template <>
inline double Ulp16<phi::dtype::bfloat16>(double r) {
  return std::ldexp(1.0, std::max(std::ilogb(std::fabs(r)), -126) - 7);
}
