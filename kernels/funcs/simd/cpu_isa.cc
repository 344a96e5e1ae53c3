// Run-time choice of the instruction set (cpu_isa.h). Compiled for the baseline target.
// PADDLE_OPS_CPU_ISA_AVX2 / PADDLE_OPS_CPU_ISA_AVX512 are defined by CMake when the per-ISA
// translation units are built.
#include "kernels/funcs/simd/cpu_isa.h"

#include <algorithm>

#include "paddle_ops/common/flags.h"

namespace phi {
namespace funcs {
namespace simd {

namespace {
CpuIsa Detect() {
  CpuIsa isa = CpuIsa::kBaseline;
#if defined(PADDLE_OPS_CPU_ISA_AVX2) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c")) {
    isa = CpuIsa::kAvx2;
#if defined(PADDLE_OPS_CPU_ISA_AVX512)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bf16")) {
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
