// The GPU scan backend switch of the kernels: the engine (scan_gpu.cuh) or thrust's reference
// path (scan_thrust.cuh), chosen per call by PADDLE_OPS_GPU_SCAN ("engine" or "thrust"; unset:
// kGpuScanEngineIsDefault). paddle_ops.device.gpu_scan_backend() reports the same choice.
#pragma once

#include <cstdlib>
#include <cstring>

#include "kernels/funcs/gpu/scan_agent.cuh"
#include "kernels/funcs/gpu/scan_thrust.cuh"

namespace phi {
namespace funcs {

constexpr bool kGpuScanEngineIsDefault = true;

inline bool UseGpuScanEngine() {
  const char* v = std::getenv("PADDLE_OPS_GPU_SCAN");
  if (v == nullptr || *v == '\0') return kGpuScanEngineIsDefault;
  if (std::strcmp(v, "engine") == 0) return true;
  if (std::strcmp(v, "thrust") == 0) return false;
  PADDLE_THROW(errors::InvalidArgument("PADDLE_OPS_GPU_SCAN must be 'engine' or 'thrust', got '%s'", v));
}

template <typename Op>
void ScanGpuBackend(const GPUContext& ctx, const ScanLayout& l, bool exclusive, bool reverse, const Op& op) {
  if (UseGpuScanEngine()) {
    ScanGpu(ctx, l, exclusive, reverse, op);
  } else {
    ScanThrust(ctx, l, exclusive, reverse, op);
  }
}

}  // namespace funcs
}  // namespace phi
