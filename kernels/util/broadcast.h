// The CPU broadcasting and reduction machinery shared by the elementwise ops, sum/mean and
// their grads. Tensors are contiguous row-major; all indexing is int64_t.
//
//  * BroadcastLayout / ForEachBroadcastRow: walk an output of `out_dims` that N inputs are
//    broadcast to (NumPy rules). Dims are first coalesced (size-1 dims dropped, neighbours
//    with the same broadcast pattern merged), so the callback gets long contiguous rows in
//    which every input advances by 1 or 0 (broadcast) per element.
//  * ReduceSumCpu: sums a contiguous tensor over a set of dims (sum, mean, and the
//    "reduce a gradient to an input's shape" of broadcasting grads, BroadcastReduceMask).
//
// Results never depend on the thread count: work is split into fixed-size pieces and every
// output element is accumulated by one thread in a fixed order (docs/spec.md: bitwise reproducible).
// The callbacks may throw: each parallel loop runs its body through an OmpExceptionKeeper and
// rethrows after the region (an exception leaving an OpenMP region is std::terminate).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "paddle_ops/common/ddim.h"
#include "paddle_ops/common/enforce.h"
#include "paddle_ops/common/macros.h"
#include "kernels/util/omp_exception.h"
#include "paddle_ops/core/cpu_threads.h"  // every parallel loop takes its count there

namespace phi {
namespace funcs {

// Below this many elements a kernel runs on one thread.
constexpr int64_t kParallelMinElements = 32768;
// Fixed piece size of the parallel loops (independent of the thread count).
constexpr int64_t kParallelChunk = 16384;

// fn(begin, end) over [0, n) in fixed chunks, in parallel when n is large.
template <typename Fn>
void ParallelForChunks(int64_t n, Fn fn) {
  if (n <= 0) return;
  const int64_t chunks = (n + kParallelChunk - 1) / kParallelChunk;
  OmpExceptionKeeper keep;
#pragma omp parallel for num_threads(CpuNumThreads()) schedule(static) if (n > kParallelMinElements && chunks > 1)
  for (int64_t c = 0; c < chunks; ++c) {
    keep.Run([&] {
      const int64_t b = c * kParallelChunk;
      fn(b, std::min(n, b + kParallelChunk));
    });
  }
  keep.Rethrow();
}

// ---- broadcasting ---------------------------------------------------------------------

template <int N>
struct BroadcastLayout {
  int rank = 0;  // coalesced rank; 0 means a single element
  int64_t numel = 1;
  int64_t dims[DDim::kMaxRank] = {0};
  int64_t strides[N][DDim::kMaxRank] = {{0}};  // element strides; 0 along broadcast dims
};

// Layout of N contiguous inputs broadcast to `out_dims` (each input's dims aligned to the
// right, as NumPy). Throws InvalidArgument if an input does not broadcast to out_dims.
template <int N>
BroadcastLayout<N> MakeBroadcastLayout(const DDim& out_dims, const std::array<DDim, N>& in_dims) {
  BroadcastLayout<N> l;
  const int r = out_dims.size();
  l.numel = product(out_dims);
  for (int k = 0; k < N; ++k) {
    PADDLE_ENFORCE(in_dims[k].size() <= r,
                   errors::InvalidArgument("cannot broadcast a tensor of shape %s to shape %s",
                                           in_dims[k].to_str(), out_dims.to_str()));
  }
  struct Dim {
    int64_t size;
    bool bcast[N];
  };
  std::vector<Dim> ds;
  for (int i = 0; i < r; ++i) {
    Dim d;
    d.size = out_dims[i];
    for (int k = 0; k < N; ++k) {
      const int ik = in_dims[k].size() - r + i;
      const int64_t s = ik >= 0 ? in_dims[k][ik] : 1;
      PADDLE_ENFORCE(s == d.size || s == 1,
                     errors::InvalidArgument("cannot broadcast a tensor of shape %s to shape %s",
                                             in_dims[k].to_str(), out_dims.to_str()));
      d.bcast[k] = s != d.size;
    }
    if (d.size == 1) continue;  // contributes nothing to any offset
    if (!ds.empty() && std::equal(d.bcast, d.bcast + N, ds.back().bcast)) {
      ds.back().size *= d.size;
    } else {
      ds.push_back(d);
    }
  }
  l.rank = static_cast<int>(ds.size());
  int64_t run[N];
  std::fill(run, run + N, int64_t{1});
  for (int i = l.rank - 1; i >= 0; --i) {
    l.dims[i] = ds[i].size;
    for (int k = 0; k < N; ++k) {
      l.strides[k][i] = ds[i].bcast[k] ? 0 : run[k];
      if (!ds[i].bcast[k]) run[k] *= ds[i].size;
    }
  }
  return l;
}

// Offset into input `which` of output element k (host or device; the GPU kernels index
// element by element with it).
template <int N>
HOSTDEVICE inline int64_t BroadcastOffset(const BroadcastLayout<N>& l, int which, int64_t k) {
  int64_t off = 0;
  for (int d = l.rank - 1; d >= 0; --d) {
    off += (k % l.dims[d]) * l.strides[which][d];
    k /= l.dims[d];
  }
  return off;
}

// Calls fn(out_offset, len, in_offset[N], in_step[N]) for contiguous runs of the output:
// output elements out_offset .. out_offset+len-1 read input k at in_offset[k] + i*in_step[k]
// (in_step is 1, or 0 where input k is broadcast along the run). Runs are disjoint and may
// be handled in parallel.
template <int N, typename RowFn>
void ForEachBroadcastRow(const BroadcastLayout<N>& l, RowFn fn) {
  if (l.numel == 0) return;
  int64_t offs[N], steps[N];
  if (l.rank == 0) {
    std::fill(offs, offs + N, int64_t{0});
    std::fill(steps, steps + N, int64_t{0});
    fn(int64_t{0}, int64_t{1}, static_cast<const int64_t*>(offs), static_cast<const int64_t*>(steps));
    return;
  }
  const int last = l.rank - 1;
  const int64_t inner = l.dims[last];
  const int64_t rows = l.numel / inner;
  const int64_t pieces = (inner + kParallelChunk - 1) / kParallelChunk;  // per row
  const int64_t tasks = rows * pieces;
  OmpExceptionKeeper keep;
#pragma omp parallel for num_threads(CpuNumThreads()) schedule(static) if (l.numel > kParallelMinElements && tasks > 1)
  for (int64_t task = 0; task < tasks; ++task) keep.Run([&] {
    const int64_t row = task / pieces;
    const int64_t b = (task % pieces) * kParallelChunk;
    const int64_t len = std::min(inner - b, kParallelChunk);
    int64_t off[N], step[N];
    for (int k = 0; k < N; ++k) {
      step[k] = l.strides[k][last];
      off[k] = b * step[k];
    }
    int64_t rem = row;
    for (int d = last - 1; d >= 0 && rem > 0; --d) {
      const int64_t c = rem % l.dims[d];
      rem /= l.dims[d];
      for (int k = 0; k < N; ++k) off[k] += c * l.strides[k][d];
    }
    fn(row * inner + b, len, static_cast<const int64_t*>(off), static_cast<const int64_t*>(step));
  });
  keep.Rethrow();
}

// ---- reduction --------------------------------------------------------------------------

// Which dims of `src_dims` must be summed to bring a tensor of that shape back to
// `target_dims`, the shape of an input that was broadcast to src_dims.
inline std::vector<bool> BroadcastReduceMask(const DDim& src_dims, const DDim& target_dims) {
  const int r = src_dims.size();
  PADDLE_ENFORCE(target_dims.size() <= r,
                 errors::InvalidArgument("cannot reduce a gradient of shape %s to shape %s",
                                         src_dims.to_str(), target_dims.to_str()));
  std::vector<bool> mask(r);
  for (int i = 0; i < r; ++i) {
    const int it = target_dims.size() - r + i;
    const int64_t t = it >= 0 ? target_dims[it] : 1;
    PADDLE_ENFORCE(t == src_dims[i] || t == 1,
                   errors::InvalidArgument("cannot reduce a gradient of shape %s to shape %s",
                                           src_dims.to_str(), target_dims.to_str()));
    mask[i] = t != src_dims[i];
  }
  return mask;
}

// The dims of a tensor of `dims` that sum/mean over `axes` reduce (empty axes: all of them).
// Axes were validated by InferMeta; a 0-D tensor accepts 0 and -1 and reduces nothing.
inline std::vector<bool> ReduceAxesMask(const DDim& dims, const std::vector<int64_t>& axes) {
  const int rank = dims.size();
  std::vector<bool> mask(rank, axes.empty());
  const int r = rank == 0 ? 1 : rank;
  for (int64_t a : axes) {
    PADDLE_ENFORCE(a >= -r && a < r,
                   errors::OutOfRange("axis is out of range for a %d-D tensor: expected it to be in "
                                      "range of [%d, %d), but got %d",
                                      rank, -r, r, a));
    if (rank > 0) mask[a < 0 ? a + rank : a] = true;
  }
  return mask;
}

// The view of a sum/mean gradient: out_grad broadcast back over x's reduced axes. `count`
// is the number of elements each output summed (mean divides by it). Checks that out_grad
// has the reduction's size.
struct ReducedGradView {
  BroadcastLayout<1> layout;
  int64_t count = 1;
};
inline ReducedGradView MakeReducedGradView(const DDim& x_dims, const std::vector<int64_t>& axes,
                                           const DDim& out_grad_dims) {
  const std::vector<bool> mask = ReduceAxesMask(x_dims, axes);
  DDim kept = x_dims;
  ReducedGradView v;
  for (int i = 0; i < x_dims.size(); ++i) {
    if (mask[i]) {
      v.count *= x_dims[i];
      kept[i] = 1;
    }
  }
  PADDLE_ENFORCE_EQ(product(kept), product(out_grad_dims),
                    errors::InvalidArgument("out_grad of shape %s does not match the reduction of "
                                            "x of shape %s",
                                            out_grad_dims.to_str(), x_dims.to_str()));
  v.layout = MakeBroadcastLayout<1>(x_dims, {kept});
  return v;
}

namespace detail {
// Walks the offsets of a set of (dim, stride) pairs in row-major order without divisions.
struct Odometer {
  int n = 0;
  int64_t dims[DDim::kMaxRank];
  int64_t strides[DDim::kMaxRank];
  int64_t count[DDim::kMaxRank];
  int64_t offset = 0;
  void Reset() {
    std::fill(count, count + n, int64_t{0});
    offset = 0;
  }
  void Next() {
    for (int i = n - 1; i >= 0; --i) {
      offset += strides[i];
      if (++count[i] < dims[i]) return;
      offset -= strides[i] * dims[i];
      count[i] = 0;
    }
  }
};
}  // namespace detail

// Sums the contiguous tensor of `in_dims` over the dims flagged in `reduce`; the result is
// the contiguous tensor of the unflagged dims (in order), which is also the layout of the
// keepdim shape. The caller supplies the element access, so this serves every dtype:
//   load(i) -> Acc             element i converted to the accumulator type
//   segment(begin, n) -> Acc   sum of elements begin .. begin+n-1 (may use Eigen)
//   store(j, Acc)              writes output element j (called exactly once per j)
// An empty reduction (a zero-size reduced dim) stores Acc(0).
template <typename Acc, typename LoadFn, typename SegmentFn, typename StoreFn>
void ReduceSumCpu(const DDim& in_dims, const std::vector<bool>& reduce, LoadFn load,
                  SegmentFn segment, StoreFn store) {
  const int rank = in_dims.size();
  int64_t out_numel = 1;
  for (int i = 0; i < rank; ++i)
    if (!reduce[i]) out_numel *= in_dims[i];
  const int64_t numel = product(in_dims);
  if (numel == 0) {
    for (int64_t j = 0; j < out_numel; ++j) store(j, Acc(0));
    return;
  }
  // Coalesce: drop size-1 dims, merge neighbours of the same kind.
  std::vector<int64_t> d;
  std::vector<bool> red;
  for (int i = 0; i < rank; ++i) {
    if (in_dims[i] == 1) continue;
    if (!d.empty() && red.back() == reduce[i]) {
      d.back() *= in_dims[i];
    } else {
      d.push_back(in_dims[i]);
      red.push_back(reduce[i]);
    }
  }
  const int k = static_cast<int>(d.size());
  if (k == 0) {  // a single element
    store(0, load(0));
    return;
  }
  if (k == 1 && !red[0]) {  // nothing to reduce
    ParallelForChunks(numel, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) store(j, load(j));
    });
    return;
  }
  if (k == 1) {  // everything reduced: fixed pieces summed in parallel, combined in order
    const int64_t pieces = (numel + kParallelChunk - 1) / kParallelChunk;
    std::vector<Acc> partial(pieces);
    OmpExceptionKeeper keep;
#pragma omp parallel for num_threads(CpuNumThreads()) schedule(static) if (numel > kParallelMinElements && pieces > 1)
    for (int64_t p = 0; p < pieces; ++p) keep.Run([&] {
      const int64_t b = p * kParallelChunk;
      partial[p] = segment(b, std::min(numel, b + kParallelChunk) - b);
    });
    keep.Rethrow();
    Acc total = Acc(0);
    for (const Acc& v : partial) total += v;
    store(0, total);
    return;
  }

  // General case: the outer dims split into kept (KO) and reduced (RO) ones; the innermost
  // dim is one or the other.
  std::vector<int64_t> stride(k);
  stride[k - 1] = 1;
  for (int i = k - 2; i >= 0; --i) stride[i] = stride[i + 1] * d[i + 1];
  detail::Odometer ro_base;
  int n_ko = 0;
  int64_t ko_dims[DDim::kMaxRank], ko_strides[DDim::kMaxRank];
  int64_t ko_numel = 1;
  for (int i = 0; i < k - 1; ++i) {
    if (red[i]) {
      ro_base.dims[ro_base.n] = d[i];
      ro_base.strides[ro_base.n] = stride[i];
      ++ro_base.n;
    } else {
      ko_dims[n_ko] = d[i];
      ko_strides[n_ko] = stride[i];
      ++n_ko;
      ko_numel *= d[i];
    }
  }
  int64_t ro_numel = 1;
  for (int i = 0; i < ro_base.n; ++i) ro_numel *= ro_base.dims[i];
  auto ko_offset = [&](int64_t o) {
    int64_t off = 0;
    for (int i = n_ko - 1; i >= 0 && o > 0; --i) {
      off += (o % ko_dims[i]) * ko_strides[i];
      o /= ko_dims[i];
    }
    return off;
  };
  const int64_t inner = d[k - 1];

  if (red[k - 1]) {
    // Innermost reduced: each output sums ro_numel contiguous segments of `inner`.
    OmpExceptionKeeper keep;
#pragma omp parallel for num_threads(CpuNumThreads()) schedule(static) if (numel > kParallelMinElements && ko_numel > 1)
    for (int64_t o = 0; o < ko_numel; ++o) keep.Run([&] {
      detail::Odometer ro = ro_base;
      ro.Reset();
      const int64_t base = ko_offset(o);
      Acc acc = Acc(0);
      for (int64_t r = 0; r < ro_numel; ++r, ro.Next()) acc += segment(base + ro.offset, inner);
      store(o, acc);
    });
    keep.Rethrow();
    return;
  }

  // Innermost kept: accumulate tiles of contiguous outputs row by row (walks memory in order
  // and vectorizes across the tile).
  constexpr int64_t kTile = 256;
  const int64_t tiles = (inner + kTile - 1) / kTile;
  const int64_t tasks = ko_numel * tiles;
  OmpExceptionKeeper keep;
#pragma omp parallel for num_threads(CpuNumThreads()) schedule(static) if (numel > kParallelMinElements && tasks > 1)
  for (int64_t task = 0; task < tasks; ++task) keep.Run([&] {
    const int64_t o = task / tiles;
    const int64_t t0 = (task % tiles) * kTile;
    const int64_t len = std::min(kTile, inner - t0);
    Acc acc[kTile];
    for (int64_t t = 0; t < len; ++t) acc[t] = Acc(0);
    detail::Odometer ro = ro_base;
    ro.Reset();
    const int64_t base = ko_offset(o) + t0;
    for (int64_t r = 0; r < ro_numel; ++r, ro.Next()) {
      const int64_t p = base + ro.offset;
#pragma omp simd
      for (int64_t t = 0; t < len; ++t) acc[t] += load(p + t);
    }
    const int64_t out0 = o * inner + t0;
    for (int64_t t = 0; t < len; ++t) store(out0 + t, acc[t]);
  });
  keep.Rethrow();
}

}  // namespace funcs
}  // namespace phi
