// The GPU scan engine: any op of scan_functors.h / cum_scan_ops.h (State, Identity, Combine,
// Load(ScanPos), Store(ScanPos, State)) over the [outer, length, inner] view, inclusive or
// exclusive, forward or reverse, with no flips or copies of the data:
//
//   Scan(ctx, layout, exclusive, reverse, op)     (ctx a GPUContext; kernels/funcs/scan.h)
//
// Deterministic by construction: every Combine happens in an order fixed by the shape alone
// (no atomics, no look-back that depends on timing), so a given input gives the same bits on
// every run. Long lines are split into segments of a fixed decomposition and scanned in three
// phases (reduce each segment; scan the segment totals; rescan each segment from its prefix).
// Phase 2 is itself parallel with a fixed shape: a warp per line for up to kWarpTotals segments,
// else a block per line (each thread folds a run of consecutive totals, warp scans, a scan of
// the warp totals); the segment totals of a line are contiguous for rows and columns alike.
//
// Strategies, chosen from the layout:
//   inner == 1   rows are contiguous. A logical warp of W lanes (W = 4, 16 or 32; several rows per
//                warp when rows are short) walks its row (or row segment) in tiles of W * kItems:
//                each lane folds kItems consecutive elements, a cub::WarpScan scans the lane
//                totals, and a carry passes from tile to tile. Few long rows are cut into
//                segments so that enough warps run; the segment totals are scanned by the same
//                warp routine.
//   inner > 1    columns are contiguous: one thread per (outer, inner) line, consecutive threads
//                on consecutive columns (coalesced), walking `length` sequentially. When
//                outer * inner cannot fill the GPU, `length` is cut into segments (three phases).
// All offsets are 64-bit.
//
// This file is the engine's dispatch layer (as CUB's dispatch): the strategy from the shape,
// grids, segment counts and temporary storage, launch errors, and the switch between this
// engine (ScanGpu) and thrust's reference path (scan_thrust.cuh), chosen per call by
// the flag PADDLE_OPS_GPU_SCAN (paddle_ops/common/flags.h: "engine", the default, or "thrust");
// paddle_ops.device.gpu_scan_backend() reports the same choice. The layers below it:
// scan_policy.cuh (tuning numbers), scan_agent.cuh (a warp's or a thread's work),
// scan_kernel.cuh (the __global__ wrappers).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/funcs/gpu/scan_kernel.cuh"
#include "kernels/funcs/gpu/scan_thrust.cuh"
#include "kernels/funcs/scan.h"
#include "paddle_ops/common/flags.h"
#include "paddle_ops/core/gpu/gpu_context.h"

namespace phi {
namespace funcs {
namespace scan_gpu {

inline unsigned Blocks(int64_t threads) {
  return static_cast<unsigned>((threads + ScanPolicy::kThreads - 1) / ScanPolicy::kThreads);
}

// Phase 2 for `lines` lines of nseg segment totals each, line-major: exclusive prefixes in place.
template <typename Op>
void ScanSegmentTotals(const GPUContext& ctx, int64_t lines, int64_t nseg, typename Op::State* totals, const Op& op) {
  if (nseg <= ScanPolicy::kWarpTotals) {
    WarpTotalsScanKernel<<<Blocks(lines * 32), ScanPolicy::kThreads, 0, ctx.stream()>>>(op, lines, nseg, totals);
  } else {
    BlockTotalsScanKernel<<<static_cast<unsigned>(lines), ScanPolicy::kTotalsThreads, 0, ctx.stream()>>>(op, nseg,
                                                                                                       totals);
  }
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

template <int W, int kItems, typename Op>
void ScanRows(const GPUContext& ctx, const LineGeometry& g, int64_t rows, bool exclusive, const Op& op) {
  using State = typename Op::State;
  constexpr int64_t kTile = int64_t{W} * kItems;
  int64_t nseg = 1;
  const int64_t target = ScanPolicy::kTargetRowWarpsPerSlot * std::max(2, TileMinBlocks<GpuTileScan<Op>>::value);
  if (W == 32 && rows < target) {
    // Split each row so that about `target` warps run, each segment at least 4 tiles.
    nseg = std::min((target + rows - 1) / rows, (g.length + 4 * kTile - 1) / (4 * kTile));
    nseg = std::max<int64_t>(nseg, 1);
  }
  int64_t seg_len = (g.length + nseg - 1) / nseg;
  seg_len = (seg_len + kTile - 1) / kTile * kTile;  // segments start on tile boundaries
  nseg = (g.length + seg_len - 1) / seg_len;
  const unsigned blocks = Blocks(rows * nseg * W);
  if (nseg == 1) {
    RowScanKernel<W, kItems, 0><<<blocks, ScanPolicy::kThreads, 0, ctx.stream()>>>(op, g, rows, 1, seg_len,
                                                                                  nullptr, exclusive);
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
    return;
  }
  DenseTensor scratch(DataType::UINT8, DDim({static_cast<int64_t>(rows * nseg * sizeof(State))}));
  State* totals = static_cast<State*>(ctx.Alloc(&scratch, DataType::UINT8));
  RowScanKernel<W, kItems, 1><<<blocks, ScanPolicy::kThreads, 0, ctx.stream()>>>(op, g, rows, nseg, seg_len,
                                                                                totals, exclusive);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  ScanSegmentTotals(ctx, rows, nseg, totals, op);
  RowScanKernel<W, kItems, 3><<<blocks, ScanPolicy::kThreads, 0, ctx.stream()>>>(op, g, rows, nseg, seg_len,
                                                                                totals, exclusive);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

template <typename Op>
void ScanColumns(const GPUContext& ctx, const LineGeometry& g, int64_t lines, bool exclusive, const Op& op) {
  using State = typename Op::State;
  int64_t nseg = 1;
  if (lines < ScanPolicy::kTargetColumnThreads) {
    nseg = std::min({(ScanPolicy::kTargetColumnThreads + lines - 1) / lines, ScanPolicy::kMaxColumnSegments,
                     (g.length + 63) / 64});  // segments of at least 64 steps
    nseg = std::max<int64_t>(nseg, 1);
  }
  const int64_t seg_len = (g.length + nseg - 1) / nseg;
  nseg = (g.length + seg_len - 1) / seg_len;
  const unsigned blocks = Blocks(lines * nseg);
  if (nseg == 1) {
    ColumnScanKernel<0><<<blocks, ScanPolicy::kThreads, 0, ctx.stream()>>>(op, g, lines, 1, seg_len, nullptr,
                                                                           exclusive);
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
    return;
  }
  DenseTensor scratch(DataType::UINT8, DDim({static_cast<int64_t>(lines * nseg * sizeof(State))}));
  State* totals = static_cast<State*>(ctx.Alloc(&scratch, DataType::UINT8));
  ColumnScanKernel<1><<<blocks, ScanPolicy::kThreads, 0, ctx.stream()>>>(op, g, lines, nseg, seg_len, totals,
                                                                         exclusive);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  ScanSegmentTotals(ctx, lines, nseg, totals, op);
  ColumnScanKernel<3><<<blocks, ScanPolicy::kThreads, 0, ctx.stream()>>>(op, g, lines, nseg, seg_len, totals,
                                                                         exclusive);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

}  // namespace scan_gpu

// Which strategy ScanGpu takes for a layout (tests use it to cover each one).
enum class GpuScanStrategy { kShortRows, kRows, kColumns };

inline GpuScanStrategy ChooseGpuScanStrategy(const ScanLayout& l) {
  if (l.inner > 1) return GpuScanStrategy::kColumns;
  return l.length <= 64 ? GpuScanStrategy::kShortRows : GpuScanStrategy::kRows;
}

template <typename Op>
void ScanGpu(const GPUContext& ctx, const ScanLayout& l, bool exclusive, bool reverse, const Op& op) {
  if (l.numel() == 0) return;
  const scan_gpu::LineGeometry g{l.length, l.inner, reverse};
  switch (ChooseGpuScanStrategy(l)) {
    case GpuScanStrategy::kColumns:
      scan_gpu::ScanColumns(ctx, g, l.outer * l.inner, exclusive, op);
      break;
    case GpuScanStrategy::kShortRows:
      if (l.length <= 16) {
        scan_gpu::ScanRows<4, scan_gpu::ScanPolicy::kShortRowItems>(ctx, g, l.outer, exclusive, op);
      } else {
        scan_gpu::ScanRows<16, scan_gpu::ScanPolicy::kShortRowItems>(ctx, g, l.outer, exclusive, op);
      }
      break;
    case GpuScanStrategy::kRows:
      scan_gpu::ScanRows<32, scan_gpu::ScanPolicy::kRowItems>(ctx, g, l.outer, exclusive, op);
      break;
  }
}

inline bool UseGpuScanEngine() { return paddle_ops::flags::GpuScanBackend() == paddle_ops::flags::GpuScan::kEngine; }

// The GPU overload of the engine's entry (kernels/funcs/scan.h).
template <typename Op>
void Scan(const GPUContext& ctx, const ScanLayout& l, bool exclusive, bool reverse, const Op& op) {
  if (UseGpuScanEngine()) {
    ScanGpu(ctx, l, exclusive, reverse, op);
  } else {
    ScanThrust(ctx, l, exclusive, reverse, op);
  }
}

}  // namespace funcs
}  // namespace phi
