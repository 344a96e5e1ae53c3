// What one warp, logical warp or thread of the GPU scan engine does (CUB's "agent" layer):
// the line geometry, the generic tile scans over the op interface, the raw row loaders that
// the op tiles build on (LoadRowRaw/StoreRowRaw), and the GpuTileScan hook by which an op's
// own tiles (kernels/gpu/*_tiles.cuh) replace the generic ones. No launches here.
#pragma once

#include <cub/warp/warp_scan.cuh>

#include <cstdint>

#include "kernels/funcs/gpu/scan_policy.cuh"
#include "kernels/funcs/scan_layout.h"
#include "paddle_ops/common/macros.h"

#ifndef PO_SCAN_SMEM_LOADS  // blocked groups loaded through shared memory too (a harness variant)
#define PO_SCAN_SMEM_LOADS 0
#endif

namespace phi {
namespace funcs {
namespace scan_gpu {

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

// The first n (<= N) of N steps of two tensors, a[a0 + k * as] and b[b0 + k * bs] (a column
// line's elements, or its gates), all loads issued before any is used; the rest left as they are.
template <int N, typename A, typename B>
__device__ inline void LoadStepPairs(const A* a, int64_t a0, int64_t as, const B* b, int64_t b0, int64_t bs, int64_t n,
                                     A (&va)[N], B (&vb)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) {
    if (k < n) {
      va[k] = a[a0 + k * as];
      vb[k] = b[b0 + k * bs];
    }
  }
}

// A full warp's group of 32 * N steps held blocked (lane l: steps g0 + l * N .. + N - 1 in scan
// order, a row with inner == 1 at `base`, all before the line's end, 16-byte aligned), moved
// between registers and memory through a per-warp shared buffer so that every global access
// is a coalesced 16-byte one (lane l the l-th 16 bytes of each 512): a lane's own 16-byte
// chunks at stride N * sizeof(T) would each write half a sector, doubling the L2 requests.
// The buffer's 16-byte slots are swizzled (slot q at q ^ ((q >> 3) & (NC - 1))) so that
// neither the blocked nor the striped side has bank conflicts.
template <typename T, int N>
struct BlockedGroup {
  static constexpr int kVE = 16 / static_cast<int>(sizeof(T));  // elements per 16-byte chunk
  static constexpr int kNC = N / kVE;                              // chunks per lane
  static_assert(kNC == 1 || kNC == 2 || kNC == 4 || kNC == 8, "chunks per lane: a power of two");
  __device__ static int Slot(int q) { return q ^ ((q >> 3) & (kNC - 1)); }
  __device__ static uint4* Buffer() {
    __shared__ uint4 smem[ScanPolicy::kThreads / 32][32 * kNC];
    return smem[threadIdx.x / 32];
  }
  // Memory-order index of the lane's block, and the group's first element in memory.
  template <bool kRev>
  __device__ static int64_t Begin(int64_t base, int64_t L, int64_t g0) {
    return kRev ? base + L - g0 - 32 * N : base + g0;
  }
  template <bool kRev>
  __device__ static void Store(T* out, int64_t base, int64_t L, int64_t g0, const T (&o)[N], int lane) {
    Store<kRev>(out, base, L, g0, o, lane, Buffer());
  }
  // The same through a caller's per-warp buffer of at least 32 * kNC 16-byte slots.
  template <bool kRev>
  __device__ static void Store(T* out, int64_t base, int64_t L, int64_t g0, const T (&o)[N], int lane, uint4* buf) {
    alignas(16) T mem[N];
#pragma unroll
    for (int j = 0; j < N; ++j) mem[kRev ? N - 1 - j : j] = o[j];
    const int blk = kRev ? 31 - lane : lane;
#pragma unroll
    for (int c = 0; c < kNC; ++c) buf[Slot(blk * kNC + c)] = reinterpret_cast<const uint4*>(mem)[c];
    __syncwarp();
    uint4* dst = reinterpret_cast<uint4*>(out + Begin<kRev>(base, L, g0));
#pragma unroll
    for (int c = 0; c < kNC; ++c) dst[c * 32 + lane] = buf[Slot(c * 32 + lane)];
    __syncwarp();
  }
  template <bool kRev>
  __device__ static void Load(const T* x, int64_t base, int64_t L, int64_t g0, T (&v)[N], int lane) {
    const uint4* src = reinterpret_cast<const uint4*>(x + Begin<kRev>(base, L, g0));
    alignas(16) T mem[N];
#if PO_SCAN_SMEM_LOADS
    uint4* buf = Buffer();
#pragma unroll
    for (int c = 0; c < kNC; ++c) buf[Slot(c * 32 + lane)] = __ldg(src + c * 32 + lane);
    __syncwarp();
    const int blk = kRev ? 31 - lane : lane;
#pragma unroll
    for (int c = 0; c < kNC; ++c) reinterpret_cast<uint4*>(mem)[c] = buf[Slot(blk * kNC + c)];
    __syncwarp();
#else
    const int blk = kRev ? 31 - lane : lane;
#pragma unroll
    for (int c = 0; c < kNC; ++c) reinterpret_cast<uint4*>(mem)[c] = __ldg(src + blk * kNC + c);
#endif
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = mem[kRev ? N - 1 - j : j];
  }
};

// The warp-wide half of a tile: the lane's N items combined in order into its aggregate, then
// an exclusive scan of the aggregates across the logical warp of W lanes, seeded with carry.
// *prefix: the combination of everything before the lane's first item (carry included);
// *warp_total: the tile's total without carry. Every lane of the logical warp calls it.
template <int W, int N, typename Op>
__device__ __forceinline__ void WarpTileExclusiveScan(const Op& op, const typename Op::State (&items)[N],
                                                      const typename Op::State& carry, typename Op::State* prefix,
                                                      typename Op::State* warp_total) {
  using State = typename Op::State;
  using WarpScanT = cub::WarpScan<State, W>;
  typename WarpScanT::TempStorage temp;  // empty for the shuffle-based warp scan
  State agg = items[0];
#pragma unroll
  for (int k = 1; k < N; ++k) agg = op.Combine(agg, items[k]);
  WarpScanT(temp).ExclusiveScan(agg, *prefix, carry, CombineFn<Op>{op}, *warp_total);
}

// The lanes' totals of a logical warp of W lanes, scanned in float64 in a fixed order: what
// lies before this lane (0 for lane 0) and the warp's total (every lane).
template <int W>
__device__ inline void ScanLaneTotals(double lane_total, unsigned mask, int lane, double* before, double* total) {
  double incl = lane_total;
#pragma unroll
  for (int d = 1; d < W; d <<= 1) {
    const double y = __shfl_up_sync(mask, incl, d, W);
    if (lane >= d) incl += y;
  }
  const double b = __shfl_up_sync(mask, incl, 1, W);
  *before = lane == 0 ? 0.0 : b;
  *total = __shfl_sync(mask, incl, W - 1, W);
}

// Step s of a storing scan, whose item is `item`, with *prefix the combination of everything
// before it: an exclusive scan stores *prefix and then takes the item in, an inclusive one
// takes it in first and stores the result.
template <typename Op, typename Line>
__device__ __forceinline__ void StoreScanStep(const Op& op, const Line& line, int64_t s, const typename Op::State& item,
                                              bool exclusive, typename Op::State* prefix) {
  if (exclusive) {
    line.Store(s, *prefix);
    *prefix = op.Combine(*prefix, item);
  } else {
    *prefix = op.Combine(*prefix, item);
    line.Store(s, *prefix);
  }
}

// One logical warp of W lanes scans steps [s0, s1) of `line`, starting from `carry` (the
// combination of everything before s0), storing inclusive or exclusive prefixes when kStore;
// returns the carry after s1. Every lane of the logical warp calls it with the same arguments.
template <int W, int kItems, bool kStore, typename Op, typename Line>
__device__ typename Op::State WarpScanSteps(const Op& op, const Line& line, int64_t s0, int64_t s1,
                                            typename Op::State carry, bool exclusive, int lane) {
  using State = typename Op::State;
  for (int64_t t0 = s0; t0 < s1; t0 += int64_t{W} * kItems) {
    const int64_t first = t0 + int64_t{lane} * kItems;
    State items[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) items[k] = first + k < s1 ? line.Load(first + k) : op.Identity();
    State prefix, warp_total;
    WarpTileExclusiveScan<W>(op, items, carry, &prefix, &warp_total);
    if (kStore) {
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        if (first + k < s1) StoreScanStep(op, line, first + k, items[k], exclusive, &prefix);
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
        StoreScanStep(op, line, t0 + k, items[k], exclusive, &carry);
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
// (A specialization that has only its own Warp derives from GenericTileScan for Thread.)
template <typename Op>
struct GenericTileScan {
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

template <typename Op, typename Enable = void>
struct GpuTileScan : GenericTileScan<Op> {};

// The rare paths of a column tile's steps (ColumnTotal / ColumnScan): the K floats copied to
// local memory and walked by a loop that is not unrolled, so that the unrolled fast path of
// every element of every line of a thread does not also carry them inline (code and
// registers); outputs likewise, copied back at the end.
template <int K, typename T = float>
struct ColumnSlow {
  float f[K];
  T out[K];
  __device__ explicit ColumnSlow(const float (&v)[K]) {
#pragma unroll
    for (int k = 0; k < K; ++k) f[k] = v[k];
  }
  __device__ void Outputs(int n, T (&x)[K]) const {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (k < n) x[k] = out[k];
    }
  }
};

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
