// The __global__ kernels of the GPU scan engine: thin wrappers that give each warp or thread its
// line (and segment) and call the agent (scan_agent.cuh). Rows cut into segments take the
// single-pass kernel of scan_onepass.cuh; columns cut into segments the three phases below.
// Grids are chosen in scan_launch.cuh.
#pragma once

#include <cub/warp/warp_scan.cuh>

#include <cstdint>
#include <type_traits>

#include "kernels/funcs/gpu/scan_agent.cuh"
#include "kernels/funcs/gpu/scan_policy.cuh"

namespace phi {
namespace funcs {
namespace scan_gpu {

// Each optional member of an op's tile scanner (GpuTileScan<Op>) read through a trait:
// Name<Tiles>::value is Tiles::member where the scanner declares it, else the default.
#define PO_TILE_TRAIT(Name, member, Type, fallback)                      \
  template <typename Tiles, typename = void>                             \
  struct Name {                                                          \
    static constexpr Type value = fallback;                              \
  };                                                                     \
  template <typename Tiles>                                              \
  struct Name<Tiles, std::void_t<decltype(Tiles::member)>> {             \
    static constexpr Type value = Tiles::member;                         \
  };

// The blocks per SM the row and column kernels of an op are compiled for (__launch_bounds__'s
// second argument): GpuTileScan<Op>::kMinBlocks where a tile scanner sets it, else 1 (no cap
// on registers below the 255 of 256 threads).
PO_TILE_TRAIT(TileMinBlocks, kMinBlocks, int, 1)
// The blocks per SM the three column phases' kernels (ColumnScanKernel) are compiled for:
// GpuTileScan<Op>::kColumnScanMinBlocks where a tile scanner sets it, else TileMinBlocks (an op
// whose column thread steps need fewer registers than its rows: logcumsumexp's float32 gradient).
PO_TILE_TRAIT(TileColumnScanMinBlocks, kColumnScanMinBlocks, int, TileMinBlocks<Tiles>::value)
// Rows from which the engine scans each row with a warp of its own (fewer: warp segments with a
// look-back, or the op's block tiles): GpuTileScan<Op>::kRowTarget where a tile scanner sets it,
// else ScanPolicy::kTargetRowWarpsPerSlot x its blocks an SM (at least 2).
PO_TILE_TRAIT(TileRowTarget, kRowTarget, int64_t,
              ScanPolicy::kTargetRowWarpsPerSlot *(TileMinBlocks<Tiles>::value > 2 ? TileMinBlocks<Tiles>::value : 2))

// The single pass's steps per row segment and the threads the column segments aim at:
// GpuTileScan<Op>::kRowSegment / kColumnThreads where a tile scanner sets them, else
// ScanPolicy's kRowSegment / kTargetColumnThreads (an op whose kernels hold fewer threads an SM
// fills the GPU with fewer).
PO_TILE_TRAIT(TileRowSegment, kRowSegment, int64_t, ScanPolicy::kRowSegment)
PO_TILE_TRAIT(TileColumnThreads, kColumnThreads, int64_t, ScanPolicy::kTargetColumnThreads)

// Whether the op's tiles scan rows cut into segments themselves (GpuTileScan<Op>::kSplitRows
// and SplitRows<kItems>(stream, scratch, g, rows, nseg, seg_len, op), inclusive scans without a
// carry-in): an op whose carry reaches only the first steps of a segment (a flood's leading
// holes) stores each segment at once and fixes those steps after, instead of the look-back.
PO_TILE_TRAIT(TileSplitRows, kSplitRows, bool, false)

// Whether the op's tiles scan columns cut into segments themselves
// (GpuTileScan<Op>::kOwnColumns and Columns(stream, scratch, g, lines, exclusive, op), which
// returns false where it declines and the engine's three phases run): pscan's one pass over
// a broadcast gate (kernels/gpu/pscan_onepass.cuh, a compile-time variant).
PO_TILE_TRAIT(TileOwnColumns, kOwnColumns, bool, false)

// Whether short rows of the op may be staged in shared memory (GpuTileScan<Op>::kStagedRows:
// its Load and Store touch only op.x and op.out at the position's offset; scan_staged_rows.cuh),
// and the steps its thread step takes at a time there (kStagedItems).
PO_TILE_TRAIT(TileStagedRows, kStagedRows, bool, false)
PO_TILE_TRAIT(TileStagedItems, kStagedItems, int, ScanPolicy::kStagedItems)
// Whether the op's tiles scan staged runs themselves (GpuTileScan<Op>::kStagedRun and
// StagedRun<kItems, kP>(op, line, s0, s1, exclusive): this lane's run of a row split among kP
// lanes, from the identity, storing every step; false where it declines, the same on every
// lane of the row: the generic steps then), where a sequential step can do what the op's
// carries cannot (cumsum's exact float64 loop); the steps a thread (kStagedSteps, 0: the
// policy's), the blocks an SM the kernel is compiled for (kStagedMinBlocks) and the longest row
// staged (kStagedMaxLength), where an op's tiles set them.
PO_TILE_TRAIT(TileStagedRun, kStagedRun, bool, false)
PO_TILE_TRAIT(TileStagedSteps, kStagedSteps, int, 0)
PO_TILE_TRAIT(TileStagedMinBlocks, kStagedMinBlocks, int, ScanPolicy::kStagedMinBlocks)
PO_TILE_TRAIT(TileStagedMaxLength, kStagedMaxLength, int64_t, ScanPolicy::kStagedMaxLength)

// ---- inner == 1: whole rows, a logical warp of W lanes per row (segments: scan_onepass.cuh) ---
template <int W, int kItems, typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads, TileMinBlocks<GpuTileScan<Op>>::value)
    RowScanKernel(Op op, LineGeometry g, int64_t rows, bool exclusive) {
  const int64_t row = (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) / W;
  const int lane = threadIdx.x % W;
  if (row >= rows) return;  // a whole logical warp leaves together
  const OpLine<Op> line{op, g, g.Base(row)};
  GpuTileScan<Op>::template Warp<W, kItems, true>(op, line, 0, g.length, op.Identity(), exclusive, lane);
}

// Phase 2, few segments per line: a warp per line scans its nseg totals (contiguous at
// totals[line * nseg]) to exclusive prefixes, in place.
template <typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads)
    WarpTotalsScanKernel(Op op, int64_t lines, int64_t nseg, typename Op::State* totals) {
  const int64_t ln = (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) / 32;
  if (ln >= lines) return;
  const StateLine<typename Op::State> line{totals, ln * nseg, 1};
  WarpScanSteps<32, 4, true>(op, line, 0, nseg, op.Identity(), true, threadIdx.x % 32);
}

// Phase 2, many segments per line (the 2048 or 3072 of a single long row): a block per line. Thread t
// folds the run [t * per, (t + 1) * per) of totals left to right, a warp scan and a scan of the
// warp totals give each thread what lies before its run, and the thread walks its run again
// storing exclusive prefixes. The combination order depends on nseg alone (deterministic); the
// dependent chain is per + log2(32) + log2(kTotalsThreads / 32) + per combines long, instead of
// the 16-24 tiles of ~13 dependent combines each of one warp walking 2048-3072 totals.
template <typename Op>
__global__ void __launch_bounds__(ScanPolicy::kTotalsThreads)
    BlockTotalsScanKernel(Op op, int64_t nseg, typename Op::State* totals) {
  using State = typename Op::State;
  constexpr int kWarps = ScanPolicy::kTotalsThreads / 32;
  using WarpScanT = cub::WarpScan<State, 32>;
  __shared__ typename WarpScanT::TempStorage temp[kWarps];  // empty for the shuffle-based warp scan
  __shared__ State warp_totals[kWarps];
  const CombineFn<Op> fn{op};
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  State* t = totals + blockIdx.x * nseg;
  const int64_t per = (nseg + ScanPolicy::kTotalsThreads - 1) / ScanPolicy::kTotalsThreads;
  const int64_t b0 = threadIdx.x * per;
  const int64_t b1 = b0 + per < nseg ? b0 + per : nseg;
  State run = op.Identity();
  for (int64_t k = b0; k < b1; ++k) run = op.Combine(run, t[k]);
  State before, warp_total;
  WarpScanT(temp[warp]).ExclusiveScan(run, before, op.Identity(), fn, warp_total);
  if (lane == 0) warp_totals[warp] = warp_total;
  __syncthreads();
  if (warp == 0) {
    const State w = lane < kWarps ? warp_totals[lane] : op.Identity();
    State w_before, all;
    WarpScanT(temp[0]).ExclusiveScan(w, w_before, op.Identity(), fn, all);
    __syncwarp();
    if (lane < kWarps) warp_totals[lane] = w_before;
  }
  __syncthreads();
  State carry = op.Combine(warp_totals[warp], before);
  for (int64_t k = b0; k < b1; ++k) {
    const State v = t[k];
    t[k] = carry;
    carry = op.Combine(carry, v);
  }
}

// ---- inner > 1: columns, a thread per (segment, line), line fastest --------------------------
// init: a carry-in per line (null for none), combined before the line's first step.
template <int kPhase, typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads, TileColumnScanMinBlocks<GpuTileScan<Op>>::value)
    ColumnScanKernel(Op op, LineGeometry g, int64_t lines, int64_t nseg, int64_t seg_len,
                     typename Op::State* totals, bool exclusive, const typename Op::State* init = nullptr) {
  const int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (t >= lines * nseg) return;
  const int64_t seg = t / lines, ln = t - seg * lines;
  const int64_t s0 = seg * seg_len, s1 = s0 + seg_len < g.length ? s0 + seg_len : g.length;
  const OpLine<Op> line{op, g, g.Base(ln)};
  constexpr int kItems = ScanPolicy::kColumnItems;
  // Segment totals line-major (totals[ln * nseg + seg]), so that phase 2 reads a line's run.
  if (kPhase == 1) {
    totals[ln * nseg + seg] = GpuTileScan<Op>::template Thread<kItems, false>(op, line, s0, s1, op.Identity(), exclusive);
  } else {
    auto carry = kPhase == 3 ? totals[ln * nseg + seg] : op.Identity();
    if (init != nullptr) carry = op.Combine(init[ln], carry);
    GpuTileScan<Op>::template Thread<kItems, true>(op, line, s0, s1, carry, exclusive);
  }
}

// ---- line totals (ScanTotals): a reduction, each element read once ------------------------------
// Totals of (line, segment) line-major with one more slot per line holding the identity
// (totals[ln * (nseg + 1) + seg]), so that the exclusive scan of a line's nseg + 1 slots
// (ScanSegmentTotals) leaves the line's total in its last slot.
template <int kItems, typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads, TileMinBlocks<GpuTileScan<Op>>::value)
    RowTotalsKernel(Op op, LineGeometry g, int64_t rows, int64_t nseg, int64_t seg_len, typename Op::State* totals) {
  const int64_t w = (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (w >= rows * nseg) return;  // a whole warp leaves together
  const int64_t row = w / nseg, seg = w - row * nseg;
  const int64_t s0 = seg * seg_len, s1 = s0 + seg_len < g.length ? s0 + seg_len : g.length;
  const OpLine<Op> line{op, g, g.Base(row)};
  const auto a = GpuTileScan<Op>::template Warp<32, kItems, false>(op, line, s0, s1, op.Identity(), false, lane);
  if (lane == 0) {
    totals[row * (nseg + 1) + seg] = a;
    if (seg == nseg - 1) totals[row * (nseg + 1) + nseg] = op.Identity();
  }
}

template <typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads, TileMinBlocks<GpuTileScan<Op>>::value)
    ColumnTotalsKernel(Op op, LineGeometry g, int64_t lines, int64_t nseg, int64_t seg_len,
                       typename Op::State* totals) {
  const int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (t >= lines * nseg) return;
  const int64_t seg = t / lines, ln = t - seg * lines;
  const int64_t s0 = seg * seg_len, s1 = s0 + seg_len < g.length ? s0 + seg_len : g.length;
  const OpLine<Op> line{op, g, g.Base(ln)};
  totals[ln * (nseg + 1) + seg] =
      GpuTileScan<Op>::template Thread<ScanPolicy::kColumnItems, false>(op, line, s0, s1, op.Identity(), false);
  if (seg == nseg - 1) totals[ln * (nseg + 1) + nseg] = op.Identity();
}

// out[ln] = totals[ln * stride + stride - 1].
template <typename State>
__global__ void LastSlotKernel(int64_t lines, int64_t stride, const State* totals, State* out) {
  const int64_t ln = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (ln < lines) out[ln] = totals[ln * stride + stride - 1];
}

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
