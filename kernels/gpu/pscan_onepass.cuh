// pscan's one-pass column scan for a gate broadcast over D (a [N, T], x [N, T, D], the seed's
// shape): every element of x is read from memory once and every output written once. A block
// of kCols threads takes a tile, kCols columns of one n by kSteps steps of T (a thread per
// column, the chunk's values and gates in shared memory), folds the chunk's aggregate,
// publishes the block of the deterministic tree that it completes, reads the blocks before it
// and scans its shared-memory values from that carry-in (the decomposition and why it is
// deterministic: pscan_onepass_plan.h). The engine's three column phases read x twice (a
// segment's total, then its outputs), the second time from DRAM (docs/benchmarks.md). Two
// kernels: a block per tile, and persistent blocks with two tiles in flight each.
//
// Not the library's default: taken by the column launches only when built with
// -DPO_PSCAN_ONEPASS=1 (pscan_tiles.cuh); the pscan harness times it beside the current tiles.
// Status publication: each thread writes its column's B (thread 0 the block's A), fences,
// the block synchronizes, thread 0 sets the flag (release); readers poll flags relaxed, then
// one acquire fence, then read the aggregates from L2.
#pragma once

#include <cuda/atomic>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "kernels/gpu/pscan_onepass_plan.h"
#include "kernels/impl/pscan_ops.h"
#include "kernels/util/gpu_cp_async.cuh"
#include "kernels/util/gpu_smem_optin.cuh"

#ifndef PO_ONEPASS_BATCH
#define PO_ONEPASS_BATCH 4
#endif

namespace phi {
namespace funcs {
namespace pscan_onepass {

// Published blocks of every group: A[slot], B[slot * cols + column], flag[slot], and the
// tickets; the launcher zeroes the flags and the ticket.
struct Status {
  float* A;
  float* B;
  int* flag;
  unsigned long long* ticket;
};

struct StatusLayout {
  Plan plan;
  static int64_t Align(int64_t b) { return (b + 255) / 256 * 256; }
  int64_t Slots() const { return plan.Groups() * plan.SlotsPerGroup(); }
  int64_t ZeroBytes() const { return Align(8 + Slots() * int64_t{sizeof(int)}); }
  int64_t ABytes() const { return Align(Slots() * int64_t{sizeof(float)}); }
  int64_t Bytes() const { return ZeroBytes() + ABytes() + Align(Slots() * plan.cols * int64_t{sizeof(float)}); }
  Status In(void* p) const {
    char* b = static_cast<char*>(p);
    Status s;
    s.ticket = reinterpret_cast<unsigned long long*>(b);
    s.flag = reinterpret_cast<int*>(b + 8);
    s.A = reinterpret_cast<float*>(b + ZeroBytes());
    s.B = reinterpret_cast<float*>(b + ZeroBytes() + ABytes());
    return s;
  }
};

// Polls the flags of chunk i's blocks for the bits of `mask` until all are set (relaxed loads,
// four in flight), then one acquire fence.
__device__ inline void WaitBlocks(const Plan& plan, const Status& st, int64_t group, int64_t i, uint64_t mask) {
  unsigned ns = 32;
  while (mask != 0) {
    uint64_t pending = 0, m = mask;
    while (m != 0) {
      int f[4], b[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        b[q] = -1;
        f[q] = 1;
        if (m != 0) {
          b[q] = TopBit(m);
          m &= ~(uint64_t{1} << b[q]);
          cuda::atomic_ref<int, cuda::thread_scope_device> flag(st.flag[plan.Slot(group, b[q], (i >> b[q]) - 1)]);
          f[q] = flag.load(cuda::memory_order_relaxed);
        }
      }
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        if (f[q] == 0) pending |= uint64_t{1} << b[q];
      }
    }
    mask = pending;
    if (mask != 0) {
      __nanosleep(ns);
      ns = ns < 256 ? 2 * ns : ns;
    }
  }
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
}

// The chunk's values in shared memory, [kSteps][kCols] of T (column fastest: no bank
// conflicts): 4-byte elements through cp.async (every load in flight at once, none staged in
// registers), others through registers. Held in registers instead, the chunk's values and the
// gates that the compiler hoists beside them needed 104 registers (spills at 64).
template <typename T>
__device__ inline void CopyToShared(T* dst, const T* src) {
  if constexpr (sizeof(T) == 4) {
    CpAsync<4>(dst, src);
  } else {
    *dst = *src;
  }
}

template <int kSteps, int kCols, typename T>
constexpr int SharedBytes() {
  return kSteps * kCols * static_cast<int>(sizeof(T));
}

// One tile's work: Issue() starts copying its values and gates to shared memory, Finish()
// (after the copies are complete and a barrier) folds, publishes, looks back and stores. Every
// thread of the block calls both with the same tile.
template <int kSteps, int kCols, typename T>
struct Tile {
  using Op = PscanOp<T, float>;
  using State = typename Op::State;
  static_assert(kCols >= kSteps, "a thread loads each gate");
  const Op& op;
  const Plan& plan;
  const Status& st;
  int64_t chunk, group, n, off0;
  int ns, stride;
  bool active, reverse;

  // tile: chunk, group and n (thread 0's divisions, shared).
  __device__ Tile(const Op& o, const Plan& p, const Status& s, bool rev, const int64_t* tile)
      : op(o), plan(p), st(s), chunk(tile[0]), group(tile[1]), n(tile[2]), reverse(rev) {
    const int64_t T_ = plan.length, D = plan.inner;
    const int64_t d = (group - n * plan.ColBlocks()) * kCols + threadIdx.x;
    active = d < D;
    const int64_t s0 = chunk * kSteps;
    ns = static_cast<int>(T_ - s0 < kSteps ? T_ - s0 : kSteps);
    stride = static_cast<int>(reverse ? -D : D);  // kSteps * D < 2^31 (Launch)
    off0 = (n * T_ + T0()) * D + d;               // the chunk's first element in this thread's column
  }
  __device__ int64_t T0() const { return reverse ? plan.length - 1 - chunk * kSteps : chunk * kSteps; }

  // The chunk's values to xs [kSteps][kCols] and its gates. (Steps past the chunk's end and
  // inactive columns are left unset: never stored, and an inactive column's aggregate is
  // never read.)
  __device__ void Issue(T* xs, float* gates) const {
    if (active) {
      const T* px = op.x + off0;
      T* dst = xs + threadIdx.x;
#pragma unroll
      for (int k = 0; k < kSteps; ++k) {
        if (k < ns) CopyToShared(dst, px);
        px += stride;
        dst += kCols;
      }
    }
    if (static_cast<int>(threadIdx.x) < ns) {
      const int64_t t = reverse ? T0() - threadIdx.x : T0() + threadIdx.x;
      gates[threadIdx.x] = static_cast<float>(op.a[n * plan.length + t]);
    }
  }

  __device__ void Finish(const T* xs, const float* gates) const {
    // The line's first step: gate 0, the initial state folded in (op.Load); every thread gets
    // gate 0, so that the chunk's A is the same in every column.
    State first{0.f, 0.f};
    if (chunk == 0 && active) first = op.Load(ScanPos{off0, off0 - stride, true});
    const auto item = [&](int k) {
      return chunk == 0 && k == 0 ? first : State{gates[k], static_cast<float>(xs[k * kCols + threadIdx.x])};
    };
    const State agg = FoldChunk<kSteps>(op, ns, item);

    const auto get = [&](int level, int64_t k) {
      const int64_t slot = plan.Slot(group, level, k);
      return State{__ldcg(st.A + slot), __ldcg(st.B + slot * kCols + threadIdx.x)};
    };
    State s_low = op.Identity();
    if (LowBits(chunk) != 0) {
      WaitBlocks(plan, st, group, chunk, LowBits(chunk));
      s_low = FoldLow<PO_ONEPASS_BATCH>(op, chunk, get);
    }
    if (chunk + 1 < plan.Chunks()) {  // chunk + 1 reads this block
      const State v = BlockValue(op, chunk, s_low, agg);
      const int64_t slot = plan.Slot(group, TrailingOnes(chunk), chunk >> TrailingOnes(chunk));
      st.B[slot * kCols + threadIdx.x] = v.b;
      if (threadIdx.x == 0) st.A[slot] = v.a;
      __threadfence();
      __syncthreads();
      if (threadIdx.x == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> flag(st.flag[slot]);
        flag.store(1, cuda::memory_order_release);
      }
    }
    State p_high = op.Identity();
    if (HighBits(chunk) != 0) {
      WaitBlocks(plan, st, group, chunk, HighBits(chunk));
      p_high = FoldHigh<PO_ONEPASS_BATCH>(op, chunk, get);
    }
    State carry = CarryIn(op, chunk, p_high, s_low);
    if (!active) return;
    T* po = op.out + off0;
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
      if (k < ns) {
        carry = op.Combine(carry, item(k));
        po[k * stride] = static_cast<T>(carry.b);
      }
    }
  }
};

// Thread 0: a ticket's chunk, group and n into tile[0..2].
__device__ inline void TileInfo(const Plan& plan, int64_t ticket, int64_t* tile) {
  plan.TileOf(ticket, &tile[0], &tile[1]);
  tile[2] = tile[1] / plan.ColBlocks();
}

// A block per tile (the grid: every tile).
template <int kSteps, int kCols, int kMinBlocks, typename T>
__global__ void __launch_bounds__(kCols, kMinBlocks)
    PscanOnePassColumnKernel(PscanOp<T, float> op, Plan plan, bool reverse, Status st) {
  extern __shared__ uint4 smem_raw[];
  T* xs = reinterpret_cast<T*>(smem_raw);  // [kSteps][kCols]
  __shared__ float gates[kSteps];
  __shared__ int64_t tile[3];
  if (threadIdx.x == 0) TileInfo(plan, static_cast<int64_t>(atomicAdd(st.ticket, 1ull)), tile);
  __syncthreads();
  const Tile<kSteps, kCols, T> w(op, plan, st, reverse, tile);
  w.Issue(xs, gates);
  CpAsyncCommit();
  CpAsyncWait<0>();
  __syncthreads();
  w.Finish(xs, gates);
}

// Persistent blocks (the grid: the blocks the GPU holds at once), two tiles in flight a block:
// the next tile's copies are issued before this tile's look-back, so the block's loads keep
// going while it waits; its ticket is taken one tile ahead. Progress: a block holds at most
// two tickets, t < t', and finishes t (which waits only on smaller tickets) before t'; the
// smallest unfinished ticket is always some block's current tile.
template <int kSteps, int kCols, int kMinBlocks, typename T>
__global__ void __launch_bounds__(kCols, kMinBlocks)
    PscanOnePassPersistentKernel(PscanOp<T, float> op, Plan plan, bool reverse, Status st) {
  extern __shared__ uint4 smem_raw[];
  T* xs = reinterpret_cast<T*>(smem_raw);  // [2][kSteps][kCols]
  __shared__ float gates[2][kSteps];
  __shared__ int64_t tile[2][3];
  __shared__ int64_t ticket_first, ticket_next;
  const int64_t tiles = plan.Tiles();
  if (threadIdx.x == 0) {
    ticket_first = static_cast<int64_t>(atomicAdd(st.ticket, 1ull));
    ticket_next = static_cast<int64_t>(atomicAdd(st.ticket, 1ull));
    if (ticket_first < tiles) TileInfo(plan, ticket_first, tile[0]);
  }
  __syncthreads();
  if (ticket_first >= tiles) return;
  int64_t next = ticket_next;
  Tile<kSteps, kCols, T>(op, plan, st, reverse, tile[0]).Issue(xs, gates[0]);
  CpAsyncCommit();
  for (int b = 0;; b ^= 1) {
    // The next tile's geometry and copies, then this tile's copies complete.
    if (threadIdx.x == 0 && next < tiles) TileInfo(plan, next, tile[b ^ 1]);
    __syncthreads();
    if (next < tiles) {
      Tile<kSteps, kCols, T>(op, plan, st, reverse, tile[b ^ 1]).Issue(xs + (b ^ 1) * kSteps * kCols, gates[b ^ 1]);
    }
    CpAsyncCommit();
    CpAsyncWait<1>();
    unsigned long long after = 0;
    if (threadIdx.x == 0 && next < tiles) after = atomicAdd(st.ticket, 1ull);
    __syncthreads();
    Tile<kSteps, kCols, T>(op, plan, st, reverse, tile[b]).Finish(xs + b * kSteps * kCols, gates[b]);
    if (threadIdx.x == 0) ticket_next = static_cast<int64_t>(after);
    __syncthreads();  // every thread is done with buffer b before it is refilled
    if (next >= tiles) return;
    next = ticket_next;
  }
}

// Whether the one pass applies: an inclusive scan with the gate broadcast over D. (The chunk's
// single A needs the broadcast; exclusive pscans do not exist.)
template <typename T>
inline bool Applies(const PscanOp<T, float>& op, bool exclusive) {
  return op.index.gate_per_row && !exclusive;
}

// Launches the one pass over x [outer, length, inner]; false (nothing launched) where it does
// not apply or the grid would not fit. kPersistent: PscanOnePassPersistentKernel.
template <int kSteps, int kCols, int kMinBlocks, bool kPersistent = false, typename T, typename Scratch>
bool Launch(cudaStream_t stream, Scratch& scratch, int64_t outer, int64_t length, int64_t inner, bool reverse,
            bool exclusive, const PscanOp<T, float>& op) {
  if (!Applies(op, exclusive)) return false;
  const Plan plan(outer, length, inner, kSteps, kCols);
  if (plan.Tiles() == 0) return true;
  if (plan.Tiles() > INT_MAX || int64_t{kSteps} * inner >= INT_MAX) return false;
  const StatusLayout layout{plan};
  void* p = scratch(layout.Bytes());
  PADDLE_ENFORCE_GPU_SUCCESS(cudaMemsetAsync(p, 0, layout.ZeroBytes(), stream));
  constexpr int kShared = SharedBytes<kSteps, kCols, T>() * (kPersistent ? 2 : 1);
  const auto kernel = kPersistent ? PscanOnePassPersistentKernel<kSteps, kCols, kMinBlocks, T>
                                  : PscanOnePassColumnKernel<kSteps, kCols, kMinBlocks, T>;
  AllowDynamicSmem(reinterpret_cast<const void*>(kernel), kShared);
  int64_t blocks = plan.Tiles();
  if (kPersistent) {  // the blocks the GPU holds at once (fewer: still correct, tickets order the work)
    int device = 0, sms = 0, per_sm = 0;
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetDevice(&device));
    PADDLE_ENFORCE_GPU_SUCCESS(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    PADDLE_ENFORCE_GPU_SUCCESS(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kCols, kShared));
    blocks = std::min<int64_t>(blocks, int64_t{std::max(per_sm, 1)} * sms);
  }
  kernel<<<static_cast<unsigned>(blocks), kCols, kShared, stream>>>(op, plan, reverse, layout.In(p));
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  return true;
}

}  // namespace pscan_onepass
}  // namespace funcs
}  // namespace phi
