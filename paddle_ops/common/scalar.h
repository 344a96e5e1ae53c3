// Scalar: an attribute that may be an integer, a float or a bool (phi::Scalar), e.g.
// CumsumKernel's axis.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace phi {

class Scalar {
 public:
  Scalar() = default;
  Scalar(int v) : kind_(Kind::INT), i_(v) {}          // NOLINT
  Scalar(int64_t v) : kind_(Kind::INT), i_(v) {}      // NOLINT
  Scalar(double v) : kind_(Kind::FLOAT), d_(v) {}     // NOLINT
  Scalar(float v) : kind_(Kind::FLOAT), d_(v) {}      // NOLINT
  Scalar(bool v) : kind_(Kind::BOOL), i_(v) {}        // NOLINT

  template <typename T>
  T to() const {
    return kind_ == Kind::FLOAT ? static_cast<T>(d_) : static_cast<T>(i_);
  }
  bool is_integer() const { return kind_ != Kind::FLOAT; }

 private:
  enum class Kind { INT, FLOAT, BOOL };
  Kind kind_ = Kind::INT;
  int64_t i_ = 0;
  double d_ = 0;
};

// IntArray: an int[] attribute (phi::IntArray), e.g. the axes of sum.
class IntArray {
 public:
  IntArray() = default;
  IntArray(const std::vector<int64_t>& v) : data_(v) {}  // NOLINT
  IntArray(std::initializer_list<int64_t> v) : data_(v) {}
  const std::vector<int64_t>& GetData() const { return data_; }
  size_t size() const { return data_.size(); }

 private:
  std::vector<int64_t> data_;
};

}  // namespace phi
