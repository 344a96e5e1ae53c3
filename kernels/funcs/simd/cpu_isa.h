// The run-time choice of the CPU's vector code. Highway (hwy/targets.h) says which of its targets
// the CPU runs (hwy::SupportedTargets: AVX3 / AVX2 / SSE4 / SSSE3 on x86-64, SVE2 / SVE / NEON on
// aarch64, EMU128 everywhere); the flag PADDLE_OPS_CPU_ISA caps that set by target name (docs/spec.md).
//   - Highway kernels (one source compiled for every target with hwy/foreach_target.h: the fp16 /
//     bf16 conversions of convert.h) call the best target in use through PADDLE_OPS_HWY_DISPATCH.
//   - The x86 kernels still written per instruction set (the scan engine's kernels/funcs/cpu/
//     scan_simd_<isa>.cc, built with their own -m flags)
//     read the same choice as a CpuIsa level: AVX3 in use is kAvx512, AVX2 kAvx2, anything else
//     kBaseline.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hwy/detect_targets.h"  // HWY_TARGETS, for PADDLE_OPS_HWY_DISPATCH

namespace phi {
namespace funcs {
namespace simd {

// Highway's target bits (HWY_AVX2, HWY_NEON, ...): a lower bit is a wider / newer target.
// Every CPU supports the fallback target, EMU128 (Highway's portable code; our kernels take their
// scalar paths there).
int64_t CpuTargetsSupported();
// The supported targets the flag PADDLE_OPS_CPU_ISA allows now (the fallback always), and the
// best of them.
int64_t CpuTargetsInUse();
int64_t CpuTargetInUse();
// Highway's name of a target, lower case ("avx3", "avx2", "sse4", "neon", "sve", "emu128", ...).
const char* CpuTargetName(int64_t target);

// The levels of the per-ISA x86 kernels. Ordered: each includes the one before it.
enum class CpuIsa { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };
// The level of the best supported target (and compiled in: PADDLE_OPS_CPU_SIMD=OFF leaves the
// per-ISA kernels out), and of the best target in use.
CpuIsa CpuIsaSupported();
CpuIsa CpuIsaInUse();
const char* CpuIsaName(CpuIsa isa);  // "baseline", "avx2", "avx512"

// Index into a Highway dispatch table (HWY_EXPORT) of the best target in `targets`: what
// HWY_DYNAMIC_DISPATCH does for hwy::SupportedTargets(), for the capped set. A macro, so that
// ChosenTarget::GetIndex sees the calling translation unit's HWY_TARGETS, which built the table.
#if HWY_IDE || ((HWY_TARGETS & (HWY_TARGETS - 1)) == 0)
#define PADDLE_OPS_HWY_DISPATCH(FUNC) HWY_STATIC_DISPATCH(FUNC)
#else
#define PADDLE_OPS_HWY_DISPATCH(FUNC)                     \
  (*(HWY_DISPATCH_TABLE(FUNC)[([]() {                      \
    ::hwy::ChosenTarget chosen;                           \
    chosen.Update(::phi::funcs::simd::CpuTargetsInUse()); \
    return chosen.GetIndex();                             \
  }())]))
#endif

}  // namespace simd
}  // namespace funcs
}  // namespace phi
