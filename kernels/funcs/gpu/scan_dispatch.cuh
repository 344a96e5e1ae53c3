// The GPU scan engine: any op of scan_functors.h / cum_scan_ops.h (State, Identity, Combine,
// Load(ScanPos), Store(ScanPos, State)) over the [outer, length, inner] view, inclusive or
// exclusive, forward or reverse, with no flips or copies of the data:
//
//   Scan(ctx, layout, exclusive, reverse, op)     (ctx a GPUContext; kernels/funcs/scan.h)
//
// Deterministic by construction: every Combine happens in an order fixed by the shape alone
// (no atomics on values; the look-back of the single pass always folds the same left fold,
// whatever it finds published), so a given input gives the same bits on every run. Integer
// cumsum's few long rows go to CUB's DeviceScan (kernels/gpu/cumsum_tiles.cuh), whose look-back
// folds whatever it finds: its integer sums are exact, so the bits are the same either way.
//
// Strategies, chosen from the layout (scan_launch.cuh):
//   inner == 1   rows are contiguous. Short power-of-two rows (4 to 512 steps) of the ops that
//                allow it are staged: a block copies a tile of rows into shared memory and each
//                thread scans a run of one row with the op's sequential step
//                (scan_staged_rows.cuh). Otherwise a logical warp of W lanes (W = 4, 16 or 32;
//                several rows per warp when rows are short) walks its row in tiles of
//                W * kItems: each lane folds
//                kItems consecutive elements, a warp scan of the lane totals, and a carry passes
//                from tile to tile. Rows too few to fill the GPU are cut into segments of
//                ScanPolicy::kRowSegment steps, a warp each, scanned in one pass over memory
//                with a deterministic look-back (scan_onepass.cuh).
//   inner > 1    columns are contiguous: one thread per (outer, inner) line, consecutive threads
//                on consecutive columns (coalesced), walking `length` sequentially. When
//                outer * inner cannot fill the GPU, `length` is cut into segments: three phases
//                (totals, their scan, a rescan), or below 1024 lines one pass over memory in
//                tiles of adjacent lines with the same look-back (scan_columns.cuh).
// All offsets are 64-bit.
//
// This file is the engine's dispatch layer: the GPUContext's stream and scratch, and the switch
// between this engine (ScanGpu) and thrust's reference path (scan_thrust.cuh), chosen per call by
// the flag PADDLE_OPS_GPU_SCAN (paddle_ops/common/flags.h: "engine", the default, or "thrust");
// paddle_ops.device.gpu_scan_backend() reports the same choice. The layers below it:
// scan_launch.cuh (strategy, grids, scratch; no framework types, shared with the kernel
// harness), scan_policy.cuh (tuning numbers), scan_onepass.cuh, scan_columns.cuh,
// scan_staged_rows.cuh and scan_kernel.cuh (the __global__ kernels), scan_agent.cuh (a warp's or
// a thread's work).
#pragma once

#include <cstdint>
#include <vector>

#include "paddle_ops/core/gpu/gpu_context.h"  // first: PADDLE_ENFORCE_GPU_SUCCESS for the layers below
#include "kernels/funcs/gpu/scan_launch.cuh"
#include "kernels/funcs/gpu/scan_thrust.cuh"
#include "kernels/funcs/scan.h"
#include "paddle_ops/common/flags.h"

namespace phi {
namespace funcs {

// Scratch from the context's allocator, held until the call returns (the allocator is
// stream-ordered, so the memory stays the launches' until they finish).
struct CtxScratch {
  const GPUContext& ctx;
  std::vector<DenseTensor> held;
  void* operator()(int64_t bytes) {
    held.emplace_back(DataType::UINT8, DDim({bytes}));
    return ctx.Alloc(&held.back(), DataType::UINT8);
  }
};

template <typename Op>
void ScanGpu(const GPUContext& ctx, const ScanLayout& l, bool exclusive, bool reverse, const Op& op,
             const typename Op::State* init = nullptr) {
  CtxScratch scratch{ctx, {}};
  scratch.held.reserve(2);
  ScanGpuLaunch(ctx.stream(), scratch, l, exclusive, reverse, op, init);
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

// The scan with a carry-in per line and the line totals (kernels/funcs/scan.h): always this
// engine, whatever PADDLE_OPS_GPU_SCAN says (thrust's reference path takes no carry).
template <typename Op>
void ScanFrom(const GPUContext& ctx, const ScanLayout& l, bool exclusive, bool reverse, const Op& op,
              const typename Op::State* init) {
  ScanGpu(ctx, l, exclusive, reverse, op, init);
}

template <typename Op>
void ScanTotals(const GPUContext& ctx, const ScanLayout& l, bool reverse, const Op& op, typename Op::State* totals) {
  CtxScratch scratch{ctx, {}};
  scratch.held.reserve(1);
  scan_gpu::ScanTotalsLaunch(ctx.stream(), scratch, l, reverse, op, totals);
}

}  // namespace funcs
}  // namespace phi
