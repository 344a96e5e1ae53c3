// The GPU scan engine's launch layer: grids, segment counts and scratch for a strategy, with no
// framework types (a stream and a scratch callable), so that the library's dispatch
// (scan_dispatch.cuh, with a GPUContext) and the kernel harness (tools/dev/harness/scan) launch
// the same code. Scratch: `scratch(bytes)` returns device memory that stays valid for work queued
// on `stream` (the library's stream-ordered caching allocator; cudaMalloc in the harness).
// PADDLE_ENFORCE_GPU_SUCCESS must be defined by the includer (paddle_ops/core/gpu/gpu_context.h).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/funcs/gpu/scan_columns.cuh"
#include "kernels/funcs/gpu/scan_block_rows.cuh"
#include "kernels/funcs/gpu/scan_kernel.cuh"
#include "kernels/funcs/gpu/scan_onepass.cuh"
#include "kernels/funcs/gpu/scan_staged_rows.cuh"
#include "kernels/funcs/scan_layout.h"
#include "kernels/util/gpu_smem_optin.cuh"

namespace phi {
namespace funcs {
namespace scan_gpu {

inline unsigned Blocks(int64_t threads) {
  return static_cast<unsigned>((threads + ScanPolicy::kThreads - 1) / ScanPolicy::kThreads);
}

// Whether the op's tiles scan few long rows themselves (GpuTileScan<Op>::kOwnLongRows and
// LongRows(stream, scratch, g, rows, exclusive, op), which returns false where it declines):
// the rows ScanRows would cut into segments for the single pass, without a carry-in and without
// a segment length forced by the caller (integer cumsum: CUB's DeviceScan, kernels/gpu/cumsum_tiles.cuh).
PO_TILE_TRAIT(TileOwnLongRows, kOwnLongRows, bool, false)

// Whether the op's tiles take such rows (a carry-in too) on the block tiles of
// scan_block_rows.cuh (GpuTileScan<Op>::kBlockRows, with BlockTile, kBlockThreads, kBlockItems,
// kBlockMinBlocks and BlockRowsFor(rows, length), the rows taken): logcumsumexp (float32,
// float16, bfloat16) and its float32 gradient, kernels/gpu/logcumsumexp_tiles.cuh. Tried before kOwnLongRows.
PO_TILE_TRAIT(TileBlockRows, kBlockRows, bool, false)

// Whether the op's tiles have a second block tile for rows of any count (GpuTileScan<Op>::kBlockRows2,
// with BlockTile2, kBlock2Threads, kBlock2Items, kBlock2MinBlocks and Block2RowsFor(rows, length)):
// tried where BlockRowsFor declines, and also for rows the engine gives a warp each (as many as
// its target, without a carry-in), which never reach BlockRowsFor. Not for a forced row segment.
// float32 logcumsumexp's gradient (kernels/gpu/logcumsumexp_tiles.cuh): the forward keeps its
// rule, measured to lose on many short rows.
PO_TILE_TRAIT(TileBlockRows2, kBlockRows2, bool, false)

// `rows` rows (inner == 1) of g.length steps on the block tiles B of kThreads * kItems steps.
template <typename B, int kThreads, int kItems, int kMinBlocks, typename Op, typename Scratch>
void LaunchBlockRows(cudaStream_t stream, Scratch& scratch, const LineGeometry& g, int64_t rows, bool exclusive,
                     const Op& op, const typename Op::State* init) {
  constexpr int64_t kTile = int64_t{kThreads} * kItems;
  const int64_t ntiles = (g.length + kTile - 1) / kTile;
  const int64_t bytes = BlockRowStatus::Bytes(rows, ntiles);
  char* p = static_cast<char*>(scratch(bytes));
  PADDLE_ENFORCE_GPU_SUCCESS(cudaMemsetAsync(p, 0, static_cast<size_t>(bytes), stream));
  BlockRowStatus st;
  st.ticket = reinterpret_cast<unsigned long long*>(p);
  st.word = reinterpret_cast<uint4*>(p + 256);
  st.n = ntiles;
  // 16-byte accesses: every row's first element aligned (lengths a multiple of 16 bytes' elements)
  constexpr int64_t kVecElems = 16 / static_cast<int64_t>(sizeof(*op.x));
  bool vec = g.length % kVecElems == 0 && reinterpret_cast<uintptr_t>(op.x) % 16 == 0 &&
             reinterpret_cast<uintptr_t>(op.out) % 16 == 0;
  if constexpr (BlockOwnIO<B>::value) vec = B::Vec(op, g.length);  // the tile's own arrays
  BlockRowKernel<B, kThreads, kItems, kMinBlocks><<<static_cast<unsigned>(rows * ntiles), kThreads, 0, stream>>>(
      op, g, rows, ntiles, st, init, exclusive, vec);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

// The rows on the op's second block tile where it takes them (TileBlockRows2's Block2RowsFor);
// false, nothing launched, otherwise.
template <typename Op, typename Scratch>
bool ScanBlockRows2(cudaStream_t stream, Scratch& scratch, const LineGeometry& g, int64_t rows, bool exclusive,
                    const Op& op, const typename Op::State* init) {
  if constexpr (TileBlockRows2<GpuTileScan<Op>>::value) {
    using Tiles = GpuTileScan<Op>;
    if (Tiles::Block2RowsFor(rows, g.length)) {
      LaunchBlockRows<typename Tiles::BlockTile2, Tiles::kBlock2Threads, Tiles::kBlock2Items,
                      Tiles::kBlock2MinBlocks>(stream, scratch, g, rows, exclusive, op, init);
      return true;
    }
  }
  return false;
}

// Rows (inner == 1). A logical warp of W lanes per row; with W == 32, rows too few to fill the
// GPU (or a carry-in given) are cut into segments of TileRowSegment steps (ScanPolicy::kRowSegment
// unless the op's tiles say) scanned in one pass with a look-back, unless the op's block tiles
// take them (TileBlockRows, then TileBlockRows2); rows that fill it go to a warp each unless the
// op's second block tile takes them (TileBlockRows2).
template <int W, int kItems, typename Op, typename Scratch>
void ScanRows(cudaStream_t stream, Scratch& scratch, const LineGeometry& g, int64_t rows, bool exclusive,
              const Op& op, const typename Op::State* init = nullptr, int64_t seg_len = 0) {
  using State = typename Op::State;
  constexpr int64_t kTile = int64_t{W} * kItems;
  int64_t target = TileRowTarget<GpuTileScan<Op>>::value;
#ifdef PO_SCAN_ROW_TARGET  // the scan harness's A/B of the routing (--row-target): a fixed target where > 0
  if (PO_SCAN_ROW_TARGET > 0) target = PO_SCAN_ROW_TARGET;
#endif
  if constexpr (W != 32) {  // short rows, a row per logical warp (a carry-in goes to W = 32)
    RowScanKernel<W, kItems><<<Blocks(rows * W), ScanPolicy::kThreads, 0, stream>>>(op, g, rows, exclusive);
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  } else if (rows >= target && init == nullptr) {
    if (seg_len <= 0 && ScanBlockRows2(stream, scratch, g, rows, exclusive, op, init)) return;
    RowScanKernel<W, kItems><<<Blocks(rows * W), ScanPolicy::kThreads, 0, stream>>>(op, g, rows, exclusive);
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  } else {
    if constexpr (TileBlockRows<GpuTileScan<Op>>::value) {
      using Tiles = GpuTileScan<Op>;
      if (seg_len <= 0 && Tiles::BlockRowsFor(rows, g.length)) {
        LaunchBlockRows<typename Tiles::BlockTile, Tiles::kBlockThreads, Tiles::kBlockItems, Tiles::kBlockMinBlocks>(
            stream, scratch, g, rows, exclusive, op, init);
        return;
      }
    }
    if (seg_len <= 0 && ScanBlockRows2(stream, scratch, g, rows, exclusive, op, init)) return;
    if constexpr (TileOwnLongRows<GpuTileScan<Op>>::value) {
      if (init == nullptr && seg_len <= 0 && GpuTileScan<Op>::LongRows(stream, scratch, g, rows, exclusive, op)) return;
    }
    if (seg_len <= 0) seg_len = TileRowSegment<GpuTileScan<Op>>::value;
    seg_len = std::max<int64_t>((seg_len + kTile - 1) / kTile * kTile, kTile);  // on tile boundaries
    const int64_t nseg = std::max<int64_t>((g.length + seg_len - 1) / seg_len, 1);
    if constexpr (TileSplitRows<GpuTileScan<Op>>::value) {  // the op's own split (no look-back)
      if (init == nullptr && !exclusive) {
        GpuTileScan<Op>::template SplitRows<kItems>(stream, scratch, g, rows, nseg, seg_len, op);
        return;
      }
    }
    const auto st = MakeTileStatus<State>(stream, scratch, rows, nseg);
    constexpr int kWarps = ScanPolicy::kThreads / 32;
    const unsigned blocks = static_cast<unsigned>((rows * nseg + kWarps - 1) / kWarps);
    OnePassRowKernel<kItems><<<blocks, ScanPolicy::kThreads, 0, stream>>>(op, g, rows, nseg, seg_len, st, init,
                                                                          exclusive);
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  }
}

// The kernel harness compares the staged short rows with the logical warps in one run
// (-DPO_SCAN_STAGED_SWITCH: this flag chooses); the library always stages where it can.
#ifdef PO_SCAN_STAGED_SWITCH
inline bool g_staged_rows = true;
inline int g_staged_run = 0;  // steps a thread (0: the policy's)
#define PO_SCAN_STAGED_ON ::phi::funcs::scan_gpu::g_staged_rows
#define PO_SCAN_STAGED_RUN ::phi::funcs::scan_gpu::g_staged_run
#else
#define PO_SCAN_STAGED_ON true
#define PO_SCAN_STAGED_RUN 0
#endif

template <int kP, typename Op>
void LaunchStagedRows(cudaStream_t stream, const StagedRowsPlan& plan, int64_t rows, bool reverse, bool exclusive,
                      const Op& op) {
  constexpr int kItems = TileStagedItems<GpuTileScan<Op>>::value;
  const auto kernel = reverse ? StagedRowKernel<kP, true, kItems, Op> : StagedRowKernel<kP, false, kItems, Op>;
  const int64_t bytes = plan.SharedBytes(static_cast<int>(sizeof(StagedElem<Op>)));
  AllowDynamicSmem(reinterpret_cast<const void*>(kernel), bytes);
  const int64_t blocks = (rows + plan.Rows() - 1) / plan.Rows();
  kernel<<<static_cast<unsigned>(blocks), ScanPolicy::kThreads, static_cast<size_t>(bytes), stream>>>(op, rows, plan,
                                                                                                     exclusive);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

// Short rows staged in shared memory (scan_staged_rows.cuh), where the op's tiles allow it
// (TileStagedRows), the length is a power of two in the policy's range and x and out are aligned
// for the copies; returns false (nothing launched) otherwise.
template <typename Op>
bool ScanStagedRows(cudaStream_t stream, const LineGeometry& g, int64_t rows, bool exclusive, const Op& op) {
  if constexpr (!TileStagedRows<GpuTileScan<Op>>::value) {
    return false;
  } else {
    if (!PO_SCAN_STAGED_ON) return false;
    constexpr int kBytes = static_cast<int>(sizeof(StagedElem<Op>));
    const int run = PO_SCAN_STAGED_RUN != 0 ? PO_SCAN_STAGED_RUN : TileStagedSteps<GpuTileScan<Op>>::value;
    const StagedRowsPlan plan = StagedRowsPlan::For(g.length, kBytes, run);
    if (!plan.ok || g.length > TileStagedMaxLength<GpuTileScan<Op>>::value) return false;
    const uintptr_t a = reinterpret_cast<uintptr_t>(op.x) | reinterpret_cast<uintptr_t>(op.out);
    if (a % (kBytes == 8 ? 8 : 4) != 0) return false;
    switch (plan.P) {
      case 1: LaunchStagedRows<1>(stream, plan, rows, g.reverse, exclusive, op); return true;
      case 2: LaunchStagedRows<2>(stream, plan, rows, g.reverse, exclusive, op); return true;
      case 4: LaunchStagedRows<4>(stream, plan, rows, g.reverse, exclusive, op); return true;
      case 8: LaunchStagedRows<8>(stream, plan, rows, g.reverse, exclusive, op); return true;
      default: return false;
    }
  }
}

// Phase 2 of the column segments: `lines` lines of nseg segment totals each, line-major,
// to exclusive prefixes in place.
template <typename Op>
void ScanSegmentTotals(cudaStream_t stream, int64_t lines, int64_t nseg, typename Op::State* totals, const Op& op) {
  if (nseg <= ScanPolicy::kWarpTotals) {
    WarpTotalsScanKernel<<<Blocks(lines * 32), ScanPolicy::kThreads, 0, stream>>>(op, lines, nseg, totals);
  } else {
    BlockTotalsScanKernel<<<static_cast<unsigned>(lines), ScanPolicy::kTotalsThreads, 0, stream>>>(op, nseg, totals);
  }
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

// Columns cut into segments in three phases: each segment's total, a scan of the totals per
// line, each segment again from its prefix (so each element is read twice). The engine's
// columns before the one pass (scan_columns.cuh); kept for ops whose tiles set
// kColumnPhases = 3, and for the kernel harness to compare against.
template <typename Op, typename Scratch>
void ScanColumnsThreePhase(cudaStream_t stream, Scratch& scratch, const LineGeometry& g, int64_t lines,
                           bool exclusive, const Op& op, const typename Op::State* init = nullptr) {
  using State = typename Op::State;
  constexpr int64_t kTarget = TileColumnThreads<GpuTileScan<Op>>::value;
  int64_t nseg = 1;
  if (lines < kTarget) {
    nseg = std::min({(kTarget + lines - 1) / lines, ScanPolicy::kMaxColumnSegments,
                     (g.length + 63) / 64});
    nseg = std::max<int64_t>(nseg, 1);
  }
  const int64_t seg_len = (g.length + nseg - 1) / nseg;
  nseg = (g.length + seg_len - 1) / seg_len;
  const unsigned blocks = Blocks(lines * nseg);
  if (nseg == 1) {
    ColumnScanKernel<0><<<blocks, ScanPolicy::kThreads, 0, stream>>>(op, g, lines, 1, seg_len, nullptr, exclusive,
                                                                       init);
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
    return;
  }
  State* totals = static_cast<State*>(scratch(lines * nseg * int64_t{sizeof(State)}));
  ColumnScanKernel<1><<<blocks, ScanPolicy::kThreads, 0, stream>>>(op, g, lines, nseg, seg_len, totals, exclusive);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  ScanSegmentTotals(stream, lines, nseg, totals, op);
  ColumnScanKernel<3><<<blocks, ScanPolicy::kThreads, 0, stream>>>(op, g, lines, nseg, seg_len, totals, exclusive,
                                                                     init);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

// Where the op's tiles take the one pass of scan_columns.cuh also for lines that would take the
// three phases: from GpuTileScan<Op>::kOnePassColumnLines lines up (0: never). Integer cumsum
// sets 8192 (H200, tools/dev/harness/scan: [32, 4, 2048, 128] axis 2, 16384 lines, int64 1.60 x
// copy against the three phases' 1.70, int32 1.75 against 2.07; on [16384, 4096] axis 0, 4096
// lines, the three phases stay ahead for int64, 1.59 against 1.66).
PO_TILE_TRAIT(TileOnePassColumnLines, kOnePassColumnLines, int64_t, 0)

// From how many lines the columns that would take segments go to the column strips of
// scan_columns.cuh (a block per strip of adjacent lines walking the whole length, nothing shared
// between blocks), for ops whose tiles set it (0, the default: never) and have register column
// steps, when the lines allow vector accesses; an op's kOnePassColumnLines, where set, takes
// precedence from its own count up. Measured on the H200 (docs/benchmarks.md, 2026-11-29 sixth
// session and 2026-11-30): float32 cumsum took them from 16384 lines until its thread steps made
// the three phases faster (2.53-2.59 x copy against the strips' 2.68-2.74 on [32, 4, 2048, 128]
// axis 2; on 4096 lines the strips lose, 4.17 against 2.70); integer
// cumsum from 4096 lines below its one pass's 8192 ([16384, 4096] axis 0: int64 1.22 against
// 1.58, int32 1.56 against 1.95). logcumsumexp keeps its paths (strips 14.1 against 4.2 on
// 4096 lines: its log-sum-exp warp scans down the rows at 8 warps an SM).
PO_TILE_TRAIT(TileStripColumnLines, kStripColumnLines, int64_t, 0)

// Columns (inner > 1): a thread per line walking it whole where the lines fill the GPU
// (TileColumnThreads of them), else segments. Lines so few that even kMaxColumnSegments
// segments a line leave the three phases short of TileColumnThreads threads (under 1024 lines
// by default) take the one pass of scan_columns.cuh instead (tiles of adjacent lines by
// segments, unless the op's tiles keep three phases, kColumnPhases = 3). Measured on the H200
// (docs/benchmarks.md, 2026-11-29 third session): the one pass is 2.8-4.2x faster on 16 lines
// of 2^19 and 10-20 % for float on 300 lines of 5000; on the benchmark shapes
// ([16384, 4096] axis 0, [32, 4, 2048, 128] axis 2) it does not beat the three phases. Ops may
// send more lines to the one pass (TileOnePassColumnLines) or to the column strips
// (TileStripColumnLines). A carry-in per line (`init`) goes to the same paths (not to an op's
// own columns).
template <typename Op, typename Scratch>
void ScanColumns(cudaStream_t stream, Scratch& scratch, const LineGeometry& g, int64_t lines, bool exclusive,
                 const Op& op, const typename Op::State* init = nullptr) {
  if constexpr (TileOwnColumns<GpuTileScan<Op>>::value) {
    if (init == nullptr && GpuTileScan<Op>::Columns(stream, scratch, g, lines, exclusive, op)) return;
  }
  constexpr int64_t kTarget = TileColumnThreads<GpuTileScan<Op>>::value;
  constexpr int64_t kOnePassFrom = TileOnePassColumnLines<GpuTileScan<Op>>::value;
  const bool segmented = lines < kTarget;  // else a thread per line, each element read once
  constexpr bool kOnePassOk = TileColumnPhases<GpuTileScan<Op>>::value != 3;
  const bool one_pass_lines = kOnePassFrom > 0 && segmented && lines >= kOnePassFrom;
  constexpr int64_t kStripFrom = TileStripColumnLines<GpuTileScan<Op>>::value;
  if constexpr (TileColumnTile<GpuTileScan<Op>>::value && kOnePassOk && kStripFrom > 0) {
    if (segmented && lines >= kStripFrom && !one_pass_lines &&
        StripColumns<typename DefaultStripShape<Op>::type>(stream, g, lines, exclusive, op, init)) {
      return;
    }
  }
  if (kOnePassOk && (lines * ScanPolicy::kMaxColumnSegments < kTarget || one_pass_lines)) {
    OnePassColumns<typename DefaultColumnSteps<Op>::type>(stream, scratch, g, lines, exclusive, op, init);
  } else {
    ScanColumnsThreePhase(stream, scratch, g, lines, exclusive, op, init);
  }
}

// Each line's total (ScanTotals): rows a warp per (row, segment of TileRowSegment steps), columns
// a thread per (segment, line) as the three phases' first; then the totals of each line folded
// by ScanSegmentTotals (a fixed order) into `out` (outer * inner states).
template <typename Op, typename Scratch>
void ScanTotalsLaunch(cudaStream_t stream, Scratch& scratch, const ScanLayout& l, bool reverse, const Op& op,
                      typename Op::State* out) {
  using State = typename Op::State;
  const int64_t lines = l.outer * l.inner;
  if (lines == 0) return;
  const LineGeometry g{l.length, l.inner, reverse};
  int64_t nseg = 1, seg_len = std::max<int64_t>(l.length, 1);
  constexpr int kItems = ScanPolicy::kRowItems;
  if (l.inner == 1) {
    constexpr int64_t kTile = int64_t{32} * kItems;
    seg_len = TileRowSegment<GpuTileScan<Op>>::value;
    seg_len = std::max<int64_t>((seg_len + kTile - 1) / kTile * kTile, kTile);
  } else {
    constexpr int64_t kTarget = TileColumnThreads<GpuTileScan<Op>>::value;
    if (lines < kTarget) {
      nseg = std::min({(kTarget + lines - 1) / lines, ScanPolicy::kMaxColumnSegments, (l.length + 63) / 64});
      nseg = std::max<int64_t>(nseg, 1);
    }
    seg_len = std::max<int64_t>((l.length + nseg - 1) / nseg, 1);
  }
  nseg = std::max<int64_t>((l.length + seg_len - 1) / seg_len, 1);
  State* totals = static_cast<State*>(scratch(lines * (nseg + 1) * int64_t{sizeof(State)}));
  if (l.inner == 1) {
    RowTotalsKernel<kItems><<<Blocks(lines * nseg * 32), ScanPolicy::kThreads, 0, stream>>>(op, g, lines, nseg,
                                                                                           seg_len, totals);
  } else {
    ColumnTotalsKernel<<<Blocks(lines * nseg), ScanPolicy::kThreads, 0, stream>>>(op, g, lines, nseg, seg_len,
                                                                                 totals);
  }
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  ScanSegmentTotals(stream, lines, nseg + 1, totals, op);
  LastSlotKernel<<<Blocks(lines), ScanPolicy::kThreads, 0, stream>>>(lines, nseg + 1, totals, out);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

}  // namespace scan_gpu

// Which strategy ScanGpu takes for a layout (tests use it to cover each one). Short rows are
// staged in shared memory first where the op allows it (ScanStagedRows), else taken by logical
// warps.
enum class GpuScanStrategy { kShortRows, kRows, kColumns };

inline GpuScanStrategy ChooseGpuScanStrategy(const ScanLayout& l) {
  if (l.inner > 1) return GpuScanStrategy::kColumns;
  return l.length <= 64 ? GpuScanStrategy::kShortRows : GpuScanStrategy::kRows;
}

// The engine over a layout: `init`, when given, is a carry-in per line ([outer * inner] states,
// line = outer index * inner + column) that every line's scan starts from (internal: for the
// sequence-parallel scans; scan.h's ScanFrom). Rows with a carry-in take the single pass
// (short and staged rows too, and never an op's own split rows); columns their usual path.
// `row_segment` overrides the row segment (TileRowSegment; the harness sweeps it) and keeps such
// rows on the engine's single pass (not an op's own long rows, TileOwnLongRows).
template <typename Op, typename Scratch>
void ScanGpuLaunch(cudaStream_t stream, Scratch& scratch, const ScanLayout& l, bool exclusive, bool reverse,
                   const Op& op, const typename Op::State* init = nullptr, int64_t row_segment = 0) {
  if (l.numel() == 0) return;
  const scan_gpu::LineGeometry g{l.length, l.inner, reverse};
  GpuScanStrategy s = ChooseGpuScanStrategy(l);
  if (s == GpuScanStrategy::kShortRows && init != nullptr) s = GpuScanStrategy::kRows;
  if (l.inner == 1 && init == nullptr && scan_gpu::ScanStagedRows(stream, g, l.outer, exclusive, op)) return;
  switch (s) {
    case GpuScanStrategy::kColumns:
      scan_gpu::ScanColumns(stream, scratch, g, l.outer * l.inner, exclusive, op, init);
      break;
    case GpuScanStrategy::kShortRows:
      if (l.length <= 16) {
        scan_gpu::ScanRows<4, scan_gpu::ScanPolicy::kShortRowItems>(stream, scratch, g, l.outer, exclusive, op);
      } else {
        scan_gpu::ScanRows<16, scan_gpu::ScanPolicy::kShortRowItems>(stream, scratch, g, l.outer, exclusive, op);
      }
      break;
    case GpuScanStrategy::kRows:
      scan_gpu::ScanRows<32, scan_gpu::ScanPolicy::kRowItems>(stream, scratch, g, l.outer, exclusive, op, init,
                                                              row_segment);
      break;
  }
}

}  // namespace funcs
}  // namespace phi
