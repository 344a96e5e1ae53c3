// gla's chunked CPU form (chunk_cpu_impl.h) built for AVX-512 F/BW/VL/DQ/BF16 on top of AVX2; chosen at run time by
// chunk_cpu.h's dispatch (kernels/funcs/simd/cpu_isa.h).
// Eigen is renamed in this file (before anything includes it): its templates, instantiated here
// with this instruction set, must not share a symbol with the baseline code's instantiations
// (the linker would keep one of the two for both).
#define Eigen paddle_ops_eigen_avx512
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12's AVX-512 intrinsics (in Eigen's packet math) start some results from
// _mm512_undefined_*(), which -Wall reports as maybe uninitialized at every use.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define PADDLE_OPS_GLA_CPU_ISA avx512
#include "kernels/gla/chunk_cpu_impl.h"
