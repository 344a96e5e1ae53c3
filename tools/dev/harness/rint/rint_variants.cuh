// Harness-only variants of repeat_interleave's tensor-count passes (kernels/gpu/
// repeat_interleave_tiles.cuh stays as it is; the next session wires in what wins). Each
// variant produces what the library's path produces, bit for bit (rint_harness.cu checks it):
//
// Pass 1, the tile offsets (rt::Offsets: incl[0..tiles), the negative flag in incl[tiles], the
// tile flags, a byte per count). The library's pass 1 (rt::TileOffsets) reads a thread's 8
// consecutive counts as 16-byte vectors, stores their bytes with one 8-byte store, then scans
// the tile sums in one block below rt::kCubScanTiles tiles, else with cub::DeviceScan:
//   - StripedSumsKernel ("prev"): the library's pass 1 before that (8 striped 8-byte loads and
//     8 byte stores a thread, then always the one-block scan, of 1024 threads then), kept to
//     time against;
//   - "vec" / "vcub": the library's sums with the one-block scan / CUB's scan, whatever the
//     tile count; "v1024": the library's sums with the one-block scan of 1024 threads (before);
//   - SumsLookKernel ("look"): the library's sums, then the scan engine's look-back
//     (kernels/funcs/gpu/scan_onepass.cuh: tiles in ticket order, the tree of block aggregates)
//     gives each tile its inclusive offset in the same kernel: one launch and a small memset
//     instead of two launches, no one-block scan. The state carries the negative flag (an OR),
//     so the last tile writes incl[tiles] too. Saturating sums are associative and exact, so
//     any look-back order gives the same bits as the one-block scan.
// The 1-D scatter (inner == 1):
//   - NarrowLineKernel<Off = uint32_t>: tiles whose counts are all below 256 (flag bit 1 clear)
//     with 32-bit run offsets relative to the tile's start (the library keeps 64-bit starts and
//     ends of all 8 runs in registers: 32 registers for s[]/e[] alone); the runs recomputed per
//     stage chunk from the thread's exclusive offset; counts from one 8-byte load of their
//     bytes; a 32-bit block scan. Template stage size and blocks per SM.
//   - NarrowLineKernel<Off = uint64_t>: the flagged tiles (a count above 255) and a last tile
//     that writes 2^31 outputs or more (WideTile), from the counts, 64-bit; launched always (a
//     small persistent grid that skips the others).
//   - PipeLineKernel ("pipe"): persistent blocks that copy the next tile's count bytes and
//     values to shared memory with cp.async while they write the current tile;
//   - MarksLineKernel ("marks"): each run marks its first output, a max-scan finds every
//     output's slice, each thread stores its consecutive outputs from registers.
// One pass for the 1-D case with output_size (FusedLineKernel, "fused"): the counts read once
// (no byte copy, no pass 1): tile sums, the engine's look-back, then the narrow scatter from the
// registers; tiles with a count above 255 are left to NarrowLineKernel<uint64_t> after it (the
// fused kernel writes their incl and flags).
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include <cuda_pipeline.h>

#include "kernels/funcs/gpu/scan_onepass.cuh"
#include "kernels/gpu/repeat_interleave_tiles.cuh"

namespace rint_variants {

namespace rt = phi::repeat::tiles;
namespace sg = phi::funcs::scan_gpu;

constexpr int kThreads = rt::kThreads;
constexpr int kItems = 8;  // the variants assume 8 slices a thread (the library's default)
static_assert(rt::kItems == kItems, "rint variants are written for PO_RINT_ITEMS=8");
constexpr int64_t kTile = rt::kTile;

// The look-back's states: the saturating sum, and with it the negative flag (pass 1).
struct SumNeg {
  uint64_t s;
  uint32_t neg, pad;
};
struct SumNegOp {
  using State = SumNeg;
  __device__ State Identity() const { return SumNeg{0, 0, 0}; }
  __device__ State Combine(const State& a, const State& b) const {
    return SumNeg{rt::SatAdd()(a.s, b.s), a.neg | b.neg, 0};
  }
};
struct SatOp {
  using State = uint64_t;
  __device__ State Identity() const { return 0; }
  __device__ State Combine(State a, State b) const { return rt::SatAdd()(a, b); }
};

// Byte i of a thread's 8 count bytes, packed little-endian in two words.
__device__ inline uint32_t ByteAt(const uint2& p, int i) { return ((i < 4 ? p.x : p.y) >> (8 * (i % 4))) & 255u; }

// The library's pass 1 before its 16-byte loads ("prev"): thread i reads slices t * kTile + k *
// kThreads + i (k = 0..7, striped: coalesced 8-byte loads), stores their bytes one by one; the
// sums, flags and bytes as rt::TileSumsKernel writes them (for the one-block scan).
template <typename R>
__global__ void __launch_bounds__(kThreads) StripedSumsKernel(rt::Counts<R> cnt, uint64_t* sums, uint32_t* flags,
                                                              uint8_t* bytes) {
  __shared__ rt::SumReduce::TempStorage tmp;
  const int64_t t = blockIdx.x;
  bool neg = false, big = false;
  uint64_t s = 0, c[kItems];
#pragma unroll
  for (int i = 0; i < kItems; ++i) {  // all loads before the stores
    const int64_t j = t * kTile + i * kThreads + threadIdx.x;
    c[i] = j < cnt.n ? cnt.At(j, &neg) : 0;
  }
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int64_t j = t * kTile + i * kThreads + threadIdx.x;
    big = big || c[i] > 255;
    if (j < cnt.n) bytes[j] = static_cast<uint8_t>(c[i] > 255 ? 255 : c[i]);
    s = rt::SatAdd()(s, c[i]);
  }
  const uint64_t total = rt::SumReduce(tmp).Reduce(s, rt::SatAdd());
  const int any_neg = __syncthreads_or(neg), any_big = __syncthreads_or(big);
  if (threadIdx.x == 0) {
    sums[t] = total;
    flags[t] = (any_neg ? 1u : 0u) | (any_big ? 2u : 0u);
  }
}

// Pass 1 in one kernel ("look"), a block per tile in ticket order: the library's tile sums
// (rt::TileSum), incl[t] through the engine's look-back (st zeroed before the launch),
// incl[tiles] the negative flag.
template <typename R>
__global__ void __launch_bounds__(kThreads) SumsLookKernel(rt::Counts<R> cnt, uint64_t* incl, uint32_t* flags,
                                                           uint8_t* bytes, int64_t tiles, sg::TileStatus<SumNeg> st) {
  __shared__ rt::SumReduce::TempStorage tmp;
  __shared__ unsigned long long ticket;
  __shared__ SumNeg carry;
  if (threadIdx.x == 0) ticket = atomicAdd(st.ticket, 1ull);
  __syncthreads();
  const int64_t t = static_cast<int64_t>(ticket);
  int any_neg, any_big;
  const uint64_t total = rt::TileSum(cnt, t, bytes, tmp, any_neg, any_big);
  const SumNegOp op;
  if (threadIdx.x < 32) {
    const SumNeg mine{total, any_neg ? 1u : 0u, 0};
    if (threadIdx.x == 0) st.PublishUp(op, 0, t, mine);
    const SumNeg before = sg::WarpLookback(op, st, 0, t, op.Identity(), threadIdx.x);
    if (threadIdx.x == 0) carry = op.Combine(before, mine);
  }
  if (threadIdx.x == 0) {
    incl[t] = carry.s;
    flags[t] = (any_neg ? 1u : 0u) | (any_big ? 2u : 0u);
    if (t + 1 == tiles) incl[tiles] = carry.neg;
  }
}

// 32-bit offsets only ever add bytes (no overflow); 64-bit ones saturate.
template <typename Off>
__host__ __device__ __forceinline__ Off AddOff(Off a, Off b) {
  if constexpr (sizeof(Off) == 8) return rt::SatAdd()(a, b); else return a + b;
}
template <typename Off>
struct AddOffOp {
  __device__ Off operator()(Off a, Off b) const { return AddOff(a, b); }
};
template <typename Off>
__host__ __device__ __forceinline__ Off MinOff(Off a, Off b) { return a < b ? a : b; }

// The run [s, e) of a tile's next slice, relative to the tile's start: pos the slice's offset
// in the tile (advanced past it), c its count, lim the outputs left after the tile's start
// (m - base); the line's last slice runs to lim, a slice past the line's end is empty.
template <typename Off>
struct Run {
  Off s, e;
};
template <typename Off>
__host__ __device__ __forceinline__ Run<Off> NextRun(Off& pos, Off c, Off lim, bool line_last, bool past) {
  const Off s = MinOff(pos, lim);
  pos = AddOff(pos, c);
  return Run<Off>{s, line_last ? lim : (past ? s : MinOff(pos, lim))};
}
// Whether the line's last tile, starting at output base, writes 2^31 or more outputs (an
// output_size far past the total repeats the last slice): such a tile takes the 64-bit form
// even when its counts fit bytes, so that 32-bit run offsets and stage positions never wrap.
__host__ __device__ inline bool LongLastTile(uint64_t base, uint64_t m) {
  return base < m && m - base >= (uint64_t{1} << 31);
}
// Whether tile t takes the 64-bit form: a count above 255, or a long last tile.
__device__ inline bool WideTile(const rt::Offsets& off, int64_t t, int64_t tiles, uint64_t m) {
  if (off.flags[t] & 2u) return true;
  return t + 1 == tiles && LongLastTile(t == 0 ? 0 : off.incl[t - 1], m);
}
// lim in Off: m - base, or Off's largest value where that does not fit (relative offsets
// of a 32-bit tile stay below 2^20, so the cut never applies there).
template <typename Off>
__host__ __device__ __forceinline__ Off LimitOf(uint64_t base, uint64_t m) {
  const uint64_t lim64 = base < m ? m - base : 0;
  return lim64 > static_cast<uint64_t>(static_cast<Off>(~Off{0})) ? static_cast<Off>(~Off{0}) : static_cast<Off>(lim64);
}

template <typename Off>
using OffScan = cub::BlockScan<Off, kThreads>;

// A thread's 8 counts for WriteTile: the counts themselves (64-bit) or their bytes, packed in
// two words (2 registers instead of 8) and taken out where used.
template <typename Off>
struct CountRegs {
  Off c[kItems];
  __device__ Off operator[](int i) const { return c[i]; }
};
template <>
struct CountRegs<uint32_t> {
  uint2 packed;
  __device__ uint32_t operator[](int i) const { return ByteAt(packed, i); }
};

// A thread's 8 slices for the 32-bit form: their count bytes and values (xs = x at slice j0
// of the line), whole as one 8-byte and 16-byte loads, else element by element to the line's end.
template <typename T>
__device__ void LoadNarrow(const rt::Offsets& off, const T* xs, int64_t j0, int64_t n, CountRegs<uint32_t>& c,
                           T (&v)[kItems]) {
  if (j0 + kItems <= n) {
    c.packed = *reinterpret_cast<const uint2*>(off.bytes + j0);
    rt::LoadItems(xs, v, rt::Aligned16(xs));
    return;
  }
  c.packed = make_uint2(0, 0);
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const uint32_t bt = j0 + i < n ? off.bytes[j0 + i] : 0u;
    if (i < 4) c.packed.x |= bt << (8 * i); else c.packed.y |= bt << (8 * (i - 4));
    v[i] = j0 + i < n ? xs[i] : T{};
  }
}

// One 1-D tile's outputs: thread i holds slices j0..j0+7 (counts c, values v); the tile starts
// at output `base` (the sum of the tiles before it); runs are cut at m (the output length), the
// line's last slice's run ends at m. Run offsets relative to base, in Off; the outputs pass
// through the stage in chunks of kStage and leave as 16-byte vectors (rt::StoreStaged).
template <typename T, typename Off, int kStage>
__device__ void WriteTile(const CountRegs<Off>& c, const T (&v)[kItems], int64_t j0, int64_t n, uint64_t base,
                          uint64_t m, bool last_tile, T* line, T* stage, typename OffScan<Off>::TempStorage& tmp) {
  const Off lim = LimitOf<Off>(base, m);
  Off sum = 0;
#pragma unroll
  for (int i = 0; i < kItems; ++i) sum = AddOff(sum, c[i]);
  Off start, agg;
  __syncthreads();  // the previous tile's scan storage and stage are free
  OffScan<Off>(tmp).ExclusiveScan(sum, start, Off{0}, AddOffOp<Off>(), agg);
  const Off r1 = last_tile ? lim : MinOff(agg, lim);
  if (r1 == 0) return;  // the same for the whole block
  T* dst = line + base;
  for (Off p = 0; p < r1; p += kStage) {
    const Off q = r1 - p > Off{kStage} ? p + kStage : r1;
    const int shift = static_cast<int>((reinterpret_cast<uintptr_t>(dst + p) % 16) / sizeof(T));
    Off pos = start;
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const Run<Off> r = NextRun(pos, c[i], lim, j0 + i == n - 1, j0 + i >= n);
      const Off lo = r.s > p ? r.s : p, hi = r.e < q ? r.e : q;
      for (Off k = lo; k < hi; ++k) stage[shift + static_cast<int>(k - p)] = v[i];
    }
    __syncthreads();
    rt::StoreStaged(dst + p, stage, shift, static_cast<int>(q - p));
    __syncthreads();
  }
}

// The 1-D scatter, a block per tile of a line (grid-stride over outer * tiles). Off = uint32_t:
// the tiles without a count above 255, counts from their bytes; Off = uint64_t: the others,
// counts from the counts.
template <typename T, typename R, typename Off, int kStageBytes, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    NarrowLineKernel(rt::Counts<R> cnt, rt::Offsets off, const T* x, T* out, int64_t M, int64_t tiles, int64_t outer) {
  constexpr bool kBig = sizeof(Off) == 8;
  constexpr int kStage = kStageBytes / static_cast<int>(sizeof(T));
  constexpr int V = 16 / sizeof(T);
  __shared__ typename OffScan<Off>::TempStorage tmp;
  __shared__ __align__(16) T stage[kStage + V];
  const int64_t n = cnt.n;
  for (int64_t b = blockIdx.x; b < outer * tiles; b += gridDim.x) {
    const int64_t o = b / tiles, t = b - o * tiles;
    if (WideTile(off, t, tiles, static_cast<uint64_t>(M)) != kBig) continue;  // the same for the whole block
    const int64_t j0 = t * kTile + threadIdx.x * kItems;
    CountRegs<Off> c;
    __align__(16) T v[kItems];
    const T* xs = x + o * n + j0;
    if constexpr (kBig) {
      bool neg = false;
#pragma unroll
      for (int i = 0; i < kItems; ++i) c.c[i] = j0 + i < n ? cnt.At(j0 + i, &neg) : 0;
      if (j0 + kItems <= n) {
        rt::LoadItems(xs, v, rt::Aligned16(xs));
      } else {
#pragma unroll
        for (int i = 0; i < kItems; ++i) v[i] = j0 + i < n ? xs[i] : T{};
      }
    } else {
      LoadNarrow(off, xs, j0, n, c, v);
    }
    const uint64_t base = t == 0 ? 0 : off.incl[t - 1];
    WriteTile<T, Off, kStage>(c, v, j0, n, base, static_cast<uint64_t>(M), t + 1 == tiles, out + o * M, stage, tmp);
  }
}

// One pass for 1-D with output_size (outer == 1): the counts read once; incl and flags written
// for NarrowLineKernel<uint64_t>, which writes the tiles with a count above 255 after it.
template <typename T, typename R, int kStageBytes, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    FusedLineKernel(rt::Counts<R> cnt, uint64_t* incl, uint32_t* flags, const T* x, T* out, int64_t M, int64_t tiles,
                    sg::TileStatus<uint64_t> st) {
  constexpr int kStage = kStageBytes / static_cast<int>(sizeof(T));
  constexpr int V = 16 / sizeof(T);
  using Reduce = cub::BlockReduce<uint64_t, kThreads>;
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename OffScan<uint32_t>::TempStorage scan;
  } tmp;
  __shared__ __align__(16) T stage[kStage + V];
  __shared__ unsigned long long ticket;
  __shared__ uint64_t carry;
  if (threadIdx.x == 0) ticket = atomicAdd(st.ticket, 1ull);
  __syncthreads();
  const int64_t t = static_cast<int64_t>(ticket), n = cnt.n;
  const int64_t j0 = t * kTile + threadIdx.x * kItems;
  bool neg = false, big = false;
  uint2 packed;
  __align__(16) T v[kItems];
  uint64_t s;
  {
    uint64_t c[kItems];
    rt::LoadCounts(cnt, j0, c, neg);
    rt::CountBytes cb;
    s = rt::PackCounts(c, cb, big);
    packed = make_uint2(cb.w[0], cb.w[1]);
  }
  if (j0 + kItems <= n) {
    rt::LoadItems(x + j0, v, rt::Aligned16(x + j0));
  } else {
#pragma unroll
    for (int i = 0; i < kItems; ++i) v[i] = j0 + i < n ? x[j0 + i] : T{};
  }
  const uint64_t total = Reduce(tmp.reduce).Reduce(s, rt::SatAdd());
  const int any_neg = __syncthreads_or(neg), any_big = __syncthreads_or(big);
  const SatOp op;
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) st.PublishUp(op, 0, t, total);
    const uint64_t before = sg::WarpLookback(op, st, 0, t, op.Identity(), threadIdx.x);
    if (threadIdx.x == 0) {
      carry = before;
      incl[t] = rt::SatAdd()(before, total);
      flags[t] = (any_neg ? 1u : 0u) | (any_big ? 2u : 0u);
    }
  }
  __syncthreads();
  if (any_big || (t + 1 == tiles && LongLastTile(carry, static_cast<uint64_t>(M)))) return;  // the 64-bit kernel's
  CountRegs<uint32_t> c;
  c.packed = packed;
  WriteTile<T, uint32_t, kStage>(c, v, j0, n, carry, static_cast<uint64_t>(M), t + 1 == tiles, out, stage, tmp.scan);
}

// Pass 1 without a memset ("looke"): the look-back of CUB's kind on statuses tagged with the
// call's epoch (status = epoch << 2 | negative << 1 | inclusive; a status of another epoch reads
// as not yet published), the aggregate and the inclusive sum in separate arrays (a reader that
// saw the aggregate's status never reads a later store), the ticket reset by its last taker
// (atomicInc wraps at the grid). The status memory is zeroed once when allocated, not per
// call (persistent scratch: a library version would keep it per stream). Integer sums: any
// window gives the same bits.
struct EpochStatus {
  uint64_t* agg;
  uint64_t* inc;
  uint32_t* status;
  unsigned int* ticket;
  uint32_t epoch;  // 1 .. 2^30 - 1
};

template <typename R>
__global__ void __launch_bounds__(kThreads) SumsEpochKernel(rt::Counts<R> cnt, uint64_t* incl, uint32_t* flags,
                                                            uint8_t* bytes, int64_t tiles, EpochStatus es) {
  __shared__ rt::SumReduce::TempStorage tmp;
  __shared__ unsigned int ticket;
  if (threadIdx.x == 0) ticket = atomicInc(es.ticket, gridDim.x - 1);
  __syncthreads();
  const int64_t t = ticket;
  int any_neg, any_big;
  const uint64_t total = rt::TileSum(cnt, t, bytes, tmp, any_neg, any_big);
  if (threadIdx.x >= 32) return;
  const int lane = threadIdx.x;
  const uint32_t tag = es.epoch << 2;
  if (lane == 0 && t > 0) {  // the aggregate, for the tiles after this one
    es.agg[t] = total;
    cuda::atomic_ref<uint32_t, cuda::thread_scope_device> f(es.status[t]);
    f.store(tag | (any_neg ? 2u : 0u), cuda::memory_order_release);
  }
  uint64_t before = 0;
  uint32_t before_neg = 0;
  for (int64_t top = t - 1; top >= 0; top -= 32) {  // windows of 32 predecessors, nearest first
    const int64_t k = top - lane;
    uint32_t st = tag | 1u;  // before tile 0: an inclusive 0
    uint64_t v = 0;
    if (k >= 0) {
      cuda::atomic_ref<uint32_t, cuda::thread_scope_device> f(es.status[k]);
      for (unsigned ns = 32; ((st = f.load(cuda::memory_order_acquire)) & ~3u) != tag; ns = ns < 256 ? 2 * ns : ns) {
        __nanosleep(ns);
      }
      v = (st & 1u) ? es.inc[k] : es.agg[k];
    }
    const unsigned stops = __ballot_sync(0xffffffffu, st & 1u);
    const int last = stops ? __ffs(stops) - 1 : 31;  // lanes 0..last count
    uint64_t sum = lane <= last ? v : 0;
    uint32_t ng = lane <= last ? (st >> 1) & 1u : 0u;
#pragma unroll
    for (int d = 16; d > 0; d /= 2) {
      sum = rt::SatAdd()(sum, __shfl_xor_sync(0xffffffffu, sum, d));
      ng |= __shfl_xor_sync(0xffffffffu, ng, d);
    }
    before = rt::SatAdd()(before, sum);
    before_neg |= ng;
    if (stops) break;
  }
  if (lane == 0) {
    const uint64_t inclusive = rt::SatAdd()(before, total);
    const uint32_t neg_all = before_neg | (any_neg ? 1u : 0u);
    es.inc[t] = inclusive;
    cuda::atomic_ref<uint32_t, cuda::thread_scope_device> f(es.status[t]);
    f.store(tag | (neg_all << 1) | 1u, cuda::memory_order_release);
    incl[t] = inclusive;
    flags[t] = (any_neg ? 1u : 0u) | (any_big ? 2u : 0u);
    if (t + 1 == tiles) incl[tiles] = neg_all;
  }
}

// The 1-D scatter with the next tile's loads in flight while this tile is written ("pipe"):
// persistent blocks (kMinBlocks an SM) take tiles b, b + grid, ...; each thread copies its next
// tile's 8 count bytes and 8 values into a second shared buffer with cp.async (its own slots
// only, so no barrier guards them) before writing the current tile through the stage. Tiles
// with a count above 255 are left to NarrowLineKernel<uint64_t>; tail or unaligned slices
// load directly.
template <typename T>
struct PipeSmem {
  static constexpr int kX = static_cast<int>(kTile * sizeof(T));  // one tile of values
  static constexpr int kC = kThreads * 8;                          // one tile of count bytes
  static constexpr int Bytes(int stage_bytes) { return stage_bytes + 16 + 2 * (kX + kC); }
};

template <typename T, typename R, int kStageBytes, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    PipeLineKernel(rt::Counts<R> cnt, rt::Offsets off, const T* x, T* out, int64_t M, int64_t tiles, int64_t outer) {
  constexpr int kStage = kStageBytes / static_cast<int>(sizeof(T));
  constexpr int V = 16 / sizeof(T);
  __shared__ typename OffScan<uint32_t>::TempStorage tmp;
  extern __shared__ __align__(16) unsigned char smem[];
  T* stage = reinterpret_cast<T*>(smem);
  T* xbuf = reinterpret_cast<T*>(smem + kStageBytes + 16);                          // [2][kTile]
  uint2* cbuf = reinterpret_cast<uint2*>(smem + kStageBytes + 16 + 2 * PipeSmem<T>::kX);  // [2][kThreads]
  const int64_t n = cnt.n, count = outer * tiles;
  const int tid = threadIdx.x;
  auto prefetch = [&](int64_t b, int buf) {  // whether this thread's slots were copied
    if (b >= count) return false;
    const int64_t o = b / tiles, t = b - o * tiles;
    if (WideTile(off, t, tiles, static_cast<uint64_t>(M))) return false;
    const int64_t j0 = t * kTile + tid * kItems;
    const T* xs = x + o * n + j0;
    if (j0 + kItems > n || !rt::Aligned16(xs)) return false;
#pragma unroll
    for (int w = 0; w < static_cast<int>(kItems * sizeof(T) / 16); ++w) {
      __pipeline_memcpy_async(xbuf + buf * kTile + tid * kItems + w * V, xs + w * V, 16);
    }
    __pipeline_memcpy_async(cbuf + buf * kThreads + tid, off.bytes + j0, 8);
    return true;
  };
  int cur = 0;
  bool have = prefetch(blockIdx.x, 0);
  __pipeline_commit();
  for (int64_t b = blockIdx.x; b < count; b += gridDim.x) {
    const bool have_next = prefetch(b + gridDim.x, cur ^ 1);
    __pipeline_commit();
    const int64_t o = b / tiles, t = b - o * tiles;
    if (!WideTile(off, t, tiles, static_cast<uint64_t>(M))) {  // the same for the whole block
      const int64_t j0 = t * kTile + tid * kItems;
      CountRegs<uint32_t> c;
      __align__(16) T v[kItems];
      __pipeline_wait_prior(1);  // this thread's copies of the current tile
      if (have) {
        c.packed = cbuf[cur * kThreads + tid];
#pragma unroll
        for (int w = 0; w < static_cast<int>(kItems * sizeof(T) / 16); ++w) {
          reinterpret_cast<uint4*>(v)[w] = reinterpret_cast<const uint4*>(xbuf + cur * kTile + tid * kItems)[w];
        }
      } else {
        LoadNarrow(off, x + o * n + j0, j0, n, c, v);
      }
      const uint64_t base = t == 0 ? 0 : off.incl[t - 1];
      WriteTile<T, uint32_t, kStage>(c, v, j0, n, base, static_cast<uint64_t>(M), t + 1 == tiles, out + o * M, stage,
                                     tmp);
    }
    cur ^= 1;
    have = have_next;
  }
  __pipeline_wait_prior(0);
}

// The 1-D scatter from the outputs' side within a tile ("marks"): the runs are not written
// element by element (a loop as long as each slice's count, lanes of a warp waiting for the
// longest); instead each non-empty run marks its first output with its slice's index + 1 in a
// shared array (one store a run), a max-scan over the chunk (each thread kPer consecutive
// outputs, then a block scan of the threads' maxima) gives every output its slice, and each
// thread stores its kPer outputs as 16-byte vectors straight from registers, the values read
// from the tile's copy in shared memory (no stage round trip). Tiles for the 64-bit form are
// left to NarrowLineKernel<uint64_t>, as above.
struct MaxU32 {
  __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

template <typename T, typename R, int kPer, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    MarksLineKernel(rt::Counts<R> cnt, rt::Offsets off, const T* x, T* out, int64_t M, int64_t tiles, int64_t outer) {
  constexpr int V = 16 / sizeof(T);
  static_assert(kPer % V == 0, "a thread's outputs are whole vectors");
  constexpr int kChunk = kPer * kThreads;  // mark positions a chunk; its outputs: kChunk - V (room for the shift)
  __shared__ typename OffScan<uint32_t>::TempStorage tmp;
  __shared__ __align__(16) uint16_t marks[kChunk];
  __shared__ __align__(16) T xs[kTile];
  const int64_t n = cnt.n;
  const uint64_t m = static_cast<uint64_t>(M);
  const int tid = threadIdx.x;
  for (int64_t b = blockIdx.x; b < outer * tiles; b += gridDim.x) {
    const int64_t o = b / tiles, t = b - o * tiles;
    if (WideTile(off, t, tiles, m)) continue;  // the same for the whole block
    const int64_t j0 = t * kTile + tid * kItems;
    CountRegs<uint32_t> c;
    __align__(16) T v[kItems];
    LoadNarrow(off, x + o * n + j0, j0, n, c, v);
    const uint64_t base = t == 0 ? 0 : off.incl[t - 1];
    const uint32_t lim = LimitOf<uint32_t>(base, m);
    uint32_t sum = 0;
#pragma unroll
    for (int i = 0; i < kItems; ++i) sum += c[i];
    uint32_t start, agg;
    __syncthreads();  // the previous tile's marks, values and scan storage are free
#pragma unroll
    for (int i = 0; i < kItems; ++i) xs[tid * kItems + i] = v[i];
    OffScan<uint32_t>(tmp).ExclusiveScan(sum, start, 0u, AddOffOp<uint32_t>(), agg);
    const uint32_t r1 = t + 1 == tiles ? lim : MinOff(agg, lim);
    if (r1 == 0) continue;  // the same for the whole block
    T* dst = out + o * M + base;
    for (uint32_t p = 0; p < r1; p += kChunk - V) {
      const uint32_t len = r1 - p < static_cast<uint32_t>(kChunk - V) ? r1 - p : kChunk - V;
      const int shift = static_cast<int>((reinterpret_cast<uintptr_t>(dst + p) % 16) / sizeof(T));
      __syncthreads();  // the last chunk's marks are read (and, the first time, xs is written)
#pragma unroll
      for (int w = 0; w < kPer * 2 / 16; ++w) reinterpret_cast<uint4*>(marks + tid * kPer)[w] = make_uint4(0, 0, 0, 0);
      __syncthreads();
      uint32_t pos = start;
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        const Run<uint32_t> r = NextRun(pos, c[i], lim, j0 + i == n - 1, j0 + i >= n);
        const uint32_t lo = r.s > p ? r.s : p, hi = r.e < p + len ? r.e : p + len;
        if (lo < hi) marks[shift + (lo - p)] = static_cast<uint16_t>(tid * kItems + i + 1);
      }
      __syncthreads();
      __align__(16) uint16_t mk[kPer];
#pragma unroll
      for (int w = 0; w < kPer * 2 / 16; ++w) reinterpret_cast<uint4*>(mk)[w] = reinterpret_cast<const uint4*>(marks + tid * kPer)[w];
      uint32_t mine = 0;
#pragma unroll
      for (int u = 0; u < kPer; ++u) mine = mine > mk[u] ? mine : mk[u];
      uint32_t carry;
      __syncthreads();  // tmp's last use (the offsets scan, or the last chunk's max-scan) is done
      OffScan<uint32_t>(tmp).ExclusiveScan(mine, carry, 0u, MaxU32());
      T* line = dst + p - shift;  // 16-byte aligned; position u of the chunk is line[u]
#pragma unroll
      for (int w = 0; w < kPer / V; ++w) {
        __align__(16) T val[V];
#pragma unroll
        for (int e = 0; e < V; ++e) {
          const uint32_t mv = mk[w * V + e];
          carry = carry > mv ? carry : mv;
          val[e] = carry > 0 ? xs[carry - 1] : T{};
        }
        const int k0 = tid * kPer + w * V - shift;  // the vector's first output in the chunk
        if (k0 >= 0 && k0 + V <= static_cast<int>(len)) {
          *reinterpret_cast<uint4*>(line + tid * kPer + w * V) = *reinterpret_cast<const uint4*>(val);
        } else {
#pragma unroll
          for (int e = 0; e < V; ++e) {
            if (k0 + e >= 0 && k0 + e < static_cast<int>(len)) line[tid * kPer + w * V + e] = val[e];
          }
        }
      }
    }
  }
}

// ---- host side

enum class Pass1 { kLib, kPrev, kVec1024, kVec, kVecCub, kLook, kLookE };
enum class Scat { kLib, kN32x4, kN16x6, kN16x8, kN32x6, kPipe16x4, kPipe32x4, kPipe16x6, kMarks16x4, kMarks32x4 };
inline const char* Pass1Name(Pass1 p) {
  switch (p) {
    case Pass1::kLib: return "lib";
    case Pass1::kPrev: return "prev";
    case Pass1::kVec1024: return "v1024";
    case Pass1::kVec: return "vec";
    case Pass1::kVecCub: return "vcub";
    case Pass1::kLook: return "look";
    case Pass1::kLookE: return "looke";
  }
  return "?";
}
inline const char* ScatName(Scat s) {
  switch (s) {
    case Scat::kLib: return "lib";
    case Scat::kN32x4: return "n32/4";
    case Scat::kN16x6: return "n16/6";
    case Scat::kN16x8: return "n16/8";
    case Scat::kN32x6: return "n32/6";
    case Scat::kPipe16x4: return "pipe16/4";
    case Scat::kPipe32x4: return "pipe32/4";
    case Scat::kPipe16x6: return "pipe16/6";
    case Scat::kMarks16x4: return "marks16/4";
    case Scat::kMarks32x4: return "marks32/4";
  }
  return "?";
}

// Scratch for a variant: the library's layout (rt::OffsetsScratch, with CUB's temporary
// storage) plus the look-back statuses.
struct Scratch {
  rt::OffsetsScratch sc;                   // the library's choice of scan
  rt::OffsetsScratch sc_block, sc_cub;     // each scan forced (the same layout, sc_cub's CUB storage)
  sg::TileStatusLayout<SumNeg> look_layout;
  sg::TileStatusLayout<uint64_t> fused_layout;
  int64_t* offsets = nullptr;  // sc_cub.Int64s() or more
  char* status = nullptr;      // max of both layouts
  EpochStatus epoch{};  // zeroed once; epoch advanced per call
  explicit Scratch(int64_t n)
      : sc(rt::OffsetsScratchFor(n)),
        sc_block(rt::OffsetsScratchFor(n, rt::TileScan::kOneBlock)),
        sc_cub(rt::OffsetsScratchFor(n, rt::TileScan::kCub)) {
    look_layout = sg::TileStatusLayout<SumNeg>{1, sc.tiles, 1};
    fused_layout = sg::TileStatusLayout<uint64_t>{1, sc.tiles, 1};
    HARNESS_CHECK(cudaMalloc(&offsets, std::max(sc.Int64s(), sc_cub.Int64s()) * sizeof(int64_t)));
    HARNESS_CHECK(cudaMalloc(&status, std::max(look_layout.Bytes(), fused_layout.Bytes())));
    HARNESS_CHECK(cudaMalloc(&epoch.agg, sc.tiles * sizeof(uint64_t)));
    HARNESS_CHECK(cudaMalloc(&epoch.inc, sc.tiles * sizeof(uint64_t)));
    HARNESS_CHECK(cudaMalloc(&epoch.status, sc.tiles * sizeof(uint32_t)));
    HARNESS_CHECK(cudaMalloc(&epoch.ticket, sizeof(unsigned int)));
    HARNESS_CHECK(cudaMemset(epoch.status, 0, sc.tiles * sizeof(uint32_t)));
    HARNESS_CHECK(cudaMemset(epoch.ticket, 0, sizeof(unsigned int)));
  }
  ~Scratch() {
    cudaFree(offsets);
    cudaFree(status);
    cudaFree(epoch.agg);
    cudaFree(epoch.inc);
    cudaFree(epoch.status);
    cudaFree(epoch.ticket);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  uint64_t* Sums() const { return reinterpret_cast<uint64_t*>(offsets); }
  uint64_t* Incl() const { return Sums() + sc.tiles; }
  uint32_t* Flags() const { return reinterpret_cast<uint32_t*>(offsets + sc.FlagsAt()); }
  uint8_t* Bytes() const { return reinterpret_cast<uint8_t*>(offsets + sc.BytesAt()); }
};

template <typename R>
rt::Offsets Offsets(cudaStream_t st, Pass1 p, Scratch& s, rt::Counts<R> cnt) {
  const int64_t tiles = s.sc.tiles;
  const unsigned grid = static_cast<unsigned>(tiles);
  cudaError_t err = cudaSuccess;
  switch (p) {
    case Pass1::kLib:
    case Pass1::kVec:
    case Pass1::kVecCub: {
      const rt::OffsetsScratch& sc = p == Pass1::kLib ? s.sc : p == Pass1::kVec ? s.sc_block : s.sc_cub;
      const rt::Offsets o = rt::TileOffsets(st, sc, cnt, s.offsets, &err);
      HARNESS_CHECK(err);
      return o;
    }
    case Pass1::kPrev:
    case Pass1::kVec1024:
      if (p == Pass1::kPrev) {
        StripedSumsKernel<R><<<grid, kThreads, 0, st>>>(cnt, s.Sums(), s.Flags(), s.Bytes());
      } else {
        rt::TileSumsKernel<R><<<grid, kThreads, 0, st>>>(cnt, s.Sums(), s.Flags(), s.Bytes(), nullptr);
      }
      rt::ScanTilesKernel<1024, 4><<<1, 1024, 0, st>>>(s.Sums(), s.Flags(), s.Incl(), tiles);  // as before
      break;
    case Pass1::kLook:
      HARNESS_CHECK(cudaMemsetAsync(s.status, 0, s.look_layout.ZeroBytes(), st));
      SumsLookKernel<R><<<grid, kThreads, 0, st>>>(cnt, s.Incl(), s.Flags(), s.Bytes(), tiles, s.look_layout.In(s.status));
      break;
    case Pass1::kLookE:
      s.epoch.epoch = s.epoch.epoch % ((1u << 30) - 1) + 1;  // 1 .. 2^30 - 1, never 0 (the zeroed statuses)
      SumsEpochKernel<R><<<grid, kThreads, 0, st>>>(cnt, s.Incl(), s.Flags(), s.Bytes(), tiles, s.epoch);
      break;
  }
  return rt::Offsets{s.Incl(), s.Flags(), s.Bytes()};
}

// The tiles for the 64-bit form (WideTile), after a 32-bit scatter: a small persistent grid
// that skips the others.
template <typename T, typename R>
void WideScatter(cudaStream_t st, int sms, rt::Counts<R> cnt, rt::Offsets off, const T* x, T* out, int64_t outer,
                 int64_t M) {
  const int64_t tiles = rt::TileCount(cnt.n);
  const int grid = static_cast<int>(std::min<int64_t>(outer * tiles, int64_t{sms} * 2));
  NarrowLineKernel<T, R, uint64_t, 32768, 1><<<grid, kThreads, 0, st>>>(cnt, off, x, out, M, tiles, outer);
}

template <typename T, typename R, int kStageBytes, int kMinBlocks>
void NarrowScatter(cudaStream_t st, int sms, rt::Counts<R> cnt, rt::Offsets off, const T* x, T* out, int64_t outer,
                   int64_t M) {
  const int64_t tiles = rt::TileCount(cnt.n), blocks = outer * tiles;
  const int grid = static_cast<int>(std::min<int64_t>(blocks, int64_t{sms} * 64));
  NarrowLineKernel<T, R, uint32_t, kStageBytes, kMinBlocks><<<grid, kThreads, 0, st>>>(cnt, off, x, out, M, tiles, outer);
  WideScatter(st, sms, cnt, off, x, out, outer, M);
}

template <typename T, typename R, int kStageBytes, int kMinBlocks>
void PipeScatter(cudaStream_t st, int sms, rt::Counts<R> cnt, rt::Offsets off, const T* x, T* out, int64_t outer,
                 int64_t M) {
  const int64_t tiles = rt::TileCount(cnt.n), blocks = outer * tiles;
  constexpr int kBytes = PipeSmem<T>::Bytes(kStageBytes);
  static bool attr = false;  // one per instantiation
  if (!attr) {
    HARNESS_CHECK(cudaFuncSetAttribute(PipeLineKernel<T, R, kStageBytes, kMinBlocks>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes));
    attr = true;
  }
  const int grid = static_cast<int>(std::min<int64_t>(blocks, int64_t{sms} * kMinBlocks));
  PipeLineKernel<T, R, kStageBytes, kMinBlocks><<<grid, kThreads, kBytes, st>>>(cnt, off, x, out, M, tiles, outer);
  WideScatter(st, sms, cnt, off, x, out, outer, M);
}

template <typename T, typename R, int kPer, int kMinBlocks>
void MarksScatter(cudaStream_t st, int sms, rt::Counts<R> cnt, rt::Offsets off, const T* x, T* out, int64_t outer,
                  int64_t M) {
  const int64_t tiles = rt::TileCount(cnt.n), blocks = outer * tiles;
  const int grid = static_cast<int>(std::min<int64_t>(blocks, int64_t{sms} * 64));
  MarksLineKernel<T, R, kPer, kMinBlocks><<<grid, kThreads, 0, st>>>(cnt, off, x, out, M, tiles, outer);
  WideScatter(st, sms, cnt, off, x, out, outer, M);
}

template <typename T, typename R>
void Scatter(cudaStream_t st, int sms, Scat v, rt::Counts<R> cnt, rt::Offsets off, const T* x, T* out, int64_t outer,
             int64_t M, int64_t inner) {
  if (v == Scat::kLib || inner != 1) return rt::Scatter(st, sms, cnt, off, x, out, outer, M, inner);
  switch (v) {
    case Scat::kN32x4: return NarrowScatter<T, R, 32768, 4>(st, sms, cnt, off, x, out, outer, M);
    case Scat::kN16x6: return NarrowScatter<T, R, 16384, 6>(st, sms, cnt, off, x, out, outer, M);
    case Scat::kN16x8: return NarrowScatter<T, R, 16384, 8>(st, sms, cnt, off, x, out, outer, M);
    case Scat::kN32x6: return NarrowScatter<T, R, 32768, 6>(st, sms, cnt, off, x, out, outer, M);
    case Scat::kPipe16x4: return PipeScatter<T, R, 16384, 4>(st, sms, cnt, off, x, out, outer, M);
    case Scat::kPipe32x4: return PipeScatter<T, R, 32768, 4>(st, sms, cnt, off, x, out, outer, M);
    case Scat::kPipe16x6: return PipeScatter<T, R, 16384, 6>(st, sms, cnt, off, x, out, outer, M);
    case Scat::kMarks16x4: return MarksScatter<T, R, 16, 4>(st, sms, cnt, off, x, out, outer, M);
    case Scat::kMarks32x4: return MarksScatter<T, R, 32, 4>(st, sms, cnt, off, x, out, outer, M);
    default: return;
  }
}

// The one pass (1-D, outer == 1, output_size given as M).
template <typename T, typename R>
void Fused(cudaStream_t st, int sms, Scratch& s, rt::Counts<R> cnt, const T* x, T* out, int64_t M) {
  const int64_t tiles = s.sc.tiles;
  HARNESS_CHECK(cudaMemsetAsync(s.status, 0, s.fused_layout.ZeroBytes(), st));
  FusedLineKernel<T, R, 32768, 4><<<static_cast<unsigned>(tiles), kThreads, 0, st>>>(
      cnt, s.Incl(), s.Flags(), x, out, M, tiles, s.fused_layout.In(s.status));
  WideScatter(st, sms, cnt, rt::Offsets{s.Incl(), s.Flags(), s.Bytes()}, x, out, 1, M);
}

// The variants a run checks and times: pass 1 and the 1-D scatter (rows: the library's).
struct Variant {
  const char* name;
  Pass1 p;
  Scat s;
};
constexpr Variant kVariants[] = {
    {"prev", Pass1::kPrev, Scat::kLib},
    {"vec", Pass1::kVec, Scat::kLib},          {"vcub", Pass1::kVecCub, Scat::kLib},
    {"look", Pass1::kLook, Scat::kLib},        {"lib+n32/4", Pass1::kLib, Scat::kN32x4},
    {"look+n32/4", Pass1::kLook, Scat::kN32x4}, {"look+n32/6", Pass1::kLook, Scat::kN32x6},
    {"look+n16/6", Pass1::kLook, Scat::kN16x6}, {"look+n16/8", Pass1::kLook, Scat::kN16x8},
    {"looke", Pass1::kLookE, Scat::kLib},       {"looke+n32/4", Pass1::kLookE, Scat::kN32x4},
    {"look+pipe16/4", Pass1::kLook, Scat::kPipe16x4}, {"look+pipe32/4", Pass1::kLook, Scat::kPipe32x4},
    {"look+pipe16/6", Pass1::kLook, Scat::kPipe16x6}, {"looke+pipe16/4", Pass1::kLookE, Scat::kPipe16x4},
    {"look+marks16/4", Pass1::kLook, Scat::kMarks16x4}, {"look+marks32/4", Pass1::kLook, Scat::kMarks32x4},
};

}  // namespace rint_variants
