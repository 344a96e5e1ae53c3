// The scans with a carry-in per line and the line totals (kernels/funcs/scan_carry.h) on the GPU
// scan engine, with the ops' fast tiles.
#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/gpu/cumsum_tiles.cuh"
#include "kernels/gpu/logcumsumexp_tiles.cuh"
#include "kernels/impl/scan_carry_impl.h"

namespace phi {
namespace funcs {
namespace {

template <typename Wire, typename State>
__global__ void WireToStates(const Wire* in, State* out, int64_t n) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i < n) out[i] = CarryWire<State>::From(in[i]);
}
template <typename State, typename Wire>
__global__ void StatesToWire(const State* in, Wire* out, int64_t n) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i < n) out[i] = CarryWire<State>::To(in[i]);
}

}  // namespace

template <>
struct CarryDevice<GPUContext> {
  template <typename Wire, typename State>
  static void ToStates(const GPUContext& ctx, const Wire* in, State* out, int64_t n) {
    WireToStates<<<static_cast<unsigned>((n + 255) / 256), 256, 0, ctx.stream()>>>(in, out, n);
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  }
  template <typename State, typename Wire>
  static void ToWire(const GPUContext& ctx, const State* in, Wire* out, int64_t n) {
    StatesToWire<<<static_cast<unsigned>((n + 255) / 256), 256, 0, ctx.stream()>>>(in, out, n);
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  }
};

namespace {
const GPUContext& ContextOf(int device_id) {
  return *static_cast<const GPUContext*>(DeviceContextPool::Instance().Get(GPUPlace(device_id)));
}
}  // namespace

void ScanWithCarryGpu(int device_id, const CarryScanCall& call) { CarryScanDispatch(ContextOf(device_id), call, false); }
void ScanLineTotalsGpu(int device_id, const CarryScanCall& call) { CarryScanDispatch(ContextOf(device_id), call, true); }

}  // namespace funcs
}  // namespace phi
