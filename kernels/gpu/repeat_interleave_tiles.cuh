// repeat_interleave's GPU kernels on raw pointers (no library types: the kernel harness
// tools/dev/harness/rint/ drives them as the library does, from repeat_interleave_steps.cuh).
//
// The tensor form writes from the input slices instead of searching from the outputs:
//   1. TileSumsKernel: per tile of kTile slices, the clamped counts' sum (a negative count
//      raises the tile's flag and counts as 0), and each count as a byte (min(count, 255)); a
//      thread reads its kItems consecutive counts with 16-byte loads and stores their bytes
//      with one store;
//   2. the inclusive scan of the tile sums: one block (ScanTilesKernel, cub::BlockScan) for
//      fewer than kCubScanTiles tiles, else cub::DeviceScan; its last value is the total,
//      which the host copies with the negative flag when output_size does not give the length;
//   3. one scatter pass: each tile scans its counts in the block (cub::BlockScan) from the tile's
//      offset and writes each slice's copies to its run of outputs:
//        - 1-D lines (inner == 1): the tile's outputs are staged in shared memory and stored
//          with 16-byte vectors (ScatterLineKernel);
//        - rows (inner > 1): a warp copies each slice's row to its run of output rows, 16-byte
//          vectors where aligned (ScatterRowsKernel).
//   No binary search, no per-output scratch (the scratch is a byte per slice and 20 bytes per
//   tile, and CUB's temporary storage where it scans); the bytes moved are the counts once,
//   their bytes twice, x once and out once (a tile with a count above 255 reads its counts
//   again instead of the bytes).
// The sums saturate at 2^63 (SatAdd): a total that reaches it has overflowed int64, and the
// starts stay monotone whatever the counts, so every output is written by exactly one slice
// (deterministic). The runs are cut to the output length M; the last slice's run ends at M,
// so an output_size past the total repeats the last slice (docs/spec.md §4).
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cstdint>

#include "kernels/util/fast_divmod.h"

namespace phi {
namespace repeat {
namespace tiles {

constexpr int kThreads = 256;
#ifndef PO_RINT_ITEMS
#define PO_RINT_ITEMS 8
#endif
#ifndef PO_RINT_MIN_BLOCKS
#define PO_RINT_MIN_BLOCKS 4
#endif
#ifndef PO_RINT_CUB_TILES  // from this many tiles on, CUB's device scan scans the tile sums
#define PO_RINT_CUB_TILES 512
#endif
#ifndef PO_RINT_STAGE_BYTES
#define PO_RINT_STAGE_BYTES 32768
#endif
constexpr int kItems = PO_RINT_ITEMS;           // slices a thread scans in a tile
constexpr int64_t kTile = kThreads * kItems;    // slices per tile (one scan offset each)
constexpr int kRowSlices = 32;                  // slices a rows block copies
constexpr uint64_t kCap = uint64_t{1} << 63;    // a sum at or past it overflows int64

// min(a + b, 2^63) for a, b <= 2^63: associative, so any order gives the same sums.
struct SatAdd {
  __host__ __device__ uint64_t operator()(uint64_t a, uint64_t b) const { return a >= kCap - b ? kCap : a + b; }
};

// The counts (int32 or int64; one count for every slice when broadcast), negatives as 0.
template <typename R>
struct Counts {
  const R* c;
  int64_t n;
  bool broadcast;
  __device__ uint64_t At(int64_t j, bool* negative) const {
    const int64_t v = static_cast<int64_t>(c[broadcast ? 0 : j]);
    if (v < 0) {
      *negative = true;
      return 0;
    }
    return static_cast<uint64_t>(v);
  }
};

// N consecutive elements from p into v: 16-byte loads when `vec` (p 16-byte aligned) and N
// elements fill whole vectors.
template <typename T, int N>
__device__ void LoadItems(const T* p, T (&v)[N], bool vec) {
  if constexpr (N * sizeof(T) % 16 == 0) {
    if (vec) {
#pragma unroll
      for (int w = 0; w < static_cast<int>(N * sizeof(T) / 16); ++w) {
        reinterpret_cast<uint4*>(v)[w] = reinterpret_cast<const uint4*>(p)[w];
      }
      return;
    }
  } else if constexpr (N * sizeof(T) == 8) {
    if (reinterpret_cast<uintptr_t>(p) % 8 == 0) {
      *reinterpret_cast<uint2*>(v) = *reinterpret_cast<const uint2*>(p);
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < N; ++i) v[i] = p[i];
}

__device__ inline bool Aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

inline int64_t TileCount(int64_t n) { return (n + kTile - 1) / kTile; }

// A thread's kItems consecutive counts from j0, clamped at 0 (`neg` raised by a negative one):
// 16-byte loads where they are whole and aligned, else count by count (the line's end, a
// broadcast count, unaligned counts).
template <typename R>
__device__ void LoadCounts(const Counts<R>& cnt, int64_t j0, uint64_t (&c)[kItems], bool& neg) {
  if (j0 + kItems <= cnt.n && !cnt.broadcast) {
    __align__(16) R raw[kItems];
    LoadItems(cnt.c + j0, raw, Aligned16(cnt.c + j0));
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      neg = neg || raw[i] < 0;
      c[i] = raw[i] < 0 ? 0 : static_cast<uint64_t>(raw[i]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < kItems; ++i) c[i] = j0 + i < cnt.n ? cnt.At(j0 + i, &neg) : 0;
  }
}

// A thread's count bytes min(c, 255), packed little-endian four to a word.
static_assert(kItems % 4 == 0, "a thread's count bytes fill whole words");
struct CountBytes {
  uint32_t w[kItems / 4];
  __device__ uint32_t operator[](int i) const { return (w[i / 4] >> (8 * (i % 4))) & 255u; }
};

// The bytes of c into b, `big` raised by a count above 255; returns the saturating sum.
__device__ inline uint64_t PackCounts(const uint64_t (&c)[kItems], CountBytes& b, bool& big) {
  uint64_t s = 0;
#pragma unroll
  for (int k = 0; k < kItems / 4; ++k) b.w[k] = 0;
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    big = big || c[i] > 255;
    b.w[i / 4] |= (c[i] > 255 ? 255u : static_cast<uint32_t>(c[i])) << (8 * (i % 4));
    s = SatAdd()(s, c[i]);
  }
  return s;
}

// Tile t's part of pass 1 (the whole block calls it): thread i reads slices j0 = t * kTile +
// i * kItems .. j0 + kItems - 1 (16-byte loads), stores their bytes with one store (kItems
// bytes at j0: aligned, `bytes` being 16-byte aligned), and the block reduces the sums.
// Returns the tile's saturating sum (thread 0's) and whether any count was negative or above 255.
using SumReduce = cub::BlockReduce<uint64_t, kThreads>;
template <typename R>
__device__ uint64_t TileSum(const Counts<R>& cnt, int64_t t, uint8_t* bytes, SumReduce::TempStorage& tmp,
                            int& any_neg, int& any_big) {
  const int64_t j0 = t * kTile + threadIdx.x * kItems;
  bool neg = false, big = false;
  uint64_t c[kItems];
  LoadCounts(cnt, j0, c, neg);
  CountBytes b;
  const uint64_t s = PackCounts(c, b, big);
  if (j0 + kItems <= cnt.n) {
    if constexpr (kItems == 4) {
      *reinterpret_cast<uint32_t*>(bytes + j0) = b.w[0];
    } else if constexpr (kItems == 8) {
      *reinterpret_cast<uint2*>(bytes + j0) = make_uint2(b.w[0], b.w[1]);
    } else {
#pragma unroll
      for (int k = 0; k < kItems / 4; ++k) reinterpret_cast<uint32_t*>(bytes + j0)[k] = b.w[k];
    }
  } else {
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      if (j0 + i < cnt.n) bytes[j0 + i] = static_cast<uint8_t>(b[i]);
    }
  }
  const uint64_t total = SumReduce(tmp).Reduce(s, SatAdd());
  any_neg = __syncthreads_or(neg);
  any_big = __syncthreads_or(big);
  return total;
}

// Pass 1, a block per tile: the tile's clamped sum (saturating), its flags (bit 0: a negative
// count, bit 1: a count above 255) and each count as a byte (min(count, 255)), so that the
// scatter of a tile without big counts reads 1 byte a slice instead of the counts again.
// `negative` (zeroed before; every writer writes 1) where the tile sums go to CUB's scan.
template <typename R>
__global__ void __launch_bounds__(kThreads) TileSumsKernel(Counts<R> cnt, uint64_t* sums, uint32_t* flags,
                                                           uint8_t* bytes, uint64_t* negative) {
  __shared__ SumReduce::TempStorage tmp;
  const int64_t t = blockIdx.x;
  int any_neg, any_big;
  const uint64_t total = TileSum(cnt, t, bytes, tmp, any_neg, any_big);
  if (threadIdx.x == 0) {
    sums[t] = total;
    flags[t] = (any_neg ? 1u : 0u) | (any_big ? 2u : 0u);
    if (negative != nullptr && any_neg) *negative = 1;
  }
}

// Pass 2, one block: the inclusive (saturating) scan of the tile sums, and the negative flag of
// all tiles after the last (incl[tiles]), so one 16-byte copy brings the total and the flag.
// kBlock * kPer sums a round. 256 threads: with 1024 (before) ptxas spilled 908 bytes (cub's
// step over the 32 warps' 64-bit aggregates), and the block takes fewer than kCubScanTiles
// tiles, one or two rounds of 1024.
constexpr int kScanThreads = 256, kScanItems = 4;
template <int kBlock = kScanThreads, int kPer = kScanItems>
__global__ void __launch_bounds__(kBlock) ScanTilesKernel(const uint64_t* sums, const uint32_t* flags,
                                                          uint64_t* incl, int64_t tiles) {
  using Scan = cub::BlockScan<uint64_t, kBlock>;
  __shared__ typename Scan::TempStorage tmp;
  uint64_t carry = 0;
  bool neg = false;
  for (int64_t b0 = 0; b0 < tiles; b0 += kBlock * kPer) {
    uint64_t v[kPer];
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      const int64_t t = b0 + threadIdx.x * kPer + i;
      v[i] = t < tiles ? sums[t] : 0;
      neg = neg || (t < tiles && (flags[t] & 1u));
    }
    uint64_t aggregate;
    Scan(tmp).InclusiveScan(v, v, SatAdd(), aggregate);
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      const int64_t t = b0 + threadIdx.x * kPer + i;
      if (t < tiles) incl[t] = SatAdd()(carry, v[i]);
    }
    carry = SatAdd()(carry, aggregate);
    __syncthreads();
  }
  const int any = __syncthreads_or(neg);
  if (threadIdx.x == 0) incl[tiles] = any ? 1 : 0;
}

// What the scatter reads besides the counts: the tile offsets and the counts' bytes.
struct Offsets {
  const uint64_t* incl;   // incl[t]: the sum of tiles 0..t; incl[tiles]: the negative flag
  const uint32_t* flags;  // per tile
  const uint8_t* bytes;   // per slice, min(count, 255)
};

// How pass 2 scans the tile sums: one block (ScanTilesKernel: one launch; it walks the sums
// 1024 at a time) or CUB's device scan (a memset of the negative flag, which pass 1 then sets,
// and CUB's two launches; faster from a few hundred tiles on). Both give the same bits.
enum class TileScan { kAuto, kOneBlock, kCub };
constexpr int64_t kCubScanTiles = PO_RINT_CUB_TILES;

// The scratch of pass 1 and 2, in int64: sums and incl (2 tiles + 1), the flags, the bytes,
// and CUB's temporary storage where CUB scans.
struct OffsetsScratch {
  int64_t tiles = 0, n = 0;
  bool cub = false;
  size_t cub_bytes = 0;
  int64_t FlagsAt() const { return (2 * tiles + 2) / 2 * 2; }
  int64_t BytesAt() const { return FlagsAt() + (tiles + 3) / 4 * 2; }  // 16-byte aligned
  int64_t CubAt() const { return BytesAt() + (n + 15) / 16 * 2; }
  int64_t Int64s() const { return CubAt() + static_cast<int64_t>((cub_bytes + 15) / 16 * 2); }
};

// kAuto: CUB from kCubScanTiles tiles on (the others force a form: the harness times both).
inline OffsetsScratch OffsetsScratchFor(int64_t n, TileScan scan = TileScan::kAuto) {
  OffsetsScratch s;
  s.tiles = TileCount(n);
  s.n = n;
  s.cub = scan == TileScan::kCub || (scan == TileScan::kAuto && s.tiles >= kCubScanTiles);
  if (s.cub) {
    cub::DeviceScan::InclusiveScan(nullptr, s.cub_bytes, static_cast<const uint64_t*>(nullptr),
                                   static_cast<uint64_t*>(nullptr), SatAdd(), static_cast<int>(s.tiles));
  }
  return s;
}

// Passes 1 and 2 into `scratch` (OffsetsScratch's size, 16-byte aligned); n > 0. Returns the
// first error of the launches (CUB's, or of cudaMemsetAsync) in *err; the kernels' own launch
// errors stay for cudaGetLastError.
template <typename R>
Offsets TileOffsets(cudaStream_t stream, const OffsetsScratch& s, Counts<R> cnt, int64_t* scratch,
                    cudaError_t* err) {
  uint64_t* sums = reinterpret_cast<uint64_t*>(scratch);
  uint64_t* incl = sums + s.tiles;
  uint32_t* flags = reinterpret_cast<uint32_t*>(scratch + s.FlagsAt());
  uint8_t* bytes = reinterpret_cast<uint8_t*>(scratch + s.BytesAt());
  const unsigned grid = static_cast<unsigned>(s.tiles);
  *err = cudaSuccess;
  if (s.cub) {
    *err = cudaMemsetAsync(incl + s.tiles, 0, sizeof(uint64_t), stream);
    if (*err != cudaSuccess) return Offsets{incl, flags, bytes};
    TileSumsKernel<R><<<grid, kThreads, 0, stream>>>(cnt, sums, flags, bytes, incl + s.tiles);
    size_t cub_bytes = s.cub_bytes;
    *err = cub::DeviceScan::InclusiveScan(scratch + s.CubAt(), cub_bytes, sums, incl, SatAdd(),
                                          static_cast<int>(s.tiles), stream);
  } else {
    TileSumsKernel<R><<<grid, kThreads, 0, stream>>>(cnt, sums, flags, bytes, nullptr);
    ScanTilesKernel<><<<1, kScanThreads, 0, stream>>>(sums, flags, incl, s.tiles);
  }
  return Offsets{incl, flags, bytes};
}

// Stores len staged elements to dst: stage[shift + k] holds dst[k], shift = dst's element
// offset within its 16-byte line, so aligned 16-byte vectors of the stage map to aligned
// vectors of dst; the partial first and last vectors element by element.
template <typename T>
__device__ void StoreStaged(T* dst, const T* stage, int shift, int len) {
  constexpr int V = 16 / sizeof(T);
  const int vecs = (shift + len + V - 1) / V;
  T* line = dst - shift;
  for (int w = threadIdx.x; w < vecs; w += kThreads) {
    const int k0 = w * V - shift;
    if (k0 >= 0 && k0 + V <= len) {
      *reinterpret_cast<uint4*>(line + w * V) = *reinterpret_cast<const uint4*>(stage + w * V);
    } else {
#pragma unroll
      for (int u = 0; u < V; ++u) {
        if (k0 + u >= 0 && k0 + u < len) line[w * V + u] = stage[w * V + u];
      }
    }
  }
}

// 1-D lines (inner == 1): block b takes tile t of line o (b = o * tiles + t); thread i its
// kItems consecutive slices, their counts and values in registers; the tile's outputs
// [O0, O1) in chunks of kStage elements through shared memory.
template <typename T, typename R>
__global__ void __launch_bounds__(kThreads, PO_RINT_MIN_BLOCKS) ScatterLineKernel(Counts<R> cnt, Offsets off, const T* x, T* out,
                                                              int64_t M, funcs::FastDivMod tiles_div, int64_t outer) {
  const uint64_t* incl = off.incl;
  const int64_t tiles = static_cast<int64_t>(tiles_div.divisor);
  constexpr int V = 16 / sizeof(T);
  constexpr int kStage = PO_RINT_STAGE_BYTES / sizeof(T);
  using Scan = cub::BlockScan<uint64_t, kThreads>;
  __shared__ typename Scan::TempStorage scan_tmp;
  __shared__ __align__(16) T stage[kStage + V];
  const int64_t n = cnt.n;
  const uint64_t m = static_cast<uint64_t>(M);
  for (int64_t b = blockIdx.x; b < outer * tiles; b += gridDim.x) {
    const int64_t o = tiles_div.Div(b), t = b - o * tiles;
    const int64_t j0 = t * kTile + threadIdx.x * kItems;
    bool neg = false;
    uint64_t c[kItems];
    __align__(16) T v[kItems];
    uint64_t sum = 0;
    if (j0 + kItems <= n && !(off.flags[t] & 2u)) {  // whole, counts below 256: their bytes
      __align__(16) uint8_t raw[kItems];
      LoadItems(off.bytes + j0, raw, Aligned16(off.bytes + j0));
      LoadItems(x + o * n + j0, v, Aligned16(x + o * n + j0));
#pragma unroll
      for (int i = 0; i < kItems; ++i) c[i] = raw[i];
    } else if (j0 + kItems <= n && !cnt.broadcast) {  // whole: 16-byte loads where aligned
      __align__(16) R raw[kItems];
      LoadItems(cnt.c + j0, raw, Aligned16(cnt.c + j0));
      LoadItems(x + o * n + j0, v, Aligned16(x + o * n + j0));
#pragma unroll
      for (int i = 0; i < kItems; ++i) c[i] = raw[i] < 0 ? 0 : static_cast<uint64_t>(raw[i]);
    } else {
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        c[i] = 0;
        if (j0 + i < n) {
          c[i] = cnt.At(j0 + i, &neg);
          v[i] = x[o * n + j0 + i];
        }
      }
    }
#pragma unroll
    for (int i = 0; i < kItems; ++i) sum = SatAdd()(sum, c[i]);
    uint64_t start;
    __syncthreads();  // the previous tile's scan storage is free
    Scan(scan_tmp).ExclusiveScan(sum, start, uint64_t{0}, SatAdd());
    const uint64_t base = t == 0 ? 0 : incl[t - 1];
    start = SatAdd()(start, base);
    const int64_t O0 = static_cast<int64_t>(base < m ? base : m);
    const int64_t O1 = t + 1 == tiles ? M : static_cast<int64_t>(incl[t] < m ? incl[t] : m);
    int64_t s[kItems], e[kItems];
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      s[i] = static_cast<int64_t>(start < m ? start : m);
      start = SatAdd()(start, c[i]);
      e[i] = j0 + i == n - 1 ? M : static_cast<int64_t>(start < m ? start : m);
      if (j0 + i >= n) s[i] = e[i] = M;
    }
    T* line = out + o * M;
    for (int64_t P = O0; P < O1; P += kStage) {
      const int64_t Q = P + kStage < O1 ? P + kStage : O1;
      const int shift = static_cast<int>((reinterpret_cast<uintptr_t>(line + P) % 16) / sizeof(T));
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        const int64_t lo = s[i] > P ? s[i] : P, hi = e[i] < Q ? e[i] : Q;
        for (int64_t k = lo; k < hi; ++k) stage[shift + (k - P)] = v[i];
      }
      __syncthreads();
      StoreStaged(line + P, stage, shift, static_cast<int>(Q - P));
      __syncthreads();
    }
  }
}

// The run [b, e) of output rows of each of a rows block's kRowSlices slices.
struct RowRuns {
  int64_t b[kRowSlices], e[kRowSlices];
};

// A warp's copies of one row of `inner` elements to `copies` consecutive output rows.
template <typename T>
__device__ void CopyRow(const T* src, T* dst, int64_t inner, int64_t copies, int lane) {
  constexpr int V = 16 / sizeof(T);
  const bool vec = inner % V == 0 && reinterpret_cast<uintptr_t>(src) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(dst) % 16 == 0;
  if (vec) {
    const uint4* s4 = reinterpret_cast<const uint4*>(src);
    uint4* d4 = reinterpret_cast<uint4*>(dst);
    const int64_t nv = inner / V;
    for (int64_t k = lane; k < nv; k += 64) {
      const uint4 a = s4[k];
      const bool two = k + 32 < nv;
      uint4 a2 = a;
      if (two) a2 = s4[k + 32];
      for (int64_t c = 0; c < copies; ++c) {
        d4[c * nv + k] = a;
        if (two) d4[c * nv + k + 32] = a2;
      }
    }
    return;
  }
  for (int64_t k = lane; k < inner; k += 32) {
    const T a = src[k];
    for (int64_t c = 0; c < copies; ++c) dst[c * inner + k] = a;
  }
}

// Rows (inner > 1): block b takes kRowSlices slices of tile t of line o; their start within
// the tile is the block's sum of the tile's counts before them, then a warp scan; each warp
// copies the rows of kRowSlices / 8 slices.
template <typename T, typename R>
__global__ void __launch_bounds__(kThreads) ScatterRowsKernel(Counts<R> cnt, Offsets off, const T* x, T* out,
                                                              int64_t M, int64_t inner, int64_t tiles, int64_t outer,
                                                              funcs::FastDivMod line_div, bool short_rows) {
  const uint64_t* incl = off.incl;
  constexpr int kSubs = static_cast<int>(kTile / kRowSlices);
  using Reduce = cub::BlockReduce<uint64_t, kThreads>;
  __shared__ typename Reduce::TempStorage red;
  __shared__ RowRuns runs;
  const int64_t n = cnt.n;
  const uint64_t m = static_cast<uint64_t>(M);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t per_line = tiles * kSubs;
  for (int64_t b = blockIdx.x; b < outer * per_line; b += gridDim.x) {
    const int64_t o = line_div.Div(b), r = b - o * per_line;
    const int64_t t = r / kSubs;
    const int64_t j_first = t * kTile + (r - t * kSubs) * kRowSlices;
    if (j_first >= n) continue;  // the same for the whole block
    bool neg = false;
    uint64_t part = 0;
    for (int64_t j = t * kTile + threadIdx.x; j < j_first; j += kThreads) part = SatAdd()(part, cnt.At(j, &neg));
    __syncthreads();  // the previous slices' runs and reduce storage are free
    const uint64_t before = Reduce(red).Reduce(part, SatAdd());  // thread 0's
    if (warp == 0) {
      uint64_t start = SatAdd()(__shfl_sync(0xffffffffu, before, 0), t == 0 ? 0 : incl[t - 1]);
      const int64_t j = j_first + lane;
      const uint64_t c = j < n ? cnt.At(j, &neg) : 0;
      uint64_t inc = c;  // inclusive warp scan, saturating
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const uint64_t y = __shfl_up_sync(0xffffffffu, inc, d);
        if (lane >= d) inc = SatAdd()(y, inc);
      }
      const uint64_t ex = __shfl_up_sync(0xffffffffu, inc, 1);
      const uint64_t e = SatAdd()(start, inc), s = SatAdd()(start, lane == 0 ? 0 : ex);
      runs.b[lane] = static_cast<int64_t>(s < m ? s : m);
      runs.e[lane] = j == n - 1 ? M : static_cast<int64_t>(e < m ? e : m);
    }
    __syncthreads();
    if (short_rows) {  // rows of at most 64 vectors: the warp's rows all loaded before any store
      constexpr int kPer = kRowSlices / (kThreads / 32);
      const int64_t nv = inner / (16 / static_cast<int>(sizeof(T)));
      uint4 a[kPer][2];
#pragma unroll
      for (int i = 0; i < kPer; ++i) {
        const int64_t j = j_first + warp + i * (kThreads / 32);
        const uint4* s4 = reinterpret_cast<const uint4*>(x + (o * n + j) * inner);
        if (j < n && lane < nv) a[i][0] = s4[lane];
        if (j < n && lane + 32 < nv) a[i][1] = s4[lane + 32];
      }
#pragma unroll
      for (int i = 0; i < kPer; ++i) {
        const int q = warp + i * (kThreads / 32);
        if (j_first + q >= n) break;
        uint4* d4 = reinterpret_cast<uint4*>(out + o * M * inner);
        for (int64_t row = runs.b[q]; row < runs.e[q]; ++row) {
          if (lane < nv) d4[row * nv + lane] = a[i][0];
          if (lane + 32 < nv) d4[row * nv + lane + 32] = a[i][1];
        }
      }
      continue;
    }
    for (int q = warp; q < kRowSlices; q += kThreads / 32) {
      const int64_t j = j_first + q;
      if (j >= n) break;
      const int64_t rb = runs.b[q], re = runs.e[q];
      if (re > rb) CopyRow(x + (o * n + j) * inner, out + (o * M + rb) * inner, inner, re - rb, lane);
    }
  }
}

// The scatter pass over x's [outer, n, inner] view into out's [outer, M, inner].
template <typename T, typename R>
void Scatter(cudaStream_t stream, int sms, Counts<R> cnt, Offsets off, const T* x, T* out, int64_t outer,
             int64_t M, int64_t inner) {
  const int64_t tiles = TileCount(cnt.n);
  if (inner == 1) {
    const int64_t blocks = outer * tiles;
    const int grid = static_cast<int>(blocks < int64_t{sms} * 64 ? blocks : int64_t{sms} * 64);
    ScatterLineKernel<T, R><<<grid, kThreads, 0, stream>>>(cnt, off, x, out, M, funcs::FastDivMod(tiles), outer);
  } else {
    const int64_t blocks = outer * tiles * (kTile / kRowSlices);
    const int grid = static_cast<int>(blocks < int64_t{sms} * 64 ? blocks : int64_t{sms} * 64);
    constexpr int V = 16 / sizeof(T);
    const bool short_rows = inner % V == 0 && inner / V <= 64 && reinterpret_cast<uintptr_t>(x) % 16 == 0 &&
                            reinterpret_cast<uintptr_t>(out) % 16 == 0;
    ScatterRowsKernel<T, R><<<grid, kThreads, 0, stream>>>(cnt, off, x, out, M, inner, tiles, outer,
                                                             funcs::FastDivMod(tiles * (kTile / kRowSlices)), short_rows);
  }
}

// The int-count form: out[q] = x[(q / (inner r)) inner + q % inner] over the [outer, n r,
// inner] output; a thread writes V consecutive outputs (one 16-byte store where whole).
template <typename T>
__global__ void __launch_bounds__(kThreads) RepeatIntKernel(const T* x, T* out, int64_t total, int64_t inner,
                                                            funcs::FastDivMod inner_div, funcs::FastDivMod line_div,
                                                            funcs::FastDivMod rep_div, bool vec_rows) {
  constexpr int V = 16 / sizeof(T);
  const bool out_vec = reinterpret_cast<uintptr_t>(out) % 16 == 0;
  const int64_t vecs = (total + V - 1) / V;
  for (int64_t w = blockIdx.x * static_cast<int64_t>(kThreads) + threadIdx.x; w < vecs;
       w += static_cast<int64_t>(gridDim.x) * kThreads) {
    const int64_t q = w * V;
    __align__(16) T v[V];
    if (inner == 1) {  // outputs q.. come from x[q / r] on, the source advancing every r outputs
      int64_t src = rep_div.Div(q);
      int64_t rem = q - src * static_cast<int64_t>(rep_div.divisor);
#pragma unroll
      for (int u = 0; u < V; ++u) {
        if (q + u < total) v[u] = x[src];
        if (++rem == static_cast<int64_t>(rep_div.divisor)) {
          rem = 0;
          ++src;
        }
      }
    } else if (vec_rows) {  // inner % V == 0, x aligned: the V outputs are V elements of one row
      const int64_t line = inner_div.Div(q);
      const int64_t src = line_div.Div(q) * inner + (q - line * inner);
      *reinterpret_cast<uint4*>(v) = *reinterpret_cast<const uint4*>(x + src);
    } else {
#pragma unroll
      for (int u = 0; u < V; ++u) {
        const int64_t k = q + u;
        if (k < total) v[u] = x[line_div.Div(k) * inner + (k - inner_div.Div(k) * inner)];
      }
    }
    if (out_vec && q + V <= total) {
      *reinterpret_cast<uint4*>(out + q) = *reinterpret_cast<const uint4*>(v);
    } else {
#pragma unroll
      for (int u = 0; u < V; ++u) {
        if (q + u < total) out[q + u] = v[u];
      }
    }
  }
}

template <typename T>
void RepeatInt(cudaStream_t stream, int sms, const T* x, T* out, int64_t outer, int64_t n, int64_t inner,
               int64_t repeats) {
  constexpr int V = 16 / sizeof(T);
  const int64_t total = outer * n * repeats * inner;
  if (total <= 0) return;
  const int64_t vecs = (total + V - 1) / V;
  const int64_t want = (vecs + kThreads - 1) / kThreads;
  const int grid = static_cast<int>(want < int64_t{sms} * 32 ? want : int64_t{sms} * 32);
  const bool vec_rows = inner % V == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0;
  RepeatIntKernel<T><<<grid, kThreads, 0, stream>>>(x, out, total, inner, funcs::FastDivMod(inner),
                                                     funcs::FastDivMod(inner * repeats), funcs::FastDivMod(repeats),
                                                     vec_rows);
}

}  // namespace tiles
}  // namespace repeat
}  // namespace phi
