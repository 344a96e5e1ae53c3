// DDim: a tensor's dimensions (rank up to kMaxRank), as in phi.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace phi {

class DDim {
 public:
  static constexpr int kMaxRank = 9;

  DDim() = default;  // rank 0 (a scalar)
  DDim(const int64_t* d, int rank);
  DDim(std::initializer_list<int64_t> dims) : DDim(dims.begin(), static_cast<int>(dims.size())) {}

  int size() const { return rank_; }
  int64_t operator[](int i) const { return dims_[i]; }
  int64_t& operator[](int i) { return dims_[i]; }
  int64_t at(int i) const;  // bounds-checked
  const int64_t* Get() const { return dims_; }
  bool operator==(const DDim& o) const;
  bool operator!=(const DDim& o) const { return !(*this == o); }
  std::string to_str() const;  // "[2, 3]"

 private:
  int64_t dims_[kMaxRank] = {0};
  int rank_ = 0;
};

DDim make_ddim(const std::vector<int64_t>& dims);
std::vector<int64_t> vectorize(const DDim& d);
// The element count (1 for rank 0). Checked: ValueError (InvalidArgument) naming the shape when
// the product of its nonzero dims overflows int64, so no count, stride or sub-product of a shape
// that passes can wrap.
int64_t product(const DDim& d);
// Product of dims [begin, end), checked the same way.
int64_t product(const DDim& d, int begin, int end);
// product(d) * element_size, checked on the nonzero dims (NumPy's rule): ValueError naming the shape.
int64_t CheckedByteCount(const DDim& d, size_t element_size);

}  // namespace phi
