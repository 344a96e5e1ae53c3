// The GPU engine's fast tiles for right_flood (GpuTileScan specialized for RightFloodOp, every
// dtype) and repeat_interleave's index floods. The engine's decomposition, carries and segment
// totals are unchanged (the state is still the source's flat offset, -1 for none), so the
// results are the generic path's, bit for bit; what changes is the work per element:
//   * a segment's total (phase 1 of a long row or column) is its last non-hole, found by
//     searching back from the segment's end and stopping at the first tile that holds one:
//     with holes at any density below ~100% that reads a tile or two instead of the segment,
//     so a long row costs one pass over x, not two;
//   * a tile's outputs take the value of their source from registers (the carry's value is
//     read once per segment), not by a gather per element: a lane loads V consecutive
//     elements with one 16-byte load, one ballot tells each lane the nearest lane before it
//     that holds a non-hole, one shuffle brings that lane's last value; stores are 16-byte
//     vectors too (values, and int64 indices when asked for).
// right_flood's scans are inclusive: the `exclusive` argument is always false here.
// repeat_interleave's index floods take the generic steps with the segment totals searched
// back the same way (FloodSearchBackTiles, at the end).
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/funcs/gpu/scan_agent.cuh"
#include "kernels/impl/flood_ops.h"

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

template <typename T>
struct GpuTileScan<RightFloodOp<T>> {
  using Op = RightFloodOp<T>;
  using State = int64_t;
  static constexpr bool kFast = true;
  static constexpr int V = 16 / static_cast<int>(sizeof(T));  // elements per 16-byte load
  static constexpr int U = 4;                      // sub-tiles loaded ahead: 64 bytes a lane

  // Rows: a logical warp takes sub-tiles of W * V steps, V consecutive ones per lane.
  template <int W, int kItems, bool kStore>
  __device__ static State Warp(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                               bool exclusive, int lane) {
    constexpr int64_t kSub = int64_t{W} * V;
    const unsigned mask = LogicalWarpMask<W>();
    const int64_t L = line.g.length, base = line.base;
    const bool reverse = line.g.reverse;
    const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    const bool vec = L % V == 0 && aligned(op.x) && aligned(op.out) && (op.index == nullptr || aligned(op.index));
    // A step's flat offset, and a source offset's step (inner == 1).
    const auto offset_of = [&](int64_t s) { return reverse ? base + L - 1 - s : base + s; };
    const auto step_of = [&](int64_t off) { return reverse ? base + L - 1 - off : off - base; };
    const auto axis_of = [&](int64_t s) { return reverse ? L - 1 - s : s; };

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

    // The source so far: its step (-1: none) and value.
    SubTileState st;
    st.src = carry < 0 ? -1 : step_of(carry);
    if (carry >= 0) st.val = op.x[carry];
    int64_t g0 = s0;
    if (vec) {  // whole groups of U sub-tiles: U 16-byte loads in flight per lane, no bounds checks
      for (; g0 + U * kSub <= s1; g0 += U * kSub) {
        T xs[U][V];
#pragma unroll
        for (int u = 0; u < U; ++u) LoadRowRaw<T, V>(op.x, base, L, reverse, g0 + u * kSub + int64_t{lane} * V, s1, true, xs[u]);
#pragma unroll
        for (int u = 0; u < U; ++u) SubTile<W, true>(op, xs[u], base, L, reverse, g0 + u * kSub, s1, mask, lane, &st);
      }
    }
    for (; g0 < s1; g0 += kSub) {  // the rest, one sub-tile at a time
      T xv[V] = {};  // steps past s1 stay unread
      LoadRowRaw<T, V>(op.x, base, L, reverse, g0 + int64_t{lane} * V, s1, vec, xv);
      SubTile<W, false>(op, xv, base, L, reverse, g0, s1, mask, lane, &st);
    }
    return st.src < 0 ? carry : offset_of(st.src);
  }

  // The source so far in a row: its step (-1: none) and its value.
  struct SubTileState {
    int64_t src;
    T val{};
  };

  // Steps [t0, min(t0 + W * V, s1)) of a row, lane's V at first = t0 + lane * V held in x:
  // outputs stored, the source state advanced. kFull: the sub-tile lies before s1 and the
  // row is vector-aligned.
  template <int W, bool kFull>
  __device__ static void SubTile(const Op& op, const T (&x)[V], int64_t base, int64_t L, bool reverse, int64_t t0,
                                 int64_t s1, unsigned mask, int lane, SubTileState* st) {
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
    const T in_val = ShflValue(mask, last_val, from, W);
    const int64_t in_src = __shfl_sync(mask, first + last, from, W);
    T cur_val = before ? in_val : st->val;
    int64_t cur = before ? in_src : st->src;
    T o[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if (filled[j]) {
        cur_val = x[j];
        cur = first + j;
      }
      o[j] = cur >= 0 ? cur_val : x[j];  // a leading hole keeps its own value
    }
    StoreRowRaw<T, V>(op.out, base, L, reverse, first, s1, kFull, o);
    if (op.index != nullptr) {
      // The index of each output's source along the axis; the sources only change at the
      // filled steps, so it is rebuilt from the lane's incoming source.
      int64_t src = before ? in_src : st->src;
      int64_t idx[V];
#pragma unroll
      for (int j = 0; j < V; ++j) {
        if (filled[j]) src = first + j;
        idx[j] = src < 0 ? -1 : (reverse ? L - 1 - src : src);
      }
      StoreRowRaw<int64_t, V>(op.index, base, L, reverse, first, s1, kFull, idx);
    }
    if (ballot) {
      const int top = 31 - __clz(ballot);
      st->val = ShflValue(mask, last_val, top, W);
      st->src = __shfl_sync(mask, first + last, top, W);
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
    for (int64_t t0 = s0; t0 < s1; t0 += kItems) {
      const int64_t off0 = line.g.At(line.base, t0).offset;
      T x[kItems];
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        if (t0 + k < s1) x[k] = op.x[off0 + k * step];
      }
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        if (t0 + k >= s1) break;
        const int64_t off = off0 + k * step;
        if (!IsFloodHole(x[k], op.hole)) {
          src = off;
          src_val = x[k];
          src_axis = reverse ? L - 1 - (t0 + k) : t0 + k;
        }
        op.out[off] = src >= 0 ? src_val : x[k];
        if (op.index != nullptr) op.index[off] = src_axis;
      }
    }
    return src;
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
