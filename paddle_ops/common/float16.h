// IEEE 754 binary16 value type, usable on host and device. Arithmetic happens in float;
// conversion from float rounds to nearest even (so the ops "compute in float32 and round
// once when stored", docs/spec.md).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#include "paddle_ops/common/macros.h"

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif

namespace phi {
namespace dtype {

struct alignas(2) float16 {
  uint16_t x = 0;

  float16() = default;
  HOSTDEVICE static constexpr float16 from_bits(uint16_t bits) {
    float16 h;
    h.x = bits;
    return h;
  }
  HOSTDEVICE explicit float16(float f) : x(FloatToBits(f)) {}
  HOSTDEVICE explicit float16(double d) : x(FloatToBits(static_cast<float>(d))) {}
  HOSTDEVICE explicit float16(int v) : x(FloatToBits(static_cast<float>(v))) {}
  HOSTDEVICE explicit float16(int64_t v) : x(FloatToBits(static_cast<float>(v))) {}
  HOSTDEVICE operator float() const { return BitsToFloat(x); }
  HOSTDEVICE explicit operator double() const { return static_cast<double>(BitsToFloat(x)); }

  HOSTDEVICE static uint16_t FloatToBits(float f) {
#if defined(__CUDA_ARCH__)
    __half h = __float2half_rn(f);
    return *reinterpret_cast<uint16_t*>(&h);
#else
    uint32_t u;
    std::memcpy(&u, &f, 4);
    const uint32_t sign = (u >> 16) & 0x8000u;
    u &= 0x7fffffffu;
    if (u >= 0x7f800000u) {  // inf or nan
      return static_cast<uint16_t>(sign | 0x7c00u | (u > 0x7f800000u ? 0x200u : 0u));
    }
    if (u >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (u < 0x38800000u) {
      // subnormal half (or zero): value = m * 2^-24
      if (u < 0x33000000u) return static_cast<uint16_t>(sign);  // < 2^-25: rounds to 0
      const uint32_t e = u >> 23;
      const uint32_t m = (u & 0x7fffffu) | 0x800000u;
      const uint32_t shift = 126 - e;  // 14 + (113 - e) ... exponent alignment
      uint32_t r = m >> shift;
      const uint32_t rem = m & ((1u << shift) - 1);
      const uint32_t half = 1u << (shift - 1);
      if (rem > half || (rem == half && (r & 1u))) ++r;
      return static_cast<uint16_t>(sign | r);
    }
    // normal: rebias exponent, round mantissa 23 -> 10 bits to nearest even
    uint32_t r = (u - 0x38000000u) >> 13;
    const uint32_t rem = u & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
    return static_cast<uint16_t>(sign | r);
#endif
  }

  HOSTDEVICE static float BitsToFloat(uint16_t h) {
#if defined(__CUDA_ARCH__)
    __half hv = *reinterpret_cast<const __half*>(&h);
    return __half2float(hv);
#else
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu;
    uint32_t m = h & 0x3ffu;
    uint32_t u;
    if (e == 0x1f) {
      u = sign | 0x7f800000u | (m << 13);
    } else if (e == 0) {
      if (m == 0) {
        u = sign;
      } else {  // subnormal: normalize
        int shift = 0;
        while ((m & 0x400u) == 0) {
          m <<= 1;
          ++shift;
        }
        m &= 0x3ffu;
        u = sign | ((113u - shift) << 23) | (m << 13);
      }
    } else {
      u = sign | ((e + 112u) << 23) | (m << 13);
    }
    float f;
    std::memcpy(&f, &u, 4);
    return f;
#endif
  }
};

HOSTDEVICE inline bool operator==(float16 a, float16 b) { return float(a) == float(b); }
HOSTDEVICE inline bool operator!=(float16 a, float16 b) { return float(a) != float(b); }
HOSTDEVICE inline bool operator<(float16 a, float16 b) { return float(a) < float(b); }
HOSTDEVICE inline float16 operator+(float16 a, float16 b) { return float16(float(a) + float(b)); }
HOSTDEVICE inline float16 operator-(float16 a, float16 b) { return float16(float(a) - float(b)); }
HOSTDEVICE inline float16 operator*(float16 a, float16 b) { return float16(float(a) * float(b)); }
HOSTDEVICE inline float16 operator/(float16 a, float16 b) { return float16(float(a) / float(b)); }
HOSTDEVICE inline float16 operator-(float16 a) { return float16::from_bits(a.x ^ 0x8000u); }

}  // namespace dtype
using float16 = dtype::float16;
}  // namespace phi
