// The GPU scan engine's block tiles for 1-D tensors and few long rows, and through an op's second
// tile (scan_launch.cuh's TileBlockRows2) long rows of any count (issue 29, the scan engine v3):
// a thread block per tile of kThreads * kItems steps, held in registers from one read (the
// warp segments of scan_onepass.cuh read theirs twice: once for the aggregate, once after the
// look-back), and the carry before the tile from a decoupled look-back over inclusive prefixes,
// folded in order. The op's tiles supply the arithmetic (GpuTileScan<Op>::kBlockRows, its
// BlockTile and the rows it takes, BlockRowsFor; kernels/gpu/logcumsumexp_tiles.cuh for float32
// logcumsumexp), scan_launch.cuh's ScanRows launches it (LaunchBlockRows); this file holds what is
// the same for every op: tickets, the status words, the look-back's polling, the in-order fold's
// loop, a block scan, and the kernel's order of steps. Measured and checked first in the kernel
// harness (tools/dev/harness/scan1d, the third set, "i1s"), which also drives this kernel through
// ScanGpuLaunch (-DSCAN1D_LIB).
//
// The look-back. Tile t of a line publishes its aggregate A_t (state AGG) in one 16-byte status
// word (payload and state together: one store, no fence), then warp 0 reads the words of the
// tiles before it, 32 a window (lane l: tile t - 1 - l - 32w), until every word nearer than the
// nearest inclusive prefix (state INCL, at tile j) is at least AGG; after kBlockWindows windows
// without one it polls the farthest window again (those tiles are older and wait only on older
// ones, so one shows up). The carry is then P_{t-1} = Fold(P_j; A_{j+1}, ..., A_{t-1}): the op's
// step P_k = Step(P_{k-1}, A_k) applied in increasing k, and the tile publishes
// P_t = Step(P_{t-1}, A_t) as INCL. Tile 0 publishes P_0 = A_0 itself.
// Deterministic (unlike CUB's float look-back, which combines whatever run it finds in a
// timing-dependent parenthesization): every P_t is one fixed function of P_{t-1} and A_t, so by
// induction P_j is the same left fold of A_0 .. A_j whichever tile computed it, and folding
// A_{j+1} .. A_{t-1} onto it gives the same bits for whichever j the timing exposed. Step need not
// be the op's Combine, only a fixed function (the op may split it for speed; the accuracy is that
// of a left fold over tiles), and A_t one fixed function of the tile's elements (the op may pick
// its arithmetic by them: LseBlockTile sums float64 terms where the tile's total is near 0). The fold's D steps are one dependent chain; the op's Fold may spread
// their work off the chain over the block's warps (FoldInOrder below runs the chain itself).
// Tiles are taken in ticket order (an atomic per launch, not blockIdx), so a tile only waits on
// tiles whose blocks already run: no deadlock, whatever the scheduler does.
//
// `init`, a carry-in per line (the sequence-parallel scans' carry of the ranks before): the
// published prefixes leave it out, and each tile joins it in front of its carry afterwards,
// Join(CarryIn(init), P_{t-1}) (tile 0: CarryIn(init) alone), a fixed function again.
//
// What the op's block tile B (GpuTileScan<Op>::BlockTile) provides (every member called by every
// thread of the block unless said): Agg (the published state), Shared (its shared memory), kPad
// (the value loaded past a line's end); Identity(); Pack(a, state) / WordState(w) / Unpack(w), a
// state word of 16 bytes (Unpack(Pack(a, s)) is a, bit for bit); Step(c, a) (one thread);
// Fold(c, flat, D, sh, warp, lane): c folded with flat[D - 1], ..., flat[0] (the words of tiles
// t - D .. t - 1) in that order, its value needed on warp 0 only; CarryIn(init, line) and
// Join(c, p) (one thread); Prepare(x, sh), before the look-back; Aggregate() (the tile's A_t);
// Finish(carry, exclusive, x, sh, reload): x replaced by its outputs, reload(x) reading the
// tile's elements again where the op needs them after the look-back.
//
// Optional, B::kOwnIO (true): the tile reads and writes arrays of its own choice (logcumsumexp's
// gradient reads out, out_grad and x and writes x_grad: LseGradBlockTile in
// kernels/gpu/logcumsumexp_grad_rows.cuh). The kernel then loads the tile's first array from
// B::In(op) (in place of op.x), stores the outputs to B::Out(op) (in place of op.out), takes
// 16-byte accesses where B::Vec(op, length) says (the launcher), and calls
// Prepare(op, x, sh, io) and Finish(op, carry, exclusive, x, sh, io) with io, a BlockIO: the
// thread's steps, Load(p, v, pad) of any array at them (16-byte accesses on a full group),
// Index(s), a step's offset in memory, and stage, the warp's store-staging buffer (32 * kItems
// values of T), free for the tile's own use from Prepare until Finish returns; Finish ends that
// use with a __syncwarp() (the stores that follow write it).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/funcs/gpu/lookback_primitives.cuh"
#include "kernels/funcs/gpu/scan_agent.cuh"

namespace phi {
namespace funcs {
namespace scan_gpu {

// Whether the block tile B reads and writes its own arrays (B::kOwnIO; see the header).
template <typename B, typename = void>
struct BlockOwnIO : std::false_type {};
template <typename B>
struct BlockOwnIO<B, std::void_t<decltype(B::kOwnIO)>> : std::integral_constant<bool, B::kOwnIO> {};

// A thread's place in its tile: steps first .. first + kItems - 1 of the line at base (length L,
// g.reverse: steps run from the line's end); g0 the warp's group, full: 16-byte accesses.
template <typename T, int kItems>
struct BlockIO {
  int64_t base, L, g0, first, tile0;  // tile0: the tile's first step
  bool reverse, full;
  int lane;
  uint4* stage;  // the warp's staging (B::kOwnIO: the tile's until Finish returns)
  // The calling thread's place in the tile that starts at step tile0 of the line at base (g: its
  // length and direction): its warp's group of 32 * kItems steps, 16-byte accesses where vec and
  // the group lies whole in the line; stage: the warp's staging.
  __device__ static BlockIO ForTile(const LineGeometry& g, int64_t base, int64_t tile0, bool vec, uint4* stage) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int64_t g0 = tile0 + int64_t{warp} * 32 * kItems;  // the warp's group
    const int64_t first = g0 + int64_t{lane} * kItems;
    const bool full = vec && g0 + 32 * kItems <= g.length;
    return BlockIO{base, g.length, g0, first, tile0, g.reverse, full, lane, stage};
  }
  __device__ int64_t Index(int64_t s) const { return reverse ? base + L - 1 - s : base + s; }
  __device__ void Load(const T* p, T (&v)[kItems], T pad) const {
    using Group = BlockedGroup<T, kItems>;
    if (full) {
      if (reverse) {
        Group::template Load<true>(p, base, L, g0, v, lane);
      } else {
        Group::template Load<false>(p, base, L, g0, v, lane);
      }
      return;
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const int64_t s = first + j;
      v[j] = s < L ? p[Index(s)] : pad;
    }
  }
  // The thread's outputs v to p (full: 16-byte stores through stage).
  __device__ void Store(T* p, const T (&v)[kItems]) const {
    using Group = BlockedGroup<T, kItems>;
    if (full) {
      if (reverse) {
        Group::template Store<true>(p, base, L, g0, v, lane, stage);
      } else {
        Group::template Store<false>(p, base, L, g0, v, lane, stage);
      }
      return;
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const int64_t s = first + j;
      if (s < L) p[Index(s)] = v[j];
    }
  }
};

// The block's tile in ticket order (the blocks take the tiles in the order they start, so a tile
// waits only on tiles whose blocks already run): thread 0 draws it from counter into the kernel's
// __shared__ word `ticket`, every thread reads it after the barrier.
__device__ __forceinline__ int64_t DrawTileTicket(unsigned long long* counter, unsigned long long& ticket) {
  if (threadIdx.x == 0) ticket = atomicAdd(counter, 1ull);
  __syncthreads();
  return static_cast<int64_t>(ticket);
}

// Status word states (0: nothing published yet; the launcher zeroes the words).
constexpr unsigned kBlockAgg = 1, kBlockIncl = 2;
// Windows of 32 aggregates a look-back keeps before it polls its farthest window again.
constexpr int kBlockWindows = 8;

// StoreStatusWord / LoadStatusWord (16-byte volatile accesses): lookback_primitives.cuh.

// One status word per tile (line-major), and the ticket, in scratch memory zeroed by the launcher.
struct BlockRowStatus {
  uint4* word;
  unsigned long long* ticket;
  int64_t n;  // tiles per line
  static int64_t Bytes(int64_t lines, int64_t n) { return 256 + lines * n * 16; }
  __device__ uint4* At(int64_t line, int64_t t) const { return word + line * n + t; }
};

// One window's poll (warp 0): lane l's word of tile k (none for k < 0), read again until every
// word nearer than the nearest INCL (with none, all 32) is at least AGG, and, with none, until
// one shows up unless `onward`. Returns the lanes holding an INCL.
template <typename B>
__device__ __forceinline__ unsigned PollBlockWindow(const BlockRowStatus& st, int64_t line, int64_t k, bool onward,
                                                    unsigned* ns, uint4* word) {
  for (;;) {
    if (k >= 0) *word = LoadStatusWord(st.At(line, k));
    const unsigned state = k >= 0 ? B::WordState(*word) : 0u;
    const unsigned incl = __ballot_sync(0xffffffffu, state == kBlockIncl);
    const unsigned pending = __ballot_sync(0xffffffffu, k >= 0 && state == 0u);
    const unsigned below = incl != 0u ? (incl & (0u - incl)) - 1u : 0xffffffffu;  // lanes nearer than it
    if ((pending & below) == 0u && (incl != 0u || onward)) return incl;
    __nanosleep(*ns);
    *ns = *ns < 256 ? 2 * *ns : *ns;
  }
}

// Warp 0 of tile t > 0 (A_t published): the aggregates of tiles t - D .. t - 1 into flat (flat[i]
// is tile t - 1 - i's word) and the word of P_{t-1-D} (INCL) into *incl_word; returns D.
template <typename B>
__device__ __forceinline__ int BlockLookbackPoll(const BlockRowStatus& st, int64_t line, int64_t t, uint4* flat,
                                                 int lane, uint4* incl_word) {
  unsigned ns = 32;
  for (int w = 0;;) {
    const int64_t k = t - 1 - (int64_t{w} * 32 + lane);
    uint4 word = make_uint4(0u, 0u, 0u, 0u);
    const unsigned incl = PollBlockWindow<B>(st, line, k, w + 1 < kBlockWindows, &ns, &word);
    if (incl != 0u) {
      const int jl = __ffs(static_cast<int>(incl)) - 1;
      if (lane < jl) flat[w * 32 + lane] = word;
      *incl_word = make_uint4(__shfl_sync(0xffffffffu, word.x, jl), __shfl_sync(0xffffffffu, word.y, jl),
                              __shfl_sync(0xffffffffu, word.z, jl), __shfl_sync(0xffffffffu, word.w, jl));
      __syncwarp();
      return w * 32 + jl;
    }
    flat[w * 32 + lane] = word;  // every word AGG
    ++w;
  }
}

// The in-order fold's chain (FoldInOrder): lookback_primitives.cuh.

// A value of any 4-byte-multiple type shuffled up by d lanes (word by word: the same bits).
template <typename S>
__device__ __forceinline__ S ShflUpWords(const S& v, int d) {
  static_assert(sizeof(S) % 4 == 0, "whole 32-bit words");
  constexpr int kWords = static_cast<int>(sizeof(S) / 4);
  unsigned in[kWords], out[kWords];
  memcpy(in, &v, sizeof(S));
#pragma unroll
  for (int i = 0; i < kWords; ++i) out[i] = __shfl_up_sync(0xffffffffu, in[i], d);
  S r;
  memcpy(&r, out, sizeof(S));
  return r;
}

// Exclusive scan of one value a thread over the block, in lane then warp order (a fixed order),
// from id: *before (id for thread 0) and *total (every thread). smem: kThreads / 32 + 1 values.
template <int kThreads, typename S, typename F>
__device__ __forceinline__ void BlockScanOne(S v, F f, S id, S* smem, S* before, S* total) {
  constexpr int kWarps = kThreads / 32;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  S in = v;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const S y = ShflUpWords(in, d);
    if (lane >= d) in = f(y, in);
  }
  S ex = ShflUpWords(in, 1);
  if (lane == 0) ex = id;
  if (lane == 31) smem[warp] = in;
  __syncthreads();
  if (warp == 0) {
    const S w = lane < kWarps ? smem[lane] : id;
    S wi = w;
#pragma unroll
    for (int d = 1; d < kWarps; d <<= 1) {
      const S y = ShflUpWords(wi, d);
      if (lane >= d) wi = f(y, wi);
    }
    S we = ShflUpWords(wi, 1);
    if (lane == 0) we = id;
    if (lane < kWarps) smem[lane] = we;
    if (lane == kWarps - 1) smem[kWarps] = wi;
  }
  __syncthreads();
  *before = warp == 0 ? ex : f(smem[warp], ex);
  *total = smem[kWarps];
  __syncthreads();  // smem reused by the next scan
}

// Rows (inner == 1) of ntiles tiles each: a block per tile, in ticket order. vec: 16-byte
// accesses (the length a multiple of 16 bytes' elements, x and out aligned).
template <typename B, int kThreads, int kItems, int kMinBlocks, typename Op>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    BlockRowKernel(Op op, LineGeometry g, int64_t rows, int64_t ntiles, BlockRowStatus st,
                   const typename Op::State* init, bool exclusive, bool vec) {
  using Agg = typename B::Agg;
  using T = typename std::remove_const<typename std::remove_pointer<decltype(op.x)>::type>::type;
  constexpr int kWarps = kThreads / 32;
  constexpr int64_t kTile = int64_t{kThreads} * kItems;
  using Group = BlockedGroup<T, kItems>;
  __shared__ typename B::Shared sh;
  __shared__ uint4 flat[kBlockWindows * 32];  // the look-back's aggregates
  __shared__ uint4 incl_word;                 // P_{t-1-D}
  __shared__ int nflat;                       // D (-1: tile 0)
  __shared__ Agg carry_smem;
  __shared__ unsigned long long ticket;
  __shared__ uint4 obuf[kWarps][32 * Group::kNC];  // the stores' staging
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t tile = DrawTileTicket(st.ticket, ticket);
  if (tile >= rows * ntiles) return;  // the whole block
  const int64_t row = tile / ntiles, t = tile - row * ntiles;
  const auto io = BlockIO<T, kItems>::ForTile(g, g.Base(row), t * kTile, vec, obuf[warp]);
  constexpr bool kOwn = BlockOwnIO<B>::value;
  const T* in = [&] {
    if constexpr (kOwn) {
      return B::In(op);
    } else {
      return op.x;
    }
  }();
  T* out = [&] {
    if constexpr (kOwn) {
      return B::Out(op);
    } else {
      return op.out;
    }
  }();
  auto load = [&](T(&v)[kItems]) { io.Load(in, v, static_cast<T>(B::kPad)); };
  T x[kItems];
  load(x);
  B b;
  if constexpr (kOwn) {
    b.Prepare(op, x, sh, io);
  } else {
    b.Prepare(x, sh);
  }
  const Agg a = b.Aggregate();
  Agg carry = B::Identity();
  if (ntiles > 1) {
    if (warp == 0) {  // publish A_t (AGG) and look back; tile 0: P_0 = A_0 (INCL)
      if (t == 0) {
        if (lane == 0) {
          StoreStatusWord(st.At(row, 0), B::Pack(a, kBlockIncl));
          nflat = -1;
        }
      } else {
        if (lane == 0) StoreStatusWord(st.At(row, t), B::Pack(a, kBlockAgg));
        uint4 pw;
        const int D = BlockLookbackPoll<B>(st, row, t, flat, lane, &pw);
        if (lane == 0) {
          nflat = D;
          incl_word = pw;
        }
      }
    }
    __syncthreads();
    const int D = nflat;
    if (D >= 0) {  // uniform over the block
      carry = B::Fold(B::Unpack(incl_word), flat, D, sh, warp, lane);
      if (warp == 0 && lane == 0) StoreStatusWord(st.At(row, t), B::Pack(B::Step(carry, a), kBlockIncl));
    }
  }
  if (warp == 0 && lane == 0) {
    if (init != nullptr) {
      const Agg c0 = B::CarryIn(init, row);
      carry = t == 0 ? c0 : B::Join(c0, carry);
    }
    carry_smem = carry;
  }
  __syncthreads();
  carry = carry_smem;
  if constexpr (kOwn) {
    b.Finish(op, carry, exclusive, x, sh, io);
  } else {
    b.Finish(carry, exclusive, x, sh, load);
  }
  io.Store(out, x);
}

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
