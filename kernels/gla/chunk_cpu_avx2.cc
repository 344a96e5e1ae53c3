// gla's chunked CPU form (chunk_cpu_impl.h) built for -mavx2 -mfma -mf16c; chosen at run time by
// chunk_cpu.h's dispatch (kernels/funcs/simd/cpu_isa.h).
// Eigen is renamed in this file (before anything includes it): its templates, instantiated here
// with this instruction set, must not share a symbol with the baseline code's instantiations
// (the linker would keep one of the two for both).
#define Eigen paddle_ops_eigen_avx2
#define PADDLE_OPS_GLA_CPU_ISA avx2
#include "kernels/gla/chunk_cpu_impl.h"
