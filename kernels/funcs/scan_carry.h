// Internal (the sequence-parallel scans, docs/seqpar.md): logcumsumexp and cumsum of a contiguous
// [outer, length, inner] view with a carry-in per line, and each line's total, for
// paddle_ops/integrations/torch/distributed.py. Not a public op: reached through the runtime
// library's plain-C entries po_runtime_scan_carry / po_runtime_scan_totals (paddle_ops/runtime/
// scan_carry_entry.cc), which the torch integration calls by ctypes; the bodies are
// kernels/impl/scan_carry_impl.h, the devices' files kernels/{cpu,gpu}/scan_carry_kernel.*.
//
// The carries and totals cross as one number per line (line = outer index * inner + column):
//   logcumsumexp  float64 log-value c (the scan behaves as if a step of value c preceded the
//                 line; -inf: none), total log Σ exp x (-inf for an empty line);
//   cumsum        float64 for floating types, int64 for integers (wraps to int32 for int32), the
//                 total the line's sum (compensated, then rounded to float64).
// An exclusive scan stores the carry first (logcumsumexp: c; cumsum: c rounded to the type);
// reverse: the carry enters at the line's end.
#pragma once

#include <cstdint>

#include "kernels/funcs/scan_functors.h"
#include "kernels/funcs/scan_layout.h"
#include "paddle_ops/common/data_type.h"

namespace phi {

class CPUContext;
class GPUContext;

namespace funcs {

enum class CarryScanOp : int32_t { kLogcumsumexp = 0, kCumsum = 1 };

struct CarryScanCall {
  CarryScanOp op;
  DataType dtype;
  const void* x;
  const void* carry;  // per line, null for none (ScanWithCarry)
  void* out;          // ScanWithCarry: like x; ScanLineTotals: per line
  ScanLayout layout;
  bool exclusive;
  bool reverse;
};

// The number a line's state crosses as, and back (CarryWire<State>).
template <typename State>
struct CarryWire;
template <typename Acc>
struct CarryWire<LogSumExpState<Acc>> {
  using type = double;
  HOSTDEVICE static LogSumExpState<Acc> From(double c) { return LogAddExpCombine<Acc>::Of(static_cast<Acc>(c)); }
  HOSTDEVICE static double To(const LogSumExpState<Acc>& s) {
    return static_cast<double>(LogAddExpCombine<Acc>::Value(s));
  }
};
template <typename Acc>
struct CarryWire<CompensatedSum<Acc>> {
  using type = double;
  HOSTDEVICE static CompensatedSum<Acc> From(double c) { return CompensatedSum<Acc>::Of(static_cast<Acc>(c)); }
  HOSTDEVICE static double To(const CompensatedSum<Acc>& s) { return static_cast<double>(s.value()); }
};
template <>
struct CarryWire<int32_t> {
  using type = int64_t;
  HOSTDEVICE static int32_t From(int64_t c) { return static_cast<int32_t>(static_cast<uint32_t>(c)); }
  HOSTDEVICE static int64_t To(int32_t s) { return s; }
};
template <>
struct CarryWire<int64_t> {
  using type = int64_t;
  HOSTDEVICE static int64_t From(int64_t c) { return c; }
  HOSTDEVICE static int64_t To(int64_t s) { return s; }
};

// Throws InvalidArgument for an op / dtype pair neither kernel takes.
void ScanWithCarry(const CPUContext& ctx, const CarryScanCall& call);
void ScanLineTotals(const CPUContext& ctx, const CarryScanCall& call);
#ifdef PADDLE_OPS_WITH_GPU
// On GPU `device_id`'s context (kernels/gpu/scan_carry_kernel.cu).
void ScanWithCarryGpu(int device_id, const CarryScanCall& call);
void ScanLineTotalsGpu(int device_id, const CarryScanCall& call);
#endif

}  // namespace funcs
}  // namespace phi
