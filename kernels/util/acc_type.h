// The accumulation type of the recurrences that keep their state in the element's float
// precision or better (pscan, gla): float for the 16-bit types and float32, double for float64.
#pragma once

namespace phi {
namespace funcs {

template <typename T>
struct FloatAccType {
  using type = float;
};
template <>
struct FloatAccType<double> {
  using type = double;
};

}  // namespace funcs
}  // namespace phi
