// The GPU scan engine's single pass over memory for rows cut into segments (few long rows,
// 1-D tensors): each segment (a "tile") reads its elements once from memory,
// publishes its aggregate, learns what lies before it from the tiles before it (a look-back,
// as CUB's decoupled look-back), and rescans its elements, which are then still in L1 or L2,
// from that carry. Kernels of scan_kernel.cuh's layer; launched by scan_launch.cuh.
//
// Deterministic, unlike CUB's float scans (whose look-back folds whatever run of aggregates it
// finds published, so the parenthesization depends on timing): here the prefix before tile i of
// a line is a fixed expression of i. The tile aggregates A_t are the leaves of a binary tree of
// aligned blocks, B_0[t] = A_t and B_b[k] = B_{b-1}[2k] (+) B_{b-1}[2k+1] (tiles [k 2^b, (k+1) 2^b)),
// and the prefix before tile i is the left fold, from the line's carry-in, of the blocks that the
// binary digits of i cut [0, i) into, largest first (i = 11: [0, 8), [8, 10), [10, 11)). The
// last tile of a block computes the block's aggregate (waiting for its left half, published by
// an earlier tile) right after its own; a tile reads at most log2(tiles) blocks, all published by
// earlier tiles, in parallel, one per lane, and folds them. Accuracy is a tree's.
//
// Tiles are taken in order of a ticket counter (an atomic per block, not blockIdx), so a tile
// only ever waits on tiles whose blocks already run: no deadlock, whatever the scheduler does.
// `init` is a carry-in per line (an initial state; null for none): the sequence-parallel scans
// start a shard from the carry of the ranks before it.
//
// Columns (scan_columns.cuh) use the same tree with a block of threads per tile: a tile there
// covers `width` adjacent lines, so each block aggregate is `width` states (one per line) under
// one flag, published by the whole thread block (PublishUpBlock) and read back per line
// (BlockLookback).
#pragma once

#include <cub/util_ptx.cuh>
#include <cuda/atomic>

#include <cstdint>

#include "kernels/funcs/gpu/scan_kernel.cuh"

namespace phi {
namespace funcs {
namespace scan_gpu {

// The block aggregates of every line, in scratch memory the launcher zeroes (flags and ticket).
// A line of n tiles has n >> b complete blocks at level b; they lie at Slot(line, b, k).
template <typename State>
struct TileStatus {
  State* block;                // [lines * per_line * width] block aggregates
  int* flag;                   // [lines * per_line] 1 once the aggregate is published
  unsigned long long* ticket;  // the next block's ticket
  int64_t n;                   // tiles per line
  int64_t per_line;            // blocks per line, all levels
  int64_t width;               // states per block aggregate: 1 for rows, a column tile's lines

  static HOSTDEVICE int64_t BlocksPerLine(int64_t n) {
    int64_t total = 0;
    for (int64_t m = n; m > 0; m >>= 1) total += m;
    return total;
  }
  HOSTDEVICE int64_t Slot(int64_t line, int b, int64_t k) const {
    int64_t off = 0;
    for (int l = 0; l < b; ++l) off += n >> l;
    return line * per_line + off + k;
  }
  __device__ int Flag(int64_t slot) const {
    cuda::atomic_ref<int, cuda::thread_scope_device> f(flag[slot]);
    return f.load(cuda::memory_order_acquire);
  }
  __device__ int FlagRelaxed(int64_t slot) const {
    cuda::atomic_ref<int, cuda::thread_scope_device> f(flag[slot]);
    return f.load(cuda::memory_order_relaxed);
  }
  // Spins until published, then reads it (a block aggregate of one state).
  __device__ State Wait(int64_t slot) const { return WaitAt(slot, 0); }
  __device__ void Publish(int64_t slot, const State& v) const {
    block[slot] = v;
    cuda::atomic_ref<int, cuda::thread_scope_device> f(flag[slot]);
    f.store(1, cuda::memory_order_release);
  }

  // Tile t of `line` has aggregate a: publish it and every block t completes (t is the last
  // tile of a block of 2^b tiles for each of its trailing one bits).
  template <typename Op>
  __device__ void PublishUp(const Op& op, int64_t line, int64_t t, State a) const {
    PublishTree(
        line, t, a, [&](int64_t slot, const State& v) { Publish(slot, v); },
        [&](int64_t slot, const State& x) { return op.Combine(Wait(slot), x); });
  }
  // The walk of PublishUp and PublishUpBlock: publish(slot, v) publishes a block aggregate,
  // fold(slot, x) combines the published block `slot` (to the left) with x.
  template <typename PublishF, typename FoldF>
  __device__ void PublishTree(int64_t line, int64_t t, State a, PublishF publish, FoldF fold) const {
    publish(Slot(line, 0, t), a);
    for (int b = 1; (t >> (b - 1)) & 1; ++b) {
      const int64_t right = t >> (b - 1);  // this tile's block at level b - 1
      a = fold(Slot(line, b - 1, right - 1), a);
      publish(Slot(line, b, t >> b), a);
    }
  }

  // ---- wide blocks (width > 1): every thread of the thread block calls these; thread c < width
  // holds line c of the tile.
  // Line c's state of a published block, once its flag is set; the spin backs off so that
  // waiting warps leave the issue slots and L2 to the warps that scan.
  __device__ State WaitAt(int64_t slot, int c) const {
    for (unsigned ns = 32; Flag(slot) == 0; ns = ns < 256 ? 2 * ns : ns) __nanosleep(ns);
    return block[slot * width + c];
  }
  // Threads c < width store their line's state, then thread 0 sets the flag once the whole
  // thread block has stored (the barrier, then a device-scope fence: cooperative groups' grid
  // barrier's order).
  __device__ void PublishBlock(int64_t slot, int c, const State& v) const {
    if (c < width) block[slot * width + c] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      cuda::atomic_ref<int, cuda::thread_scope_device> f(flag[slot]);
      f.store(1, cuda::memory_order_release);
    }
  }
  // PublishUp for a tile of `width` lines.
  template <typename Op>
  __device__ void PublishUpBlock(const Op& op, int64_t line, int64_t t, State a, int c) const {
    PublishTree(
        line, t, a, [&](int64_t slot, const State& v) { PublishBlock(slot, c, v); },
        [&](int64_t slot, const State& x) { return c < width ? op.Combine(WaitAt(slot, c), x) : x; });
  }
};

// Bytes of scratch for `lines` lines of n tiles, and the TileStatus laid out in it (flags and
// ticket first, so that one memset of ZeroBytes clears them).
template <typename State>
struct TileStatusLayout {
  int64_t lines, n, width = 1;
  static int64_t Align(int64_t b) { return (b + 255) / 256 * 256; }
  int64_t Slots() const { return lines * TileStatus<State>::BlocksPerLine(n); }
  int64_t ZeroBytes() const { return Align(8 + Slots() * int64_t{sizeof(int)}); }
  int64_t Bytes() const { return ZeroBytes() + Align(Slots() * width * int64_t{sizeof(State)}); }
  TileStatus<State> In(void* p) const {
    char* b = static_cast<char*>(p);
    TileStatus<State> s;
    s.ticket = reinterpret_cast<unsigned long long*>(b);
    s.flag = reinterpret_cast<int*>(b + 8);
    s.block = reinterpret_cast<State*>(b + ZeroBytes());
    s.n = n;
    s.per_line = TileStatus<State>::BlocksPerLine(n);
    s.width = width;
    return s;
  }
};

// Zeroed tile status for `lines` lines of nseg tiles (blocks of `width` states).
template <typename State, typename Scratch>
TileStatus<State> MakeTileStatus(cudaStream_t stream, Scratch& scratch, int64_t lines, int64_t nseg,
                                 int64_t width = 1) {
  const TileStatusLayout<State> layout{lines, nseg, width};
  void* p = scratch(layout.Bytes());
  PADDLE_ENFORCE_GPU_SUCCESS(cudaMemsetAsync(p, 0, layout.ZeroBytes(), stream));
  return layout.In(p);
}

// The carry of tile i of `line`: init folded with the blocks the binary digits of i cut [0, i)
// into, largest first (bit b of i set: the block of 2^b tiles before the lower bits, index
// (i >> b) - 1 at level b). A whole warp calls it: lane l finds the l-th set bit from the top
// and waits for that block, all lanes at once; then every lane folds them in order through
// shuffles (every lane returns the same state).
template <typename Op>
__device__ typename Op::State WarpLookback(const Op& op, const TileStatus<typename Op::State>& st, int64_t line,
                                           int64_t i, const typename Op::State& init, int lane) {
  using State = typename Op::State;
  const int nbits = __popcll(static_cast<unsigned long long>(i));
  State mine = op.Identity();
  if (lane < nbits) {
    int b = 63, seen = -1;
    for (; b >= 0; --b) {
      if (((i >> b) & 1) && ++seen == lane) break;
    }
    mine = st.Wait(st.Slot(line, b, (i >> b) - 1));
  }
  State acc = init;
  for (int l = 0; l < nbits; ++l) acc = op.Combine(acc, cub::ShuffleIndex<32>(mine, l, 0xffffffffu));
  return acc;
}

// The same carry for line c of a wide tile (width > 1), from the thread of that line (no
// barrier): the flags of all the blocks are polled together (relaxed loads, then one acquire
// fence), then their states are folded in the same order, largest block first, from `start`
// (the line's carry-in, or the identity).
template <typename Op>
__device__ typename Op::State BlockLookback(const Op& op, const TileStatus<typename Op::State>& st, int64_t line,
                                            int64_t i, int c, const typename Op::State& start) {
  using State = typename Op::State;
  const int top = 63 - __clzll(static_cast<long long>(i));
  for (unsigned ns = 32;; ns = ns < 256 ? 2 * ns : ns) {
    int all = 1;
    for (int b = top; b >= 0; --b) {
      if ((i >> b) & 1) all &= st.FlagRelaxed(st.Slot(line, b, (i >> b) - 1));
    }
    if (all) break;
    __nanosleep(ns);
  }
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
  State acc = start;
  for (int b = top; b >= 0; --b) {
    if ((i >> b) & 1) acc = op.Combine(acc, st.block[st.Slot(line, b, (i >> b) - 1) * st.width + c]);
  }
  return acc;
}

// Rows (inner == 1) cut into nseg segments of seg_len steps: a warp per (row, segment), tiles
// numbered row * nseg + seg, a block taking kThreads / 32 consecutive tiles per ticket.
template <int kItems, typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads, TileMinBlocks<GpuTileScan<Op>>::value)
    OnePassRowKernel(Op op, LineGeometry g, int64_t rows, int64_t nseg, int64_t seg_len,
                     TileStatus<typename Op::State> st, const typename Op::State* init, bool exclusive) {
  using State = typename Op::State;
  __shared__ unsigned long long ticket;
  if (threadIdx.x == 0) ticket = atomicAdd(st.ticket, 1ull);
  __syncthreads();
  const int64_t tile = static_cast<int64_t>(ticket) * (ScanPolicy::kThreads / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (tile >= rows * nseg) return;  // a whole warp leaves together
  const int64_t row = tile / nseg, seg = tile - row * nseg;
  const int64_t s0 = seg * seg_len, s1 = s0 + seg_len < g.length ? s0 + seg_len : g.length;
  const OpLine<Op> line{op, g, g.Base(row)};
  const State start = init ? init[row] : op.Identity();
  State carry = start;
  if (nseg > 1) {
    const State a = GpuTileScan<Op>::template Warp<32, kItems, false>(op, line, s0, s1, op.Identity(), exclusive, lane);
    if (lane == 0) st.PublishUp(op, row, seg, a);
    carry = WarpLookback(op, st, row, seg, start, lane);
  }
  GpuTileScan<Op>::template Warp<32, kItems, true>(op, line, s0, s1, carry, exclusive, lane);
}

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
