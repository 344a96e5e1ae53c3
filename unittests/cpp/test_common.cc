// Tests of paddle_ops/common: DataType traits and names, float16 / bfloat16 conversions,
// DDim, Place, Sprintf and the PADDLE_ENFORCE error machinery.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/data_type.h"
#include "paddle_ops/common/ddim.h"
#include "paddle_ops/common/enforce.h"
#include "paddle_ops/common/float16.h"
#include "paddle_ops/common/place.h"
#include "unittests/cpp/test_util.h"

namespace {

using paddle_ops_test::CatchEnforce;
using phi::DataType;
using phi::ErrorCode;
using phi::dtype::bfloat16;
using phi::dtype::float16;

using paddle_ops_test::BitsAsFloat;
using paddle_ops_test::FloatBits;

// ---------------------------------------------------------------------------------------
// DataType
// ---------------------------------------------------------------------------------------

struct DTypeCase {
  DataType dtype;
  const char* name;
  size_t size;
};
const DTypeCase kDTypes[] = {
    {DataType::BOOL, "bool", 1},          {DataType::UINT8, "uint8", 1},
    {DataType::INT8, "int8", 1},          {DataType::INT16, "int16", 2},
    {DataType::INT32, "int32", 4},        {DataType::INT64, "int64", 8},
    {DataType::FLOAT16, "float16", 2},    {DataType::BFLOAT16, "bfloat16", 2},
    {DataType::FLOAT32, "float32", 4},    {DataType::FLOAT64, "float64", 8},
};

TEST(DataTypeTest, NamesAndSizes) {
  for (const auto& c : kDTypes) {
    EXPECT_EQ(phi::DataTypeToString(c.dtype), c.name);
    EXPECT_EQ(phi::SizeOf(c.dtype), c.size) << c.name;
    EXPECT_EQ(phi::StringToDataType(c.name), c.dtype) << c.name;
  }
  EXPECT_EQ(phi::DataTypeToString(DataType::UNDEFINED), "undefined");
}

TEST(DataTypeTest, StringToDataTypeAliasesAndUnknown) {
  EXPECT_EQ(phi::StringToDataType("float"), DataType::FLOAT32);
  EXPECT_EQ(phi::StringToDataType("double"), DataType::FLOAT64);
  EXPECT_EQ(phi::StringToDataType("half"), DataType::FLOAT16);
  EXPECT_EQ(phi::StringToDataType("int"), DataType::INT32);
  EXPECT_EQ(phi::StringToDataType("long"), DataType::INT64);
  EXPECT_EQ(phi::StringToDataType("complex64"), DataType::UNDEFINED);
  EXPECT_EQ(phi::StringToDataType(""), DataType::UNDEFINED);
  EXPECT_EQ(phi::StringToDataType("Float32"), DataType::UNDEFINED);
  EXPECT_EQ(phi::StringToDataType("undefined"), DataType::UNDEFINED);
}

TEST(DataTypeTest, SizeOfUndefinedThrowsInvalidType) {
  auto e = CatchEnforce([] { phi::SizeOf(DataType::UNDEFINED); });
  EXPECT_EQ(e.code(), ErrorCode::INVALID_TYPE);
}

TEST(DataTypeTest, CppTypeToDataTypeMatchesSizes) {
  EXPECT_EQ(phi::CppTypeToDataType<float>::Type(), DataType::FLOAT32);
  EXPECT_EQ(phi::CppTypeToDataType<double>::Type(), DataType::FLOAT64);
  EXPECT_EQ(phi::CppTypeToDataType<float16>::Type(), DataType::FLOAT16);
  EXPECT_EQ(phi::CppTypeToDataType<bfloat16>::Type(), DataType::BFLOAT16);
  EXPECT_EQ(phi::CppTypeToDataType<int32_t>::Type(), DataType::INT32);
  EXPECT_EQ(phi::CppTypeToDataType<int64_t>::Type(), DataType::INT64);
  EXPECT_EQ(phi::CppTypeToDataType<bool>::Type(), DataType::BOOL);
  EXPECT_EQ(phi::CppTypeToDataType<uint8_t>::Type(), DataType::UINT8);
  EXPECT_EQ(phi::CppTypeToDataType<int8_t>::Type(), DataType::INT8);
  EXPECT_EQ(phi::CppTypeToDataType<int16_t>::Type(), DataType::INT16);
  EXPECT_EQ(sizeof(float16), 2u);
  EXPECT_EQ(sizeof(bfloat16), 2u);
}

TEST(DataTypeTest, FloatingAndIntegerPredicates) {
  EXPECT_TRUE(phi::IsFloatingType(DataType::FLOAT16));
  EXPECT_TRUE(phi::IsFloatingType(DataType::BFLOAT16));
  EXPECT_TRUE(phi::IsFloatingType(DataType::FLOAT32));
  EXPECT_TRUE(phi::IsFloatingType(DataType::FLOAT64));
  EXPECT_FALSE(phi::IsFloatingType(DataType::INT32));
  EXPECT_FALSE(phi::IsFloatingType(DataType::BOOL));
  EXPECT_TRUE(phi::IsIntegerType(DataType::INT64));
  EXPECT_TRUE(phi::IsIntegerType(DataType::UINT8));
  EXPECT_FALSE(phi::IsIntegerType(DataType::BOOL));
  EXPECT_FALSE(phi::IsIntegerType(DataType::FLOAT32));
}

// PD_VISIT_ALL_TYPES takes any expression (its parameter once shadowed `phi::dtype::`).
TEST(DataTypeTest, VisitAllTypesDispatchesEveryType) {
  for (const auto& c : kDTypes) {
    size_t got = PD_VISIT_ALL_TYPES(c.dtype, "test", [&] { return sizeof(data_t); });
    EXPECT_EQ(got, c.size) << c.name;
    DataType back =
        PD_VISIT_ALL_TYPES(c.dtype, "test", [&] { return phi::CppTypeToDataType<data_t>::Type(); });
    EXPECT_EQ(back, c.dtype) << c.name;
  }
  auto e = CatchEnforce([] {
    const DataType dtype = DataType::UNDEFINED;
    PD_VISIT_ALL_TYPES(dtype, "my_visitor", [&] { return sizeof(data_t); });
  });
  EXPECT_EQ(e.code(), ErrorCode::INVALID_TYPE);
  EXPECT_NE(e.message().find("my_visitor"), std::string::npos) << e.message();
}

// ---------------------------------------------------------------------------------------
// float16
// ---------------------------------------------------------------------------------------

bool IsHalfNaN(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

// Independent reference: the value a correctly rounded (RNE) float -> binary16 conversion
// gives, as a double. Works for finite inputs.
double RefHalfValue(float f) {
  const double a = std::fabs(static_cast<double>(f));
  if (a >= 65520.0) return std::copysign(std::numeric_limits<double>::infinity(), f);
  if (a == 0.0) return std::copysign(0.0, f);
  int e = static_cast<int>(std::floor(std::log2(a)));
  // guard against log2 rounding at exact powers of two
  if (std::ldexp(1.0, e) > a) --e;
  if (std::ldexp(1.0, e + 1) <= a) ++e;
  if (e < -14) e = -14;                       // subnormal range has fixed spacing 2^-24
  const double ulp = std::ldexp(1.0, e - 10);
  const double n = a / ulp;                   // exact: division by a power of two
  const double r = std::nearbyint(n);         // default mode: ties to even
  return std::copysign(r * ulp, f);
}

TEST(Float16Test, ExactValuesAndBits) {
  EXPECT_EQ(float16(1.0f).x, 0x3c00);
  EXPECT_EQ(float16(-2.0f).x, 0xc000);
  EXPECT_EQ(float16(0.5f).x, 0x3800);
  EXPECT_EQ(float16(65504.0f).x, 0x7bff);  // largest finite
  EXPECT_EQ(float16(0.0f).x, 0x0000);
  EXPECT_EQ(float16(-0.0f).x, 0x8000);
  EXPECT_EQ(float16(std::ldexp(1.0f, -14)).x, 0x0400);  // smallest normal
  EXPECT_EQ(float16(1.0).x, 0x3c00);                    // from double
  EXPECT_EQ(float16(3).x, 0x4200);                      // from int
  EXPECT_EQ(float16(int64_t{-3}).x, 0xc200);            // from int64
  EXPECT_EQ(static_cast<float>(float16::from_bits(0x3555)), 0.333251953125f);
  EXPECT_EQ(static_cast<double>(float16::from_bits(0xc000)), -2.0);
}

TEST(Float16Test, RoundsToNearestEven) {
  const float one_ulp = std::ldexp(1.0f, -10);
  // halfway between 1 and 1+ulp: ties to the even one (1.0)
  EXPECT_EQ(float16(1.0f + one_ulp / 2).x, 0x3c00);
  // halfway between 1+ulp and 1+2ulp: ties to even (1+2ulp)
  EXPECT_EQ(float16(1.0f + 3 * one_ulp / 2).x, 0x3c02);
  // just above / below halfway
  EXPECT_EQ(float16(std::nextafter(1.0f + one_ulp / 2, 2.0f)).x, 0x3c01);
  EXPECT_EQ(float16(std::nextafter(1.0f + 3 * one_ulp / 2, 0.0f)).x, 0x3c01);
  // negative side mirrors
  EXPECT_EQ(float16(-(1.0f + one_ulp / 2)).x, 0xbc00);
  EXPECT_EQ(float16(-(1.0f + 3 * one_ulp / 2)).x, 0xbc02);
  // rounding carries into the exponent: 2 - ulp/4 (above halfway to 2) -> 2.0
  EXPECT_EQ(float16(2.0f - one_ulp / 4).x, 0x4000);
}

TEST(Float16Test, Subnormals) {
  const float tiny = std::ldexp(1.0f, -24);  // smallest subnormal
  EXPECT_EQ(float16(tiny).x, 0x0001);
  EXPECT_EQ(float16(-tiny).x, 0x8001);
  EXPECT_EQ(float16(1023 * tiny).x, 0x03ff);  // largest subnormal
  EXPECT_EQ(static_cast<float>(float16::from_bits(0x0001)), tiny);
  EXPECT_EQ(static_cast<float>(float16::from_bits(0x03ff)), 1023 * tiny);
  EXPECT_EQ(static_cast<float>(float16::from_bits(0x0200)), std::ldexp(1.0f, -15));
  // half of the smallest subnormal: tie -> even (0)
  EXPECT_EQ(float16(tiny / 2).x, 0x0000);
  EXPECT_EQ(float16(-tiny / 2).x, 0x8000);
  // just above half of it -> smallest subnormal
  EXPECT_EQ(float16(std::nextafter(tiny / 2, 1.0f)).x, 0x0001);
  // 1.5 * tiny: tie between 1 and 2 -> 2 (even)
  EXPECT_EQ(float16(1.5f * tiny).x, 0x0002);
  // 2.5 * tiny: tie between 2 and 3 -> 2 (even)
  EXPECT_EQ(float16(2.5f * tiny).x, 0x0002);
  // far below: zero with sign
  EXPECT_EQ(float16(1e-30f).x, 0x0000);
  EXPECT_EQ(float16(-1e-30f).x, 0x8000);
  EXPECT_EQ(float16(std::numeric_limits<float>::denorm_min()).x, 0x0000);
  // largest subnormal + half spacing rounds up into the smallest normal (tie -> even 0x400)
  EXPECT_EQ(float16(1023.5f * tiny).x, 0x0400);
}

TEST(Float16Test, InfinityNaNAndOverflow) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(float16(inf).x, 0x7c00);
  EXPECT_EQ(float16(-inf).x, 0xfc00);
  EXPECT_TRUE(std::isinf(static_cast<float>(float16::from_bits(0x7c00))));
  EXPECT_GT(static_cast<float>(float16::from_bits(0x7c00)), 0.0f);
  EXPECT_LT(static_cast<float>(float16::from_bits(0xfc00)), 0.0f);
  EXPECT_TRUE(IsHalfNaN(float16(std::numeric_limits<float>::quiet_NaN()).x));
  EXPECT_TRUE(IsHalfNaN(float16(-std::numeric_limits<float>::quiet_NaN()).x));
  // a NaN whose payload sits only in the low float bits must still be NaN, not inf
  EXPECT_TRUE(IsHalfNaN(float16(BitsAsFloat(0x7f800001u)).x));
  EXPECT_TRUE(std::isnan(static_cast<float>(float16::from_bits(0x7e00))));
  EXPECT_TRUE(std::isnan(static_cast<float>(float16::from_bits(0xfc01))));
  // overflow: 65520 is the tie between 65504 and 65536 (=inf) -> even -> inf
  EXPECT_EQ(float16(65520.0f).x, 0x7c00);
  EXPECT_EQ(float16(-65520.0f).x, 0xfc00);
  EXPECT_EQ(float16(std::nextafter(65520.0f, 0.0f)).x, 0x7bff);
  EXPECT_EQ(float16(65519.0f).x, 0x7bff);
  EXPECT_EQ(float16(1e6f).x, 0x7c00);
  EXPECT_EQ(float16(std::numeric_limits<float>::max()).x, 0x7c00);
  EXPECT_EQ(float16(1e300).x, 0x7c00);  // from double
}

// Every bit pattern of the 16-bit type H that is not NaN goes to float and back (from float and
// from double) to itself; bfloat16's float is its bits shifted up. *checked counts them.
template <typename H>
void CheckRoundTripsOfNonNaN(bool (*is_nan)(uint16_t), int* checked) {
  *checked = 0;
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    if (is_nan(h)) continue;
    const float f = static_cast<float>(H::from_bits(h));
    if (std::is_same<H, bfloat16>::value) ASSERT_EQ(FloatBits(f), b << 16) << std::hex << b;
    ASSERT_EQ(H(f).x, h) << "bits 0x" << std::hex << b << " value " << f;
    ASSERT_EQ(H(static_cast<double>(f)).x, h) << "via double, bits 0x" << std::hex << b;
    ++*checked;
  }
}

TEST(Float16Test, RoundTripAllNonNaNBitPatterns) {
  int checked = 0;
  CheckRoundTripsOfNonNaN<float16>(IsHalfNaN, &checked);
  EXPECT_EQ(checked, 65536 - 2 * 1023);
}

TEST(Float16Test, NaNBitPatternsStayNaN) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    if (!IsHalfNaN(h)) continue;
    const float f = static_cast<float>(float16::from_bits(h));
    ASSERT_TRUE(std::isnan(f)) << std::hex << b;
    ASSERT_TRUE(IsHalfNaN(float16(f).x)) << std::hex << b;
  }
}

TEST(Float16Test, BitsToFloatIsMonotoneAndMatchesFormula) {
  // positive finite halves increase strictly with their bits and equal m*2^(e-25) etc.
  float prev = -1.0f;
  for (uint32_t b = 0; b < 0x7c00; ++b) {
    const float f = static_cast<float>(float16::from_bits(static_cast<uint16_t>(b)));
    const uint32_t e = b >> 10, m = b & 0x3ff;
    const double expect = e == 0 ? std::ldexp(static_cast<double>(m), -24)
                                 : std::ldexp(1.0 + m / 1024.0, static_cast<int>(e) - 15);
    ASSERT_EQ(static_cast<double>(f), expect) << std::hex << b;
    ASSERT_GT(f, prev);
    prev = f;
    const float neg = static_cast<float>(float16::from_bits(static_cast<uint16_t>(b | 0x8000)));
    ASSERT_EQ(FloatBits(neg), FloatBits(-f)) << std::hex << b;
  }
}

TEST(Float16Test, ConversionMatchesReferenceRounding) {
  // Sweep float bit patterns (positive and negative) across the whole finite range, plus the
  // floats at and next to every midpoint between consecutive halves.
  auto check = [](float f) {
    const double ref = RefHalfValue(f);
    const float16 h(f);
    const double got = static_cast<double>(static_cast<float>(h));
    if (!(got == ref) || std::signbit(got) != std::signbit(ref)) {
      ADD_FAILURE() << "float " << f << " (bits 0x" << std::hex << FloatBits(f) << std::dec
                    << ") -> half value " << got << ", expected " << ref;
      return false;
    }
    return true;
  };
  for (uint64_t u = 0; u < 0x7f800000ull; u += 1021) {
    if (!check(BitsAsFloat(static_cast<uint32_t>(u)))) return;
    if (!check(-BitsAsFloat(static_cast<uint32_t>(u)))) return;
  }
  for (uint32_t b = 0; b < 0x7bff; ++b) {
    const float lo = static_cast<float>(float16::from_bits(static_cast<uint16_t>(b)));
    const float hi = static_cast<float>(float16::from_bits(static_cast<uint16_t>(b + 1)));
    const float mid = static_cast<float>((static_cast<double>(lo) + hi) / 2);  // exact in float
    for (float f : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      if (!check(f) || !check(-f)) return;
    }
  }
}

TEST(Float16Test, ArithmeticAndComparison) {
  const float16 a(1.5f), b(2.25f);
  EXPECT_EQ(static_cast<float>(a + b), 3.75f);
  EXPECT_EQ(static_cast<float>(a - b), -0.75f);
  EXPECT_EQ(static_cast<float>(a * b), 3.375f);
  EXPECT_EQ(static_cast<float>(b / a), 1.5f);
  EXPECT_EQ((-a).x, 0xbe00);
  EXPECT_TRUE(a < b);
  EXPECT_FALSE(b < a);
  EXPECT_TRUE(a == float16(1.5f));
  EXPECT_TRUE(a != b);
  EXPECT_TRUE(float16(0.0f) == float16(-0.0f));  // +0 == -0
  const float16 nan(std::numeric_limits<float>::quiet_NaN());
  EXPECT_FALSE(nan == nan);
}

// ---------------------------------------------------------------------------------------
// bfloat16
// ---------------------------------------------------------------------------------------

bool IsBf16NaN(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0; }

TEST(BFloat16Test, ExactValuesAndBits) {
  EXPECT_EQ(bfloat16(1.0f).x, 0x3f80);
  EXPECT_EQ(bfloat16(-2.0f).x, 0xc000);
  EXPECT_EQ(bfloat16(0.0f).x, 0x0000);
  EXPECT_EQ(bfloat16(-0.0f).x, 0x8000);
  EXPECT_EQ(bfloat16(3).x, 0x4040);
  EXPECT_EQ(bfloat16(1.0).x, 0x3f80);
  EXPECT_EQ(bfloat16(int64_t{-1}).x, 0xbf80);
  EXPECT_EQ(static_cast<float>(bfloat16::from_bits(0x4049)), 3.140625f);
  EXPECT_EQ(static_cast<double>(bfloat16::from_bits(0x3f80)), 1.0);
}

TEST(BFloat16Test, RoundsToNearestEven) {
  const float ulp = std::ldexp(1.0f, -7);
  EXPECT_EQ(bfloat16(1.0f + ulp / 2).x, 0x3f80);      // tie -> even (1.0)
  EXPECT_EQ(bfloat16(1.0f + 3 * ulp / 2).x, 0x3f82);  // tie -> even (1+2ulp)
  EXPECT_EQ(bfloat16(std::nextafter(1.0f + ulp / 2, 2.0f)).x, 0x3f81);
  EXPECT_EQ(bfloat16(std::nextafter(1.0f + 3 * ulp / 2, 0.0f)).x, 0x3f81);
  EXPECT_EQ(bfloat16(-(1.0f + ulp / 2)).x, 0xbf80);
  EXPECT_EQ(bfloat16(2.0f - ulp / 8).x, 0x4000);  // carries into the exponent
}

TEST(BFloat16Test, SubnormalsInfNaNOverflow) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(bfloat16(inf).x, 0x7f80);
  EXPECT_EQ(bfloat16(-inf).x, 0xff80);
  EXPECT_TRUE(IsBf16NaN(bfloat16(std::numeric_limits<float>::quiet_NaN()).x));
  EXPECT_TRUE(IsBf16NaN(bfloat16(BitsAsFloat(0x7f800001u)).x));  // payload only in low bits
  EXPECT_TRUE(IsBf16NaN(bfloat16(BitsAsFloat(0xff800001u)).x));
  // largest finite bfloat16 is 0x7f7f; FLT_MAX lies above the midpoint to 2^128 -> inf
  EXPECT_EQ(bfloat16(std::numeric_limits<float>::max()).x, 0x7f80);
  EXPECT_EQ(bfloat16(BitsAsFloat(0x7f7f7fffu)).x, 0x7f7f);  // below midpoint
  EXPECT_EQ(bfloat16(BitsAsFloat(0x7f7f8000u)).x, 0x7f80);  // midpoint, odd -> rounds up to inf
  EXPECT_EQ(bfloat16(1e39).x, 0x7f80);                      // from double overflow
  // subnormals (bfloat16 keeps float's exponent range)
  EXPECT_EQ(bfloat16(BitsAsFloat(0x00010000u)).x, 0x0001);
  EXPECT_EQ(bfloat16(BitsAsFloat(0x00008000u)).x, 0x0000);  // tie -> even (0)
  EXPECT_EQ(bfloat16(BitsAsFloat(0x00018000u)).x, 0x0002);  // tie -> even (2)
  EXPECT_EQ(bfloat16(BitsAsFloat(0x00008001u)).x, 0x0001);
  EXPECT_EQ(bfloat16(BitsAsFloat(0x807fffffu)).x, 0x8080);  // rounds up to -min normal
  EXPECT_EQ(static_cast<float>(bfloat16::from_bits(0x0001)), BitsAsFloat(0x00010000u));
}

TEST(BFloat16Test, RoundTripAllNonNaNBitPatterns) {
  int checked = 0;
  CheckRoundTripsOfNonNaN<bfloat16>(IsBf16NaN, &checked);
  EXPECT_EQ(checked, 65536 - 2 * 127);
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    if (!IsBf16NaN(h)) continue;
    ASSERT_TRUE(IsBf16NaN(bfloat16(static_cast<float>(bfloat16::from_bits(h))).x)) << std::hex << b;
  }
}

TEST(BFloat16Test, ConversionMatchesReferenceRounding) {
  // Reference: nearest bfloat16 by exact comparison with the two neighbours (ties to even).
  for (uint64_t u = 0; u < 0x7f800000ull; u += 997) {
    const uint32_t ub = static_cast<uint32_t>(u);
    const uint32_t lo = ub & 0xffff0000u, hi = lo + 0x10000u;
    const uint32_t rem = ub & 0xffffu;
    uint32_t expect;
    if (rem < 0x8000u) {
      expect = lo;
    } else if (rem > 0x8000u) {
      expect = hi;
    } else {
      expect = ((lo >> 16) & 1u) ? hi : lo;
    }
    ASSERT_EQ(bfloat16(BitsAsFloat(ub)).x, expect >> 16) << std::hex << ub;
    ASSERT_EQ(bfloat16(-BitsAsFloat(ub)).x, (expect >> 16) | 0x8000u) << std::hex << ub;
  }
}

TEST(BFloat16Test, Arithmetic) {
  const bfloat16 a(1.5f), b(2.5f);
  EXPECT_EQ(static_cast<float>(a + b), 4.0f);
  EXPECT_EQ(static_cast<float>(a * b), 3.75f);
  EXPECT_EQ(static_cast<float>(a - b), -1.0f);
  EXPECT_EQ((-a).x, 0xbfc0);
  EXPECT_TRUE(a < b);
  EXPECT_TRUE(a != b);
}

// ---------------------------------------------------------------------------------------
// DDim
// ---------------------------------------------------------------------------------------

TEST(DDimTest, BasicsAndProduct) {
  phi::DDim d({2, 3, 4});
  EXPECT_EQ(d.size(), 3);
  EXPECT_EQ(d[0], 2);
  EXPECT_EQ(d[2], 4);
  EXPECT_EQ(d.at(1), 3);
  EXPECT_EQ(phi::product(d), 24);
  EXPECT_EQ(phi::product(d, 1, 3), 12);
  EXPECT_EQ(phi::product(d, 0, 1), 2);
  EXPECT_EQ(phi::product(d, 2, 2), 1);
  EXPECT_EQ(d.to_str(), "[2, 3, 4]");
  EXPECT_EQ(phi::vectorize(d), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(phi::make_ddim({2, 3, 4}), d);
  EXPECT_NE(phi::make_ddim({2, 3}), d);
  EXPECT_NE(phi::make_ddim({2, 3, 5}), d);
  d[1] = 7;
  EXPECT_EQ(d.to_str(), "[2, 7, 4]");
  EXPECT_EQ(phi::product(d), 56);
}

TEST(DDimTest, ScalarAndZeroSize) {
  phi::DDim s;
  EXPECT_EQ(s.size(), 0);
  EXPECT_EQ(phi::product(s), 1);
  EXPECT_EQ(s.to_str(), "[]");
  EXPECT_TRUE(phi::vectorize(s).empty());
  EXPECT_EQ(s, phi::make_ddim({}));
  EXPECT_NE(s, phi::make_ddim({1}));
  phi::DDim z({3, 0, 5});
  EXPECT_EQ(phi::product(z), 0);
}

TEST(DDimTest, LargeDimsUse64Bit) {
  phi::DDim d({1 << 20, 1 << 20, 4});
  EXPECT_EQ(phi::product(d), int64_t{1} << 42);
}

// The checked product (issue 17 item 2): the product of the nonzero dims must fit int64, else
// InvalidArgument (ValueError) naming the shape; the byte count likewise.
TEST(DDimTest, ProductOverflowIsInvalidArgumentNamingTheShape) {
  const int64_t big = int64_t{1} << 40;
  for (const phi::DDim& d : {phi::DDim({big, big}), phi::DDim({0, big, big}), phi::DDim({big, big, 0}),
                             phi::DDim({int64_t{1} << 31, int64_t{1} << 31, int64_t{1} << 31}),
                             phi::DDim({std::numeric_limits<int64_t>::max(), 2})}) {
    auto e = CatchEnforce([&] { phi::product(d); });
    EXPECT_EQ(e.code(), ErrorCode::INVALID_ARGUMENT) << d.to_str();
    EXPECT_NE(e.message().find(d.to_str()), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("2**63 - 1"), std::string::npos) << e.message();
  }
  // a sub-product of an overflowing shape is checked too
  auto e = CatchEnforce([&] { phi::product(phi::DDim({3, big, big}), 1, 3); });
  EXPECT_EQ(e.code(), ErrorCode::INVALID_ARGUMENT);
  // at the edge: exactly 2**63 - 1 and products with a zero whose other dims fit
  EXPECT_EQ(phi::product(phi::DDim({std::numeric_limits<int64_t>::max(), 1})), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(phi::product(phi::DDim({int64_t{1} << 62, 0, 1})), 0);
  EXPECT_EQ(phi::product(phi::DDim({0, big, 4})), 0);
  EXPECT_EQ(phi::product(phi::DDim({big, big}), 0, 1), big);
}

TEST(DDimTest, CheckedByteCount) {
  EXPECT_EQ(phi::CheckedByteCount(phi::DDim({3, 5}), 4), 60);
  EXPECT_EQ(phi::CheckedByteCount(phi::DDim({int64_t{1} << 60}), 4), int64_t{1} << 62);
  EXPECT_EQ(phi::CheckedByteCount(phi::DDim({0, int64_t{1} << 60}), 4), 0);
  for (const phi::DDim& d : {phi::DDim({int64_t{1} << 62}), phi::DDim({int64_t{1} << 61, 1}),
                             phi::DDim({0, int64_t{1} << 62})}) {
    auto e = CatchEnforce([&] { phi::CheckedByteCount(d, 4); });
    EXPECT_EQ(e.code(), ErrorCode::INVALID_ARGUMENT);
    EXPECT_NE(e.message().find(d.to_str()), std::string::npos) << e.message();
  }
}

TEST(DDimTest, MaxRankAndOverflowRank) {
  std::vector<int64_t> nine(phi::DDim::kMaxRank, 2);
  EXPECT_EQ(phi::make_ddim(nine).size(), phi::DDim::kMaxRank);
  EXPECT_EQ(phi::product(phi::make_ddim(nine)), 512);
  std::vector<int64_t> ten(phi::DDim::kMaxRank + 1, 1);
  auto e = CatchEnforce([&] { phi::make_ddim(ten); });
  EXPECT_EQ(e.code(), ErrorCode::INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("10"), std::string::npos) << e.message();
}

TEST(DDimTest, AtIsBoundsChecked) {
  phi::DDim d({5, 6});
  auto e = CatchEnforce([&] { d.at(2); });
  EXPECT_EQ(e.code(), ErrorCode::OUT_OF_RANGE);
  auto e2 = CatchEnforce([&] { d.at(-1); });
  EXPECT_EQ(e2.code(), ErrorCode::OUT_OF_RANGE);
  auto e3 = CatchEnforce([&] { phi::DDim().at(0); });
  EXPECT_EQ(e3.code(), ErrorCode::OUT_OF_RANGE);
}

// ---------------------------------------------------------------------------------------
// Place
// ---------------------------------------------------------------------------------------

TEST(PlaceTest, StringsAndEquality) {
  phi::CPUPlace cpu;
  phi::GPUPlace gpu0(0), gpu1(1);
  EXPECT_EQ(cpu.GetType(), phi::AllocationType::CPU);
  EXPECT_EQ(gpu1.GetType(), phi::AllocationType::GPU);
  EXPECT_EQ(gpu1.GetDeviceId(), 1);
  EXPECT_EQ(cpu.DebugString(), "Place(cpu)");
  EXPECT_EQ(cpu.ShortString(), "cpu");
  EXPECT_EQ(gpu0.DebugString(), "Place(gpu:0)");
  EXPECT_EQ(gpu1.ShortString(), "gpu:1");
  EXPECT_EQ(phi::Place().ShortString(), "undefined");
  EXPECT_EQ(phi::Place().GetType(), phi::AllocationType::UNDEFINED);
  EXPECT_TRUE(cpu == phi::Place(phi::AllocationType::CPU));
  EXPECT_TRUE(gpu0 != gpu1);
  EXPECT_TRUE(cpu != gpu0);
  EXPECT_TRUE(gpu1 == phi::Place(phi::AllocationType::GPU, 1));
  // a CPU place has no device id: any id given is dropped
  EXPECT_EQ(phi::Place(phi::AllocationType::CPU, 3).GetDeviceId(), 0);
  EXPECT_TRUE(phi::Place(phi::AllocationType::CPU, 3) == cpu);
}

// ---------------------------------------------------------------------------------------
// Sprintf and enforce
// ---------------------------------------------------------------------------------------

TEST(SprintfTest, Conversions) {
  EXPECT_EQ(phi::Sprintf("plain"), "plain");
  EXPECT_EQ(phi::Sprintf("%d + %d = %d", 1, 2, 3), "1 + 2 = 3");
  EXPECT_EQ(phi::Sprintf("%ld", int64_t{1} << 40), "1099511627776");
  EXPECT_EQ(phi::Sprintf("%d", int64_t{-5000000000}), "-5000000000");
  EXPECT_EQ(phi::Sprintf("%s and %s", std::string("a"), "b"), "a and b");
  EXPECT_EQ(phi::Sprintf("100%%"), "100%");
  EXPECT_EQ(phi::Sprintf("%d%%", 50), "50%");
  EXPECT_EQ(phi::Sprintf("[%zu]", size_t{7}), "[7]");
}

// Width, precision and flags mean what they mean in printf (fmt formats the message).
TEST(SprintfTest, PrecisionAndWidthHonoured) {
  EXPECT_EQ(phi::Sprintf("%.2f GiB", 0.5), "0.50 GiB");
  EXPECT_EQ(phi::Sprintf("%.2f of %.2f", 1.0 / 3.0, 79.1875), "0.33 of 79.19");
  EXPECT_EQ(phi::Sprintf("%5.2f|", 0.5), " 0.50|");
  EXPECT_EQ(phi::Sprintf("%-4d|", 7), "7   |");
  EXPECT_EQ(phi::Sprintf("%05d", 42), "00042");
  EXPECT_EQ(phi::Sprintf("%g", 0.1), "0.1");
  EXPECT_EQ(phi::Sprintf("%.3g", 1.0 / 3.0), "0.333");
  EXPECT_EQ(phi::Sprintf("%e", 1e20), "1.000000e+20");
  EXPECT_EQ(phi::Sprintf("%x", 255), "ff");
  // a length modifier needs not match the argument's type
  EXPECT_EQ(phi::Sprintf("%d and %ld", int64_t{1} << 40, 3), "1099511627776 and 3");
}

// A format that does not fit its arguments still gives a message (the format and the
// arguments), not an exception.
TEST(SprintfTest, MismatchedFormatStillGivesAMessage) {
  std::string s;
  EXPECT_NO_THROW(s = phi::Sprintf("%d items", std::string("three")));
  EXPECT_NE(s.find("three"), std::string::npos);
  EXPECT_NO_THROW(s = phi::Sprintf("%d and %d", 1));
  EXPECT_NE(s.find("1"), std::string::npos);
}

TEST(EnforceTest, EachErrorCodeThrownWithCodeAndMessage) {
  const std::vector<std::pair<phi::ErrorSummary, const char*>> cases = {
      {phi::errors::InvalidArgument("bad arg %d of %s", 7, "x"), "InvalidArgument"},
      {phi::errors::OutOfRange("bad arg %d of %s", 7, "x"), "OutOfRange"},
      {phi::errors::InvalidType("bad arg %d of %s", 7, "x"), "InvalidType"},
      {phi::errors::NotFound("bad arg %d of %s", 7, "x"), "NotFound"},
      {phi::errors::ResourceExhausted("bad arg %d of %s", 7, "x"), "ResourceExhausted"},
      {phi::errors::PreconditionNotMet("bad arg %d of %s", 7, "x"), "PreconditionNotMet"},
      {phi::errors::Unimplemented("bad arg %d of %s", 7, "x"), "Unimplemented"},
      {phi::errors::Fatal("bad arg %d of %s", 7, "x"), "Fatal"},
  };
  const ErrorCode codes[] = {ErrorCode::INVALID_ARGUMENT, ErrorCode::OUT_OF_RANGE,
                             ErrorCode::INVALID_TYPE,     ErrorCode::NOT_FOUND,
                             ErrorCode::RESOURCE_EXHAUSTED, ErrorCode::PRECONDITION_NOT_MET,
                             ErrorCode::UNIMPLEMENTED,    ErrorCode::FATAL};
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& summary = cases[i].first;
    EXPECT_EQ(summary.code(), codes[i]);
    EXPECT_EQ(std::string(phi::ErrorCodeName(codes[i])), cases[i].second);
    EXPECT_EQ(summary.to_string(), std::string(cases[i].second) + "Error: bad arg 7 of x");
    auto e = CatchEnforce([&] { PADDLE_ENFORCE(1 + 1 == 3, summary); });
    EXPECT_EQ(e.code(), codes[i]) << cases[i].second;
    EXPECT_EQ(e.message(), "bad arg 7 of x");
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(std::string(cases[i].second) + "Error: bad arg 7 of x", 0), 0u) << what;
    EXPECT_NE(what.find("test_common.cc"), std::string::npos) << what;
    auto t = CatchEnforce([&] { PADDLE_THROW(summary); });
    EXPECT_EQ(t.code(), codes[i]);
    EXPECT_EQ(t.message(), "bad arg 7 of x");
  }
}

TEST(EnforceTest, ComparisonMacros) {
  int a = 3, b = 4;
  EXPECT_NO_THROW(PADDLE_ENFORCE_EQ(a, 3, phi::errors::InvalidArgument("eq")));
  EXPECT_NO_THROW(PADDLE_ENFORCE_NE(a, b, phi::errors::InvalidArgument("ne")));
  EXPECT_NO_THROW(PADDLE_ENFORCE_GT(b, a, phi::errors::InvalidArgument("gt")));
  EXPECT_NO_THROW(PADDLE_ENFORCE_GE(a, a, phi::errors::InvalidArgument("ge")));
  EXPECT_NO_THROW(PADDLE_ENFORCE_LT(a, b, phi::errors::InvalidArgument("lt")));
  EXPECT_NO_THROW(PADDLE_ENFORCE_LE(b, b, phi::errors::InvalidArgument("le")));
  EXPECT_NO_THROW(PADDLE_ENFORCE(a < b, phi::errors::InvalidArgument("plain")));
  EXPECT_NO_THROW(PADDLE_ENFORCE_NOT_NULL(&a, phi::errors::InvalidArgument("nn")));

  auto e1 = CatchEnforce([&] { PADDLE_ENFORCE_EQ(a, b, phi::errors::OutOfRange("eq %d %d", a, b)); });
  EXPECT_EQ(e1.code(), ErrorCode::OUT_OF_RANGE);
  EXPECT_EQ(e1.message(), "eq 3 4");
  auto e2 = CatchEnforce([&] { PADDLE_ENFORCE_NE(a, 3, phi::errors::InvalidType("ne")); });
  EXPECT_EQ(e2.code(), ErrorCode::INVALID_TYPE);
  auto e3 = CatchEnforce([&] { PADDLE_ENFORCE_GT(a, a, phi::errors::NotFound("gt")); });
  EXPECT_EQ(e3.code(), ErrorCode::NOT_FOUND);
  auto e4 = CatchEnforce([&] { PADDLE_ENFORCE_GE(a, b, phi::errors::Unimplemented("ge")); });
  EXPECT_EQ(e4.code(), ErrorCode::UNIMPLEMENTED);
  auto e5 = CatchEnforce([&] { PADDLE_ENFORCE_LT(b, a, phi::errors::Fatal("lt")); });
  EXPECT_EQ(e5.code(), ErrorCode::FATAL);
  auto e6 = CatchEnforce([&] { PADDLE_ENFORCE_LE(b, a, phi::errors::PreconditionNotMet("le")); });
  EXPECT_EQ(e6.code(), ErrorCode::PRECONDITION_NOT_MET);
  EXPECT_EQ(e6.message(), "le");
  int* null = nullptr;
  auto e7 = CatchEnforce([&] { PADDLE_ENFORCE_NOT_NULL(null, phi::errors::ResourceExhausted("null")); });
  EXPECT_EQ(e7.code(), ErrorCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(e7.message(), "null");
}

TEST(EnforceTest, EnforceNotMetIsAStdException) {
  try {
    PADDLE_THROW(phi::errors::InvalidArgument("via std::exception"));
    FAIL() << "not thrown";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("via std::exception"), std::string::npos);
  }
}

}  // namespace
