// The GPU scan engine: any op of scan_functors.h / cum_scan_ops.h (State, Identity, Combine,
// Load(ScanPos), Store(ScanPos, State)) over the [outer, length, inner] view, inclusive or
// exclusive, forward or reverse, with no flips or copies of the data:
//
//   ScanGpu(ctx, layout, exclusive, reverse, op)
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
#pragma once

#include <cub/warp/warp_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/funcs/scan_layout.h"
#include "paddle_ops/core/gpu/gpu_context.h"

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

// Where step s (in scan order) of line (o, i) lies.
struct LineGeometry {
  int64_t length, inner;
  bool reverse;
  HOSTDEVICE int64_t Base(int64_t line) const {  // line = o * inner + i
    const int64_t o = line / inner, i = line - o * inner;
    return o * length * inner + i;
  }
  HOSTDEVICE ScanPos At(int64_t base, int64_t s) const {
    const int64_t l = reverse ? length - 1 - s : s;
    const int64_t off = base + l * inner;
    return ScanPos{off, reverse ? off + inner : off - inner, s == 0};
  }
};

// A line of the tensor seen through the op.
template <typename Op>
struct OpLine {
  const Op& op;
  LineGeometry g;
  int64_t base;
  __device__ typename Op::State Load(int64_t s) const { return op.Load(g.At(base, s)); }
  __device__ void Store(int64_t s, const typename Op::State& v) const { op.Store(g.At(base, s), v); }
};

// A line of segment totals in scratch memory (phase 2), element s at data[first + s * stride].
template <typename State>
struct StateLine {
  State* data;
  int64_t first, stride;
  __device__ State Load(int64_t s) const { return data[first + s * stride]; }
  __device__ void Store(int64_t s, const State& v) const { data[first + s * stride] = v; }
};

template <typename Op>
struct CombineFn {
  const Op& op;
  __device__ typename Op::State operator()(const typename Op::State& a, const typename Op::State& b) const {
    return op.Combine(a, b);
  }
};

// The lanes of the calling thread's logical warp of W lanes (W divides 32), for *_sync.
template <int W>
__device__ inline unsigned LogicalWarpMask() {
  if (W == 32) return 0xffffffffu;
  return ((1u << (W % 32)) - 1u) << (W * ((threadIdx.x % 32) / W));
}

// Steps first .. first+V-1 of a row (inner == 1) at `base`, as stored (a 16-byte load when
// `vec` and the V steps are all before s1; steps >= s1 are left as they are).
template <typename T, int V>
__device__ inline void LoadRowRaw(const T* x, int64_t base, int64_t L, bool reverse, int64_t first, int64_t s1,
                                  bool vec, T (&v)[V]) {
  if (vec && first + V <= s1) {
    alignas(16) T buf[V];
    *reinterpret_cast<uint4*>(buf) = __ldg(reinterpret_cast<const uint4*>(x + (reverse ? base + L - first - V : base + first)));
    if (reverse) {  // constant indices only, so buf stays in registers
#pragma unroll
      for (int j = 0; j < V; ++j) v[j] = buf[V - 1 - j];
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) v[j] = buf[j];
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < V; ++j) {
    const int64_t s = first + j;
    if (s < s1) v[j] = x[reverse ? base + L - 1 - s : base + s];
  }
}

template <typename U, int V>
__device__ inline void StoreRowRaw(U* out, int64_t base, int64_t L, bool reverse, int64_t first, int64_t s1, bool vec,
                                   const U (&v)[V]) {
  if (vec && first + V <= s1) {
    alignas(16) U buf[V];
    if (reverse) {
#pragma unroll
      for (int j = 0; j < V; ++j) buf[V - 1 - j] = v[j];
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) buf[j] = v[j];
    }
    uint4* dst = reinterpret_cast<uint4*>(out + (reverse ? base + L - first - V : base + first));
    constexpr int kWords = static_cast<int>(sizeof(buf) / sizeof(uint4));
#pragma unroll
    for (int w = 0; w < kWords; ++w) dst[w] = reinterpret_cast<const uint4*>(buf)[w];
    return;
  }
#pragma unroll
  for (int j = 0; j < V; ++j) {
    const int64_t s = first + j;
    if (s < s1) out[reverse ? base + L - 1 - s : base + s] = v[j];
  }
}

// One logical warp of W lanes scans steps [s0, s1) of `line`, starting from `carry` (the
// combination of everything before s0), storing inclusive or exclusive prefixes when kStore;
// returns the carry after s1. Every lane of the logical warp calls it with the same arguments.
template <int W, int kItems, bool kStore, typename Op, typename Line>
__device__ typename Op::State WarpScanSteps(const Op& op, const Line& line, int64_t s0, int64_t s1,
                                            typename Op::State carry, bool exclusive, int lane) {
  using State = typename Op::State;
  using WarpScanT = cub::WarpScan<State, W>;
  typename WarpScanT::TempStorage temp;  // empty for the shuffle-based warp scan
  const CombineFn<Op> fn{op};
  for (int64_t t0 = s0; t0 < s1; t0 += int64_t{W} * kItems) {
    const int64_t first = t0 + int64_t{lane} * kItems;
    State items[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) items[k] = first + k < s1 ? line.Load(first + k) : op.Identity();
    State agg = items[0];
#pragma unroll
    for (int k = 1; k < kItems; ++k) agg = op.Combine(agg, items[k]);
    State prefix, warp_total;
    WarpScanT(temp).ExclusiveScan(agg, prefix, carry, fn, warp_total);
    if (kStore) {
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        if (first + k < s1) {
          if (exclusive) {
            line.Store(first + k, prefix);
            prefix = op.Combine(prefix, items[k]);
          } else {
            prefix = op.Combine(prefix, items[k]);
            line.Store(first + k, prefix);
          }
        }
      }
    }
    carry = op.Combine(carry, warp_total);
  }
  return carry;
}

// One thread scans steps [s0, s1) of `line` sequentially, kItems loads in flight at a time.
template <int kItems, bool kStore, typename Op, typename Line>
__device__ typename Op::State ThreadScanSteps(const Op& op, const Line& line, int64_t s0, int64_t s1,
                                              typename Op::State carry, bool exclusive) {
  using State = typename Op::State;
  for (int64_t t0 = s0; t0 < s1; t0 += kItems) {
    State items[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) items[k] = t0 + k < s1 ? line.Load(t0 + k) : op.Identity();
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (kStore && t0 + k < s1) {
        if (exclusive) {
          line.Store(t0 + k, carry);
          carry = op.Combine(carry, items[k]);
        } else {
          carry = op.Combine(carry, items[k]);
          line.Store(t0 + k, carry);
        }
      } else if (!kStore) {
        carry = op.Combine(carry, items[k]);  // Identity past s1 changes nothing
      }
    }
  }
  return carry;
}

// A tile scanner per op: how a logical warp (Warp) or one thread (Thread) scans steps
// [s0, s1) of a line of the tensor. The default is the generic WarpScanSteps/ThreadScanSteps
// above, which need only the op interface; an op may specialize GpuTileScan next to its
// definition (kFast = true) to work on its raw elements, falling back on the generic steps
// where its fast arithmetic does not apply. The specialization must be visible wherever the
// engine is instantiated for that op.
template <typename Op, typename Enable = void>
struct GpuTileScan {
  static constexpr bool kFast = false;
  template <int W, int kItems, bool kStore>
  __device__ static typename Op::State Warp(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1,
                                            typename Op::State carry, bool exclusive, int lane) {
    return WarpScanSteps<W, kItems, kStore>(op, line, s0, s1, carry, exclusive, lane);
  }
  template <int kItems, bool kStore>
  __device__ static typename Op::State Thread(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1,
                                              typename Op::State carry, bool exclusive) {
    return ThreadScanSteps<kItems, kStore>(op, line, s0, s1, carry, exclusive);
  }
};

// The blocks per SM the row and column kernels of an op are compiled for (__launch_bounds__'s
// second argument): GpuTileScan<Op>::kMinBlocks where a tile scanner sets it, else 1 (no cap
// on registers below the 255 of 256 threads).
template <typename Tiles, typename = void>
struct TileMinBlocks {
  static constexpr int value = 1;
};
template <typename Tiles>
struct TileMinBlocks<Tiles, std::void_t<decltype(Tiles::kMinBlocks)>> {
  static constexpr int value = Tiles::kMinBlocks;
};

// ---- inner == 1: rows, a logical warp per (row, segment) -----------------------------------
// kPhase 0: whole rows (one segment each). 1: write segment totals. 3: rescan each segment from
// its exclusive prefix in `totals`.
template <int W, int kItems, int kPhase, typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads, TileMinBlocks<GpuTileScan<Op>>::value)
    RowScanKernel(Op op, LineGeometry g, int64_t rows, int64_t nseg, int64_t seg_len,
                  typename Op::State* totals, bool exclusive) {
  const int64_t warp = (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) / W;
  const int lane = threadIdx.x % W;
  if (warp >= rows * nseg) return;  // a whole logical warp leaves together
  const int64_t row = warp / nseg, seg = warp - row * nseg;
  const int64_t s0 = seg * seg_len, s1 = s0 + seg_len < g.length ? s0 + seg_len : g.length;
  const OpLine<Op> line{op, g, g.Base(row)};
  if (kPhase == 1) {
    const auto total = GpuTileScan<Op>::template Warp<W, kItems, false>(op, line, s0, s1, op.Identity(), exclusive, lane);
    if (lane == 0) totals[warp] = total;
  } else {
    const auto carry = kPhase == 3 ? totals[warp] : op.Identity();
    GpuTileScan<Op>::template Warp<W, kItems, true>(op, line, s0, s1, carry, exclusive, lane);
  }
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
template <int kPhase, typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads, TileMinBlocks<GpuTileScan<Op>>::value)
    ColumnScanKernel(Op op, LineGeometry g, int64_t lines, int64_t nseg, int64_t seg_len,
                     typename Op::State* totals, bool exclusive) {
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
    const auto carry = kPhase == 3 ? totals[ln * nseg + seg] : op.Identity();
    GpuTileScan<Op>::template Thread<kItems, true>(op, line, s0, s1, carry, exclusive);
  }
}

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

}  // namespace funcs
}  // namespace phi
