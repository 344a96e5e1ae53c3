// The CPU scan driver: cuts a [outer, length, inner] scan into tasks and chunks, runs them on
// OpenMP threads, and folds chunk totals into carries. It knows nothing of the operator; a
// kernel supplies it:
//
//   struct Kernel {
//     using Carry = ...;                   // the prefix state handed from chunk to chunk
//     using Local = ...;                   // a chunk's own total, from the identity
//     static constexpr int kMaxGroup;      // columns scanned together when inner > 1
//     static constexpr double kReduceCost; // cost of Chunk<false> relative to Chunk<true>
//     Carry CarryIdentity() const;
//     Carry Fold(const Carry& carry, const Local& chunk_total) const;
//     // Steps [s0, s1) of the sequences of `q`: writes the outputs (kStore) from carry[g], and
//     // the chunk totals into local[g] when `local` is not null. Chunk<false> and Chunk<true>
//     // must compute bitwise the same totals.
//     template <bool kStore>
//     void Chunk(const SeqGroup& q, int64_t s0, int64_t s1, const Carry* carry, Local* local) const;
//     // Optional: the carry sequence g of q starts from (a carry-in per line, ScanFrom); without
//     // it, CarryIdentity().
//     Carry CarryStart(const SeqGroup& q, int g) const;
//   };
//
// RunChunkedScan(k, layout, exclusive, reverse) runs the scan; RunChunkedTotals(k, layout,
// reverse, totals) each line's total from the same chunk totals (Chunk<false>).
//
// Strategies (ARCHITECTURE.md, "One scan engine"):
//   * many independent sequences (rows, or groups of up to kMaxGroup adjacent columns when
//     inner > 1): one task each, tasks spread over the threads, each streamed chunk by chunk;
//   * fewer tasks than threads and rows longer than one chunk: three phases per task: thread 0
//     streams the first chunks while the others reduce the rest to chunk totals, one thread
//     folds the totals into carries, then all threads rescan the remaining chunks.
// Either way the carry of chunk c is Fold(...Fold(Fold(identity, total_0), total_1)...,
// total_{c-1}) with the same totals, so results do not depend on the thread count.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/funcs/scan_layout.h"
#include "kernels/util/omp_exception.h"

namespace phi {
namespace funcs {

// G adjacent sequences of one task. Step s of sequence g (s counted in scan order) sits at
// base + (reverse ? length - 1 - s : s) * stride + g.
struct SeqGroup {
  int64_t base;
  int64_t stride;
  int G;
  int64_t length;
  bool reverse;
  bool exclusive;
  int64_t line;  // the line index (outer * inner + column) of sequence 0 of the group
  int64_t Offset(int64_t s) const { return base + (reverse ? length - 1 - s : s) * stride; }
};

namespace scan_detail {

// The carry a sequence starts from: the kernel's CarryStart(q, g) where it has one (a carry-in
// per line, ScanFrom), else its identity.
template <typename K, typename = void>
struct HasCarryStart : std::false_type {};
template <typename K>
struct HasCarryStart<K, std::void_t<decltype(std::declval<const K&>().CarryStart(std::declval<const SeqGroup&>(), 0))>>
    : std::true_type {};
template <typename K>
typename K::Carry StartCarry(const K& k, const SeqGroup& q, int g) {
  if constexpr (HasCarryStart<K>::value) {
    return k.CarryStart(q, g);
  } else {
    return k.CarryIdentity();
  }
}

// Elements below which a scan stays on the calling thread.
constexpr int64_t kMinParallelElements = 1 << 15;

template <typename K>
void StreamTask(const K& k, const SeqGroup& q, int64_t chunk) {
  using Carry = typename K::Carry;
  using Local = typename K::Local;
  Carry carry[K::kMaxGroup];
  Local local[K::kMaxGroup];
  for (int g = 0; g < q.G; ++g) carry[g] = StartCarry(k, q, g);
  for (int64_t s0 = 0; s0 < q.length; s0 += chunk) {
    const int64_t s1 = std::min(q.length, s0 + chunk);
    const bool more = s1 < q.length;
    k.template Chunk<true>(q, s0, s1, carry, more ? local : nullptr);
    if (more) {
      for (int g = 0; g < q.G; ++g) carry[g] = k.Fold(carry[g], local[g]);
    }
  }
}

inline void SplitRange(int64_t begin, int64_t end, int part, int parts, int64_t* b, int64_t* e) {
  const int64_t n = end - begin;
  *b = begin + n * part / parts;
  *e = begin + n * (part + 1) / parts;
}

template <typename K>
void ThreePhaseTask(const K& k, const SeqGroup& q, int64_t chunk, int threads) {
  using Carry = typename K::Carry;
  using Local = typename K::Local;
  const int64_t nchunks = (q.length + chunk - 1) / chunk;
  const int G = q.G;
  std::vector<Local> totals(static_cast<size_t>(nchunks * G));
  std::vector<Carry> carries(static_cast<size_t>((nchunks + 1) * G));
  // Each phase runs through `keep` (no exception leaves the region; every thread still meets
  // the barrier), and the first exception is thrown after it.
  OmpExceptionKeeper keep;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    // Thread 0 streams chunks [0, k0) while the others reduce [k0, n): balanced when
    // k0 = (n - k0) * r / (nt - 1), r the reduce cost relative to a scan.
    const double r = K::kReduceCost;
    const int64_t k0 = nt == 1 ? nchunks
                               : std::max<int64_t>(1, static_cast<int64_t>(nchunks * r / (nt - 1 + r)));
    keep.Run([&] {
      if (t == 0) {
        for (int g = 0; g < G; ++g) carries[g] = StartCarry(k, q, g);
        for (int64_t c = 0; c < k0; ++c) {
          Carry* cin = &carries[c * G];
          Local* tot = &totals[c * G];
          k.template Chunk<true>(q, c * chunk, std::min(q.length, (c + 1) * chunk), cin, tot);
          for (int g = 0; g < G; ++g) carries[(c + 1) * G + g] = k.Fold(cin[g], tot[g]);
        }
      } else {
        int64_t b, e;
        SplitRange(k0, nchunks, t - 1, nt - 1, &b, &e);
        for (int64_t c = b; c < e; ++c) {
          k.template Chunk<false>(q, c * chunk, std::min(q.length, (c + 1) * chunk), nullptr, &totals[c * G]);
        }
      }
    });
#pragma omp barrier
#pragma omp single
    {
      keep.Run([&] {
        for (int64_t c = k0; c + 1 < nchunks; ++c) {
          for (int g = 0; g < G; ++g) carries[(c + 1) * G + g] = k.Fold(carries[c * G + g], totals[c * G + g]);
        }
      });
    }
    keep.Run([&] {
      int64_t b, e;
      SplitRange(k0, nchunks, t, nt, &b, &e);
      for (int64_t c = b; c < e; ++c) {
        k.template Chunk<true>(q, c * chunk, std::min(q.length, (c + 1) * chunk), &carries[c * G], nullptr);
      }
    });
  }
  keep.Rethrow();
}

}  // namespace scan_detail

// Task t of a layout: a group of up to gmax adjacent sequences (gmax = 1 for rows).
inline SeqGroup MakeSeqGroup(const ScanLayout& l, int64_t t, int gmax, bool exclusive, bool reverse) {
  const int64_t groups = (l.inner + gmax - 1) / gmax;
  const int64_t o = t / groups;
  const int64_t c0 = (t % groups) * gmax;
  SeqGroup q;
  q.base = o * l.length * l.inner + c0;
  q.stride = l.inner;
  q.G = static_cast<int>(std::min<int64_t>(gmax, l.inner - c0));
  q.length = l.length;
  q.reverse = reverse;
  q.exclusive = exclusive;
  q.line = o * l.inner + c0;
  return q;
}

template <typename K>
void RunChunkedScan(const K& k, const ScanLayout& l, bool exclusive, bool reverse) {
  if (l.numel() == 0) return;
  const int gmax = l.inner == 1 ? 1 : K::kMaxGroup;
  const int64_t groups = (l.inner + gmax - 1) / gmax;
  const int64_t tasks = l.outer * groups;
  const int64_t chunk = CpuScanChunk();
  // (A shrunk test chunk lowers the bar too, so that tests reach the threaded strategies.)
  const int64_t min_parallel = std::min(scan_detail::kMinParallelElements, 2 * chunk);
  const int threads = l.numel() >= min_parallel ? CpuNumThreads() : 1;
  auto task = [&](int64_t t) { return MakeSeqGroup(l, t, gmax, exclusive, reverse); };
  if (threads > 1 && l.length > chunk && tasks < 2 * threads) {
    for (int64_t t = 0; t < tasks; ++t) scan_detail::ThreePhaseTask(k, task(t), chunk, threads);
    return;
  }
  if (threads > 1 && tasks > 1) {
    OmpExceptionKeeper keep;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t t = 0; t < tasks; ++t) keep.Run([&] { scan_detail::StreamTask(k, task(t), chunk); });
    keep.Rethrow();
  } else {
    for (int64_t t = 0; t < tasks; ++t) scan_detail::StreamTask(k, task(t), chunk);
  }
}

// Each line's total, put(line, carry) for each of the outer * inner lines (a line of no steps gets
// the identity): the line's steps in scan order cut into the same chunks as a scan, each chunk's
// total from the identity (Chunk<false>), then the totals folded left to right, the same order
// whatever the thread count. Few long lines split their chunks over the threads; many lines run
// one task per thread.
template <typename K, typename Put>
void RunChunkedTotals(const K& k, const ScanLayout& l, bool reverse, const Put& put) {
  using Carry = typename K::Carry;
  using Local = typename K::Local;
  const int64_t lines = l.outer * l.inner;
  if (lines == 0) return;
  if (l.length == 0) {
    for (int64_t i = 0; i < lines; ++i) put(i, k.CarryIdentity());
    return;
  }
  const int gmax = l.inner == 1 ? 1 : K::kMaxGroup;
  const int64_t tasks = l.outer * ((l.inner + gmax - 1) / gmax);
  const int64_t chunk = CpuScanChunk();
  const int64_t nchunks = (l.length + chunk - 1) / chunk;
  const int threads =
      l.numel() >= std::min(scan_detail::kMinParallelElements, 2 * chunk) ? CpuNumThreads() : 1;
  const bool by_chunk = threads > 1 && tasks < 2 * threads && nchunks > 1;  // few long lines
  auto fold = [&](const SeqGroup& q, const std::vector<Local>& tot) {
    for (int g = 0; g < q.G; ++g) {
      Carry acc = k.CarryIdentity();
      for (int64_t c = 0; c < nchunks; ++c) acc = k.Fold(acc, tot[c * q.G + g]);
      put(q.line + g, acc);
    }
  };
  auto chunk_total = [&](const SeqGroup& q, int64_t c, Local* out) {
    k.template Chunk<false>(q, c * chunk, std::min(l.length, (c + 1) * chunk), nullptr, out);
  };
  if (by_chunk) {
    std::vector<Local> tot;
    for (int64_t t = 0; t < tasks; ++t) {
      const SeqGroup q = MakeSeqGroup(l, t, gmax, false, reverse);
      tot.resize(static_cast<size_t>(nchunks * q.G));
      OmpExceptionKeeper keep;
#pragma omp parallel for num_threads(threads) schedule(static)
      for (int64_t c = 0; c < nchunks; ++c) keep.Run([&] { chunk_total(q, c, &tot[c * q.G]); });
      keep.Rethrow();
      fold(q, tot);
    }
    return;
  }
  OmpExceptionKeeper keep;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t t = 0; t < tasks; ++t) {
    keep.Run([&] {
      const SeqGroup q = MakeSeqGroup(l, t, gmax, false, reverse);
      std::vector<Local> tot(static_cast<size_t>(nchunks * q.G));
      for (int64_t c = 0; c < nchunks; ++c) chunk_total(q, c, &tot[c * q.G]);
      fold(q, tot);
    });
  }
  keep.Rethrow();
}

}  // namespace funcs
}  // namespace phi
