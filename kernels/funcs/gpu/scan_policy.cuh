// The GPU scan engine's tuning numbers, kept apart from the algorithm (as CUB's policies) so
// that tuning never touches the code of a warp or a kernel. See scan_dispatch.cuh for the
// engine as a whole.
#pragma once

#include <cstdint>

namespace phi {
namespace funcs {
namespace scan_gpu {

// Tuning numbers, apart from the algorithm. The targets are constants (not read off the device)
// so that the decomposition, and hence the rounding, is the same on every GPU.
struct ScanPolicy {
  static constexpr int kThreads = 256;           // threads per block, every kernel
  static constexpr int kRowItems = 8;            // elements per lane per tile, W = 32
  static constexpr int kShortRowItems = 4;       // elements per lane per tile, W < 32
  static constexpr int kColumnItems = 8;         // loads in flight per thread, columns
  // Split long rows until about this many warps run per block an SM holds (at least 2): 128
  // blocks of 8 warps, about one per SM of an H100 (132). Ops compiled for 3 blocks per SM
  // (TileMinBlocks) get 3072 warps, one wave there; the others 2048.
  static constexpr int64_t kTargetRowWarpsPerSlot = 1024;
  static constexpr int64_t kTargetColumnThreads = 262144;
  static constexpr int64_t kMaxColumnSegments = 256;   // segments per column line
  static constexpr int64_t kWarpTotals = 128;    // phase 2: a warp per line up to this many segments
  static constexpr int kTotalsThreads = 512;     // phase 2: threads of the block per line beyond
};

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
