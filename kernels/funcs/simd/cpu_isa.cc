// Run-time choice of the CPU's vector code (cpu_isa.h) on Highway's CPU detection.
#include "kernels/funcs/simd/cpu_isa.h"

#include <cstring>

#include "hwy/targets.h"
#include "paddle_ops/common/flags.h"

namespace phi {
namespace funcs {
namespace simd {

namespace {
// The flag's values (paddle_ops/common/flags.cc lists this architecture's) as the best target
// each allows; the old names avx512 and baseline are the targets avx3 and emu128.
struct Cap {
  const char* name;
  int64_t best;
};
constexpr Cap kCaps[] = {{"avx3", HWY_AVX3},     {"avx512", HWY_AVX3}, {"avx2", HWY_AVX2},
                         {"sse4", HWY_SSE4},     {"ssse3", HWY_SSSE3}, {"sve2", HWY_SVE2},
                         {"sve", HWY_SVE},       {"neon", HWY_NEON},   {"emu128", HWY_EMU128},
                         {"baseline", HWY_EMU128}};

int64_t CapMask() {
  const char* name = paddle_ops::flags::CpuIsaLimit();
  for (const Cap& c : kCaps) {
    // Targets are bits, better ones lower: the cap allows its own bit and every higher one.
    // The specialized SVE targets (SVE_256, SVE2_128) sit below SVE / SVE2, so the caps sve and
    // sve2 leave them out and name the generic (any vector length) code.
    if (std::strcmp(name, c.name) == 0) return ~(c.best - 1);
  }
  return ~int64_t{0};  // auto
}
}  // namespace

// Once: Highway 1.0.3 runs CPUID again at every hwy::SupportedTargets() (several microseconds in
// a virtual machine, where CPUID traps), and the kernels ask per call.
int64_t CpuTargetsSupported() {
  static const int64_t supported = hwy::SupportedTargets();
  return supported;
}

int64_t CpuTargetsInUse() {
  const int64_t supported = CpuTargetsSupported();
  const int64_t in_use = supported & CapMask();
  return in_use != 0 ? in_use : (supported & (HWY_EMU128 | HWY_SCALAR));
}

int64_t CpuTargetInUse() {
  const int64_t t = CpuTargetsInUse();
  return t & -t;  // the lowest bit: the best target
}

const char* CpuTargetName(int64_t target) {
  // hwy::TargetName's names, lower case (the flag's spelling).
  static const struct {
    int64_t target;
    const char* name;
  } kNames[] = {{HWY_AVX3_DL, "avx3_dl"}, {HWY_AVX3, "avx3"},         {HWY_AVX2, "avx2"},         {HWY_SSE4, "sse4"},
                {HWY_SSSE3, "ssse3"},     {HWY_SVE2_128, "sve2_128"}, {HWY_SVE_256, "sve_256"},   {HWY_SVE2, "sve2"},
                {HWY_SVE, "sve"},         {HWY_NEON, "neon"},         {HWY_EMU128, "emu128"},     {HWY_SCALAR, "scalar"}};
  for (const auto& n : kNames) {
    if (n.target == target) return n.name;
  }
  return hwy::TargetName(target);
}

namespace {
CpuIsa LevelOf(int64_t targets) {
#if HWY_ARCH_X86_64
  if (targets & HWY_AVX3) return CpuIsa::kAvx512;
  if (targets & HWY_AVX2) return CpuIsa::kAvx2;
#else
  (void)targets;
#endif
  return CpuIsa::kBaseline;
}
}  // namespace

CpuIsa CpuIsaSupported() { return LevelOf(CpuTargetsSupported()); }
CpuIsa CpuIsaInUse() { return LevelOf(CpuTargetsInUse()); }

const char* CpuIsaName(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx512:
      return "avx512";
    case CpuIsa::kAvx2:
      return "avx2";
    default:
      return "baseline";
  }
}

}  // namespace simd
}  // namespace funcs
}  // namespace phi
