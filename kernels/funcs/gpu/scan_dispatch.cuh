// The GPU scan backend switch of the kernels: the engine (scan_gpu.cuh) or thrust's reference
// path (scan_thrust.cuh), chosen per call by the flag PADDLE_OPS_GPU_SCAN (paddle_ops/common/flags.h,
// "engine" or "thrust"). paddle_ops.device.gpu_scan_backend() reports the same choice.
#pragma once

#include "kernels/funcs/scan_gpu.cuh"
#include "kernels/funcs/scan_thrust.cuh"
#include "paddle_ops/common/flags.h"

namespace phi {
namespace funcs {

inline bool UseGpuScanEngine() { return paddle_ops::flags::GpuScanBackend() == paddle_ops::flags::GpuScan::kEngine; }

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
