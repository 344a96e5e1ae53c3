// ScanLayout: any scan along one axis of a row-major tensor is a scan over the middle index
// of a [outer, length, inner] view. Every scan kernel (CPU and GPU) works on this view.
#pragma once

#include <cstdint>

#include "paddle_ops/common/ddim.h"
#include "paddle_ops/common/macros.h"

namespace phi {
namespace funcs {

struct ScanLayout {
  int64_t outer = 1;
  int64_t length = 1;
  int64_t inner = 1;
  int64_t numel() const { return outer * length * inner; }
};

// `axis` must already be normalized to [0, rank); a 0-D tensor is one row of length 1.
inline ScanLayout MakeScanLayout(const DDim& dims, int axis) {
  ScanLayout l;
  if (dims.size() == 0) return l;
  l.outer = product(dims, 0, axis);
  l.length = dims[axis];
  l.inner = product(dims, axis + 1, dims.size());
  return l;
}

// Where one element sits, as the scan operator sees it: its flat offset and the offset of
// the element before it in scan order (valid unless `first`). Ops whose element depends on
// its neighbour (logcumsumexp's gradient gates) read both.
struct ScanPos {
  int64_t offset;
  int64_t prev;
  bool first;
};

}  // namespace funcs
}  // namespace phi
