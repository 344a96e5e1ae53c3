#include "kernels/funcs/cpu/scan_runtime.h"

#include <atomic>
#include <cstdlib>

#include "hwy/targets.h"
#include "kernels/funcs/simd/cpu_isa.h"

namespace phi {
namespace funcs {

namespace {
std::atomic<bool> g_simd_off{false};
std::atomic<int64_t> g_chunk{0};
constexpr int64_t kDefaultChunk = int64_t{1} << 16;
}  // namespace

bool CpuScanSimdCompiledAndSupported();  // scan_simd_dispatch.cc

bool CpuScanSimdSupported() {
  static const bool supported = CpuScanSimdCompiledAndSupported();
  return supported;
}
bool CpuScanSimdEnabled() {
  const int64_t fallback = HWY_EMU128 | HWY_SCALAR;
  return CpuScanSimdSupported() && !g_simd_off.load(std::memory_order_relaxed) &&
         (simd::CpuTargetInUse() & fallback) == 0;
}
void SetCpuScanSimdEnabled(bool on) { g_simd_off.store(!on, std::memory_order_relaxed); }
bool CpuScanSimdSwitchedOn() { return !g_simd_off.load(std::memory_order_relaxed); }

int64_t CpuScanChunk() {
  const int64_t c = g_chunk.load(std::memory_order_relaxed);
  return c > 0 ? c : kDefaultChunk;
}
void SetCpuScanChunkForTesting(int64_t steps) {
  g_chunk.store(steps > 0 ? (steps + 1023) / 1024 * 1024 : 0, std::memory_order_relaxed);
}

}  // namespace funcs
}  // namespace phi

// Plain global entry points for the Python module's set_num_threads / get_num_threads
// (declared where they are bound, so the binding needs no header of ours).
void PaddleOpsSetNumThreads(int n) { phi::funcs::SetCpuNumThreads(n); }
int PaddleOpsGetNumThreads() { return phi::funcs::CpuNumThreads(); }
