// bfloat16 (8-bit exponent, 7-bit mantissa) value type, usable on host and device.
// Conversion from float rounds to nearest even; NaN stays NaN.
#pragma once

#include <cstdint>
#include <cstring>

#include "paddle_ops/common/macros.h"

namespace phi {
namespace dtype {

struct alignas(2) bfloat16 {
  uint16_t x = 0;

  bfloat16() = default;
  HOSTDEVICE static constexpr bfloat16 from_bits(uint16_t bits) {
    bfloat16 b;
    b.x = bits;
    return b;
  }
  HOSTDEVICE explicit bfloat16(float f) : x(FloatToBits(f)) {}
  HOSTDEVICE explicit bfloat16(double d) : x(FloatToBits(static_cast<float>(d))) {}
  HOSTDEVICE explicit bfloat16(int v) : x(FloatToBits(static_cast<float>(v))) {}
  HOSTDEVICE explicit bfloat16(int64_t v) : x(FloatToBits(static_cast<float>(v))) {}
  HOSTDEVICE operator float() const { return BitsToFloat(x); }
  HOSTDEVICE explicit operator double() const { return static_cast<double>(BitsToFloat(x)); }

  HOSTDEVICE static uint16_t FloatToBits(float f) {
    uint32_t u;
#if defined(__CUDA_ARCH__)
    u = __float_as_uint(f);
#else
    std::memcpy(&u, &f, 4);
#endif
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
    const uint32_t lsb = (u >> 16) & 1u;
    u += 0x7fffu + lsb;  // round to nearest even
    return static_cast<uint16_t>(u >> 16);
  }
  HOSTDEVICE static float BitsToFloat(uint16_t b) {
    const uint32_t u = static_cast<uint32_t>(b) << 16;
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, 4);
    return f;
#endif
  }
};

HOSTDEVICE inline bool operator==(bfloat16 a, bfloat16 b) { return float(a) == float(b); }
HOSTDEVICE inline bool operator!=(bfloat16 a, bfloat16 b) { return float(a) != float(b); }
HOSTDEVICE inline bool operator<(bfloat16 a, bfloat16 b) { return float(a) < float(b); }
HOSTDEVICE inline bfloat16 operator+(bfloat16 a, bfloat16 b) { return bfloat16(float(a) + float(b)); }
HOSTDEVICE inline bfloat16 operator-(bfloat16 a, bfloat16 b) { return bfloat16(float(a) - float(b)); }
HOSTDEVICE inline bfloat16 operator*(bfloat16 a, bfloat16 b) { return bfloat16(float(a) * float(b)); }
HOSTDEVICE inline bfloat16 operator/(bfloat16 a, bfloat16 b) { return bfloat16(float(a) / float(b)); }
HOSTDEVICE inline bfloat16 operator-(bfloat16 a) { return bfloat16::from_bits(a.x ^ 0x8000u); }

}  // namespace dtype
using bfloat16 = dtype::bfloat16;
}  // namespace phi
