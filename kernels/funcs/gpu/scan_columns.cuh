// The GPU scan engine's single pass over memory for columns cut into segments (inner > 1 with
// too few lines to fill the GPU with a thread per line): each element is read once from memory.
//
// A tile is a block of kWidth adjacent lines by a segment of kLen steps; a thread block of
// ScanPolicy::kThreads threads takes one, its threads laid out kGroups across (each kVec adjacent
// lines, so a step of a group of threads is one coalesced access of kGroups * kVec lines) by
// kRows down (each kSteps consecutive steps). A tile
//   1. loads its elements (held in registers by the op's column steps, or read again from L1/L2
//      by the op's thread steps; either way DRAM is read once) and each thread combines its
//      kSteps steps of each of its lines;
//   2. scans those thread totals down the kRows rows in shared memory, line by line: what lies
//      before each thread inside the tile, and the tile's aggregate per line;
//   3. publishes the aggregates and learns what lies before the tile from the tiles above it in
//      the row single pass's deterministic tree of aligned blocks (scan_onepass.cuh, blocks of
//      kWidth states: TileStatus::PublishUpBlock, BlockLookback);
//   4. rescans its steps from (carry before the tile) (+) (what lies before the thread) and
//      stores.
// Every combination happens in an order fixed by the shape (the tree's, then the rows' left
// fold, then the thread's steps in order), so the result does not depend on timing. Tickets are
// taken segment-major (every tile of segment s before any of s + 1), so a tile's look-back
// finds its blocks published by tiles a whole row of tiles earlier. The launch layer
// (ScanColumns) takes it below 1024 lines, where the three phases of scan_kernel.cuh (segment
// totals, their scan, a second read of everything) cannot fill the GPU; with more lines the
// three phases stay, as they measured faster (docs/benchmarks.md, 2026-11-29 third session:
// a tile's barriers and look-back round trips keep too few bytes in flight), and so do ops
// whose tiles set kColumnPhases = 3.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/funcs/gpu/scan_onepass.cuh"
#include "kernels/util/gpu_cp_async.cuh"
#include "kernels/util/gpu_smem_optin.cuh"

namespace phi {
namespace funcs {
namespace scan_gpu {

// Whether the op's tiles scan columns held in registers (GpuTileScan<Op>::kColumnTile, with
// ColumnTotal<K>(op, x, n) -> State, the combination of x[0 .. n), and
// ColumnScan<K>(op, x, n, carry, exclusive), which replaces x[0 .. n) by the scan's outputs
// from carry; x[k] is step k of one line in scan order, as stored (the op's element type)).
PO_TILE_TRAIT(TileColumnTile, kColumnTile, bool, false)
// 3 where an op's columns keep the three phases (scan_kernel.cuh's ColumnScanKernel), else 1.
PO_TILE_TRAIT(TileColumnPhases, kColumnPhases, int, 1)
// The blocks per SM the register column steps are compiled for: 3 (at most 80 registers: the
// thread's 32 elements and their arithmetic with few spills). Measured on the H200
// (docs/benchmarks.md, 2026-11-29 third session): better than 4 (64 registers, spills) and than
// 1-2 (int64's 88 registers) on most column cases.
PO_TILE_TRAIT(TileColumnMinBlocks, kColumnMinBlocks, int, 3)

// The lines and steps of one thread of a column tile: lines ln0 .. ln0 + kVec - 1 (those below
// `lines`), steps s0 .. s0 + n - 1 in scan order. vec: the kVec lines are adjacent in memory
// and aligned for one access of kVec elements a step.
template <int kVec>
struct ColumnPart {
  LineGeometry g;
  int64_t base[kVec];  // each line's first element (LineGeometry::Base)
  bool has[kVec];      // the line exists
  int64_t s0;
  int n;
  bool vec;

  __device__ void Init(const LineGeometry& geo, int64_t lines, int64_t ln0, int64_t first, int steps, bool v) {
    g = geo;
    s0 = first;
    const int64_t left = geo.length - first;
    n = left <= 0 ? 0 : (left < steps ? static_cast<int>(left) : steps);
    vec = v;
    int64_t o = ln0 / geo.inner, i = ln0 - o * geo.inner;
#pragma unroll
    for (int v2 = 0; v2 < kVec; ++v2) {
      has[v2] = ln0 + v2 < lines;
      base[v2] = o * geo.length * geo.inner + i;
      if (++i == geo.inner) i = 0, ++o;
    }
  }
  // Offset of step k of line v (k < n).
  __device__ int64_t At(int v, int k) const {
    const int64_t s = s0 + k;
    return base[v] + (g.reverse ? g.length - 1 - s : s) * g.inner;
  }
  // The same part, opaque to the compiler: the stores' offsets are computed again from it
  // rather than kept in registers from the loads across the tile's look-back.
  __device__ ColumnPart Opaque() const {
    ColumnPart q = *this;
#pragma unroll
    for (int v = 0; v < kVec; ++v) asm volatile("" : "+l"(q.base[v]));
    asm volatile("" : "+l"(q.s0));
    return q;
  }
};

// kBytes of raw data as one load or store.
template <int kBytes>
struct RawWord;
template <>
struct RawWord<16> {
  using type = uint4;
};
template <>
struct RawWord<8> {
  using type = uint2;
};
template <>
struct RawWord<4> {
  using type = unsigned;
};
template <>
struct RawWord<2> {
  using type = unsigned short;
};

// Column steps held in registers: the thread's kSteps x kVec elements as stored, combined and
// scanned by the op's ColumnTotal / ColumnScan.
template <typename Op, int kVec_, int kSteps_, int kGroups_, int kMinBlocks_>
struct RegisterColumnSteps {
  using State = typename Op::State;
  using Tiles = GpuTileScan<Op>;
  using T = std::remove_const_t<std::remove_pointer_t<decltype(Op::x)>>;
  static constexpr int kVec = kVec_, kSteps = kSteps_, kGroups = kGroups_, kMinBlocks = kMinBlocks_;
  using Word = typename RawWord<static_cast<int>(sizeof(T)) * kVec>::type;
  struct Items {
    T x[kVec][kSteps];
  };

  // One access of the kVec lines a step needs the lines adjacent (inner a multiple of kVec, so
  // a thread's lines never cross an outer index) and both tensors aligned to it.
  __host__ static bool Vectorizable(const Op& op, const LineGeometry& g) {
    constexpr uintptr_t kAlign = sizeof(Word);
    return kVec > 1 && g.inner % kVec == 0 && reinterpret_cast<uintptr_t>(op.x) % kAlign == 0 &&
           reinterpret_cast<uintptr_t>(op.out) % kAlign == 0;
  }

  __device__ static void Total(const Op& op, const ColumnPart<kVec>& p, Items& it, State (&agg)[kVec], bool) {
    Load(op, p, it);
    Totals(op, p, it, agg);
  }
  // The thread's elements into registers (one access of kVec lines a step where p.vec).
  __device__ static void Load(const Op& op, const ColumnPart<kVec>& p, Items& it) {
    if (p.vec) {  // the kVec lines all exist or none does
      LoadWords(p, it, [&](int k) { return __ldg(reinterpret_cast<const Word*>(op.x + p.At(0, k))); });
    } else {
#pragma unroll
      for (int v = 0; v < kVec; ++v) {
#pragma unroll
        for (int k = 0; k < kSteps; ++k) {
          if (p.has[v] && k < p.n) it.x[v][k] = op.x[p.At(v, k)];
        }
      }
    }
  }
  // Vector steps into registers: word(k) is step k of the kVec lines as one Word (from memory or
  // from a shared-memory stage).
  template <typename WordAt>
  __device__ static void LoadWords(const ColumnPart<kVec>& p, Items& it, WordAt word) {
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
      if (p.has[0] && k < p.n) {
        alignas(sizeof(Word)) T w[kVec];
        *reinterpret_cast<Word*>(w) = word(k);
#pragma unroll
        for (int v = 0; v < kVec; ++v) it.x[v][k] = w[v];
      }
    }
  }
  // The combination of each line's loaded steps (the op's ColumnTotal).
  __device__ static void Totals(const Op& op, const ColumnPart<kVec>& p, Items& it, State (&agg)[kVec]) {
#pragma unroll
    for (int v = 0; v < kVec; ++v) {
      agg[v] = p.has[v] && p.n > 0 ? Tiles::template ColumnTotal<kSteps>(op, it.x[v], p.n) : op.Identity();
    }
  }

  template <typename Start>
  __device__ static void Scan(const Op& op, const ColumnPart<kVec>& part, Items& it, const Start& start,
                              bool exclusive) {
    if (part.n <= 0) return;
    const ColumnPart<kVec> p = part.Opaque();
#pragma unroll
    for (int v = 0; v < kVec; ++v) {
      if (p.has[v]) Tiles::template ColumnScan<kSteps>(op, it.x[v], p.n, start(v), exclusive);
    }
    if (p.vec) {
#pragma unroll
      for (int k = 0; k < kSteps; ++k) {
        if (p.has[0] && k < p.n) {
          alignas(sizeof(Word)) T w[kVec];
#pragma unroll
          for (int v = 0; v < kVec; ++v) w[v] = it.x[v][k];
          *reinterpret_cast<Word*>(op.out + p.At(0, k)) = *reinterpret_cast<const Word*>(w);
        }
      }
    } else {
#pragma unroll
      for (int v = 0; v < kVec; ++v) {
#pragma unroll
        for (int k = 0; k < kSteps; ++k) {
          if (p.has[v] && k < p.n) op.out[p.At(v, k)] = it.x[v][k];
        }
      }
    }
  }
};

// Column steps through the op's thread steps (GpuTileScan<Op>::Thread, any op): a thread per
// line, its kSteps steps combined, then scanned from the carry and stored; the second pass
// reads them again, from L1 or L2 (the tile was read moments before).
template <typename Op, int kSteps_, int kGroups_, int kMinBlocks_>
struct ThreadColumnSteps {
  using State = typename Op::State;
  using Tiles = GpuTileScan<Op>;
  static constexpr int kVec = 1, kSteps = kSteps_, kGroups = kGroups_, kMinBlocks = kMinBlocks_;
  struct Items {};
  __host__ static bool Vectorizable(const Op&, const LineGeometry&) { return false; }

  __device__ static void Total(const Op& op, const ColumnPart<1>& p, Items&, State (&agg)[1], bool exclusive) {
    agg[0] = op.Identity();
    if (p.has[0] && p.n > 0) {
      agg[0] = Tiles::template Thread<ScanPolicy::kColumnItems, false>(op, OpLine<Op>{op, p.g, p.base[0]}, p.s0,
                                                                       p.s0 + p.n, op.Identity(), exclusive);
    }
  }
  template <typename Start>
  __device__ static void Scan(const Op& op, const ColumnPart<1>& p, Items&, const Start& start, bool exclusive) {
    if (p.has[0] && p.n > 0) {
      Tiles::template Thread<ScanPolicy::kColumnItems, true>(op, OpLine<Op>{op, p.g, p.base[0]}, p.s0, p.s0 + p.n,
                                                             start(0), exclusive);
    }
  }
};

// The column steps an op takes by default: its register steps where its tiles have them
// (kVec elements of at most 16 bytes a step, up to 4; kSteps = 8; kGroups so that a row of the
// tile is 256 bytes of 4-byte elements), else its thread steps (16 steps, a warp of lines).
template <typename Op, typename Enable = void>
struct DefaultColumnSteps {
  using type = ThreadColumnSteps<Op, 16, 32, TileMinBlocks<GpuTileScan<Op>>::value>;
};
template <typename Op>
struct DefaultColumnSteps<Op, std::enable_if_t<TileColumnTile<GpuTileScan<Op>>::value>> {
  using T = std::remove_const_t<std::remove_pointer_t<decltype(Op::x)>>;
  static constexpr int kVec = 16 / static_cast<int>(sizeof(T)) < 4 ? 16 / static_cast<int>(sizeof(T)) : 4;
  using type = RegisterColumnSteps<Op, kVec, 8, 16, TileColumnMinBlocks<GpuTileScan<Op>>::value>;
};

template <typename Steps, typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads, Steps::kMinBlocks)
    OnePassColumnKernel(Op op, LineGeometry g, int64_t lines, int64_t across, int64_t nseg,
                        TileStatus<typename Op::State> st, bool exclusive, bool vec,
                        const typename Op::State* init) {
  using State = typename Op::State;
  constexpr int kVec = Steps::kVec, kGroups = Steps::kGroups;
  constexpr int kRows = ScanPolicy::kThreads / kGroups;
  constexpr int kWidth = kGroups * kVec;
  constexpr int64_t kLen = int64_t{kRows} * Steps::kSteps;
  static_assert(ScanPolicy::kThreads % kGroups == 0 && kWidth <= ScanPolicy::kThreads, "column tile shape");
  __shared__ unsigned long long ticket;
  __shared__ alignas(16) unsigned char rows_raw[kRows * kWidth * sizeof(State)];
  __shared__ alignas(16) unsigned char carry_raw[kWidth * sizeof(State)];
  auto rows = reinterpret_cast<State(*)[kWidth]>(rows_raw);
  State* carry = reinterpret_cast<State*>(carry_raw);
  if (threadIdx.x == 0) ticket = atomicAdd(st.ticket, 1ull);
  __syncthreads();
  const int64_t tile = static_cast<int64_t>(ticket);
  const int64_t seg = tile / across, col = tile - seg * across;
  const int grp = threadIdx.x % kGroups, row = threadIdx.x / kGroups;
  ColumnPart<kVec> p;
  p.Init(g, lines, col * kWidth + grp * kVec, seg * kLen + int64_t{row} * Steps::kSteps, Steps::kSteps, vec);
  typename Steps::Items items;
  State agg[kVec];
  Steps::Total(op, p, items, agg, exclusive);
#pragma unroll
  for (int v = 0; v < kVec; ++v) rows[row][grp * kVec + v] = agg[v];
  __syncthreads();
  // Line c's thread totals down the rows, left to right: each row's prefix inside the tile.
  const int c = threadIdx.x;
  State total = op.Identity();
  if (c < kWidth) {
    for (int r = 0; r < kRows; ++r) {
      const State a = rows[r][c];
      rows[r][c] = total;
      total = op.Combine(total, a);
    }
  }
  // The line's carry-in (line col * kWidth + c), where one is given and the line exists.
  const int64_t gline = col * kWidth + c;
  State before = init != nullptr && c < kWidth && gline < lines ? init[gline] : op.Identity();
  if (nseg > 1) {
    st.PublishUpBlock(op, col, seg, total, c);
    if (seg > 0 && c < kWidth) before = BlockLookback(op, st, col, seg, c, before);
  }
  if (c < kWidth) carry[c] = before;
  __syncthreads();
  Steps::Scan(
      op, p, items,
      [&](int v) {
        const int line = grp * kVec + v;
        return op.Combine(carry[line], rows[row][line]);
      },
      exclusive);
}

// Columns in one pass with the column steps `Steps` (DefaultColumnSteps<Op>::type unless a
// harness picks others).
template <typename Steps, typename Op, typename Scratch>
void OnePassColumns(cudaStream_t stream, Scratch& scratch, const LineGeometry& g, int64_t lines, bool exclusive,
                    const Op& op, const typename Op::State* init = nullptr) {
  using State = typename Op::State;
  constexpr int64_t kWidth = int64_t{Steps::kGroups} * Steps::kVec;
  constexpr int64_t kLen = int64_t{ScanPolicy::kThreads / Steps::kGroups} * Steps::kSteps;
  const int64_t across = (lines + kWidth - 1) / kWidth;
  const int64_t nseg = (g.length + kLen - 1) / kLen;
  const auto st = MakeTileStatus<State>(stream, scratch, across, nseg, kWidth);
  const bool vec = Steps::Vectorizable(op, g);
  OnePassColumnKernel<Steps><<<static_cast<unsigned>(across * nseg), ScanPolicy::kThreads, 0, stream>>>(
      op, g, lines, across, nseg, st, exclusive, vec, init);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

// Column strips: a block per strip of kWidth adjacent lines that walks the whole length, one
// segment of kLen steps after another, with nothing shared between blocks (no tickets, no
// look-back). For columns with lines enough to fill the GPU with strips (scan_launch.cuh's
// kStripColumnLines) but too few for a thread per line. The block's threads are laid out as the
// one-pass tiles' (kGroups across, each kVec adjacent lines, by kRows down, each kSteps
// consecutive steps). A segment
//   1. arrives in shared memory by cp.async, issued kStages - 1 segments ahead (no registers
//      held: a block keeps (kStages - 1) * kSteps * 4 KB of loads in flight); each thread reads
//      back only the words it copied itself, so the copies need no barrier;
//   2. each thread combines its kSteps steps of each of its lines (the op's ColumnTotal);
//   3. the thread totals are scanned down the kRows rows, one logical warp of kRows lanes per
//      line (a fixed shuffle tree, cub::WarpScan), seeded with the line's carry, which the
//      scanning lanes keep in registers and advance by the segment's aggregate;
//   4. each thread rescans its steps from what lies before them (the op's ColumnScan) and
//      stores them.
// Every combination happens in an order fixed by the shape, so the result does not depend on
// timing. Needs vector accesses (Vectorizable: inner a multiple of kVec, x and out aligned).
template <typename Op, int kVec_, int kSteps_, int kGroups_, int kStages_, int kMinBlocks_>
struct StripColumnShape {
  using State = typename Op::State;
  using T = std::remove_const_t<std::remove_pointer_t<decltype(Op::x)>>;
  static constexpr int kVec = kVec_, kSteps = kSteps_, kGroups = kGroups_, kStages = kStages_,
                       kMinBlocks = kMinBlocks_;
  static constexpr int kRows = ScanPolicy::kThreads / kGroups;
  static constexpr int kWidth = kGroups * kVec;
  static constexpr int kStride = kWidth + 1;  // a row of thread totals, padded (no bank conflicts down a line)
  static constexpr int64_t kLen = int64_t{kRows} * kSteps;
  using Word = typename RawWord<static_cast<int>(sizeof(T)) * kVec>::type;
  static constexpr int64_t kStageBytes = int64_t{kSteps} * ScanPolicy::kThreads * sizeof(Word);
  static constexpr int64_t kSharedBytes = kStages * kStageBytes + int64_t{kRows} * kStride * sizeof(State);
  static_assert(kRows <= 32 && 32 % kRows == 0 && ScanPolicy::kThreads % kGroups == 0, "strip shape");
  static_assert(kStages >= 2 && kStageBytes % 16 == 0, "strip stages");

  // A step of a thread's kVec lines is one access (the lines adjacent and inside one outer
  // index: inner a multiple of kVec; both tensors aligned to it) of 4, 8 or 16 bytes (cp.async).
  __host__ static bool Vectorizable(const Op& op, const LineGeometry& g) {
    constexpr uintptr_t kAlign = sizeof(Word);
    return sizeof(Word) >= 4 && g.inner % kVec == 0 && reinterpret_cast<uintptr_t>(op.x) % kAlign == 0 &&
           reinterpret_cast<uintptr_t>(op.out) % kAlign == 0;
  }
};

// The strips' default shape for an op with register column steps: kVec as DefaultColumnSteps
// (16-byte accesses for 4- and 8-byte elements), 8 steps a thread, 8 groups across (32 lines
// of 4-byte elements: 128-byte rows), 3 stages, 2 blocks an SM (measured on the H200:
// docs/benchmarks.md, 2026-11-29 sixth session).
template <typename Op>
struct DefaultStripShape {
  using T = std::remove_const_t<std::remove_pointer_t<decltype(Op::x)>>;
  static constexpr int kVec = 16 / static_cast<int>(sizeof(T)) < 4 ? 16 / static_cast<int>(sizeof(T)) : 4;
  using type = StripColumnShape<Op, kVec, 8, 8, 3, 2>;
};

template <typename Shape, typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads, Shape::kMinBlocks)
    StripColumnKernel(Op op, LineGeometry g, int64_t lines, int64_t nseg, bool exclusive,
                      const typename Op::State* init) {
  using State = typename Op::State;
  using Tiles = GpuTileScan<Op>;
  using T = typename Shape::T;
  using Word = typename Shape::Word;
  constexpr int kThreads = ScanPolicy::kThreads;
  constexpr int kVec = Shape::kVec, kSteps = Shape::kSteps, kGroups = Shape::kGroups, kStages = Shape::kStages;
  constexpr int kRows = Shape::kRows, kWidth = Shape::kWidth, kStride = Shape::kStride;
  constexpr int64_t kLen = Shape::kLen;
  extern __shared__ uint4 strip_smem[];
  Word* stage = reinterpret_cast<Word*>(strip_smem);
  State* rows = reinterpret_cast<State*>(reinterpret_cast<unsigned char*>(strip_smem) + kStages * Shape::kStageBytes);
  const int t = static_cast<int>(threadIdx.x), grp = t % kGroups, row = t / kGroups;
  const int64_t strip0 = int64_t{blockIdx.x} * kWidth;
  // This thread's kVec lines (adjacent, inside one outer index: Vectorizable) and its steps.
  const int64_t ln0 = strip0 + grp * kVec;
  const bool has = ln0 < lines;
  const int64_t L = g.length, inner = g.inner;
  const int64_t o = ln0 / inner;
  const int64_t base = o * L * inner + (ln0 - o * inner);
  auto at = [&](int64_t s) { return base + (g.reverse ? L - 1 - s : s) * inner; };
  auto issue = [&](int64_t seg) {
    if (seg < nseg && has) {
      Word* dst = stage + static_cast<int>(seg % kStages) * (kSteps * kThreads) + t;
      const int64_t s0 = seg * kLen + int64_t{row} * kSteps;
#pragma unroll
      for (int k = 0; k < kSteps; ++k) {
        if (s0 + k < L) CpAsync<static_cast<int>(sizeof(Word))>(dst + k * kThreads, op.x + at(s0 + k));
      }
    }
    CpAsyncCommit();  // every thread commits one group a segment (empty past the end)
  };
  // The lines this thread scans down the rows: slot v * kGroups + t / kRows (slot q holds line
  // (q % kGroups) * kVec + q / kGroups of the strip), as lane t % kRows of a logical warp.
  State carry[kVec];
#pragma unroll
  for (int v = 0; v < kVec; ++v) {
    const int q = v * kGroups + t / kRows;
    const int64_t line = strip0 + (q % kGroups) * kVec + q / kGroups;
    carry[v] = init != nullptr && line < lines ? init[line] : op.Identity();
  }
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) issue(s);
  for (int64_t seg = 0; seg < nseg; ++seg) {
    issue(seg + kStages - 1);
    CpAsyncWait<kStages - 1>();  // this thread's copies of segment seg have landed
    const int64_t s0 = seg * kLen + int64_t{row} * kSteps;
    const int n = !has || s0 >= L ? 0 : (L - s0 < kSteps ? static_cast<int>(L - s0) : kSteps);
    const Word* src = stage + static_cast<int>(seg % kStages) * (kSteps * kThreads) + t;
    T x[kVec][kSteps];
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
      if (k < n) {
        alignas(sizeof(Word)) T w[kVec];
        *reinterpret_cast<Word*>(w) = src[k * kThreads];
#pragma unroll
        for (int v = 0; v < kVec; ++v) x[v][k] = w[v];
      }
    }
#pragma unroll
    for (int v = 0; v < kVec; ++v) {
      rows[row * kStride + v * kGroups + grp] =
          n > 0 ? Tiles::template ColumnTotal<kSteps>(op, x[v], n) : op.Identity();
    }
    __syncthreads();
#pragma unroll
    for (int v = 0; v < kVec; ++v) {
      using WarpScanT = cub::WarpScan<State, kRows>;
      typename WarpScanT::TempStorage temp;  // empty for the shuffle-based warp scan
      State* cell = &rows[(t % kRows) * kStride + v * kGroups + t / kRows];
      State before, total;
      WarpScanT(temp).ExclusiveScan(*cell, before, carry[v], CombineFn<Op>{op}, total);
      *cell = before;
      carry[v] = op.Combine(carry[v], total);
    }
    __syncthreads();
    State start[kVec];
#pragma unroll
    for (int v = 0; v < kVec; ++v) start[v] = rows[row * kStride + v * kGroups + grp];
    __syncthreads();  // the rows are written again by the next segment
    if (n > 0) {
#pragma unroll
      for (int v = 0; v < kVec; ++v) Tiles::template ColumnScan<kSteps>(op, x[v], n, start[v], exclusive);
#pragma unroll
      for (int k = 0; k < kSteps; ++k) {
        if (k < n) {
          alignas(sizeof(Word)) T w[kVec];
#pragma unroll
          for (int v = 0; v < kVec; ++v) w[v] = x[v][k];
          *reinterpret_cast<Word*>(op.out + at(s0 + k)) = *reinterpret_cast<const Word*>(w);
        }
      }
    }
  }
}

// Columns as strips of the shape `Shape` (DefaultStripShape<Op>::type unless a harness picks
// another); returns false, having launched nothing, where the lines allow no vector accesses.
template <typename Shape, typename Op>
bool StripColumns(cudaStream_t stream, const LineGeometry& g, int64_t lines, bool exclusive, const Op& op,
                  const typename Op::State* init = nullptr) {
  if (!Shape::Vectorizable(op, g)) return false;
  const int64_t strips = (lines + Shape::kWidth - 1) / Shape::kWidth;
  const int64_t nseg = (g.length + Shape::kLen - 1) / Shape::kLen;
  const auto kernel = StripColumnKernel<Shape, Op>;
  AllowDynamicSmem(reinterpret_cast<const void*>(kernel), Shape::kSharedBytes);
  static const bool carveout = [&] {  // as much shared memory as the SM has: blocks fit by it, not by L1
    PADDLE_ENFORCE_GPU_SUCCESS(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                                    cudaFuncAttributePreferredSharedMemoryCarveout,
                                                    cudaSharedmemCarveoutMaxShared));
    return true;
  }();
  (void)carveout;
  kernel<<<static_cast<unsigned>(strips), ScanPolicy::kThreads, static_cast<size_t>(Shape::kSharedBytes), stream>>>(
      op, g, lines, nseg, exclusive, init);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  return true;
}

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
