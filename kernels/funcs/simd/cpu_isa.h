// The instruction sets of the run-time dispatched CPU kernels outside the scan engine: the vector
// fp16/bf16 conversions (convert.h) and gla's chunked form (kernels/gla/chunk_cpu.h). Each such
// kernel is compiled once per instruction set in its own translation unit (<name>_avx2.cc with
// -mavx2 -mfma -mf16c, <name>_avx512.cc with AVX-512 F/BW/VL/DQ/BF16 on top; CMakeLists.txt sets
// the flags per file) and chosen here, at run time, from what the CPU has; the rest of the
// library is built for the baseline target, so the build runs on any x86-64.
#pragma once

namespace phi {
namespace funcs {
namespace simd {

// Ordered: each includes the one before it.
enum class CpuIsa { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };

// The widest set compiled in and supported by this CPU (and its OS): AVX2 needs AVX2, FMA and
// F16C; AVX-512 needs F, BW, VL, DQ and BF16 as well.
CpuIsa CpuIsaSupported();
// What the dispatched kernels use now: the supported set, capped by the flag PADDLE_OPS_CPU_ISA
// (auto, avx512, avx2, baseline; benchmarks and tests compare the paths with it).
CpuIsa CpuIsaInUse();
const char* CpuIsaName(CpuIsa isa);

}  // namespace simd
}  // namespace funcs
}  // namespace phi
