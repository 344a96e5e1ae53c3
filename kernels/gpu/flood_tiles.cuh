// The GPU engine's fast tiles for right_flood (GpuTileScan specialized for RightFloodOp, every
// dtype, and for its gradient RightFloodGradOp, every floating dtype) and repeat_interleave's
// index floods. The forward's state is still the source's flat offset (-1 for none), so its
// results are the generic path's, bit for bit; what changes is the work per element and the
// passes over memory:
//   * a segment's total (phase 1 of a long row or column) is its last non-hole, searched back
//     from the segment's end, stopping at the first tile that holds one: with holes at any
//     density below ~100% that reads a tile or two instead of the segment;
//   * a tile's outputs take the value of their source from registers (the carry's value is
//     read once per segment), not by a gather per element: a lane loads V consecutive
//     elements with one 16-byte load, one ballot tells each lane the nearest lane before it
//     that holds a non-hole, one shuffle brings that lane's last value; stores are 16-byte
//     vectors too (values, and int64 indices when asked for); rows are compiled per direction
//     and with and without the index;
//   * few long rows (1-D) are split instead of scanned with the engine's look-back: each
//     segment is stored at once, and a second small kernel stores the carry over the leading
//     holes of each segment (FloodSplitKernel, FloodFixKernel), one pass over memory;
//   * the gradient (below) has its own tiles: its segment totals searched back the same way,
//     16-byte rows with a ballot-segmented warp scan in float64, column threads.
// right_flood's scans are inclusive: the `exclusive` argument is always false here.
// repeat_interleave's index floods take the generic steps with the segment totals searched
// back the same way (FloodSearchBackTiles, at the end).
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/funcs/gpu/scan_kernel.cuh"  // PADDLE_ENFORCE_GPU_SUCCESS: defined by the includer
#include "kernels/impl/flood_ops.h"

// Compile-time variants (the kernel harness builds one binary per variant; defaults measured on
// the H200, docs/benchmarks.md 2026-11-29): the blocks per SM the forward's and the gradient's
// kernels are compiled for with 4-byte elements (__launch_bounds__; 4: at most 64 registers,
// 32 warps an SM, so bench_flood's 4096 rows and 4096 segments fit in one wave), the forward
// rows' sub-tiles loaded ahead, the row segment of few long rows, the threads the column
// segments aim at (one wave of 4 blocks an SM), the forward's split of few long rows, the
// index stored through shared memory, and the forward columns' loads in flight.
#ifndef PO_FLOOD_MIN_BLOCKS
#define PO_FLOOD_MIN_BLOCKS 4
#endif
#ifndef PO_FLOOD_GRAD_MIN_BLOCKS
#define PO_FLOOD_GRAD_MIN_BLOCKS 4
#endif
#ifndef PO_FLOOD_U
#define PO_FLOOD_U 4
#endif
#ifndef PO_FLOOD_ROW_SEGMENT  // steps per segment of the single pass (1-D, few long rows)
#define PO_FLOOD_ROW_SEGMENT 16384
#endif
#ifndef PO_FLOOD_COL_THREADS  // the threads the column segments aim at
#define PO_FLOOD_COL_THREADS 131072
#endif
#ifndef PO_FLOOD_SPLIT_ROWS  // the forward's few long rows: split (1) or the engine's look-back (0)
#define PO_FLOOD_SPLIT_ROWS 1
#endif
#ifndef PO_FLOOD_IDX_SMEM  // full-warp rows store the index through a per-warp shared buffer
#define PO_FLOOD_IDX_SMEM 1
#endif
#ifndef PO_FLOOD_COL_ITEMS  // the forward columns' loads in flight per thread
#define PO_FLOOD_COL_ITEMS 8
#endif

namespace phi {
namespace funcs {
namespace scan_gpu {

// T moved through a shuffle as its bits (the 16-bit types are structs).
template <typename T>
__device__ inline T ShflValue(unsigned mask, const T& v, int src, int width) {
  if constexpr (sizeof(T) == 8) {
    long long b;
    memcpy(&b, &v, 8);
    b = __shfl_sync(mask, b, src, width);
    T r;
    memcpy(&r, &b, 8);
    return r;
  } else {
    unsigned b = 0;
    memcpy(&b, &v, sizeof(T));
    b = __shfl_sync(mask, b, src, width);
    T r;
    memcpy(&r, &b, sizeof(T));
    return r;
  }
}

// Whether a row of L steps takes 16-byte vectors of V elements: L a multiple of V and every
// pointer (null: not used) 16-byte aligned.
template <int V>
__device__ inline bool VectorRow(int64_t L, const void* a, const void* b, const void* c) {
  const auto aligned = [](const void* p) { return p == nullptr || reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  return L % V == 0 && aligned(a) && aligned(b) && aligned(c);
}

// The ballot of the calling thread's logical warp of W lanes, bit i for its lane i.
template <int W>
__device__ inline unsigned LogicalBallot(unsigned mask, bool pred) {
  const unsigned b = __ballot_sync(mask, pred);
  if constexpr (W == 32) {
    return b;
  } else {
    return (b >> (W * ((threadIdx.x % 32) / W))) & ((1u << W) - 1u);
  }
}

// The forward's few long rows, split (GpuTileScan<RightFloodOp<T>>::SplitRows): a warp per
// (row, segment) stores its segment as if nothing came before it (leading holes keep their own
// value) and writes the segment's last source (flat offset, -1: none) to last[tile]; then a warp
// per segment after a row's first finds the last source before it (the nearest earlier segment
// with one, 32 at a time) and stores it over the segment's leading holes. One pass over x and
// the outputs (the fix-up reads the few steps up to the segment's first non-hole); exact, so
// the order of the warps changes nothing.
template <int kItems, typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads, TileMinBlocks<GpuTileScan<Op>>::value)
    FloodSplitKernel(Op op, LineGeometry g, int64_t rows, int64_t nseg, int64_t seg_len, int64_t* last) {
  const int64_t tile = (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (tile >= rows * nseg) return;  // a whole warp leaves together
  const int64_t row = tile / nseg, s0 = (tile - row * nseg) * seg_len;
  const int64_t s1 = s0 + seg_len < g.length ? s0 + seg_len : g.length;
  const OpLine<Op> line{op, g, g.Base(row)};
  const int64_t src = GpuTileScan<Op>::template Warp<32, kItems, true>(op, line, s0, s1, -1, false, lane);
  if (lane == 0) last[tile] = src;
}

template <typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads)
    FloodFixKernel(Op op, LineGeometry g, int64_t rows, int64_t nseg, int64_t seg_len, const int64_t* last) {
  const int64_t tile = (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (tile >= rows * nseg) return;
  const int64_t row = tile / nseg, seg = tile - row * nseg;
  if (seg == 0) return;  // a row's leading holes keep their own value
  int64_t carry = -1;
  for (int64_t k = seg - 1; k >= 0; k -= 32) {  // lane l looks at segment k - l
    const int64_t v = k - lane >= 0 ? last[row * nseg + k - lane] : -1;
    const unsigned b = __ballot_sync(0xffffffffu, v >= 0);
    if (b) {
      carry = __shfl_sync(0xffffffffu, v, __ffs(b) - 1);
      break;
    }
  }
  if (carry < 0) return;
  const auto val = op.x[carry];
  const int64_t axis = op.index != nullptr ? op.axis(carry) : -1;
  const int64_t base = g.Base(row), s0 = seg * seg_len;
  const int64_t s1 = s0 + seg_len < g.length ? s0 + seg_len : g.length;
  for (int64_t t = s0; t < s1; t += 32) {  // up to the segment's first non-hole
    const int64_t s = t + lane;
    const int64_t off = s < s1 ? g.At(base, s).offset : 0;
    const bool filled = s < s1 && !IsFloodHole(op.x[off], op.hole);
    const unsigned b = __ballot_sync(0xffffffffu, filled);
    if (s < s1 && lane < (b ? __ffs(b) - 1 : 32)) {
      op.out[off] = val;
      if (op.index != nullptr) op.index[off] = axis;
    }
    if (b) break;
  }
}

template <typename T>
struct GpuTileScan<RightFloodOp<T>> {
  using Op = RightFloodOp<T>;
  using State = int64_t;
  static constexpr bool kFast = true;
  static constexpr int V = 16 / static_cast<int>(sizeof(T));  // elements per 16-byte load
  static constexpr int U = PO_FLOOD_U;             // sub-tiles loaded ahead: 64 bytes a lane
  // 4-byte elements only (measured); the 16-bit rows (V = 8) and 8-byte columns would spill.
  static constexpr int kMinBlocks = sizeof(T) == 4 ? PO_FLOOD_MIN_BLOCKS : 1;
  static constexpr int64_t kRowSegment = PO_FLOOD_ROW_SEGMENT;
  static constexpr int64_t kColumnThreads = PO_FLOOD_COL_THREADS;
  static constexpr bool kSplitRows = PO_FLOOD_SPLIT_ROWS;

  // Few long rows cut into nseg segments of seg_len steps: FloodSplitKernel, FloodFixKernel.
  template <int kItems, typename Scratch>
  static void SplitRows(cudaStream_t stream, Scratch& scratch, const LineGeometry& g, int64_t rows, int64_t nseg,
                        int64_t seg_len, const Op& op) {
    int64_t* last = static_cast<int64_t*>(scratch(rows * nseg * int64_t{sizeof(int64_t)}));
    constexpr int kWarps = ScanPolicy::kThreads / 32;
    const unsigned blocks = static_cast<unsigned>((rows * nseg + kWarps - 1) / kWarps);
    FloodSplitKernel<kItems><<<blocks, ScanPolicy::kThreads, 0, stream>>>(op, g, rows, nseg, seg_len, last);
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
    FloodFixKernel<<<blocks, ScanPolicy::kThreads, 0, stream>>>(op, g, rows, nseg, seg_len, last);
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  }

  // Rows: a logical warp takes sub-tiles of W * V steps, V consecutive ones per lane.
  template <int W, int kItems, bool kStore>
  __device__ static State Warp(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                               bool exclusive, int lane) {
    constexpr int64_t kSub = int64_t{W} * V;
    const unsigned mask = LogicalWarpMask<W>();
    const int64_t L = line.g.length, base = line.base;
    const bool reverse = line.g.reverse;
    const bool vec = VectorRow<V>(L, op.x, op.out, op.index);
    // A step's flat offset, and a source offset's step (inner == 1).
    const auto offset_of = [&](int64_t s) { return reverse ? base + L - 1 - s : base + s; };
    const auto step_of = [&](int64_t off) { return reverse ? base + L - 1 - off : off - base; };

    if (!kStore) {  // the segment's total: its last non-hole, searching back sub-tile by sub-tile
      for (int64_t t0 = s0 + (s1 - 1 - s0) / kSub * kSub; t0 >= s0; t0 -= kSub) {
        const int64_t t1 = t0 + kSub < s1 ? t0 + kSub : s1;
        const int64_t first = t0 + int64_t{lane} * V;
        T v[V];
        LoadRowRaw<T, V>(op.x, base, L, reverse, first, t1, vec, v);
        int last = -1;
#pragma unroll
        for (int j = 0; j < V; ++j) {
          if (first + j < t1 && !IsFloodHole(v[j], op.hole)) last = j;
        }
        const unsigned ballot = LogicalBallot<W>(mask, last >= 0);
        if (ballot) {
          const int64_t s = __shfl_sync(mask, first + last, 31 - __clz(ballot), W);
          return op.Combine(carry, offset_of(s));
        }
      }
      return carry;
    }

    const int64_t src = carry < 0 ? -1 : step_of(carry);
    int64_t last;  // the step of the row's source at s1, -1 for none
    if (reverse) {
      last = op.index != nullptr ? StoreRow<W, true, true>(op, base, L, s0, s1, src, vec, mask, lane)
                                 : StoreRow<W, true, false>(op, base, L, s0, s1, src, vec, mask, lane);
    } else {
      last = op.index != nullptr ? StoreRow<W, false, true>(op, base, L, s0, s1, src, vec, mask, lane)
                                 : StoreRow<W, false, false>(op, base, L, s0, s1, src, vec, mask, lane);
    }
    return last < 0 ? carry : offset_of(last);
  }

  // The source so far in a row: its step (-1: none) and its value.
  struct SubTileState {
    int64_t src;
    T val{};
  };

  // Steps [s0, s1) of a row stored from the source at step src (-1: none); returns the source
  // at s1. kRev: the scan runs from the row's end; kIdx: the index is stored too.
  template <int W, bool kRev, bool kIdx>
  __device__ static int64_t StoreRow(const Op& op, int64_t base, int64_t L, int64_t s0, int64_t s1, int64_t src,
                                     bool vec, unsigned mask, int lane) {
    constexpr int64_t kSub = int64_t{W} * V;
    SubTileState st;
    st.src = src;
    if (src >= 0) st.val = op.x[kRev ? base + L - 1 - src : base + src];
    int64_t g0 = s0;
    if (vec) {  // whole groups of U sub-tiles: U 16-byte loads in flight per lane, no bounds checks
      for (; g0 + U * kSub <= s1; g0 += U * kSub) {
        T xs[U][V];
#pragma unroll
        for (int u = 0; u < U; ++u) LoadRowRaw<T, V>(op.x, base, L, kRev, g0 + u * kSub + int64_t{lane} * V, s1, true, xs[u]);
#pragma unroll
        for (int u = 0; u < U; ++u) SubTile<W, true, kRev, kIdx>(op, xs[u], base, L, g0 + u * kSub, s1, mask, lane, &st);
      }
    }
    for (; g0 < s1; g0 += kSub) {  // the rest, one sub-tile at a time
      T xv[V] = {};  // steps past s1 stay unread
      LoadRowRaw<T, V>(op.x, base, L, kRev, g0 + int64_t{lane} * V, s1, vec, xv);
      SubTile<W, false, kRev, kIdx>(op, xv, base, L, g0, s1, mask, lane, &st);
    }
    return st.src;
  }

  // Steps [t0, min(t0 + W * V, s1)) of a row, lane's V at first = t0 + lane * V held in x:
  // outputs stored, the source state advanced. kFull: the sub-tile lies before s1 and the
  // row is vector-aligned. Sources within the sub-tile move between lanes as int32 offsets
  // from t0.
  template <int W, bool kFull, bool kRev, bool kIdx>
  __device__ static void SubTile(const Op& op, const T (&x)[V], int64_t base, int64_t L, int64_t t0, int64_t s1,
                                 unsigned mask, int lane, SubTileState* st) {
    const int64_t first = t0 + int64_t{lane} * V;
    bool filled[V];
    int last = -1;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      filled[j] = (kFull || first + j < s1) && !IsFloodHole(x[j], op.hole);
      if (filled[j]) last = j;
    }
    T last_val = x[0];
#pragma unroll
    for (int j = 1; j < V; ++j) {
      if (j == last) last_val = x[j];  // constant indices: x stays in registers
    }
    const unsigned ballot = LogicalBallot<W>(mask, last >= 0);
    // What flows into this lane: the last non-hole of the nearest lane before it that has one,
    // else the state from before the sub-tile.
    const unsigned before = ballot & ((1u << lane) - 1u);
    const int from = before ? 31 - __clz(before) : lane;
    const int rel = lane * V + last;  // the lane's last source, from t0
    const T in_val = ShflValue(mask, last_val, from, W);
    T cur_val = before ? in_val : st->val;
    bool has = before || st->src >= 0;
    T o[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if (filled[j]) {
        cur_val = x[j];
        has = true;
      }
      o[j] = has ? cur_val : x[j];  // a leading hole keeps its own value
    }
    StoreRowRaw<T, V>(op.out, base, L, kRev, first, s1, kFull, o);
    if (kIdx) {
      // The index of each output's source along the axis; the sources only change at the
      // filled steps, so it is rebuilt from the lane's incoming source.
      const int in_rel = __shfl_sync(mask, rel, from, W);
      int64_t src = before ? t0 + in_rel : st->src;
      int64_t idx[V];
#pragma unroll
      for (int j = 0; j < V; ++j) {
        if (filled[j]) src = first + j;
        idx[j] = src < 0 ? -1 : (kRev ? L - 1 - src : src);
      }
      if constexpr (kFull && W == 32 && PO_FLOOD_IDX_SMEM) {  // coalesced through shared memory
        BlockedGroup<int64_t, V>::template Store<kRev>(op.index, base, L, t0, idx, lane);
      } else {
        StoreRowRaw<int64_t, V>(op.index, base, L, kRev, first, s1, kFull, idx);
      }
    }
    if (ballot) {
      const int top = 31 - __clz(ballot);
      st->val = ShflValue(mask, last_val, top, W);
      st->src = t0 + __shfl_sync(mask, rel, top, W);
    }
  }

  // Columns: one thread walks its line kItems steps at a time, the source's value in a register.
  template <int kItems, bool kStore>
  __device__ static State Thread(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                 bool exclusive) {
    const int64_t L = line.g.length;
    const bool reverse = line.g.reverse;
    const int64_t step = reverse ? -line.g.inner : line.g.inner;  // offset of the next step
    if (!kStore) {  // the segment's total: its last non-hole, searching back kItems at a time
      for (int64_t t1 = s1; t1 > s0; t1 -= kItems) {
        const int64_t t0 = t1 - kItems > s0 ? t1 - kItems : s0;
        const int64_t off0 = line.g.At(line.base, t0).offset;
        T x[kItems];
#pragma unroll
        for (int k = 0; k < kItems; ++k) {
          if (t0 + k < t1) x[k] = op.x[off0 + k * step];
        }
        int found = -1;
#pragma unroll
        for (int k = 0; k < kItems; ++k) {
          if (t0 + k < t1 && !IsFloodHole(x[k], op.hole)) found = k;
        }
        if (found >= 0) return op.Combine(carry, off0 + found * step);
      }
      return carry;
    }
    int64_t src = carry;  // flat offset, -1: none
    int64_t src_axis = carry < 0 ? -1 : op.axis(carry);
    T src_val{};
    if (carry >= 0) src_val = op.x[carry];
    const auto step_at = [&](int64_t off, int64_t t, T v) {
      if (!IsFloodHole(v, op.hole)) {
        src = off;
        src_val = v;
        src_axis = reverse ? L - 1 - t : t;
      }
      op.out[off] = src >= 0 ? src_val : v;
      if (op.index != nullptr) op.index[off] = src_axis;
    };
    constexpr int kN = PO_FLOOD_COL_ITEMS;
    int64_t t0 = s0;
    for (; t0 + kN <= s1; t0 += kN) {  // kN steps, their loads in flight together
      const int64_t off0 = line.g.At(line.base, t0).offset;
      T x[kN];
#pragma unroll
      for (int k = 0; k < kN; ++k) x[k] = op.x[off0 + k * step];
#pragma unroll
      for (int k = 0; k < kN; ++k) step_at(off0 + k * step, t0 + k, x[k]);
    }
    for (; t0 < s1; ++t0) {
      const int64_t off = line.g.At(line.base, t0).offset;
      step_at(off, t0, op.x[off]);
    }
    return src;
  }
};

// right_flood's gradient (RightFloodGradOp, float64 sums): x_grad[j] = the sum of out_grad over
// the run filled from j, scanned against the forward direction. Its own tiles keep the state
// "after" an element, so that an element's item needs only its own x (the generic op reads x
// at the step before too): a non-hole is (empty, reset), a hole (g, no reset), Combine as
// SegmentedSumCombine, empty the sum -0.0 (IEEE's additive identity: -0.0 + g is g, bit for
// bit). A non-hole's output is the state before it plus its own g; holes get 0. Sums in a
// fixed order (lanes in scan order, a Kogge-Stone scan across lanes whose resets come from one
// ballot), so the bits depend on the shape alone:
//   * a segment's total (phase 1) is the sum of g after its last non-hole, searched back from
//     its end: a tile or two read, not the segment;
//   * rows: a lane takes V consecutive steps of x and out_grad with 16-byte loads, folds them,
//     and one segmented warp scan of the lane tails (2 shuffles a step, the resets from the
//     ballot) gives each lane what flows into it; 16-byte stores;
//   * columns: a thread walks its line with the sum in a register.
template <typename T>
struct GpuTileScan<RightFloodGradOp<T, double>> {
  using Op = RightFloodGradOp<T, double>;
  using State = SegmentedSum<double>;
  static constexpr bool kFast = true;
  static constexpr int V = 16 / static_cast<int>(sizeof(T));
  static constexpr int U = 2;  // sub-tiles loaded ahead: 2 x 16 bytes of x and of out_grad a lane
  static constexpr int kMinBlocks = sizeof(T) == 4 ? PO_FLOOD_GRAD_MIN_BLOCKS : 1;  // as the forward's
  static constexpr int64_t kRowSegment = PO_FLOOD_ROW_SEGMENT;
  static constexpr int64_t kColumnThreads = PO_FLOOD_COL_THREADS;

  __device__ static double Empty() { return -0.0; }
  __device__ static double Acc(const T& v) { return static_cast<double>(v); }

  // The sum of g after the last non-hole among the first n of N steps (all n when none; *any:
  // whether there is one), in step order.
  template <int N>
  __device__ static double TailSum(const Op& op, const T (&x)[N], const T (&g)[N], int64_t n, bool* any) {
    double tail = Empty();
    *any = false;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      if (j >= n) continue;
      if (!IsFloodHole(x[j], op.hole)) {
        tail = Empty();
        *any = true;
      } else {
        tail += Acc(g[j]);
      }
    }
    return tail;
  }

  // The sum over the logical warp (an xor butterfly: every lane gets the same bits).
  template <int W>
  __device__ static double WarpSum(unsigned mask, double v) {
#pragma unroll
    for (int d = W / 2; d >= 1; d /= 2) v += __shfl_xor_sync(mask, v, d, W);
    return v;
  }

  template <int W, int kItems, bool kStore>
  __device__ static State Warp(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                               bool exclusive, int lane) {
    constexpr int64_t kSub = int64_t{W} * V;
    const unsigned mask = LogicalWarpMask<W>();
    const int64_t L = line.g.length, base = line.base;
    const bool reverse = line.g.reverse;
    const bool vec = VectorRow<V>(L, op.x, op.out_grad, op.x_grad);

    if (!kStore) {  // the segment's total: the sum after its last non-hole, searching back
      double later = Empty();  // the sum of the sub-tiles after this one (all holes)
      for (int64_t t0 = s0 + (s1 - 1 - s0) / kSub * kSub; t0 >= s0; t0 -= kSub) {
        const int64_t t1 = t0 + kSub < s1 ? t0 + kSub : s1;
        const int64_t first = t0 + int64_t{lane} * V;
        T x[V], g[V];
        LoadRowRaw<T, V>(op.x, base, L, reverse, first, t1, vec, x);
        LoadRowRaw<T, V>(op.out_grad, base, L, reverse, first, t1, vec, g);
        bool any;
        const double tail = TailSum(op, x, g, t1 - first, &any);
        const unsigned ballot = LogicalBallot<W>(mask, any);
        const int top = ballot ? 31 - __clz(ballot) : -1;
        const double part = WarpSum<W>(mask, lane >= top ? tail : Empty());
        if (ballot) return State{part + later, true};
        later = part + later;
      }
      return op.Combine(carry, State{later, false});
    }

    return reverse ? StoreRow<W, true>(op, base, L, s0, s1, carry, vec, mask, lane)
                   : StoreRow<W, false>(op, base, L, s0, s1, carry, vec, mask, lane);
  }

  // Steps [s0, s1) of a row stored from the state st; returns the state at s1.
  template <int W, bool kRev>
  __device__ static State StoreRow(const Op& op, int64_t base, int64_t L, int64_t s0, int64_t s1, State st, bool vec,
                                   unsigned mask, int lane) {
    constexpr int64_t kSub = int64_t{W} * V;
    int64_t g0 = s0;
    if (vec) {  // whole groups of U sub-tiles, no bounds checks
      for (; g0 + U * kSub <= s1; g0 += U * kSub) {
        T xs[U][V], gs[U][V];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int64_t first = g0 + u * kSub + int64_t{lane} * V;
          LoadRowRaw<T, V>(op.x, base, L, kRev, first, s1, true, xs[u]);
          LoadRowRaw<T, V>(op.out_grad, base, L, kRev, first, s1, true, gs[u]);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) SubTile<W, true>(op, xs[u], gs[u], base, L, kRev, g0 + u * kSub, s1, mask, lane, &st);
      }
    }
    for (; g0 < s1; g0 += kSub) {
      const int64_t first = g0 + int64_t{lane} * V;
      T x[V] = {}, g[V] = {};
      LoadRowRaw<T, V>(op.x, base, L, kRev, first, s1, vec, x);
      LoadRowRaw<T, V>(op.out_grad, base, L, kRev, first, s1, vec, g);
      SubTile<W, false>(op, x, g, base, L, kRev, g0, s1, mask, lane, &st);
    }
    return st;
  }

  // Steps [t0, min(t0 + W * V, s1)) of a row, lane's V at first = t0 + lane * V: x_grad stored,
  // the state advanced.
  template <int W, bool kFull>
  __device__ static void SubTile(const Op& op, const T (&x)[V], const T (&g)[V], int64_t base, int64_t L, bool reverse,
                                 int64_t t0, int64_t s1, unsigned mask, int lane, State* st) {
    const int64_t first = t0 + int64_t{lane} * V;
    bool filled[V];
    double gd[V];
    double tail = Empty();
    bool any = false;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const bool valid = kFull || first + j < s1;
      filled[j] = valid && !IsFloodHole(x[j], op.hole);
      gd[j] = valid ? Acc(g[j]) : Empty();
      if (filled[j]) {
        tail = Empty();
        any = true;
      } else {
        tail += gd[j];
      }
    }
    // A segmented inclusive scan of the lane tails: lane h (the last lane <= this one with a
    // non-hole) starts the segment; its tail and the whole sums of the lanes after it.
    const unsigned ballot = LogicalBallot<W>(mask, any);
    const unsigned upto = ballot & (lane == 31 ? 0xffffffffu : (2u << lane) - 1u);
    const int h = upto ? 31 - __clz(upto) : -1;
    double s = tail;
#pragma unroll
    for (int d = 1; d < W; d *= 2) {
      const double up = __shfl_up_sync(mask, s, d, W);
      if (lane >= d && h <= lane - d) s = up + s;
    }
    const double before = __shfl_up_sync(mask, s, 1, W);  // lane - 1's inclusive sum
    const unsigned below = ballot & ((1u << lane) - 1u);
    double acc = lane == 0 ? st->sum : (below ? before : st->sum + before);
    T o[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if (filled[j]) {
        o[j] = static_cast<T>(acc + gd[j]);
        acc = Empty();
      } else {
        acc += gd[j];
        o[j] = static_cast<T>(0.0f);
      }
    }
    StoreRowRaw<T, V>(op.x_grad, base, L, reverse, first, s1, kFull, o);
    const double total = __shfl_sync(mask, s, W - 1, W);
    *st = ballot ? State{total, true} : State{st->sum + total, st->reset};
  }

  // Columns: one thread walks its line kItems steps at a time, the sum in a register.
  template <int kItems, bool kStore>
  __device__ static State Thread(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                 bool exclusive) {
    const int64_t step = line.g.reverse ? -line.g.inner : line.g.inner;  // offset of the next step
    if (!kStore) {  // the segment's total: the sum after its last non-hole, searching back
      double later = Empty();
      for (int64_t t1 = s1; t1 > s0; t1 -= kItems) {
        const int64_t t0 = t1 - kItems > s0 ? t1 - kItems : s0;
        const int64_t off0 = line.g.At(line.base, t0).offset;
        T x[kItems], g[kItems];
        LoadStepPairs(op.x, off0, step, op.out_grad, off0, step, t1 - t0, x, g);
        bool any;
        const double part = TailSum(op, x, g, t1 - t0, &any);
        if (any) return State{part + later, true};
        later = part + later;
      }
      return op.Combine(carry, State{later, false});
    }
    double acc = carry.sum;
    bool reset = carry.reset;
    const auto step_at = [&](int64_t off) {
      const double gk = Acc(op.out_grad[off]);
      if (!IsFloodHole(op.x[off], op.hole)) {
        op.x_grad[off] = static_cast<T>(acc + gk);
        acc = Empty();
        reset = true;
      } else {
        acc += gk;
        op.x_grad[off] = static_cast<T>(0.0f);
      }
    };
    int64_t t0 = s0;
    for (; t0 + kItems <= s1; t0 += kItems) {  // kItems steps, their loads in flight together
      const int64_t off0 = line.g.At(line.base, t0).offset;
      T x[kItems], g[kItems];
      LoadStepPairs(op.x, off0, step, op.out_grad, off0, step, kItems, x, g);
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        const double gk = Acc(g[k]);
        T o = static_cast<T>(0.0f);
        if (!IsFloodHole(x[k], op.hole)) {
          o = static_cast<T>(acc + gk);
          acc = Empty();
          reset = true;
        } else {
          acc += gk;
        }
        op.x_grad[off0 + k * step] = o;
      }
    }
    for (; t0 < s1; ++t0) step_at(line.g.At(line.base, t0).offset);
    return State{acc, reset};
  }
};

// The index floods of repeat_interleave (RepeatGatherOp, MarkerFloodOp): the generic steps,
// except a segment's total, which is its last marker, found searching back tile by tile from
// the segment's end (op.Load per step), so phase 1 of a long row reads a tile or two.
template <int W, int kItems, typename Op>
__device__ typename Op::State FloodWarpSearchBack(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1,
                                                  typename Op::State carry, int lane) {
  constexpr int64_t kTile = int64_t{W} * kItems;
  const unsigned mask = LogicalWarpMask<W>();
  for (int64_t t0 = s0 + (s1 - 1 - s0) / kTile * kTile; t0 >= s0; t0 -= kTile) {
    const int64_t first = t0 + int64_t{lane} * kItems;
    typename Op::State last = op.Identity();
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (first + k < s1) last = op.Combine(last, line.Load(first + k));
    }
    const unsigned ballot = LogicalBallot<W>(mask, last >= 0);
    if (ballot) return op.Combine(carry, __shfl_sync(mask, last, 31 - __clz(ballot), W));
  }
  return carry;
}

template <int kItems, typename Op>
__device__ typename Op::State FloodThreadSearchBack(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1,
                                                    typename Op::State carry) {
  for (int64_t t1 = s1; t1 > s0; t1 -= kItems) {
    const int64_t t0 = t1 - kItems > s0 ? t1 - kItems : s0;
    typename Op::State last = op.Identity();
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (t0 + k < t1) last = op.Combine(last, line.Load(t0 + k));
    }
    if (last >= 0) return op.Combine(carry, last);
  }
  return carry;
}

template <typename Op>
struct FloodSearchBackTiles {
  static_assert(std::is_base_of<FloodCombine, Op>::value, "a fill-forward op: int64 sources, -1 for none");
  static constexpr bool kFast = true;
  using State = typename Op::State;
  template <int W, int kItems, bool kStore>
  __device__ static State Warp(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                               bool exclusive, int lane) {
    if (kStore || exclusive) return WarpScanSteps<W, kItems, kStore>(op, line, s0, s1, carry, exclusive, lane);
    return FloodWarpSearchBack<W, kItems>(op, line, s0, s1, carry, lane);
  }
  template <int kItems, bool kStore>
  __device__ static State Thread(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                 bool exclusive) {
    if (kStore || exclusive) return ThreadScanSteps<kItems, kStore>(op, line, s0, s1, carry, exclusive);
    return FloodThreadSearchBack<kItems>(op, line, s0, s1, carry);
  }
};

template <typename T>
struct GpuTileScan<RepeatGatherOp<T>> : FloodSearchBackTiles<RepeatGatherOp<T>> {};
template <>
struct GpuTileScan<MarkerFloodOp> : FloodSearchBackTiles<MarkerFloodOp> {};

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
