// The GPU steps of repeat_interleave (declared in kernels/impl/repeat_interleave_kernel_impl.h):
// one thread per element for the int-count form; for the tensor form the starts on the scan
// engine (the total, a negative-count and an overflow flag copied to the host in one copy unless
// output_size gives the length), the gather by a binary search of the starts per element, and
// the gradient's sums per slice from the starts: no per-output scratch in either direction (the
// only scratch is the n starts).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/impl/repeat_interleave_kernel_impl.h"
#include "kernels/util/fast_divmod.h"
#include "kernels/util/gpu_launch.cuh"
#include "paddle_ops/core/gpu/gpu_context.h"

namespace phi {
namespace repeat {

template <>
struct Pieces<GPUContext> {
  DenseTensor starts;
};

template <typename T>
void CopyRepeated(const GPUContext& ctx, const funcs::ScanLayout& l, int repeats, const T* x, T* out) {
  const int64_t M = l.length * repeats;
  const funcs::FastDivMod inner(l.inner), rows(M), rep(repeats);
  const int64_t n = l.length;
  funcs::ForEachIndex(ctx, l.outer * M * l.inner, [=] __device__(int64_t k) {
    const int64_t line = inner.Div(k);  // o * M + i
    const int64_t o = rows.Div(line);
    const int64_t i = line - o * M;
    out[k] = x[(o * n + rep.Div(i)) * static_cast<int64_t>(inner.divisor) + (k - line * static_cast<int64_t>(inner.divisor))];
  });
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
funcs::RepeatStartsOp<R> MakeStartsOp(const DenseTensor& repeats, int64_t n, int64_t* starts, int64_t* summary) {
  funcs::RepeatStartsOp<R> op;
  op.repeats = repeats.data<R>();
  op.broadcast = repeats.numel() == 1;
  op.n = n;
  op.starts = starts;
  op.summary = summary;
  return op;
}

// starts = the exclusive cumsum of the counts (the scan engine); with `summary` (3 int64,
// zeroed here) also the negative-count flag, the total and the overflow flag.
template <typename R>
void StartsOf(const GPUContext& ctx, const DenseTensor& repeats, int64_t n, int64_t* starts, int64_t* summary) {
  if (summary) PADDLE_ENFORCE_GPU_SUCCESS(cudaMemsetAsync(summary, 0, 3 * sizeof(int64_t), ctx.stream()));
  funcs::Scan(ctx, funcs::ScanLayout{1, n, 1}, true, false, MakeStartsOp<R>(repeats, n, starts, summary));
}

// The counts are not checked against a given output_size (that would need the copy it saves).
inline int64_t Starts(const GPUContext& ctx, const DenseTensor& repeats, int64_t n, int64_t output_size,
                      Pieces<GPUContext>* p) {
  p->starts = DenseTensor(DataType::INT64, DDim({n}));
  int64_t* starts = ctx.Alloc<int64_t>(&p->starts);
  int64_t M = output_size;
  DenseTensor summary_t(DataType::INT64, DDim({3}));
  int64_t* summary = M < 0 ? ctx.Alloc<int64_t>(&summary_t) : nullptr;
  if (repeats.dtype() == DataType::INT32) {
    StartsOf<int32_t>(ctx, repeats, n, starts, summary);
  } else {
    StartsOf<int64_t>(ctx, repeats, n, starts, summary);
  }
  if (M < 0) {
    int64_t host[3];
    PADDLE_ENFORCE_GPU_SUCCESS(cudaMemcpyAsync(host, summary, sizeof(host), cudaMemcpyDeviceToHost, ctx.stream()));
    PADDLE_ENFORCE_GPU_SUCCESS(cudaStreamSynchronize(ctx.stream()));
    PADDLE_ENFORCE(host[0] == 0, errors::InvalidArgument("repeat_interleave: repeats must be non-negative, but it "
                                                         "holds a negative count"));
    if (host[2] != 0) ThrowRepeatTotalOverflow();
    M = host[1];
  }
  return M;
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
  const SliceRun run{p->starts.data<int64_t>(), l.length, M};
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

// No per-output scratch: each output element finds its source slice by a binary search of the
// starts (the last j with starts[j] <= i: a count of 0 shares its start with the next slice);
// consecutive threads write consecutive elements. An output_size past the true total repeats the
// last slice; a negative count (undetected when output_size is given) still reads inside x.
template <typename T>
void Gather(const GPUContext& ctx, const funcs::ScanLayout& l, int64_t M, funcs::RepeatGatherOp<T> op,
            Pieces<GPUContext>* p) {
  const int64_t n = l.length;
  const int64_t* starts = p->starts.data<int64_t>();
  const T* px = op.x;
  T* po = op.out;
  const funcs::FastDivMod inner(l.inner), rows(M);
  funcs::ForEachIndex(ctx, l.outer * M * l.inner, [=] __device__(int64_t k) {
    const int64_t line = inner.Div(k);  // o * M + i
    const int64_t o = rows.Div(line);
    const int64_t i = line - o * M;
    int64_t lo = 0, hi = n;  // starts[lo] <= i (starts[0] = 0) and the answer is below hi
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (starts[mid] <= i) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    const int64_t d = static_cast<int64_t>(inner.divisor);
    po[k] = px[(o * n + lo) * d + (k - line * d)];
  });
}

}  // namespace repeat
}  // namespace phi
