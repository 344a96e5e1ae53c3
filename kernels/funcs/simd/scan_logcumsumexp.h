// logcumsumexp and its gradient of the CPU scan engine in vector lanes (scan_logcumsumexp.cc: one
// Highway source for every target, chosen at run time by the target in use,
// kernels/funcs/simd/cpu_isa.h). Each runs the whole scan of the layout on the chunked driver
// (kernels/funcs/cpu/scan_driver.h) and returns true, or returns false where it leaves the call to
// the generic engine: the fallback target (EMU128, PADDLE_OPS_CPU_ISA=baseline) and, forward, rows
// shorter than 8 steps. The gradient's `reverse` is the direction of its own scan (the opposite of
// the forward's). LogcumsumexpTotalsVector: each line's total (the layout's length > 0), the same
// cases as the forward.
#pragma once

#include "kernels/funcs/cpu/scan_simd.h"
#include "kernels/funcs/scan_layout.h"
#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"

namespace phi {
namespace funcs {
namespace simd {

// init: a carry-in per line (scan_simd.h's LineState: the log-value a + log(b)), or null.
#define PADDLE_OPS_LCSE_DECLARE(T)                                                                     \
  bool LogcumsumexpVector(const T* x, T* out, const ScanLayout& l, bool exclusive, bool reverse,       \
                          const LineState* init = nullptr);                                            \
  bool LogcumsumexpTotalsVector(const T* x, const ScanLayout& l, bool reverse, LineState* totals);     \
  bool LogcumsumexpGradVector(const T* x, const T* out, const T* out_grad, T* x_grad, const ScanLayout& l, \
                              bool exclusive, bool reverse);
PADDLE_OPS_LCSE_DECLARE(float)
PADDLE_OPS_LCSE_DECLARE(double)
PADDLE_OPS_LCSE_DECLARE(dtype::float16)
PADDLE_OPS_LCSE_DECLARE(dtype::bfloat16)
#undef PADDLE_OPS_LCSE_DECLARE

}  // namespace simd
}  // namespace funcs
}  // namespace phi
