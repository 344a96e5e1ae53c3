// The GPU steps of repeat_interleave (declared in kernels/impl/repeat_interleave_kernel_impl.h),
// on the kernels of repeat_interleave_tiles.cuh: the int-count form a vectorized copy (a thread
// per 16 bytes of output); the tensor form written from the slices: the counts' sums per tile of
// 2048 slices and their scan (one block, or CUB's device scan from 512 tiles on; the total, a
// negative-count flag and the overflow copied to the host in one 16-byte copy unless
// output_size gives the length), then one pass that scans each tile's counts in the block and
// writes each slice's copies to its run of outputs (no search, no per-output or per-slice
// scratch). The gradient sums each slice's outputs from the starts of the
// scan engine (the only scratch is the n starts).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/gpu/repeat_interleave_tiles.cuh"
#include "kernels/impl/repeat_interleave_kernel_impl.h"
#include "kernels/util/fast_divmod.h"
#include "kernels/util/gpu_launch.cuh"
#include "paddle_ops/core/gpu/gpu_context.h"

namespace phi {
namespace repeat {

// The counts (kept from Starts for the gather), the tile offsets (computed once: by Starts when
// the total is wanted, else by the gather) and the gradient's starts.
template <>
struct Pieces<GPUContext> {
  const DenseTensor* repeats = nullptr;
  int64_t n = 0;
  DenseTensor scratch;              // tiles::OffsetsScratch
  tiles::Offsets offsets{};         // once computed (offsets.incl set)
  DenseTensor starts;               // the gradient's
};

template <typename R>
tiles::Counts<R> CountsOf(const DenseTensor& repeats, int64_t n) {
  return tiles::Counts<R>{repeats.data<R>(), n, repeats.numel() == 1};
}

// The tile offsets of the counts (once).
inline const tiles::Offsets& TileOffsets(const GPUContext& ctx, Pieces<GPUContext>* p) {
  if (p->offsets.incl != nullptr) return p->offsets;
  const tiles::OffsetsScratch sc = tiles::OffsetsScratchFor(p->n);
  p->scratch = DenseTensor(DataType::INT64, DDim({sc.Int64s()}));
  int64_t* scratch = ctx.Alloc<int64_t>(&p->scratch);
  cudaError_t err = cudaSuccess;
  tiles::Offsets off{};
  if (p->repeats->dtype() == DataType::INT32) {
    off = tiles::TileOffsets(ctx.stream(), sc, CountsOf<int32_t>(*p->repeats, p->n), scratch, &err);
  } else {
    off = tiles::TileOffsets(ctx.stream(), sc, CountsOf<int64_t>(*p->repeats, p->n), scratch, &err);
  }
  PADDLE_ENFORCE_GPU_SUCCESS(err);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  p->offsets = off;  // set only once they are launched
  return p->offsets;
}

template <typename T>
void CopyRepeated(const GPUContext& ctx, const funcs::ScanLayout& l, int repeats, const T* x, T* out) {
  tiles::RepeatInt(ctx.stream(), ctx.GetSMCount(), x, out, l.outer, l.length, l.inner, repeats);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

template <typename T>
void SumRepeated(const GPUContext& ctx, const funcs::ScanLayout& l, int repeats, const T* out_grad, T* x_grad) {
  using Acc = typename funcs::FloodGradAcc<T>::type;
  const funcs::FastDivMod inner(l.inner);
  const int64_t n = l.length, M = n * repeats, r = repeats;
  funcs::ForEachIndex(ctx, l.outer * n * l.inner, [=] __device__(int64_t k) {
    const int64_t line = inner.Div(k);  // o * n + j
    const int64_t in = k - line * static_cast<int64_t>(inner.divisor);
    const int64_t o = line / n;
    const int64_t j = line - o * n;
    const T* g = out_grad + (o * M + j * r) * static_cast<int64_t>(inner.divisor) + in;
    Acc acc = Acc(0);
    for (int64_t c = 0; c < r; ++c) acc += static_cast<Acc>(g[c * static_cast<int64_t>(inner.divisor)]);
    x_grad[k] = static_cast<T>(acc);
  });
}

template <typename R>
funcs::RepeatStartsOp<R> MakeStartsOp(const DenseTensor& repeats, int64_t n, int64_t* starts) {
  funcs::RepeatStartsOp<R> op;
  op.repeats = repeats.data<R>();
  op.broadcast = repeats.numel() == 1;
  op.n = n;
  op.starts = starts;
  op.summary = nullptr;
  return op;
}

// The length of the output axis: output_size when given (then the counts are trusted: not
// checked, and a negative count counts as 0), else the total of the counts, copied to the host
// with the negative-count flag (one 16-byte copy and a synchronization).
inline int64_t Starts(const GPUContext& ctx, const DenseTensor& repeats, int64_t n, int64_t output_size,
                      Pieces<GPUContext>* p) {
  p->repeats = &repeats;
  p->n = n;
  if (output_size >= 0) return output_size;
  if (n == 0) return 0;
  const uint64_t* incl = TileOffsets(ctx, p).incl;
  uint64_t host[2];  // the total (2^63: overflowed) and the negative-count flag
  PADDLE_ENFORCE_GPU_SUCCESS(
      cudaMemcpyAsync(host, incl + tiles::TileCount(n) - 1, sizeof(host), cudaMemcpyDeviceToHost, ctx.stream()));
  PADDLE_ENFORCE_GPU_SUCCESS(cudaStreamSynchronize(ctx.stream()));
  PADDLE_ENFORCE(host[1] == 0, errors::InvalidArgument("repeat_interleave: repeats must be non-negative, but it "
                                                       "holds a negative count"));
  if (host[0] >= tiles::kCap) ThrowRepeatTotalOverflow();
  return static_cast<int64_t>(host[0]);
}

// The gradient's starts: the exclusive cumsum of the counts on the scan engine.
inline const int64_t* GradStarts(const GPUContext& ctx, Pieces<GPUContext>* p) {
  p->starts = DenseTensor(DataType::INT64, DDim({p->n}));
  int64_t* starts = ctx.Alloc<int64_t>(&p->starts);
  const funcs::ScanLayout l{1, p->n, 1};
  if (p->repeats->dtype() == DataType::INT32) {
    funcs::Scan(ctx, l, true, false, MakeStartsOp<int32_t>(*p->repeats, p->n, starts));
  } else {
    funcs::Scan(ctx, l, true, false, MakeStartsOp<int64_t>(*p->repeats, p->n, starts));
  }
  return starts;
}

// The output run [b, e) of slice j: from the starts, cut to [0, M) (an unchecked count, given
// output_size, may point past it or be negative; such a run is cut or empty).
struct SliceRun {
  const int64_t* starts;
  int64_t n, M;
  __device__ void Of(int64_t j, int64_t* b, int64_t* e) const {
    const int64_t s = starts[j], t = j + 1 < n ? starts[j + 1] : M;
    *b = s < 0 ? 0 : (s > M ? M : s);
    *e = t < *b ? *b : (t > M ? M : t);
  }
};

// Narrow rows (inner < 32): one warp per slice line (o, j). The warp's lanes form P = 32 / inner
// groups of `inner` lanes; lane (p, k) sums out_grad[o, i, k] over i = b + p, b + p + P, ... (in
// that order), and the first group adds the P partial sums of its k in the order p = 0 .. P-1.
// The order depends only on the run and `inner`: deterministic, no atomics.
template <typename T, typename Acc>
__global__ void SegmentSumNarrowKernel(const T* out_grad, T* x_grad, SliceRun run, int64_t lines, int inner) {
  constexpr int kWarp = 32;
  const int lane = threadIdx.x % kWarp;
  const int groups = kWarp / inner;
  const int p = lane / inner, k = lane % inner;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / kWarp);
  for (int64_t line = blockIdx.x * static_cast<int64_t>(blockDim.x / kWarp) + threadIdx.x / kWarp; line < lines;
       line += warps) {
    const int64_t o = line / run.n, j = line - o * run.n;
    int64_t b, e;
    run.Of(j, &b, &e);
    if (e <= b) continue;  // a zero count: x_grad stays 0 (the same for the whole warp)
    Acc acc = Acc(0);
    if (p < groups) {
      const T* g = out_grad + (o * run.M) * inner + k;
      for (int64_t i = b + p; i < e; i += groups) acc += static_cast<Acc>(g[i * inner]);
    }
    Acc total = Acc(0);
    for (int q = 0; q < groups; ++q) total += __shfl_sync(0xffffffffu, acc, q * inner + k);
    if (p == 0) x_grad[line * inner + k] = static_cast<T>(total);
  }
}

// Each slice's outputs summed (x_grad zeroed by the caller): narrow rows by a warp per slice
// line (above); rows of 32 or more elements by a thread per x_grad element, its run summed from
// the end (consecutive threads read consecutive elements of a row). The scratch is the starts.
template <typename T>
void SegmentSum(const GPUContext& ctx, const DenseTensor&, const funcs::ScanLayout& l, int64_t M, const T* out_grad,
                T* x_grad, Pieces<GPUContext>* p) {
  using Acc = typename funcs::FloodGradAcc<T>::type;
  const SliceRun run{GradStarts(ctx, p), l.length, M};
  const int64_t lines = l.outer * l.length;
  if (l.inner < 32) {
    constexpr int kThreads = 256, kWarpsPerBlock = kThreads / 32;
    const int64_t want = (lines + kWarpsPerBlock - 1) / kWarpsPerBlock;
    const int blocks = static_cast<int>(std::min<int64_t>(want, int64_t{ctx.GetSMCount()} * 32));
    SegmentSumNarrowKernel<T, Acc>
        <<<blocks, kThreads, 0, ctx.stream()>>>(out_grad, x_grad, run, lines, static_cast<int>(l.inner));
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
    return;
  }
  const funcs::FastDivMod inner(l.inner);
  funcs::ForEachIndex(ctx, lines * l.inner, [=] __device__(int64_t idx) {
    const int64_t line = inner.Div(idx);  // o * n + j
    const int64_t d = static_cast<int64_t>(inner.divisor);
    const int64_t o = line / run.n, j = line - o * run.n;
    int64_t b, e;
    run.Of(j, &b, &e);
    if (e <= b) return;
    const T* g = out_grad + o * M * d + (idx - line * d);
    Acc acc = Acc(0);
    for (int64_t i = e - 1; i >= b; --i) acc += static_cast<Acc>(g[i * d]);
    x_grad[idx] = static_cast<T>(acc);
  });
}

// Each slice's copies written to its run of outputs (tiles::Scatter), from the tile offsets; an
// empty axis (only with an output_size past 0) writes zeros.
template <typename T>
void Gather(const GPUContext& ctx, const funcs::ScanLayout& l, int64_t M, funcs::RepeatGatherOp<T> op,
            Pieces<GPUContext>* p) {
  if (l.length == 0) {
    funcs::FillZero(ctx, op.out, l.outer * M * l.inner);
    return;
  }
  const tiles::Offsets& off = TileOffsets(ctx, p);
  if (p->repeats->dtype() == DataType::INT32) {
    tiles::Scatter(ctx.stream(), ctx.GetSMCount(), CountsOf<int32_t>(*p->repeats, p->n), off, op.x, op.out, l.outer,
                   M, l.inner);
  } else {
    tiles::Scatter(ctx.stream(), ctx.GetSMCount(), CountsOf<int64_t>(*p->repeats, p->n), off, op.x, op.out, l.outer,
                   M, l.inner);
  }
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

}  // namespace repeat
}  // namespace phi
