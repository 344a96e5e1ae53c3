// The SIMD fast paths of the cum ops (kernels/impl/cum_scan_ops.h), selected by op type: the
// CPU engine (funcs::Scan(cpu_ctx, ...) or ScanCpu) with one of these ops runs the matching
// kernel of kernels/funcs/cpu/scan_simd.h when the CPU supports it, and the generic path
// otherwise. They live beside the ops, not in the engine: the engine knows no op.
#pragma once

#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/funcs/cpu/scan_simd.h"
#include "kernels/impl/cum_scan_ops.h"

namespace phi {
namespace funcs {

template <typename T, typename Acc>
struct CpuScanFastPath<LogcumsumexpOp<T, Acc>> {
  static bool Run(const ScanLayout& l, bool exclusive, bool reverse, const LogcumsumexpOp<T, Acc>& op) {
    return simd::LogcumsumexpScan<T>(op.x, op.out, simd::ScanCall{l, exclusive, reverse});
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
  static bool Run(const ScanLayout& l, bool exclusive, bool reverse, const CumsumFloatOp<T, Acc>& op) {
    return simd::CumsumScan<T>(op.x, op.out, simd::ScanCall{l, exclusive, reverse});
  }
};

}  // namespace funcs
}  // namespace phi
