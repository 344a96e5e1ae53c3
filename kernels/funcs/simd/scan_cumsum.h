// cumsum of the CPU scan engine in vector lanes (scan_cumsum.cc: one Highway source for every
// target, chosen at run time by the target in use, kernels/funcs/simd/cpu_isa.h). Each runs the
// whole scan of the layout on the chunked driver (kernels/funcs/cpu/scan_driver.h) and returns
// true, or returns false where it leaves the call to the generic engine: the fallback target
// (EMU128, PADDLE_OPS_CPU_ISA=baseline) and float64 columns whose inner size is not a multiple of 8.
#pragma once

#include "kernels/funcs/scan_layout.h"
#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"

namespace phi {
namespace funcs {
namespace simd {

bool CumsumVector(const float* x, float* out, const ScanLayout& l, bool exclusive, bool reverse);
bool CumsumVector(const double* x, double* out, const ScanLayout& l, bool exclusive, bool reverse);
bool CumsumVector(const dtype::float16* x, dtype::float16* out, const ScanLayout& l, bool exclusive, bool reverse);
bool CumsumVector(const dtype::bfloat16* x, dtype::bfloat16* out, const ScanLayout& l, bool exclusive, bool reverse);

}  // namespace simd
}  // namespace funcs
}  // namespace phi
