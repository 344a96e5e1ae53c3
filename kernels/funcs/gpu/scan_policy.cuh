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
  // Rows fewer than this many per block an SM holds (at least 2), i.e. 2048, 3072 or 4096
  // (TileMinBlocks), are cut into segments for the single pass unless the op's tiles set their
  // own row-count target (TileRowTarget: logcumsumexp and cumsum, kWarpRowsFrom below): fewer
  // rows than that, a warp each, would not fill the GPU.
  static constexpr int64_t kTargetRowWarpsPerSlot = 1024;
  // Rows from which logcumsumexp's and cumsum's rows go a warp each whatever their blocks an SM
  // (their tiles' kRowTarget, TileRowTarget): 1024. Scan harness on the H200 (fifteenth session,
  // --rows --row-target, docs/benchmarks.md): a warp a row beat the warp segments from 1,024 rows
  // on for float32/float16/float64 logcumsumexp and float32/int64 cumsum (e.g. float32
  // logcumsumexp [1024, 16384] 3.53 -> 2.66 x copy, cumsum [2048, 16384] 2.43 -> 1.96).
  static constexpr int64_t kWarpRowsFrom = 1024;
  static constexpr int64_t kTargetColumnThreads = 262144;
  static constexpr int64_t kMaxColumnSegments = 256;   // segments per column line
  static constexpr int64_t kWarpTotals = 128;    // column phase 2: a warp per line up to this many segments
  static constexpr int kTotalsThreads = 512;     // column phase 2: threads of the block per line beyond
  // Steps per segment of a row cut for the single pass (a warp each): small enough that a
  // segment is still in L1/L2 when the warp rescans it after its look-back. Measured on the H200
  // (tools/dev/harness, 1-D 2^26 and [64, 2^20]): 8192 beats 2048, 4096 and 16384 for
  // logcumsumexp and is within 6 % of the best (16384) for cumsum.
  static constexpr int64_t kRowSegment = 8192;
  // Staged short rows (scan_staged_rows.cuh): power-of-two row lengths in [kStagedMinLength,
  // kStagedMaxLength], K = kStagedRun steps a thread (kStagedRun8 for 8-byte elements: the same
  // 66 KB of shared memory a block), at most kStagedMaxRuns threads a row; the op's thread step
  // takes kStagedItems steps at a time unless its tiles say (TileStagedItems); the kernel is
  // compiled for kStagedMinBlocks blocks an SM (at most 85 registers).
  static constexpr int64_t kStagedMinLength = 4;
  static constexpr int64_t kStagedMaxLength = 512;
  static constexpr int kStagedRun = 64;
  static constexpr int kStagedRun8 = 32;
  static constexpr int kStagedMaxRuns = 8;
  static constexpr int kStagedMaxRuns8 = 4;   // 8-byte elements: rows of at most 128 steps
  static constexpr int kStagedItems = 8;
  static constexpr int kStagedMinBlocks = 3;  // a block's 66 KB of shared memory: 3 an SM
};

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
