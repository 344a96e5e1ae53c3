// The GPU scan engine's staged short rows (inner == 1, a power-of-two length L up to a few
// hundred steps): a block copies a tile of whole rows, contiguous in memory, into shared memory
// with coalesced copies (cp.async: no registers, every copy in flight at once), each thread scans
// a run of K steps of one row sequentially with the op's own thread step (the tile scanner's
// Thread, as the columns use it) over shared memory, and the block copies the tile back out
// coalesced. A row of L <= K steps is one thread's run: its outputs are the op's plain left fold
// (for cumsum the float64 loop spec §2 compares with). Longer rows are split into P = L / K runs
// of consecutive threads: each run's total (the thread step without stores), an exclusive scan of
// the P totals across those lanes in lane order, each run again from its prefix. The combination
// order depends on L alone (deterministic).
//
// The logical warps of RowScanKernel spend a warp scan of the lane totals (log2 W combines and
// shuffles of the whole state) per W * kItems steps, which made short rows instruction bound
// (105 instructions per element for float cumsum at L = 64, issue 29); here a step is the op's
// sequential step plus a shared-memory load and store and the copies' share (33 for float
// cumsum, whose own staged run is an exact float64 loop; docs/benchmarks.md).
//
// Layout in shared memory: the tile in memory order, each run of K steps followed by `pad`
// elements (one 4-byte word; one element for 8-byte types), so that a run's pitch is an odd
// number of words (of 8-byte words for 8-byte types): the 32 threads of a warp, each at the same
// step of its own run, hit 32 different banks, and the copies (consecutive elements across
// lanes) do too. A reverse scan reads its run backwards (the line geometry's direction).
//
// An op takes this path when its tile scanner sets kStagedRows (TileStagedRows): its Load and
// Store must read and write only op.x and op.out at the position's offset (the engine points
// them at the shared tile; both are the same buffer, so Thread must load each chunk of kItems
// steps before storing any of it, as every Thread here does). Other ops keep the logical warps.
// Its tiles may also scan a run themselves (TileStagedRun: StagedRun, which may decline a row)
// and set the run length, the blocks an SM and the longest row staged.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include <cub/warp/warp_scan.cuh>

#include "kernels/funcs/gpu/scan_kernel.cuh"
#include "kernels/util/gpu_cp_async.cuh"

namespace phi {
namespace funcs {
namespace scan_gpu {

// The element type of an op's x (and out).
template <typename Op>
using StagedElem = std::remove_const_t<std::remove_pointer_t<decltype(std::declval<Op>().x)>>;

// How a row of L steps of sizeof(T)-byte elements is staged: K steps a thread (a power of two),
// P = L / K threads a row, 256 / P rows a block, each run padded by `pad` elements.
struct StagedRowsPlan {
  int L = 0, K = 0, P = 0, log2K = 0, pad = 0;
  bool ok = false;
  int Rows() const { return ScanPolicy::kThreads / P; }  // rows per block
  int Pitch() const { return K + pad; }
  int64_t SharedBytes(int elem_bytes) const { return int64_t{ScanPolicy::kThreads} * Pitch() * elem_bytes; }

  // run: the steps a thread where nonzero (the harness sweeps it), else the policy's.
  static StagedRowsPlan For(int64_t length, int elem_bytes, int run = 0) {
    StagedRowsPlan p;
    if (elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8) return p;
    if (length < ScanPolicy::kStagedMinLength || length > ScanPolicy::kStagedMaxLength) return p;
    if ((length & (length - 1)) != 0) return p;  // powers of two only
    p.L = static_cast<int>(length);
    if (run <= 0) run = elem_bytes == 8 ? ScanPolicy::kStagedRun8 : ScanPolicy::kStagedRun;
    p.K = std::min<int>(p.L, run);
    if (p.K < 4) return p;
    p.P = p.L / p.K;
    if (p.P > (elem_bytes == 8 ? ScanPolicy::kStagedMaxRuns8 : ScanPolicy::kStagedMaxRuns)) return p;
    while ((1 << p.log2K) < p.K) ++p.log2K;
    p.pad = elem_bytes == 2 ? 2 : 1;  // one 4-byte word (one 8-byte element)
    p.ok = true;
    return p;
  }
};

// A block per 256 / kP rows; thread t scans run t % kP (in scan order) of row t / kP.
template <int kP, bool kRev, int kItems, typename Op>
__global__ void __launch_bounds__(ScanPolicy::kThreads, TileStagedMinBlocks<GpuTileScan<Op>>::value)
    StagedRowKernel(Op op, int64_t rows, StagedRowsPlan plan, bool exclusive) {
  using T = StagedElem<Op>;
  using State = typename Op::State;
  // Copies of 4 bytes (two 2-byte elements) or one 8-byte element: a run of K >= 4 steps and
  // its pad are whole copies, so a copy never straddles a pad.
  using Unit = std::conditional_t<sizeof(T) == 8, unsigned long long, unsigned>;
  constexpr int kU = static_cast<int>(sizeof(Unit) / sizeof(T));
  extern __shared__ __align__(16) unsigned char staged_smem[];
  T* tile = reinterpret_cast<T*>(staged_smem);
  const int L = plan.L, K = plan.K, log2K = plan.log2K, pad = plan.pad;
  constexpr int kRows = ScanPolicy::kThreads / kP;
  const int64_t r0 = blockIdx.x * int64_t{kRows};
  const int nrows = rows - r0 < kRows ? static_cast<int>(rows - r0) : kRows;
  const int units = nrows * L / kU;
  const int64_t g0 = r0 * L;
  {
    const T* src = op.x + g0;
#pragma unroll 4
    for (int u = threadIdx.x; u < units; u += ScanPolicy::kThreads) {
      const int e = u * kU;
      CpAsync<sizeof(Unit)>(tile + e + (e >> log2K) * pad, src + e);
    }
    CpAsyncWaitAll();
  }
  __syncthreads();
  const int p = static_cast<int>(threadIdx.x) % kP, r = static_cast<int>(threadIdx.x) / kP;
  if (r < nrows) {
    // The run of scan steps [s0, s0 + K) lies at memory run vr of the tile; the line's geometry
    // maps step s to base + s (forward) or base + L - 1 - s (reverse) within it.
    const int vr = r * kP + (kRev ? kP - 1 - p : p);
    const int s0 = p * K;
    const int64_t base = int64_t{vr} * (K + pad) + (kRev ? K - 1 + s0 - (L - 1) : -s0);
    Op sop = op;
    sop.x = tile;
    sop.out = tile;
    const OpLine<Op> line{sop, LineGeometry{L, 1, kRev}, base};
    using Tiles = GpuTileScan<Op>;
    bool done = false;  // the op's own staged run (TileStagedRun), where it takes the row
    if constexpr (TileStagedRun<Tiles>::value) {
      done = Tiles::template StagedRun<kItems, kP>(sop, line, s0, s0 + K, exclusive);
    }
    if (done) {
    } else if constexpr (kP == 1) {
      Tiles::template Thread<kItems, true>(sop, line, 0, L, op.Identity(), exclusive);
    } else {
      const State total = Tiles::template Thread<kItems, false>(sop, line, s0, s0 + K, op.Identity(), exclusive);
      using WarpScanT = cub::WarpScan<State, kP>;
      typename WarpScanT::TempStorage temp;  // empty for the shuffle-based warp scan
      State before, all;
      WarpScanT(temp).ExclusiveScan(total, before, op.Identity(), CombineFn<Op>{op}, all);
      Tiles::template Thread<kItems, true>(sop, line, s0, s0 + K, before, exclusive);
    }
  }
  __syncthreads();
  {
    T* dst = op.out + g0;
#pragma unroll 4
    for (int u = threadIdx.x; u < units; u += ScanPolicy::kThreads) {
      const int e = u * kU;
      *reinterpret_cast<Unit*>(dst + e) = *reinterpret_cast<const Unit*>(tile + e + (e >> log2K) * pad);
    }
  }
}

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
