// The SIMD fast paths of the cum ops (kernels/impl/cum_scan_ops.h), selected by op type: the
// CPU engine (funcs::Scan(cpu_ctx, ...) or ScanCpu) with one of these ops runs the matching
// kernel of kernels/funcs/cpu/scan_simd.h when the CPU supports it, and the generic path
// otherwise. They live beside the ops, not in the engine: the engine knows no op.
#pragma once

#include <vector>

#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/funcs/cpu/scan_simd.h"
#include "kernels/impl/cum_scan_ops.h"

namespace phi {
namespace funcs {

// The scans with a carry-in per line and the line totals (ScanFromCpu, ScanTotalsCpu) cross the
// engine's states as simd::LineState: logcumsumexp (m, s) (the compensated sum rounded to a
// double: exact for the carries of scan_carry.h, which are (c, 1)), cumsum the pair itself.
template <typename State>
struct SimdLineState;
template <>
struct SimdLineState<LogSumExpState<double>> {
  static simd::LineState To(const LogSumExpState<double>& st) { return {st.m, st.s.value()}; }
  static LogSumExpState<double> From(const simd::LineState& v) { return {v.a, CompensatedSum<double>::Of(v.b)}; }
};
template <>
struct SimdLineState<CompensatedSum<double>> {
  static simd::LineState To(const CompensatedSum<double>& st) { return {st.hi, st.lo}; }
  static CompensatedSum<double> From(const simd::LineState& v) { return {v.a, v.b}; }
};
template <typename State, typename Scan>
bool SimdScanFrom(const ScanLayout& l, const State* init, const Scan& scan) {
  std::vector<simd::LineState> in(static_cast<size_t>(l.outer * l.inner));
  for (size_t i = 0; i < in.size(); ++i) in[i] = SimdLineState<State>::To(init[i]);
  return scan(in.data());
}
template <typename State, typename Totals>
bool SimdTotals(const ScanLayout& l, State* totals, const Totals& run) {
  std::vector<simd::LineState> t(static_cast<size_t>(l.outer * l.inner));
  if (!run(t.data())) return false;
  for (size_t i = 0; i < t.size(); ++i) totals[i] = SimdLineState<State>::From(t[i]);
  return true;
}

template <typename T, typename Acc>
struct CpuScanFastPath<LogcumsumexpOp<T, Acc>> {
  using Op = LogcumsumexpOp<T, Acc>;
  static bool Run(const ScanLayout& l, bool exclusive, bool reverse, const Op& op) {
    return simd::LogcumsumexpScan<T>(op.x, op.out, simd::ScanCall{l, exclusive, reverse});
  }
  static bool RunFrom(const ScanLayout& l, bool exclusive, bool reverse, const Op& op, const typename Op::State* init) {
    return SimdScanFrom(l, init, [&](const simd::LineState* in) {
      return simd::LogcumsumexpScan<T>(op.x, op.out, simd::ScanCall{l, exclusive, reverse, in});
    });
  }
  static bool Totals(const ScanLayout& l, bool reverse, const Op& op, typename Op::State* totals) {
    return SimdTotals(l, totals, [&](simd::LineState* t) {
      return simd::LogcumsumexpTotals<T>(op.x, simd::ScanCall{l, false, reverse}, t);
    });
  }
};

template <typename T, typename Acc>
struct CpuScanFastPath<LogcumsumexpGradOp<T, Acc>> {
  static bool Run(const ScanLayout& l, bool exclusive, bool reverse, const LogcumsumexpGradOp<T, Acc>& op) {
    return simd::LogcumsumexpGradScan<T>(op.x, op.out, op.out_grad, op.x_grad,
                                         simd::ScanCall{l, exclusive, reverse});
  }
};

template <typename T, typename Acc>
struct CpuScanFastPath<CumsumFloatOp<T, Acc>> {
  using Op = CumsumFloatOp<T, Acc>;
  static bool Run(const ScanLayout& l, bool exclusive, bool reverse, const Op& op) {
    return simd::CumsumScan<T>(op.x, op.out, simd::ScanCall{l, exclusive, reverse});
  }
  static bool RunFrom(const ScanLayout& l, bool exclusive, bool reverse, const Op& op, const typename Op::State* init) {
    return SimdScanFrom(l, init, [&](const simd::LineState* in) {
      return simd::CumsumScan<T>(op.x, op.out, simd::ScanCall{l, exclusive, reverse, in});
    });
  }
  static bool Totals(const ScanLayout& l, bool reverse, const Op& op, typename Op::State* totals) {
    return SimdTotals(l, totals, [&](simd::LineState* t) {
      return simd::CumsumTotals<T>(op.x, simd::ScanCall{l, false, reverse}, t);
    });
  }
};

}  // namespace funcs
}  // namespace phi
