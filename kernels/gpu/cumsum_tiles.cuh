// The GPU engine's fast tiles for cumsum (GpuTileScan specialized for CumsumFloatOp on float,
// float16 and bfloat16, whose state is a compensated float64 pair; float64 inputs keep the
// generic tiles).
//
// docs/spec.md §2 keeps every addition a float64 two-sum, so the arithmetic stays that of the
// generic tiles; what changes is what surrounds it. The generic tile scans 8 items a lane with
// a warp scan of double-double pairs per 256 elements, checks every addition for inf/NaN and
// rounds every output through round-to-odd. Here:
//   - a lane takes kLaneItems consecutive elements (16-byte loads), so the warp scan of the
//     lane totals (5 levels of double-double additions) is paid once per 32 * kLaneItems;
//   - the inf/NaN check is once per lane and tile (a non-finite element sends the whole tile to
//     the generic steps, whose additions handle it);
//   - a float output rounds hi + lo to the nearest double and that to float, which is the
//     correctly rounded float of hi + lo unless the double lies exactly halfway between two
//     floats (the only case where rounding twice can differ) or outside the normal float range;
//     those rare outputs take RoundCompensated's round-to-odd. 16-bit outputs always do.
// The combination order depends on the shape alone (deterministic).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <cub/device/device_scan.cuh>
#include <cuda/std/iterator>

#include "kernels/funcs/gpu/scan_agent.cuh"
#include "kernels/impl/cum_scan_ops.h"

#ifndef PO_CUMSUM_MIN_BLOCKS  // the harness compares variants; the library takes the defaults
#define PO_CUMSUM_MIN_BLOCKS 4
#endif
#ifndef PO_CUMSUM_SMEM_DOUBLES
#define PO_CUMSUM_SMEM_DOUBLES 1
#endif
// Staged short rows of float cumsum: steps a thread (0: the policy's 64) and blocks an SM the
// kernel is compiled for. The harness builds variants of each.
#ifndef PO_CUMSUM_STAGED_STEPS
#define PO_CUMSUM_STAGED_STEPS 0
#endif
#ifndef PO_CUMSUM_STAGED_MIN_BLOCKS
#define PO_CUMSUM_STAGED_MIN_BLOCKS 3
#endif
// Columns from how many lines take the column strips (scan_columns.cuh; scan_launch.cuh's
// TileStripColumnLines): float32 (never since the thread steps of 2026-11-29 made its three
// phases faster), and int32/int64 below their one pass's 8192 lines. 0: never.
#ifndef PO_CUMSUM_STRIP_LINES
#define PO_CUMSUM_STRIP_LINES 0
#endif
#ifndef PO_CUMSUM_INT_STRIP_LINES
#define PO_CUMSUM_INT_STRIP_LINES 4096
#endif

namespace phi {
namespace funcs {
namespace scan_gpu {

// Warp for a tile whose full warps take the line's direction as a template argument of its
// WarpSteps (full groups go through BlockedGroup, whose direction is one); the logical warps of
// short rows read it at run time. Thread is the generic one.
template <class Tile, class Op>
struct WarpInDirection : GenericTileScan<Op> {
  template <int W, int kItems, bool kStore, class State>
  __device__ static State Warp(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                               bool exclusive, int lane) {
    if constexpr (W == 32) {
      if (line.g.reverse) return Tile::template WarpSteps<W, kStore, true>(op, line, s0, s1, carry, exclusive, lane);
    }
    return Tile::template WarpSteps<W, kStore, false>(op, line, s0, s1, carry, exclusive, lane);
  }
};

struct CumsumFast {
  using Sum = CompensatedSum<double>;
  // a + x as a double-double, with no inf/NaN handling (the caller checked).
  __device__ static Sum AddValue(Sum a, double x) { return TwoSumInto(&a.hi, &a.lo, x), a; }
  __device__ static Sum AddSum(Sum a, const Sum& b) { return TwoSumPairInto(&a.hi, &a.lo, b.hi, b.lo), a; }
  // RoundCompensated out of line: the rare outputs of Round<float, true>, so that unrolled
  // column steps do not carry its code and registers inline for every element.
  __device__ static __noinline__ float RoundFloatSlow(double hi, double lo) { return RoundCompensated<float>(hi, lo); }
  // hi + lo rounded once to T.
  template <typename T, bool kOutOfLine = false>
  __device__ static T Round(const Sum& s) {
    if constexpr (std::is_same<T, float>::value) {
      const double r = s.hi + s.lo;
      const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(r));
      const unsigned exp = static_cast<unsigned>(bits >> 52) & 0x7ffu;
      // A float midpoint has its double mantissa's low 29 bits 1000...0; normal floats have
      // double exponents 897 .. 1150.
      if ((bits & 0x1fffffffull) != 0x10000000ull && exp >= 897u && exp <= 1150u) return static_cast<float>(r);
      if (r == 0.0) return static_cast<float>(r);
      if constexpr (kOutOfLine) return RoundFloatSlow(s.hi, s.lo);
      return RoundCompensated<float>(s.hi, s.lo);
    } else {
      return RoundCompensated<T>(s.hi, s.lo);
    }
  }
};

template <typename T>
struct GpuTileScan<CumsumFloatOp<T, double>, std::enable_if_t<!std::is_same<T, double>::value>>
    : WarpInDirection<GpuTileScan<CumsumFloatOp<T, double>>, CumsumFloatOp<T, double>> {
  using Op = CumsumFloatOp<T, double>;
  using State = typename Op::State;
  using Sum = CompensatedSum<double>;
  static constexpr bool kFast = true;
  static constexpr bool kStagedRows = true;  // Load/Store touch x and out only (scan_staged_rows.cuh)
  // 4 blocks of 256 threads per SM (at most 64 registers): 32 warps to hide the float64
  // latencies, and [4096, L] rows in one wave on 132 SMs (108 registers unbounded: 2 blocks).
  static constexpr int kMinBlocks = PO_CUMSUM_MIN_BLOCKS;
  static constexpr int64_t kRowTarget = ScanPolicy::kWarpRowsFrom;  // a warp a row from 1024 rows
  static constexpr int V = 16 / static_cast<int>(sizeof(T));  // elements per 16-byte load
  // 16-byte loads a lane per tile: 16 elements a lane for full warps; one load for the logical
  // warps of short rows (a row of at most 64 steps is one tile of W * V).
  template <int W>
  static constexpr int kLoads = W == 32 ? 16 / V : 1;

  // A per-warp buffer of N * 32 doubles (also BlockedGroup's store buffer: N * 32 * 8 bytes is
  // at least the 32 * N * sizeof(T) it needs).
  template <int N>
  __device__ static double* DoubleBuffer() {
    __shared__ alignas(16) double buf[ScanPolicy::kThreads / 32][N * 32];
    return buf[threadIdx.x / 32];
  }

  __device__ static bool Aligned(const Op& op, int64_t L) {
    return L % V == 0 && reinterpret_cast<uintptr_t>(op.x) % 16 == 0 && reinterpret_cast<uintptr_t>(op.out) % 16 == 0;
  }

  // The lane's items of the tile starting at t0 (steps t0 + lane * kLaneItems ...), as floats
  // (0 past s1: adds nothing); returns whether all are finite (one fma each: x * 0 is 0 for a
  // finite x and NaN for inf and NaN). Kept as floats, converted to double where added, so that
  // a lane's 16 items take 16 registers, not 32.
  template <int N>
  __device__ static bool LoadLane(const Op& op, const OpLine<Op>& line, int64_t first, int64_t s1, bool vec,
                                  float (&v)[N * V]) {
    float chk = 0.f;
#pragma unroll
    for (int c = 0; c < N; ++c) {
      T raw[V] = {};
      LoadRowRaw<T, V>(op.x, line.base, line.g.length, line.g.reverse, first + c * V, s1, vec, raw);
#pragma unroll
      for (int j = 0; j < V; ++j) {
        v[c * V + j] = static_cast<float>(raw[j]);
        chk = fmaf(v[c * V + j], 0.f, chk);
      }
    }
    return chk == 0.f;
  }

  // An exclusive scan of the lanes' sums across the logical warp, in a fixed order (Kogge-Stone):
  // what lies before the lane (carry included) and the tile's total without the carry.
  template <int W>
  __device__ static void ScanLanes(const Sum& mine, const Sum& carry, unsigned mask, int lane, Sum* before,
                                   Sum* total) {
    Sum incl = mine;
#pragma unroll
    for (int d = 1; d < W; d <<= 1) {
      const Sum y{__shfl_up_sync(mask, incl.hi, d, W), __shfl_up_sync(mask, incl.lo, d, W)};
      if (lane >= d) incl = CumsumFast::AddSum(y, incl);
    }
    *total = Sum{__shfl_sync(mask, incl.hi, W - 1, W), __shfl_sync(mask, incl.lo, W - 1, W)};
    Sum b{__shfl_up_sync(mask, incl.hi, 1, W), __shfl_up_sync(mask, incl.lo, 1, W)};
    *before = lane == 0 ? carry : Add(carry, b);
  }

  // kRev: the line's direction where W == 32 (WarpInDirection).
  template <int W, bool kStore, bool kRev>
  __device__ static State WarpSteps(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                    bool exclusive, int lane) {
    constexpr int kLaneItems = kLoads<W> * V;
    constexpr int64_t kTile = int64_t{W} * kLaneItems;
    const unsigned mask = LogicalWarpMask<W>();
    const bool vec = Aligned(op, line.g.length);
    Sum part = Sum::Zero();  // kStore == false: the lane's own running sum over every tile
    for (int64_t t0 = s0; t0 < s1; t0 += kTile) {
      const int64_t first = t0 + int64_t{lane} * kLaneItems;
      const bool whole = W == 32 && vec && t0 + kTile <= s1;  // warp-uniform
      float v[kLaneItems];
      bool lane_finite;
      if (whole) {
        T raw[kLaneItems];
        BlockedGroup<T, kLaneItems>::template Load<kRev>(op.x, line.base, line.g.length, t0, raw, lane);
        float chk = 0.f;
#pragma unroll
        for (int j = 0; j < kLaneItems; ++j) {
          v[j] = static_cast<float>(raw[j]);
          chk = fmaf(v[j], 0.f, chk);
        }
        lane_finite = chk == 0.f;
      } else {
        lane_finite = LoadLane<kLoads<W>>(op, line, first, s1, vec, v);
      }
      // A non-finite carry also takes the checked additions (inf - inf in a two-sum is NaN).
      const bool finite = __all_sync(mask, lane_finite) && carry.hi - carry.hi == 0.0;
      if (!finite) {  // inf or NaN somewhere in the tile: the generic, checked additions
        const int64_t t1 = t0 + kTile < s1 ? t0 + kTile : s1;
        if (!kStore) {  // flush the lanes into the carry first, in lane order
          Sum before, total;
          ScanLanes<W>(part, carry, mask, lane, &before, &total);
          carry = Add(carry, total);
          part = Sum::Zero();
        }
        carry = WarpScanSteps<W, 1, kStore>(op, line, t0, t1, carry, exclusive, lane);
        continue;
      }
      if (!kStore) {
#pragma unroll
        for (int j = 0; j < kLaneItems; ++j) part = CumsumFast::AddValue(part, static_cast<double>(v[j]));
        continue;
      }
      // Full warps keep the lane's items as doubles in shared memory between the two passes
      // (item j of lane l at [j][l]: conflict-free), so each is converted once: float->double
      // conversions issue at a quarter of the float64 rate on Hopper.
      double* dv = nullptr;
      if constexpr (W == 32 && PO_CUMSUM_SMEM_DOUBLES) dv = DoubleBuffer<kLaneItems>();
      Sum mine = Sum::Zero();
#pragma unroll
      for (int j = 0; j < kLaneItems; ++j) {
        const double d = static_cast<double>(v[j]);
        if (dv != nullptr) dv[j * 32 + lane] = d;
        mine = j == 0 ? Sum::Of(d) : CumsumFast::AddValue(mine, d);
      }
      Sum run, total;
      ScanLanes<W>(mine, carry, mask, lane, &run, &total);
      T o[kLaneItems];
#pragma unroll
      for (int j = 0; j < kLaneItems; ++j) {
        const double d = dv != nullptr ? dv[j * 32 + lane] : static_cast<double>(v[j]);
        if (exclusive) {
          o[j] = CumsumFast::Round<T>(run);
          run = CumsumFast::AddValue(run, d);
        } else {
          run = CumsumFast::AddValue(run, d);
          o[j] = CumsumFast::Round<T>(run);
        }
      }
      if (whole) {
        if constexpr (W == 32 && PO_CUMSUM_SMEM_DOUBLES) {  // the doubles are dead: reuse their buffer
          __syncwarp();
          BlockedGroup<T, kLaneItems>::template Store<kRev>(op.out, line.base, line.g.length, t0, o, lane,
                                                            reinterpret_cast<uint4*>(dv));
        } else {
          BlockedGroup<T, kLaneItems>::template Store<kRev>(op.out, line.base, line.g.length, t0, o, lane);
        }
      } else {
#pragma unroll
        for (int c = 0; c < kLoads<W>; ++c) {
          T oc[V];
#pragma unroll
          for (int j = 0; j < V; ++j) oc[j] = o[c * V + j];
          StoreRowRaw<T, V>(op.out, line.base, line.g.length, line.g.reverse, first + c * V, s1, vec, oc);
        }
      }
      carry = Add(carry, total);
    }
    if (!kStore) {
      Sum before, total;
      ScanLanes<W>(part, carry, mask, lane, &before, &total);
      carry = Add(carry, total);
    }
    return carry;
  }

  // Staged short rows (scan_staged_rows.cuh): steps [s0, s1) of a row in shared memory that one
  // lane holds whole (kP = 1). Where every element of the row is finite and its nonzero ones lie
  // within 29 - log2(L) binades of each other, every prefix is exactly a double (a multiple of
  // the smallest element's ulp, below L times the largest's binade: under 2^53 such ulps), so the
  // float64 loop is exact: its outputs, rounded once, are the correctly rounded exact prefixes
  // (the double-double's bits) at one float64 addition a step. Returns false, having stored
  // nothing, for any other row, and for rows split among kP > 1 lanes (the engine's generic steps
  // take them).
  static constexpr bool kStagedRun = true;
  static constexpr int kStagedSteps = PO_CUMSUM_STAGED_STEPS;
  static constexpr int kStagedMinBlocks = PO_CUMSUM_STAGED_MIN_BLOCKS;
  // Rows of 512 steps (8 lanes a row at 64 steps a lane) were slower staged than on full warps
  // (H200: 2.7 against 1.55 x copy; docs/benchmarks.md), 256 a little faster.
  static constexpr int64_t kStagedMaxLength = 256;
  template <int kItems, int kP>
  __device__ static bool StagedRun(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, bool exclusive) {
    if constexpr (kP > 1) {
      return false;
    } else {
      unsigned amax = 0u, amin = 0x7fffffffu;  // |x| as bits: the largest, the smallest nonzero
#pragma unroll 8
      for (int64_t s = s0; s < s1; ++s) {
        const unsigned u = __float_as_uint(static_cast<float>(op.x[line.g.At(line.base, s).offset])) & 0x7fffffffu;
        amax = max(amax, u);
        amin = min(amin, u == 0u ? 0x7fffffffu : u);
      }
      int log2L = 0;
      while ((int64_t{1} << log2L) < line.g.length) ++log2L;
      const int emax = static_cast<int>(amax >> 23), emin = max(static_cast<int>(amin >> 23), 1);  // subnormals: 1
      if (amax >= 0x7f800000u || emax - emin > 29 - log2L) return false;  // inf, NaN, or too wide a range
      if (exclusive) {
        ExactLoop<true>(op, line, s0, s1, 0.0);
      } else {
        ExactLoop<false>(op, line, s0, s1, 0.0);
      }
      return true;
    }
  }
  template <bool kExclusive>
  __device__ static void ExactLoop(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, double sum) {
#pragma unroll 8
    for (int64_t s = s0; s < s1; ++s) {
      const int64_t off = line.g.At(line.base, s).offset;
      const double x = static_cast<double>(static_cast<float>(op.x[off]));
      if (!kExclusive) sum += x;
      if constexpr (std::is_same<T, float>::value) {
        op.out[off] = static_cast<float>(sum);  // sum is exact: rounded once
      } else {
        op.out[off] = static_cast<T>(RoundToOddFloat(sum));
      }
      if (kExclusive) sum += x;
    }
  }

  // Columns (and the staged short rows that no exact loop takes): one thread walks its line,
  // kItems loads in flight from one address and a fixed stride. Checked once per chunk rather
  // than per element: the chunk's elements and the carry are finite (then every two-sum of the
  // chunk stays finite). A segment total (kStore = false) of such a chunk adds it as one plain
  // float64 sum where that sum is exact (ColumnTotal's span rule), one two-sum per chunk; else
  // the two-sum per element. Non-finite chunks take Add (its inf/NaN handling) and
  // RoundCompensated per element, as before. The store path's outputs are those of the
  // per-element form before (2026-11-29) bit for bit; a total may differ from its in the
  // double-double's low part (one rounding of an exact chunk sum instead of kItems two-sums), no
  // less accurate.
  template <int kItems, bool kStore>
  __device__ static State Thread(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                 bool exclusive) {
    constexpr unsigned kSpan = 29 - (kItems <= 1 ? 0 : kItems <= 2 ? 1 : kItems <= 4 ? 2 : kItems <= 8 ? 3 : kItems <= 16 ? 4 : 5);
    static_assert(kItems <= 32, "thread steps");
    const int64_t step = line.g.reverse ? -line.g.inner : line.g.inner;
    for (int64_t t0 = s0; t0 < s1; t0 += kItems) {
      const int n = static_cast<int>(t0 + kItems < s1 ? kItems : s1 - t0);
      const T* px = op.x + line.g.At(line.base, t0).offset;
      float f[kItems];
      unsigned umax = 0, umin = 0xffffffffu;  // |x| bits; umin: of the nonzero ones, less 1 (0 wraps)
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        f[k] = k < n ? static_cast<float>(px[k * step]) : 0.f;
        const unsigned u = __float_as_uint(f[k]) & 0x7fffffffu;
        umax = umax > u ? umax : u;
        umin = umin < u - 1u ? umin : u - 1u;
      }
      const bool finite = umax < 0x7f800000u && carry.hi - carry.hi == 0.0;
      if (!kStore && finite && (umax >> 23) <= ((umin + 1u) >> 23) + kSpan) {
        double sum = 0.0;
#pragma unroll
        for (int k = 0; k < kItems; ++k) sum += static_cast<double>(f[k]);  // exact (padding adds 0)
        carry = CumsumFast::AddValue(carry, sum);
        continue;
      }
      T* po = kStore ? op.out + (px - op.x) : nullptr;
      if (finite) {
#pragma unroll
        for (int k = 0; k < kItems; ++k) {
          if (k >= n) break;
          if (kStore && exclusive) po[k * step] = CumsumFast::Round<T, true>(carry);
          carry = CumsumFast::AddValue(carry, static_cast<double>(f[k]));
          if (kStore && !exclusive) po[k * step] = CumsumFast::Round<T, true>(carry);
        }
        continue;
      }
#pragma unroll 1
      for (int k = 0; k < n; ++k) {
        const double v = static_cast<double>(px[k * step]);
        if (kStore && exclusive) po[k * step] = RoundCompensated<T>(carry.hi, carry.lo);
        const bool fast = v - v == 0.0 && carry.hi - carry.hi == 0.0;
        carry = fast ? CumsumFast::AddValue(carry, v) : Add(carry, Sum::Of(v));
        if (kStore && !exclusive) po[k * step] = RoundCompensated<T>(carry.hi, carry.lo);
      }
    }
    return carry;
  }

  // Columns held in registers (the one-pass column tiles and the column strips of
  // scan_columns.cuh): x[k] is step k of one line in scan order, n of the K real. float32
  // columns took the strips from 16384 lines (H200, 2026-11-29: 2.73 x copy against the three
  // phases' 3.61); since the seventh session's thread steps the three phases win there (2.53-2.59
  // against 2.68-2.74 on [32, 4, 2048, 128] axis 2, same run, docs/benchmarks.md 2026-11-30), so
  // PO_CUMSUM_STRIP_LINES is 0 and they stay on the three phases. A chained look-back (now
  // harness-only, tools/dev/harness/scan/scan_column_chain.cuh) lost on both benchmark shapes
  // (3.1-3.3). The 16-bit types were not measured there: they keep their paths.
  static constexpr bool kColumnTile = true;
  static constexpr int64_t kStripColumnLines = std::is_same<T, float>::value ? PO_CUMSUM_STRIP_LINES : 0;
  // Their total. A plain float64 sum is exact when every element is finite and the nonzero ones
  // span at most 29 - log2(K) binades (exponent fields E >= e): every partial sum is a multiple
  // of 2^(e - 150), the ulp of the smallest, and below K * 2^(E - 126), so it counts at most
  // K * 2^(E - e + 24) <= 2^53 of those units. One float64 addition an element then instead of
  // a two-sum's six; other totals take the two-sum (with Add's inf/NaN handling).
  template <int K>
  __device__ static State ColumnTotal(const Op&, const T (&x)[K], int n) {
    constexpr unsigned kSpan = 29 - (K <= 1 ? 0 : K <= 2 ? 1 : K <= 4 ? 2 : K <= 8 ? 3 : K <= 16 ? 4 : 5);
    static_assert(K <= 32, "column steps");
    float f[K];
    unsigned umax = 0, umin = 0xffffffffu;  // |x| bits; umin: of the nonzero ones, less 1 (0 wraps)
#pragma unroll
    for (int k = 0; k < K; ++k) {
      f[k] = k < n ? static_cast<float>(x[k]) : 0.f;
      const unsigned u = __float_as_uint(f[k]) & 0x7fffffffu;
      umax = umax > u ? umax : u;
      umin = umin < u - 1u ? umin : u - 1u;
    }
    if (umax < 0x7f800000u && (umax >> 23) <= ((umin + 1u) >> 23) + kSpan) {
      double s = 0.0;
#pragma unroll
      for (int k = 0; k < K; ++k) s += static_cast<double>(f[k]);
      return Sum::Of(s);
    }
    ColumnSlow<K> slow(f);  // rare: a loop over a copy in local memory, not unrolled
    Sum s = Sum::Zero();
#pragma unroll 1
    for (int k = 0; k < n; ++k) s = Add(s, Sum::Of(static_cast<double>(slow.f[k])));
    return s;
  }
  // Their scan from carry, in place: the fast two-sums and rounding of the rows where the K
  // elements and the carry are finite, else Add and RoundCompensated (the op's own Store).
  template <int K>
  __device__ static void ColumnScan(const Op&, T (&x)[K], int n, State carry, bool exclusive) {
    float f[K];
    float chk = 0.f;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      f[k] = k < n ? static_cast<float>(x[k]) : 0.f;
      chk = fmaf(f[k], 0.f, chk);
    }
    if (chk == 0.f && carry.hi - carry.hi == 0.0) {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        if (k >= n) break;
        const double d = static_cast<double>(f[k]);
        if (exclusive) {
          x[k] = CumsumFast::Round<T, true>(carry);
          carry = CumsumFast::AddValue(carry, d);
        } else {
          carry = CumsumFast::AddValue(carry, d);
          x[k] = CumsumFast::Round<T, true>(carry);
        }
      }
      return;
    }
    ColumnSlow<K, T> slow(f);
#pragma unroll 1
    for (int k = 0; k < n; ++k) {
      const Sum d = Sum::Of(static_cast<double>(slow.f[k]));
      if (exclusive) {
        slow.out[k] = RoundCompensated<T>(carry.hi, carry.lo);
        carry = Add(carry, d);
      } else {
        carry = Add(carry, d);
        slow.out[k] = RoundCompensated<T>(carry.hi, carry.lo);
      }
    }
    slow.Outputs(n, x);
  }
};

// float64 cumsum keeps the generic tiles; its short rows are staged (scan_staged_rows.cuh).
template <>
struct GpuTileScan<CumsumFloatOp<double, double>, void> : GenericTileScan<CumsumFloatOp<double, double>> {
  static constexpr bool kStagedRows = true;
};

// Integer cumsum rows (int32, int64): exact, so any order gives the same bits. A lane takes
// 4 16-byte loads (16 int32 or 8 int64 consecutive elements; one load for the logical warps of
// short rows), sums them, and one warp scan of the lane sums (unsigned: wraps as two's
// complement, as IntSumCombine) gives each lane its start. Columns: the generic thread steps,
// and register column steps for the one pass (scan_columns.cuh).
template <typename T>
struct GpuTileScan<CumsumIntOp<T>, std::enable_if_t<std::is_same<T, int32_t>::value || std::is_same<T, int64_t>::value>>
    : WarpInDirection<GpuTileScan<CumsumIntOp<T>>, CumsumIntOp<T>> {
  using Op = CumsumIntOp<T>;
  using State = T;
  using U = std::make_unsigned_t<T>;
  static constexpr bool kFast = true;
  static constexpr bool kStagedRows = true;
  static constexpr int64_t kRowTarget = ScanPolicy::kWarpRowsFrom;  // a warp a row from 1024 rows
  static constexpr int V = 16 / static_cast<int>(sizeof(T));
  template <int W>
  static constexpr int kLoads = W == 32 ? 4 : 1;

  template <int W, bool kStore, bool kRev>
  __device__ static State WarpSteps(const Op& op, const OpLine<Op>& line, int64_t s0, int64_t s1, State carry,
                                    bool exclusive, int lane) {
    constexpr int kLaneItems = kLoads<W> * V;
    constexpr int64_t kTile = int64_t{W} * kLaneItems;
    const unsigned mask = LogicalWarpMask<W>();
    const int64_t L = line.g.length;
    const bool vec = L % V == 0 && reinterpret_cast<uintptr_t>(op.x) % 16 == 0 &&
                     reinterpret_cast<uintptr_t>(op.out) % 16 == 0;
    U c = static_cast<U>(carry), part = 0;
    for (int64_t t0 = s0; t0 < s1; t0 += kTile) {
      const int64_t first = t0 + int64_t{lane} * kLaneItems;
      U v[kLaneItems];
      const bool whole = W == 32 && vec && t0 + kTile <= s1;  // warp-uniform
      if (whole) {
        T raw[kLaneItems];
        BlockedGroup<T, kLaneItems>::template Load<kRev>(op.x, line.base, L, t0, raw, lane);
#pragma unroll
        for (int j = 0; j < kLaneItems; ++j) v[j] = static_cast<U>(raw[j]);
      } else {
#pragma unroll
        for (int k = 0; k < kLoads<W>; ++k) {
          T raw[V] = {};  // 0 past s1: adds nothing
          LoadRowRaw<T, V>(op.x, line.base, L, line.g.reverse, first + k * V, s1, vec, raw);
#pragma unroll
          for (int j = 0; j < V; ++j) v[k * V + j] = static_cast<U>(raw[j]);
        }
      }
      U mine = 0;
#pragma unroll
      for (int j = 0; j < kLaneItems; ++j) mine += v[j];
      if (!kStore) {
        part += mine;
        continue;
      }
      U incl = mine;
#pragma unroll
      for (int d = 1; d < W; d <<= 1) {
        const U y = __shfl_up_sync(mask, incl, d, W);
        if (lane >= d) incl += y;
      }
      U run = c + (incl - mine);
      c += __shfl_sync(mask, incl, W - 1, W);
      T o[kLaneItems];
#pragma unroll
      for (int j = 0; j < kLaneItems; ++j) {
        if (!exclusive) run += v[j];
        o[j] = static_cast<T>(run);
        if (exclusive) run += v[j];
      }
      if (whole) {
        BlockedGroup<T, kLaneItems>::template Store<kRev>(op.out, line.base, L, t0, o, lane);
      } else {
#pragma unroll
        for (int k = 0; k < kLoads<W>; ++k) {
          T oc[V];
#pragma unroll
          for (int j = 0; j < V; ++j) oc[j] = o[k * V + j];
          StoreRowRaw<T, V>(op.out, line.base, L, line.g.reverse, first + k * V, s1, vec, oc);
        }
      }
    }
    if (!kStore) {
#pragma unroll
      for (int d = W / 2; d > 0; d >>= 1) part += __shfl_xor_sync(mask, part, d, W);
      c += part;
    }
    return static_cast<T>(c);
  }

  // Long rows that the engine would cut into segments for its single pass (rows too few to fill
  // the GPU, no carry-in): CUB's single-pass DeviceScan, a row at a time, on the unsigned type
  // (two's-complement wrap, as IntSumCombine). Its tiles stay in registers across the look-back,
  // where the engine's warp segments read their elements a second time. Taken for at most
  // kOwnLongRowsMax rows (each row is a CUB call: two launches); more rows return false and take
  // the engine's single pass.
  static constexpr bool kOwnLongRows = true;
  static constexpr int64_t kOwnLongRowsMax = 4;
  template <typename In, typename Out>
  static void DeviceScan(void* tmp, size_t& bytes, In x, Out out, int64_t n, bool exclusive, cudaStream_t stream) {
    if (exclusive) {
      PADDLE_ENFORCE_GPU_SUCCESS(cub::DeviceScan::ExclusiveSum(tmp, bytes, x, out, n, stream));
    } else {
      PADDLE_ENFORCE_GPU_SUCCESS(cub::DeviceScan::InclusiveSum(tmp, bytes, x, out, n, stream));
    }
  }
  static void DeviceScanRow(void* tmp, size_t& bytes, const U* x, U* out, int64_t n, bool exclusive, bool reverse,
                            cudaStream_t stream) {
    if (reverse) {
      DeviceScan(tmp, bytes, cuda::std::make_reverse_iterator(x + n), cuda::std::make_reverse_iterator(out + n), n,
                 exclusive, stream);
    } else {
      DeviceScan(tmp, bytes, x, out, n, exclusive, stream);
    }
  }
  template <typename Scratch>
  static bool LongRows(cudaStream_t stream, Scratch& scratch, const LineGeometry& g, int64_t rows, bool exclusive,
                       const Op& op) {
    if (rows > kOwnLongRowsMax || g.inner != 1) return false;
    const U* x = reinterpret_cast<const U*>(op.x);
    U* out = reinterpret_cast<U*>(op.out);
    size_t bytes = 0;
    DeviceScanRow(nullptr, bytes, x, out, g.length, exclusive, g.reverse, stream);
    void* tmp = scratch(static_cast<int64_t>(bytes));
    for (int64_t r = 0; r < rows; ++r) {
      DeviceScanRow(tmp, bytes, x + r * g.length, out + r * g.length, g.length, exclusive, g.reverse, stream);
    }
    return true;
  }

  // Columns held in registers (scan_columns.cuh): x[k] is step k of one line, n of the K real.
  // The one pass also takes from 8192 lines up, where other ops keep the three phases
  // (scan_launch.cuh's TileOnePassColumnLines), and the column strips from 4096 lines below
  // that (H200, [16384, 4096] axis 0: int64 1.22 x copy against the three phases' 1.58, int32
  // 1.56 against 1.95; the strips were not measured on the one pass's 16384-line shape).
  static constexpr bool kColumnTile = true;
  static constexpr int64_t kOnePassColumnLines = 8192;
  static constexpr int64_t kStripColumnLines = PO_CUMSUM_INT_STRIP_LINES;
  template <int K>
  __device__ static State ColumnTotal(const Op&, const T (&x)[K], int n) {
    U s = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) s += k < n ? static_cast<U>(x[k]) : U{0};
    return static_cast<T>(s);
  }
  template <int K>
  __device__ static void ColumnScan(const Op&, T (&x)[K], int n, State carry, bool exclusive) {
    U c = static_cast<U>(carry);
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (k >= n) break;
      const U v = static_cast<U>(x[k]);
      if (!exclusive) c += v;
      x[k] = static_cast<T>(c);
      if (exclusive) c += v;
    }
  }
};

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
