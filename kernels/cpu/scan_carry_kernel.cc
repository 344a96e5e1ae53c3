// The scans with a carry-in per line and the line totals (kernels/funcs/scan_carry.h) on the CPU
// (internal: the sequence-parallel scans reach them through the runtime library's plain-C
// entries, paddle_ops/runtime/scan_carry_entry.cc; not an op of api_yaml/). The cum ops' SIMD
// fast paths (cum_scan_fast.h) serve them where they serve the plain scans.
#include "kernels/cpu/cum_scan_fast.h"
#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/impl/scan_carry_impl.h"
#include "paddle_ops/core/device_context.h"

namespace phi {
namespace funcs {

template <>
struct CarryDevice<CPUContext> {
  template <typename Wire, typename State>
  static void ToStates(const CPUContext&, const Wire* in, State* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = CarryWire<State>::From(in[i]);
  }
  template <typename State, typename Wire>
  static void ToWire(const CPUContext&, const State* in, Wire* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = CarryWire<State>::To(in[i]);
  }
};

void ScanWithCarry(const CPUContext& ctx, const CarryScanCall& call) { CarryScanDispatch(ctx, call, false); }
void ScanLineTotals(const CPUContext& ctx, const CarryScanCall& call) { CarryScanDispatch(ctx, call, true); }

}  // namespace funcs
}  // namespace phi
