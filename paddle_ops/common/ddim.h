// DDim: a tensor's dimensions (rank up to kMaxRank), as in phi.
#pragma once

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
int64_t product(const DDim& d);  // 1 for rank 0
// Product of dims [begin, end).
int64_t product(const DDim& d, int begin, int end);

}  // namespace phi
