// Harness-only (tools/dev/harness/scan, --lookback; the library routes no op here): the GPU scan
// engine's columns in one pass with a chained look-back: each element is read from memory once
// and written once, for the many-line column shapes (thousands of lines of thousands of steps)
// where scan_columns.cuh's tree look-back and column strips lost to the three phases of
// scan_kernel.cuh, which read everything twice.
//
// A tile is kWidth adjacent lines by a band of kLen steps (the one-pass tiles' shape and their
// register column steps, scan_columns.cuh: kGroups threads across, each kVec adjacent lines, by
// kRows down, each kSteps consecutive steps). Tiles are numbered band-major (every tile of band
// b before any of band b + 1) and taken in the order of a ticket counter, so a tile only waits
// for tiles that already run (no deadlock, whatever the scheduler does). A tile
//   1. loads its elements into registers and each thread combines its kSteps steps of each line
//      (the op's ColumnTotal);
//   2. scans the kRows thread totals of each line down the rows with a logical warp of kRows
//      lanes (a fixed shuffle tree): what lies before each thread inside the tile, and the
//      tile's aggregate A(b) per line;
//   3. publishes A(b) (flag 1), finds the nearest band j < b whose inclusive prefix P(j) is
//      published (flag 2) with every band between publishing its aggregate, and folds
//      E(b) = (((P(j) (+) A(j+1)) (+) A(j+2)) ... (+) A(b-1)); publishes P(b) = E(b) (+) A(b);
//   4. rescans its steps from E(b) (+) (what lies before the thread) and stores them.
// Determinism: P(0) = init (+) A(0) (A(0) without a carry-in) and P(k) = P(k-1) (+) A(k) for
// every k, and that is exactly the expression any tile's fold evaluates from whichever P(j) it
// finds, on the same operands in the same order: E(b) is the same bits whatever the timing.
// Accuracy: the left fold of the band aggregates, as phase 2 of the three phases folds segment
// totals (cumsum's float64 two-sum state, logcumsumexp's (max, sum)).
//
// Two forms: LookbackColumnKernel, a thread block per tile; and the persistent
// LookbackColumnPersistentKernel (vector accesses only), as many blocks as the GPU holds at once,
// each taking tiles by ticket in turn and copying its next tile into shared memory (cp.async)
// while it works on the current one, so that a block waiting in its look-back still has bytes in
// flight. A block holds its next ticket while it finishes the current tile; the smallest
// unfinished ticket always belongs to a block working on it, whose look-back waits only on
// smaller tickets: still no deadlock.
//
// Measured on the H200 (docs/benchmarks.md, 2026-11-30): slower than the three phases on both
// benchmark shapes (float32 cumsum 3.0-3.3 x copy against 2.35-2.59, logcumsumexp 7.0-9.3
// against 4.2-4.9), so it left the engine (kernels/funcs/gpu/, with the tile traits
// kLookbackColumnLines / kLookbackPersistent through which an op could opt in) for the kernel
// harness, which runs it with --lookback. Includers define PADDLE_ENFORCE_GPU_SUCCESS first.
#pragma once

#include <cub/warp/warp_scan.cuh>
#include <cuda/atomic>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/funcs/gpu/scan_columns.cuh"
#include "kernels/util/gpu_cp_async.cuh"
#include "kernels/util/gpu_smem_optin.cuh"

namespace phi {
namespace funcs {
namespace scan_gpu {

// States through L2 (ld.global.cg / st.global.cg): published by other SMs, never from a stale L1.
template <typename S>
__device__ __forceinline__ S LoadCg(const S* p) {
  using W = std::conditional_t<sizeof(S) % 8 == 0 && alignof(S) >= 8, unsigned long long, unsigned>;
  static_assert(sizeof(S) % sizeof(W) == 0, "state words");
  W w[sizeof(S) / sizeof(W)];
#pragma unroll
  for (int i = 0; i < static_cast<int>(sizeof(S) / sizeof(W)); ++i) w[i] = __ldcg(reinterpret_cast<const W*>(p) + i);
  S v;
  memcpy(&v, w, sizeof(S));
  return v;
}
template <typename S>
__device__ __forceinline__ void StoreCg(S* p, const S& v) {
  using W = std::conditional_t<sizeof(S) % 8 == 0 && alignof(S) >= 8, unsigned long long, unsigned>;
  W w[sizeof(S) / sizeof(W)];
  memcpy(w, &v, sizeof(S));
#pragma unroll
  for (int i = 0; i < static_cast<int>(sizeof(S) / sizeof(W)); ++i) __stcg(reinterpret_cast<W*>(p) + i, w[i]);
}

// The chain's status, in scratch memory whose flags and ticket the launcher zeroes: per tile
// (band * across + tile of lines) a flag (0 nothing, 1 its aggregate, 2 its inclusive prefix)
// and `width` states of each.
template <typename State>
struct ChainStatus {
  State* agg;                  // [tiles * width]
  State* incl;                 // [tiles * width]
  int* flag;                   // [tiles]
  unsigned long long* ticket;  // the next tile's ticket

  __device__ int FlagRelaxed(int64_t tile) const {
    cuda::atomic_ref<int, cuda::thread_scope_device> f(flag[tile]);
    return f.load(cuda::memory_order_relaxed);
  }
  // After the whole thread block stored its states: a barrier, then one device-scope fence and
  // the flag (cooperative groups' grid barrier's order, as TileStatus::PublishBlock).
  __device__ void SetFlag(int64_t tile, int value) const {
    __threadfence();
    cuda::atomic_ref<int, cuda::thread_scope_device> f(flag[tile]);
    f.store(value, cuda::memory_order_relaxed);
  }
};

template <typename State, typename Scratch>
ChainStatus<State> MakeChainStatus(cudaStream_t stream, Scratch& scratch, int64_t tiles, int64_t width) {
  auto align = [](int64_t b) { return (b + 255) / 256 * 256; };
  const int64_t zero = align(8 + tiles * int64_t{sizeof(int)});
  const int64_t states = align(tiles * width * int64_t{sizeof(State)});
  char* p = static_cast<char*>(scratch(zero + 2 * states));
  PADDLE_ENFORCE_GPU_SUCCESS(cudaMemsetAsync(p, 0, zero, stream));
  ChainStatus<State> s;
  s.ticket = reinterpret_cast<unsigned long long*>(p);
  s.flag = reinterpret_cast<int*>(p + 8);
  s.agg = reinterpret_cast<State*>(p + zero);
  s.incl = reinterpret_cast<State*>(p + zero + states);
  return s;
}

// A tile shape: the register column steps of scan_columns.cuh (kVec adjacent lines a thread,
// kSteps steps, kGroups threads across; kRows = threads / kGroups down), the blocks per SM the
// kernels are compiled for, and for the persistent form the copies' word.
template <typename Op, int kVec_, int kSteps_, int kGroups_, int kMinBlocks_>
struct LookbackColumnShape {
  using State = typename Op::State;
  using T = std::remove_const_t<std::remove_pointer_t<decltype(Op::x)>>;
  using Steps = RegisterColumnSteps<Op, kVec_, kSteps_, kGroups_, kMinBlocks_>;
  static constexpr int kThreads = ScanPolicy::kThreads;
  static constexpr int kVec = kVec_, kSteps = kSteps_, kGroups = kGroups_, kMinBlocks = kMinBlocks_;
  static constexpr int kRows = kThreads / kGroups;
  static constexpr int kWidth = kGroups * kVec;
  static constexpr int kStride = kWidth + 1;  // a row of thread totals, padded (no bank conflicts down a line)
  static constexpr int64_t kLen = int64_t{kRows} * kSteps;
  using Word = typename Steps::Word;
  static constexpr int64_t kStageBytes = int64_t{kSteps} * kThreads * sizeof(Word);
  static_assert(kRows <= 32 && 32 % kRows == 0 && kThreads % kGroups == 0, "look-back tile shape");

  // What the tile keeps in shared memory besides the persistent form's stages.
  // (Raw bytes: a state may have constructors, which __shared__ variables may not.)
  struct Shared {
    alignas(16) unsigned char rows_raw[kRows * kStride * sizeof(State)];  // thread totals, then what lies before each thread
    alignas(16) unsigned char carry_raw[kWidth * sizeof(State)];          // E(b) per line
    long long ticket, next;
    int j;
    __device__ State* rows() { return reinterpret_cast<State*>(rows_raw); }
    __device__ State* carry() { return reinterpret_cast<State*>(carry_raw); }
  };
};

// The default shape: the one-pass tiles' (DefaultColumnSteps: 16-byte accesses, 8 steps,
// 16 groups, 64 lines of 4-byte elements by 128 steps), 3 blocks per SM.
template <typename Op>
struct DefaultLookbackShape {
  using T = std::remove_const_t<std::remove_pointer_t<decltype(Op::x)>>;
  static constexpr int kVec = 16 / static_cast<int>(sizeof(T)) < 4 ? 16 / static_cast<int>(sizeof(T)) : 4;
  using type = LookbackColumnShape<Op, kVec, 8, 16, TileColumnMinBlocks<GpuTileScan<Op>>::value>;
};

// Steps 2-4 of a tile whose elements are in `it` (p: this thread's part of tile `tile`).
template <typename Shape, typename Op>
__device__ __forceinline__ void LookbackTile(const Op& op, int64_t lines, int64_t across, int64_t nbands,
                                             const ChainStatus<typename Op::State>& st, bool exclusive,
                                             const typename Op::State* init, int64_t tile,
                                             const ColumnPart<Shape::kVec>& p, typename Shape::Steps::Items& it,
                                             typename Shape::Shared& sm) {
  using State = typename Op::State;
  using Tiles = GpuTileScan<Op>;
  constexpr int kVec = Shape::kVec, kGroups = Shape::kGroups, kRows = Shape::kRows, kWidth = Shape::kWidth;
  constexpr int kStride = Shape::kStride, kSteps = Shape::kSteps;
  const int t = static_cast<int>(threadIdx.x), grp = t % kGroups, row = t / kGroups;
  const int64_t band = tile / across, col = tile - band * across;
  State* rows = sm.rows();
  State* carry = sm.carry();
#pragma unroll
  for (int v = 0; v < kVec; ++v) {
    rows[row * kStride + v * kGroups + grp] =
        p.has[v] && p.n > 0 ? Tiles::template ColumnTotal<kSteps>(op, it.x[v], p.n) : op.Identity();
  }
  __syncthreads();
  // Slot q = v * kGroups + t / kRows holds line (t / kRows) * kVec + v of the tile; this thread is
  // lane t % kRows of its logical warp, lane 0 (the line's owner) publishes it.
  const bool owner = t % kRows == 0;
  const int lq = (t / kRows) * kVec;  // the owner's first line in the tile
  State total[kVec];
#pragma unroll
  for (int v = 0; v < kVec; ++v) {
    using WarpScanT = cub::WarpScan<State, kRows>;
    typename WarpScanT::TempStorage temp;  // empty for the shuffle-based warp scan
    State* cell = &rows[(t % kRows) * kStride + v * kGroups + t / kRows];
    State before;
    WarpScanT(temp).ExclusiveScan(*cell, before, op.Identity(), CombineFn<Op>{op}, total[v]);
    *cell = before;
  }
  const int64_t slot0 = tile * kWidth + lq;
  const int64_t gl0 = col * kWidth + lq;
  if (band == 0) {  // P(0) = init (+) A(0), or A(0)
    if (owner) {
#pragma unroll
      for (int v = 0; v < kVec; ++v) {
        const bool has = init != nullptr && gl0 + v < lines;
        const State c = has ? init[gl0 + v] : op.Identity();
        carry[lq + v] = c;
        if (nbands > 1) StoreCg(&st.incl[slot0 + v], has ? op.Combine(c, total[v]) : total[v]);
      }
    }
    __syncthreads();
    if (t == 0 && nbands > 1) st.SetFlag(tile, 2);
  } else {
    if (owner) {
#pragma unroll
      for (int v = 0; v < kVec; ++v) StoreCg(&st.agg[slot0 + v], total[v]);
    }
    __syncthreads();
    if (t < 32) {
      if (t == 0) st.SetFlag(tile, 1);
      // The nearest band with its inclusive prefix, every band after it with its aggregate:
      // lane l looks at band hi - l; a window of aggregates only moves on 32 bands.
      int64_t hi = band - 1, j = 0;
      for (unsigned ns = 0;;) {
        const int64_t k = hi - t;
        const int f = k >= 0 ? st.FlagRelaxed(k * across + col) : 1;
        const unsigned pm = __ballot_sync(0xffffffffu, f == 2), zm = __ballot_sync(0xffffffffu, f == 0);
        if (pm != 0u) {
          const int first = __ffs(pm) - 1;
          if ((zm & ((1u << first) - 1u)) == 0u) {
            j = hi - first;
            break;
          }
        } else if (zm == 0u) {
          hi -= 32;
          continue;
        }
        if (ns) __nanosleep(ns);
        ns = ns == 0 ? 32 : (ns < 128 ? 2 * ns : ns);
      }
      cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
      if (t == 0) sm.j = static_cast<int>(band - j);
    }
    __syncthreads();
    if (owner) {
      const int64_t j = band - sm.j;
#pragma unroll
      for (int v = 0; v < kVec; ++v) {
        State acc = LoadCg(&st.incl[(j * across + col) * kWidth + lq + v]);
        for (int64_t k = j + 1; k < band; ++k) acc = op.Combine(acc, LoadCg(&st.agg[(k * across + col) * kWidth + lq + v]));
        carry[lq + v] = acc;
        if (band < nbands - 1) StoreCg(&st.incl[slot0 + v], op.Combine(acc, total[v]));
      }
    }
    __syncthreads();
    if (t == 0 && band < nbands - 1) st.SetFlag(tile, 2);
  }
  Shape::Steps::Scan(
      op, p, it,
      [&](int v) {
        return op.Combine(carry[grp * kVec + v], rows[row * kStride + v * kGroups + grp]);
      },
      exclusive);
}

template <typename Shape, typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads, Shape::kMinBlocks)
    LookbackColumnKernel(Op op, LineGeometry g, int64_t lines, int64_t across, int64_t nbands,
                         ChainStatus<typename Op::State> st, bool exclusive, bool vec,
                         const typename Op::State* init) {
  __shared__ typename Shape::Shared sm;
  if (threadIdx.x == 0) sm.ticket = static_cast<long long>(atomicAdd(st.ticket, 1ull));
  __syncthreads();
  const int64_t tile = sm.ticket;
  const int64_t band = tile / across, col = tile - band * across;
  const int grp = static_cast<int>(threadIdx.x) % Shape::kGroups, row = static_cast<int>(threadIdx.x) / Shape::kGroups;
  ColumnPart<Shape::kVec> p;
  p.Init(g, lines, col * Shape::kWidth + grp * Shape::kVec, band * Shape::kLen + int64_t{row} * Shape::kSteps,
         Shape::kSteps, vec);
  typename Shape::Steps::Items it;
  Shape::Steps::Load(op, p, it);
  LookbackTile<Shape>(op, lines, across, nbands, st, exclusive, init, tile, p, it, sm);
}

template <typename Shape, typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads, Shape::kMinBlocks)
    LookbackColumnPersistentKernel(Op op, LineGeometry g, int64_t lines, int64_t across, int64_t nbands,
                                   ChainStatus<typename Op::State> st, bool exclusive,
                                   const typename Op::State* init) {
  using Word = typename Shape::Word;
  constexpr int kThreads = Shape::kThreads, kVec = Shape::kVec, kSteps = Shape::kSteps;
  extern __shared__ uint4 lookback_smem[];
  auto& sm = *reinterpret_cast<typename Shape::Shared*>(lookback_smem);
  Word* stage = reinterpret_cast<Word*>(reinterpret_cast<unsigned char*>(lookback_smem) +
                                        (sizeof(typename Shape::Shared) + 15) / 16 * 16);
  const int t = static_cast<int>(threadIdx.x), grp = t % Shape::kGroups, row = t / Shape::kGroups;
  const int64_t tiles = across * nbands;
  auto part = [&](int64_t tile) {
    const int64_t band = tile / across, col = tile - band * across;
    ColumnPart<kVec> p;
    p.Init(g, lines, col * Shape::kWidth + grp * kVec, band * Shape::kLen + int64_t{row} * kSteps, kSteps, true);
    return p;
  };
  auto issue = [&](int64_t tile, int buf) {  // this thread's words of the tile, into stage buf
    if (tile < tiles) {
      const ColumnPart<kVec> p = part(tile);
      Word* dst = stage + buf * (kSteps * kThreads) + t;
#pragma unroll
      for (int k = 0; k < kSteps; ++k) {
        if (p.has[0] && k < p.n) CpAsync<static_cast<int>(sizeof(Word))>(dst + k * kThreads, op.x + p.At(0, k));
      }
    }
    CpAsyncCommit();  // one group a tile, empty past the end
  };
  if (t == 0) sm.next = static_cast<long long>(atomicAdd(st.ticket, 1ull));
  __syncthreads();
  int64_t cur = sm.next;
  issue(cur, 0);
  for (int buf = 0; cur < tiles; buf ^= 1) {
    __syncthreads();  // every thread has read sm.next and finished with the rows of the last tile
    if (t == 0) sm.next = static_cast<long long>(atomicAdd(st.ticket, 1ull));
    __syncthreads();
    const int64_t next = sm.next;
    issue(next, buf ^ 1);
    CpAsyncWait<1>();  // this thread's copies of the current tile have landed
    const ColumnPart<kVec> p = part(cur);
    typename Shape::Steps::Items it;
    const Word* src = stage + buf * (kSteps * kThreads) + t;
    Shape::Steps::LoadWords(p, it, [&](int k) { return src[k * kThreads]; });
    LookbackTile<Shape>(op, lines, across, nbands, st, exclusive, init, cur, p, it, sm);
    cur = next;
  }
  CpAsyncWaitAll();
}

// Columns in one pass with the chained look-back, tiles of the shape `Shape`
// (DefaultLookbackShape<Op>::type unless a harness picks another); persistent: the persistent
// form where the lines allow vector accesses (else the block-per-tile form).
template <typename Shape, typename Op, typename Scratch>
void LookbackColumns(cudaStream_t stream, Scratch& scratch, const LineGeometry& g, int64_t lines, bool exclusive,
                     const Op& op, bool persistent, const typename Op::State* init = nullptr) {
  using State = typename Op::State;
  const int64_t across = (lines + Shape::kWidth - 1) / Shape::kWidth;
  const int64_t nbands = (g.length + Shape::kLen - 1) / Shape::kLen;
  const int64_t tiles = across * nbands;
  const auto st = MakeChainStatus<State>(stream, scratch, tiles, Shape::kWidth);
  const bool vec = Shape::Steps::Vectorizable(op, g);
  if (persistent && vec && sizeof(typename Shape::Word) >= 4) {
    const auto kernel = LookbackColumnPersistentKernel<Shape, Op>;
    const int64_t bytes = (int64_t{sizeof(typename Shape::Shared)} + 15) / 16 * 16 + 2 * Shape::kStageBytes;
    AllowDynamicSmem(reinterpret_cast<const void*>(kernel), bytes);
    static const int per_sm = [&] {  // blocks an SM holds (the carveout as large as the SM has)
      PADDLE_ENFORCE_GPU_SUCCESS(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                                      cudaFuncAttributePreferredSharedMemoryCarveout,
                                                      cudaSharedmemCarveoutMaxShared));
      int n = 0;
      PADDLE_ENFORCE_GPU_SUCCESS(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, ScanPolicy::kThreads,
                                                                                static_cast<size_t>(bytes)));
      return n > 0 ? n : 1;
    }();
    int device = 0, sms = 0;
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetDevice(&device));
    PADDLE_ENFORCE_GPU_SUCCESS(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int64_t grid = std::min<int64_t>(tiles, int64_t{per_sm} * sms);
    kernel<<<static_cast<unsigned>(grid), ScanPolicy::kThreads, static_cast<size_t>(bytes), stream>>>(
        op, g, lines, across, nbands, st, exclusive, init);
  } else {
    LookbackColumnKernel<Shape><<<static_cast<unsigned>(tiles), ScanPolicy::kThreads, 0, stream>>>(
        op, g, lines, across, nbands, st, exclusive, vec, init);
  }
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
