// FastDivMod: division of non-negative 64-bit offsets by a divisor fixed before a kernel
// runs, as a multiply-high, an add and a shift (Granlund & Montgomery, "Division by invariant
// integers using multiplication", 1994). A scan op that must turn a flat offset back into an
// index (pscan's [N, T] gates) would otherwise pay a 64-bit division per element, which on
// the GPU costs more than the element's memory traffic.
#pragma once

#include <cstdint>

#include "paddle_ops/common/enforce.h"
#include "paddle_ops/common/macros.h"

namespace phi {
namespace funcs {

struct FastDivMod {
  uint64_t divisor = 1;
  uint64_t multiplier = 1;
  int shift = 0;

  FastDivMod() = default;
  // d in [1, 2^63]. With l = ceil(log2 d) and m = floor(2^64 (2^l - d) / d) + 1,
  // n / d = (mulhi(n, m) + n) >> l for every n < 2^63 (the sum cannot overflow there).
  explicit FastDivMod(int64_t d) : divisor(static_cast<uint64_t>(d)) {
    PADDLE_ENFORCE(d >= 1, errors::InvalidArgument("FastDivMod: the divisor must be >= 1, got %d", d));
    while (shift < 63 && (uint64_t{1} << shift) < divisor) ++shift;
    const unsigned __int128 num = static_cast<unsigned __int128>((uint64_t{1} << shift) - divisor) << 64;
    multiplier = static_cast<uint64_t>(num / divisor) + 1;
  }

  HOSTDEVICE int64_t Div(int64_t n) const {
    const uint64_t u = static_cast<uint64_t>(n);
#if defined(__CUDA_ARCH__)
    const uint64_t hi = __umul64hi(u, multiplier);
#else
    const uint64_t hi = static_cast<uint64_t>((static_cast<unsigned __int128>(u) * multiplier) >> 64);
#endif
    return static_cast<int64_t>((hi + u) >> shift);
  }
  HOSTDEVICE int64_t Mod(int64_t n) const { return n - Div(n) * static_cast<int64_t>(divisor); }
};

}  // namespace funcs
}  // namespace phi
