// Run-time choice of the instruction set (cpu_isa.h). Compiled for the baseline target.
// PADDLE_OPS_CPU_ISA_AVX2 / PADDLE_OPS_CPU_ISA_AVX512 are defined by CMake when the per-ISA
// translation units are built.
#include "kernels/funcs/simd/cpu_isa.h"

#include <algorithm>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "paddle_ops/common/flags.h"

namespace phi {
namespace funcs {
namespace simd {

namespace {
#if defined(PADDLE_OPS_CPU_ISA_AVX2) && (defined(__GNUC__) || defined(__clang__))
// F16C and AVX512_BF16 straight from CPUID: not every compiler's __builtin_cpu_supports knows
// them (clang 14 rejects "f16c"). The OS's saving of the AVX / AVX-512 registers is what
// __builtin_cpu_supports checks for the "avx2" and "avx512f" it is asked about first.
bool CpuidBit(unsigned leaf, unsigned subleaf, int reg, unsigned bit) {
  unsigned r[4] = {0, 0, 0, 0};
  if (!__get_cpuid_count(leaf, subleaf, &r[0], &r[1], &r[2], &r[3])) return false;
  return (r[reg] >> bit) & 1u;
}
bool HasF16c() { return CpuidBit(1, 0, 2, 29); }         // ECX bit 29
bool HasAvx512Bf16() { return CpuidBit(7, 1, 0, 5); }    // leaf 7, subleaf 1, EAX bit 5
#endif

CpuIsa Detect() {
  CpuIsa isa = CpuIsa::kBaseline;
#if defined(PADDLE_OPS_CPU_ISA_AVX2) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && HasF16c()) {
    isa = CpuIsa::kAvx2;
#if defined(PADDLE_OPS_CPU_ISA_AVX512)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") && HasAvx512Bf16()) {
      isa = CpuIsa::kAvx512;
    }
#endif
  }
#endif
  return isa;
}
}  // namespace

CpuIsa CpuIsaSupported() {
  static const CpuIsa supported = Detect();
  return supported;
}

CpuIsa CpuIsaInUse() {
  using paddle_ops::flags::CpuIsaCap;
  CpuIsa cap = CpuIsa::kAvx512;
  switch (paddle_ops::flags::CpuIsaLimit()) {
    case CpuIsaCap::kAuto:
    case CpuIsaCap::kAvx512:
      cap = CpuIsa::kAvx512;
      break;
    case CpuIsaCap::kAvx2:
      cap = CpuIsa::kAvx2;
      break;
    case CpuIsaCap::kBaseline:
      cap = CpuIsa::kBaseline;
      break;
  }
  return std::min(CpuIsaSupported(), cap);
}

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
