// The float32 / 16-bit logcumsumexp block tiles' decision after the look-back (LseBlockTile::Decide,
// logcumsumexp_tiles.cuh), in a header of its own: the scan1d harness's tile variants
// (tools/dev/harness/scan1d/scan1d_variants.cuh) take the same without the library's ops.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <limits>

namespace phi {
namespace funcs {
namespace scan_gpu {

// Warp 0, after the look-back, from the carry (cm, cs) and the tile's fast_agg, max Rt and total of
// terms: whether the tile's outputs take the fast path, R, f, base0 (lane 0 writes them to d). Two
// float64 exps on lanes 0 and 1 at once, then two logs. span: the terms' range (LseFast::kSpan);
// fast only where every output lies at least lean_pos + 0.01 above 0 or lean_neg + 0.01 below it.
__device__ __forceinline__ void LseDecideTile(double cm, double cs, bool fast_agg, float Rt, double total, float span,
                                              double lean_pos, double lean_neg, float* d, int lane) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  bool fast = fast_agg && cm == cm && cm != kInf && cm != -kInf && cs != 1.0;
  float R = Rt;
  double f = 1.0, base0 = 0.0;
  if (fast) {  // uniform over the warp
    R = fmaxf(Rt, static_cast<float>(cm));
    fast = cm >= static_cast<double>(R) - span;
    const double ex = exp((lane == 0 ? static_cast<double>(Rt) : cm) - static_cast<double>(R));
    f = __shfl_sync(0xffffffffu, ex, 0);
    base0 = cs * __shfl_sync(0xffffffffu, ex, 1);
    const double lg = log(lane == 0 ? cs : base0 + f * total);
    const double v = cm + __shfl_sync(0xffffffffu, lg, 0);
    const double top = static_cast<double>(R) + __shfl_sync(0xffffffffu, lg, 1);
    fast = fast && (v >= lean_pos + 0.01 || top <= -lean_neg - 0.01);
  }
  if (lane == 0) {
    d[0] = fast ? 1.f : 0.f;
    d[1] = R;
    d[2] = static_cast<float>(f);
    reinterpret_cast<double*>(d)[2] = base0;  // d[4..5]
    reinterpret_cast<double*>(d)[3] = f;      // d[6..7]
  }
}

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
