// The GPU engine's fast tiles for pscan rows (GpuTileScan specialized for PscanOp with float
// accumulation: float32, float16 and bfloat16; float64 keeps the generic tiles).
//
// A row (inner == 1, one recurrence per row) reads its gates and values at the same offsets
// (a [N, T] gate with D == 1 is laid out as [N, T, 1]), so a lane loads V consecutive gates
// and V values with one 16-byte load each and stores V outputs with one, instead of the
// generic tile's V scalar loads of each per lane (strided across the warp). The combination
// order is the generic tile's: each lane folds its V items, a warp scan of the lane totals
// starts from the carry, and each lane walks its items from its exclusive prefix; only the
// memory access changes. Columns (inner > 1) are coalesced already and keep the generic steps.
#pragma once

#include <cub/warp/warp_scan.cuh>

#include <cstdint>

#include "kernels/funcs/gpu/scan_agent.cuh"
#include "kernels/impl/pscan_ops.h"

namespace phi {
namespace funcs {
namespace scan_gpu {

template <typename T>
struct GpuTileScan<PscanOp<T, float>> : GenericTileScan<PscanOp<T, float>> {
  using Op = PscanOp<T, float>;
  using State = typename Op::State;
  static constexpr bool kFast = true;
  static constexpr int V = 16 / static_cast<int>(sizeof(T));  // elements per 16-byte load

  template <int W, int kItems, bool kStore>
  __device__ static State Warp(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                               bool exclusive, int lane) {
    const int64_t L = line.g.length;
    const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
    // pscan's scans are inclusive; a row whose length is not a multiple of V (or unaligned
    // data) takes the generic steps.
    if (exclusive || L % V != 0 || !aligned(op.a) || !aligned(op.x) || !aligned(op.out)) {
      return WarpScanSteps<W, kItems, kStore>(op, line, s0, s1, carry, exclusive, lane);
    }
    const bool reverse = line.g.reverse;
    constexpr int64_t kSub = int64_t{W} * V;
    for (int64_t t0 = s0; t0 < s1; t0 += kSub) {
      const int64_t first = t0 + int64_t{lane} * V;
      T av[V], xv[V];
      LoadRowRaw<T, V>(op.a, line.base, L, reverse, first, s1, true, av);
      LoadRowRaw<T, V>(op.x, line.base, L, reverse, first, s1, true, xv);
      State items[V];
#pragma unroll
      for (int j = 0; j < V; ++j) {
        items[j] = first + j < s1 ? State{static_cast<float>(av[j]), static_cast<float>(xv[j])} : op.Identity();
      }
      if (first == 0) items[0] = op.Load(line.g.At(line.base, 0));  // the row's first step: gate 0, h0 folded in
      State prefix, warp_total;
      WarpTileExclusiveScan<W>(op, items, carry, &prefix, &warp_total);
      if (kStore) {
        T o[V];
#pragma unroll
        for (int j = 0; j < V; ++j) {
          prefix = op.Combine(prefix, items[j]);
          o[j] = static_cast<T>(prefix.b);
        }
        StoreRowRaw<T, V>(op.out, line.base, L, reverse, first, s1, true, o);
      }
      carry = op.Combine(carry, warp_total);
    }
    return carry;
  }
};

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
