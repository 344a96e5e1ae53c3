// The [outer, length, inner] view of a scan, shared by the references of the C++ tests
// (unittests/cpp) and of the fuzzer (unittests/fuzz/fuzz_util.h). No gtest here: the fuzzer,
// which does not link it, includes this header too.
#pragma once

#include <cstdint>
#include <vector>

namespace paddle_ops_test {

// A scan along one axis seen as `outer` independent groups of `inner` sequences of `length`
// steps each (a flattened scan: one sequence of every element).
struct ScanView {
  int64_t outer = 1, length = 1, inner = 1;
  // The element at step i (0-based, in forward order) of sequence c of group o.
  int64_t Offset(int64_t o, int64_t i, int64_t c) const { return (o * length + i) * inner + c; }
};

// The view of a scan along `axis` (negative counts from the end) of a tensor of shape `dims`,
// or, with `flatten` or for a 0-D tensor, of the whole tensor as one sequence.
inline ScanView ScanViewOf(const std::vector<int64_t>& dims, int axis, bool flatten) {
  ScanView v;
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  if (flatten || dims.empty()) {
    v.length = n;
    return v;
  }
  const int r = static_cast<int>(dims.size());
  if (axis < 0) axis += r;
  for (int i = 0; i < axis; ++i) v.outer *= dims[i];
  v.length = dims[axis];
  for (int i = axis + 1; i < r; ++i) v.inner *= dims[i];
  return v;
}

}  // namespace paddle_ops_test
