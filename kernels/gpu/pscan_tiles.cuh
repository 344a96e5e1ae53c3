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
#include "kernels/gpu/pscan_onepass.cuh"
#include "kernels/impl/pscan_ops.h"

// Compile-time variants (tools/dev/harness/pscan; defaults measured on the H200,
// docs/benchmarks.md 2026-11-29): the columns' own thread steps (1) or the generic ones (0), the
// blocks per SM the float32 kernels are compiled for, and the threads the column segments aim at.
#ifndef PO_PSCAN_COL_FAST
#define PO_PSCAN_COL_FAST 1
#endif
#ifndef PO_PSCAN_MIN_BLOCKS
#define PO_PSCAN_MIN_BLOCKS 4
#endif
#ifndef PO_PSCAN_COL_THREADS
#define PO_PSCAN_COL_THREADS 131072
#endif
// The one-pass columns of a broadcast gate (pscan_onepass.cuh): off by default (not yet run
// in the library), 1 a block per tile, 2 the persistent blocks; its steps per chunk, columns
// per tile and blocks per SM.
#ifndef PO_PSCAN_ONEPASS
#define PO_PSCAN_ONEPASS 0
#endif
#ifndef PO_PSCAN_ONEPASS_STEPS
#define PO_PSCAN_ONEPASS_STEPS 32
#endif
#ifndef PO_PSCAN_ONEPASS_COLS
#define PO_PSCAN_ONEPASS_COLS 256
#endif
#ifndef PO_PSCAN_ONEPASS_MIN_BLOCKS
#define PO_PSCAN_ONEPASS_MIN_BLOCKS 4
#endif

namespace phi {
namespace funcs {
namespace scan_gpu {

template <typename T>
struct GpuTileScan<PscanOp<T, float>> : GenericTileScan<PscanOp<T, float>> {
  using Op = PscanOp<T, float>;
  using State = typename Op::State;
  static constexpr bool kFast = true;
  static constexpr int V = 16 / static_cast<int>(sizeof(T));  // elements per 16-byte load
  // float32 only (measured); the 16-bit columns would spill at 64 registers.
  static constexpr int kMinBlocks = sizeof(T) == 4 ? PO_PSCAN_MIN_BLOCKS : 1;
  static constexpr int64_t kColumnThreads = PO_PSCAN_COL_THREADS;
  static constexpr bool kOwnColumns = PO_PSCAN_ONEPASS != 0;

  // Columns cut into segments (fewer lines than kColumnThreads) with a gate broadcast over D
  // of at least 32 columns: the one pass (engine hook TileOwnColumns); false: the three phases.
  template <typename Scratch>
  static bool Columns(cudaStream_t stream, Scratch& scratch, const LineGeometry& g, int64_t lines, bool exclusive,
                      const Op& op) {
    if (lines >= kColumnThreads || g.inner < 32) return false;
    return pscan_onepass::Launch<PO_PSCAN_ONEPASS_STEPS, PO_PSCAN_ONEPASS_COLS, PO_PSCAN_ONEPASS_MIN_BLOCKS,
                                 PO_PSCAN_ONEPASS == 2>(
        stream, scratch, lines / g.inner, g.length, g.inner, g.reverse, exclusive, op);
  }

  // Columns: the generic thread steps' combinations in the same order (the same bits), with
  // the gate's offset kept per line instead of a division per element (a [N, T] gate: step l
  // of line (n, d) reads a[n * T + l]).
  template <int kItems, bool kStore>
  __device__ static State Thread(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                 bool exclusive) {
    if (!PO_PSCAN_COL_FAST || exclusive) return ThreadScanSteps<kItems, kStore>(op, line, s0, s1, carry, exclusive);
    const LineGeometry& g = line.g;
    const int64_t step = g.reverse ? -g.inner : g.inner;
    const bool per_row = op.index.gate_per_row;
    const int64_t gate0 = per_row ? op.index.GateIndex(line.base) : 0;  // n * T
    const int64_t gstep = g.reverse ? -1 : 1;
    int64_t t0 = s0;
    if (t0 == 0 && t0 < s1) {  // the line's first step: gate 0, the initial state folded in
      carry = op.Combine(carry, op.Load(g.At(line.base, 0)));
      if (kStore) op.out[g.At(line.base, 0).offset] = static_cast<T>(carry.b);
      ++t0;
    }
    for (; t0 < s1; t0 += kItems) {
      const int64_t off0 = g.At(line.base, t0).offset;
      const int64_t ga0 = per_row ? gate0 + (g.reverse ? g.length - 1 - t0 : t0) : off0;
      const int64_t gs = per_row ? gstep : step;
      T av[kItems], xv[kItems];
      LoadStepPairs(op.a, ga0, gs, op.x, off0, step, s1 - t0, av, xv);
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        if (t0 + k < s1) {
          carry = op.Combine(carry, State{static_cast<float>(av[k]), static_cast<float>(xv[k])});
          if (kStore) op.out[off0 + k * step] = static_cast<T>(carry.b);
        }
      }
    }
    return carry;
  }

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
