// The runtime library's plain-C entries for the scans with a carry-in per line and the line
// totals (kernels/funcs/scan_carry.h): internal, for the sequence-parallel scans of
// paddle_ops/integrations/torch/distributed.py, which call them by ctypes; not ops of api_yaml/.
#include <cstdint>
#include <cstring>
#include <exception>

#include "kernels/funcs/scan_carry.h"
#include "paddle_ops/common/enforce.h"
#include "paddle_ops/core/device_context.h"
#include "paddle_ops/runtime/runtime.h"
#ifdef PADDLE_OPS_WITH_GPU
#include "paddle_ops/core/gpu/gpu_info.h"
#endif

namespace {

phi::DataType CarryDtype(int32_t po) {
  switch (po) {
    case PO_INT32: return phi::DataType::INT32;
    case PO_INT64: return phi::DataType::INT64;
    case PO_FLOAT16: return phi::DataType::FLOAT16;
    case PO_BFLOAT16: return phi::DataType::BFLOAT16;
    case PO_FLOAT32: return phi::DataType::FLOAT32;
    case PO_FLOAT64: return phi::DataType::FLOAT64;
    default: return phi::DataType::UNDEFINED;
  }
}

int32_t CarryEntry(bool totals, int32_t what, int32_t dtype, int32_t device, int32_t device_id, uintptr_t stream,
                   const void* x, const void* carry, void* out, int64_t outer, int64_t length, int64_t inner,
                   int32_t exclusive, int32_t reverse, char* err, int32_t err_cap) {
  try {
    PADDLE_ENFORCE(what == 0 || what == 1, phi::errors::InvalidArgument("scan with a carry: op %d", what));
    PADDLE_ENFORCE(outer >= 0 && length >= 0 && inner >= 0,
                   phi::errors::InvalidArgument("scan with a carry: negative dims"));
    phi::funcs::CarryScanCall c;
    c.op = static_cast<phi::funcs::CarryScanOp>(what);
    c.dtype = CarryDtype(dtype);
    c.x = x;
    c.carry = carry;
    c.out = out;
    c.layout.outer = outer;
    c.layout.length = length;
    c.layout.inner = inner;
    c.exclusive = exclusive != 0;
    c.reverse = reverse != 0;
    if (device == PO_CPU) {
      const auto& ctx = *static_cast<const phi::CPUContext*>(phi::DeviceContextPool::Instance().Get(phi::CPUPlace()));
      totals ? phi::funcs::ScanLineTotals(ctx, c) : phi::funcs::ScanWithCarry(ctx, c);
      return 0;
    }
#ifdef PADDLE_OPS_WITH_GPU
    if (device == PO_GPU) {
      const phi::gpu::ScopedStream on_callers(device_id, stream);  // our kernels on the caller's stream
      totals ? phi::funcs::ScanLineTotalsGpu(device_id, c) : phi::funcs::ScanWithCarryGpu(device_id, c);
      return 0;
    }
#else
    (void)device_id;
    (void)stream;
#endif
    PADDLE_THROW(phi::errors::InvalidArgument("scan with a carry: device %d not built", device));
  } catch (const std::exception& e) {
    if (err != nullptr && err_cap > 0) {
      std::strncpy(err, e.what(), static_cast<size_t>(err_cap) - 1);
      err[err_cap - 1] = '\0';
    }
    return PO_RUNTIME_ERROR;
  }
}

}  // namespace

extern "C" {

// what: 0 logcumsumexp, 1 cumsum; dtype, device: runtime.h's codes; x and out contiguous
// [outer, length, inner] on `device` (`stream`: the caller's CUDA stream, 0 the legacy default);
// carry: outer * inner float64 (int64 for an integer cumsum) on the same device, or null. Returns
// 0, or an error kind with its message in err[0 .. err_cap).
__attribute__((visibility("default"))) int32_t po_runtime_scan_carry(
    int32_t what, int32_t dtype, int32_t device, int32_t device_id, uintptr_t stream, const void* x,
    const void* carry, void* out, int64_t outer, int64_t length, int64_t inner, int32_t exclusive, int32_t reverse,
    char* err, int32_t err_cap) {
  return CarryEntry(false, what, dtype, device, device_id, stream, x, carry, out, outer, length, inner, exclusive,
                    reverse, err, err_cap);
}

// Each line's total into totals (outer * inner float64, int64 for an integer cumsum; -inf / 0 for
// an empty line), the same arguments otherwise.
__attribute__((visibility("default"))) int32_t po_runtime_scan_totals(
    int32_t what, int32_t dtype, int32_t device, int32_t device_id, uintptr_t stream, const void* x, void* totals,
    int64_t outer, int64_t length, int64_t inner, char* err, int32_t err_cap) {
  return CarryEntry(true, what, dtype, device, device_id, stream, x, nullptr, totals, outer, length, inner, 0, 0, err,
                    err_cap);
}

}  // extern "C"
