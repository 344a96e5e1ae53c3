// The CPU scan engine: runs any scan op (scan_functors.h) along the middle index of a
// [outer, length, inner] view, inclusive or exclusive, forward or reverse, without copying
// or flipping the data. Rows (outer x inner) are independent and run in parallel.
#pragma once

#include <algorithm>
#include <vector>

#include "kernels/funcs/scan_layout.h"

namespace phi {
namespace funcs {

template <typename Op>
void ScanCpu(const ScanLayout& l, bool exclusive, bool reverse, const Op& op) {
  using State = typename Op::State;
  if (l.numel() == 0) return;
  const int64_t outer = l.outer, length = l.length, inner = l.inner;
  // Columns of one outer slice are scanned together so memory is walked contiguously.
  constexpr int64_t kColumnBlock = 256;
  const int64_t col_blocks = (inner + kColumnBlock - 1) / kColumnBlock;
  const int64_t tasks = outer * col_blocks;
#pragma omp parallel for schedule(static) if (tasks > 1 && l.numel() > 32768)
  for (int64_t task = 0; task < tasks; ++task) {
    const int64_t o = task / col_blocks;
    const int64_t c0 = (task % col_blocks) * kColumnBlock;
    const int64_t c1 = std::min(inner, c0 + kColumnBlock);
    State acc[kColumnBlock];
    for (int64_t c = c0; c < c1; ++c) acc[c - c0] = op.Identity();
    const int64_t base = o * length * inner;
    for (int64_t s = 0; s < length; ++s) {
      const int64_t li = reverse ? length - 1 - s : s;
      const int64_t row = base + li * inner;
      const int64_t prev_row = reverse ? row + inner : row - inner;
      for (int64_t c = c0; c < c1; ++c) {
        const ScanPos pos{row + c, prev_row + c, s == 0};
        State& a = acc[c - c0];
        if (exclusive) {
          op.Store(pos, a);
          a = op.Combine(a, op.Load(pos));
        } else {
          a = op.Combine(a, op.Load(pos));
          op.Store(pos, a);
        }
      }
    }
  }
}

}  // namespace funcs
}  // namespace phi
