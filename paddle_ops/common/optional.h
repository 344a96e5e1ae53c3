// paddle::optional: the optional type phi kernels take for optional inputs
// (`const paddle::optional<DenseTensor>&`), here a thin layer over std::optional.
#pragma once

#include <optional>
#include <utility>

namespace paddle {

template <typename T>
class optional : public std::optional<T> {
 public:
  using std::optional<T>::optional;
  optional() = default;
  optional(const std::optional<T>& o) : std::optional<T>(o) {}  // NOLINT
  bool is_initialized() const { return this->has_value(); }
  const T* get_ptr() const { return this->has_value() ? &this->value() : nullptr; }
  T* get_ptr() { return this->has_value() ? &this->value() : nullptr; }
  const T& get() const { return this->value(); }
  T& get() { return this->value(); }
};

using none_t = std::nullopt_t;
inline constexpr std::nullopt_t none = std::nullopt;

}  // namespace paddle
