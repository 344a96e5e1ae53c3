// The CPU scan engine: runs any scan op (scan_functors.h) along the middle index of a
// [outer, length, inner] view, inclusive or exclusive, forward or reverse, without copying
// or flipping the data.
//
//   Scan(cpu_ctx, layout, exclusive, reverse, op)   (the CPU overload of kernels/funcs/scan.h)
//   ScanCpu(layout, exclusive, reverse, op)          (the same without a context, for tests)
//
// picks, by the op's type, a SIMD fast path when one is registered for it (CpuScanFastPath,
// specialized next to the op, e.g. kernels/cpu/cum_scan_fast.h) and the CPU supports it;
// otherwise the generic path below, which needs only the op's State/Identity/Combine/Load/
// Store and so serves any op (pscan's (gate, value), right_flood's (value, index), ...).
// Both run on the chunked, threaded driver of kernels/funcs/cpu/scan_driver.h: rows in
// parallel, and long rows split over the threads in three phases, with results that do not
// depend on the thread count.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/funcs/cpu/scan_driver.h"
#include "kernels/funcs/scan.h"
#include "kernels/funcs/scan_layout.h"

namespace phi {
namespace funcs {

// The generic per-element path as a driver kernel. Within a chunk the outputs stream from the
// chunk's carry (one Combine per element); a chunk's total is a second fold from the identity,
// computed only when a later chunk needs it.
template <typename Op>
struct GenericScanKernel {
  using State = typename Op::State;
  using Carry = State;
  using Local = State;
  static constexpr int kMaxGroup = 64;
  static constexpr double kReduceCost = 0.5;
  const Op& op;
  const State* init = nullptr;  // a carry-in per line (ScanFrom), or none

  Carry CarryIdentity() const { return op.Identity(); }
  Carry CarryStart(const SeqGroup& q, int g) const { return init ? init[q.line + g] : op.Identity(); }
  Carry Fold(const Carry& c, const Local& l) const { return op.Combine(c, l); }

  template <bool kStore>
  void Chunk(const SeqGroup& q, int64_t s0, int64_t s1, const Carry* carry, Local* local) const {
    State acc[kMaxGroup];
    State tot[kMaxGroup];
    for (int g = 0; g < q.G; ++g) {
      if (kStore) acc[g] = carry[g];
      tot[g] = op.Identity();
    }
    const int64_t step = q.reverse ? q.stride : -q.stride;  // offset of the previous step
    for (int64_t s = s0; s < s1; ++s) {
      const int64_t row = q.Offset(s);
      for (int g = 0; g < q.G; ++g) {
        const ScanPos pos{row + g, row + g + step, s == 0};
        const State v = op.Load(pos);
        if (!kStore) {
          tot[g] = op.Combine(tot[g], v);
          continue;
        }
        if (local) tot[g] = op.Combine(tot[g], v);
        if (q.exclusive) {
          op.Store(pos, acc[g]);
          acc[g] = op.Combine(acc[g], v);
        } else {
          acc[g] = op.Combine(acc[g], v);
          op.Store(pos, acc[g]);
        }
      }
    }
    if (local) {
      for (int g = 0; g < q.G; ++g) local[g] = tot[g];
    }
  }
};

template <typename Op>
void ScanCpuGeneric(const ScanLayout& l, bool exclusive, bool reverse, const Op& op) {
  RunChunkedScan(GenericScanKernel<Op>{op}, l, exclusive, reverse);
}

// Fast paths, chosen by the op's type: a specialization's Run returns false when it cannot
// serve the call (SIMD unsupported or disabled, a shape it leaves to the generic path). It may
// also serve the scan with a carry-in per line and the line totals:
//   static bool RunFrom(const ScanLayout&, bool exclusive, bool reverse, const Op&, const State* init);
//   static bool Totals(const ScanLayout&, bool reverse, const Op&, State* totals);
// (false: not taken); without them those run on the generic path.
template <typename Op, typename Enable = void>
struct CpuScanFastPath {
  static bool Run(const ScanLayout&, bool, bool, const Op&) { return false; }
};

namespace scan_detail {
template <typename Op, typename = void>
struct FastFrom : std::false_type {};
template <typename Op>
struct FastFrom<Op, std::void_t<decltype(CpuScanFastPath<Op>::RunFrom(
                        std::declval<const ScanLayout&>(), false, false, std::declval<const Op&>(),
                        std::declval<const typename Op::State*>()))>> : std::true_type {};
template <typename Op, typename = void>
struct FastTotals : std::false_type {};
template <typename Op>
struct FastTotals<Op, std::void_t<decltype(CpuScanFastPath<Op>::Totals(
                          std::declval<const ScanLayout&>(), false, std::declval<const Op&>(),
                          std::declval<typename Op::State*>()))>> : std::true_type {};
}  // namespace scan_detail

template <typename Op>
void ScanCpu(const ScanLayout& l, bool exclusive, bool reverse, const Op& op) {
  if (l.numel() == 0) return;
  if (CpuScanFastPath<Op>::Run(l, exclusive, reverse, op)) return;
  ScanCpuGeneric(l, exclusive, reverse, op);
}

template <typename Op>
void Scan(const CPUContext&, const ScanLayout& l, bool exclusive, bool reverse, const Op& op) {
  ScanCpu(l, exclusive, reverse, op);
}

// The scan with a carry-in per line (scan.h's ScanFrom): init[line] (line = outer index * inner +
// column) is combined before the line's first step in scan order. The op's fast path where it takes
// a carry (the SIMD logcumsumexp and cumsum), else the generic path.
template <typename Op>
void ScanFromCpu(const ScanLayout& l, bool exclusive, bool reverse, const Op& op, const typename Op::State* init) {
  if (l.numel() == 0) return;
  if (init == nullptr) return ScanCpu(l, exclusive, reverse, op);
  if constexpr (scan_detail::FastFrom<Op>::value) {
    if (CpuScanFastPath<Op>::RunFrom(l, exclusive, reverse, op, init)) return;
  }
  GenericScanKernel<Op> k{op};
  k.init = init;
  RunChunkedScan(k, l, exclusive, reverse);
}

template <typename Op>
void ScanFrom(const CPUContext&, const ScanLayout& l, bool exclusive, bool reverse, const Op& op,
              const typename Op::State* init) {
  ScanFromCpu(l, exclusive, reverse, op, init);
}

// Each line's total (scan.h's ScanTotals): the line's steps in scan order folded chunk by chunk
// (RunChunkedTotals: each chunk's total from the identity, then the totals left to right), the
// same order whatever the thread count; the op's fast path where it has one. outer * inner
// states; a line of no steps gets the identity.
template <typename Op>
void ScanTotalsCpu(const ScanLayout& l, bool reverse, const Op& op, typename Op::State* totals) {
  if (l.outer * l.inner == 0) return;
  if constexpr (scan_detail::FastTotals<Op>::value) {
    if (l.length > 0 && CpuScanFastPath<Op>::Totals(l, reverse, op, totals)) return;
  }
  RunChunkedTotals(GenericScanKernel<Op>{op}, l, reverse,
                   [totals](int64_t i, const typename Op::State& t) { totals[i] = t; });
}

template <typename Op>
void ScanTotals(const CPUContext&, const ScanLayout& l, bool reverse, const Op& op, typename Op::State* totals) {
  ScanTotalsCpu(l, reverse, op, totals);
}

}  // namespace funcs
}  // namespace phi
