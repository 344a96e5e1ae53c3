// gla's chunked CPU form (chunk_cpu_impl.h) built for the baseline target (every x86-64); chosen at run time by
// chunk_cpu.h's dispatch (kernels/funcs/simd/cpu_isa.h).
#define PADDLE_OPS_GLA_CPU_ISA baseline
#include "kernels/gla/chunk_cpu_impl.h"
