// The vector fp16/bf16 <-> float32 conversions (kernels/funcs/simd/convert.h) against the scalar
// conversions of paddle_ops/common/{float16,bfloat16}.h, bit for bit, on every Highway target of
// this architecture that the CPU runs (PADDLE_OPS_CPU_ISA set to each; the others skipped, saying
// so): all 2^16 inputs going up; going down, every tie and its neighbours of both
// formats, NaN payloads (quiet and signaling), infinities, subnormals, overflow, and 2^22
// random bit patterns. Lengths and offsets that are not multiples of a vector reach the tails.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "kernels/funcs/simd/convert.h"
#include "paddle_ops/common/flags.h"
#include "unittests/cpp/test_util.h"

namespace {

namespace simd = phi::funcs::simd;
using phi::dtype::bfloat16;
using phi::dtype::float16;

struct Path {
  std::string name;  // "scalar", or the Highway target (PADDLE_OPS_CPU_ISA set to it)
  int64_t target;    // 0: the scalar conversions, called directly
  void (*h2f)(const float16*, float*, int64_t);
  void (*f2h)(const float*, float16*, int64_t);
  void (*b2f)(const bfloat16*, float*, int64_t);
  void (*f2b)(const float*, bfloat16*, int64_t);
};

// The scalar conversions, then the dispatched ones under each value of PADDLE_OPS_CPU_ISA that
// names one of this architecture's targets (the others are reported as skipped where the CPU
// lacks them).
std::vector<Path> Paths() {
  std::vector<Path> p = {{"scalar", 0, simd::baseline::Float16ToFloat, simd::baseline::FloatToFloat16,
                          simd::baseline::BFloat16ToFloat, simd::baseline::FloatToBFloat16}};
  std::vector<const char*> choices;
  for (const auto& f : paddle_ops::flags::FlagTable())
    if (std::string(f.name) == "PADDLE_OPS_CPU_ISA") choices = f.choices;
  for (const char* choice : choices) {
    const std::string name = choice;
    if (name == "auto" || name == "avx512" || name == "baseline") continue;  // the same as others
    p.push_back({name, 0, simd::Float16ToFloat, simd::FloatToFloat16, simd::BFloat16ToFloat, simd::FloatToBFloat16});
  }
  return p;
}

uint32_t Bits(float f) { return paddle_ops_test::FloatBits(f); }
float FromBits(uint32_t u) { return paddle_ops_test::BitsAsFloat(u); }

// The float32 inputs going down: ties and neighbours of both formats at every 16-bit value,
// special values, subnormals at every shift, and random bit patterns.
std::vector<float> DownInputs() {
  std::vector<uint32_t> u;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    // fp16: the value of bits h as a float, and the points around half an fp16 ulp above it
    // (normal range: 13 dropped bits).
    const uint32_t f = Bits(float16::BitsToFloat(static_cast<uint16_t>(h)));
    for (uint32_t d : {0u, 1u, 0xfffu, 0x1000u, 0x1001u, 0x1fffu}) u.push_back(f + d), u.push_back(f - d);
    // bf16: 16 dropped bits.
    const uint32_t b = h << 16;
    for (uint32_t d : {0u, 1u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) u.push_back(b + d);
  }
  for (uint32_t sign : {0u, 0x80000000u}) {
    // NaNs: quiet and signaling, with payload in the bits either format keeps and in those it drops.
    for (uint32_t m : {0x1u, 0x2000u, 0x10000u, 0x3fffffu, 0x400000u, 0x400001u, 0x7fffffu, 0x200000u, 0x1fffu})
      u.push_back(sign | 0x7f800000u | m);
    u.push_back(sign | 0x7f800000u);  // inf
    u.push_back(sign | 0x7f7fffffu);  // FLT_MAX
    u.push_back(sign | 0x477fe000u);  // 65504, the largest fp16
    u.push_back(sign | 0x477fefffu);  // just below the overflow tie
    u.push_back(sign | 0x477ff000u);  // 65520: the tie, rounds to inf
    u.push_back(sign | 0x477ff001u);
    // float32 subnormals: each leading bit position, with and without lower bits.
    for (int s = 0; s < 23; ++s) {
      u.push_back(sign | (1u << s));
      u.push_back(sign | ((1u << s) | ((1u << s) - 1)));
      u.push_back(sign | ((1u << s) | 0x5555u >> (23 - s)));
    }
    // Around 2^-25 and 2^-24 (fp16's smallest subnormal and half of it).
    for (uint32_t base : {0x33000000u, 0x33800000u, 0x38800000u, 0x387fc000u})
      for (uint32_t d : {0u, 1u, 2u}) u.push_back(sign | (base + d)), u.push_back(sign | (base - d));
  }
  std::mt19937 rng(21);
  for (int i = 0; i < (1 << 22); ++i) u.push_back(static_cast<uint32_t>(rng()));
  std::vector<float> f(u.size());
  for (size_t i = 0; i < u.size(); ++i) f[i] = FromBits(u[i]);
  return f;
}

// fn(path) for every path this CPU runs, with PADDLE_OPS_CPU_ISA set to the path's target; the
// others are reported as skipped.
template <typename Fn>
void ForEachPath(Fn&& fn) {
  for (const Path& p : Paths()) {
    if (p.name != "scalar") {
      paddle_ops::flags::SetFlag("PADDLE_OPS_CPU_ISA", p.name);
      if (simd::CpuTargetName(simd::CpuTargetInUse()) != p.name) {
        std::cout << "[  SKIPPED ] path " << p.name << ": this CPU lacks the target\n";
        continue;
      }
    }
    fn(p);
  }
  paddle_ops::flags::SetFlag("PADDLE_OPS_CPU_ISA", "auto");
}

// The counts and offsets each path is run with: the whole array, and a few lengths that end
// mid-vector, starting at an odd element.
const int64_t kOffset = 3;
const int64_t kLengths[] = {1, 7, 15, 17, 31, 33, 1000};

TEST(Convert, Float16ToFloatAllInputs) {
  std::vector<float16> h(0x10000);
  for (uint32_t i = 0; i < 0x10000; ++i) h[i] = float16::from_bits(static_cast<uint16_t>(i));
  std::vector<uint32_t> want(h.size());
  for (size_t i = 0; i < h.size(); ++i) want[i] = Bits(float16::BitsToFloat(h[i].x));
  ForEachPath([&](const Path& p) {
    std::vector<float> got(h.size(), -1.f);
    p.h2f(h.data(), got.data(), static_cast<int64_t>(h.size()));
    int bad = 0;
    for (size_t i = 0; i < h.size() && bad < 5; ++i)
      if (Bits(got[i]) != want[i]) {
        ADD_FAILURE() << p.name << ": fp16 0x" << std::hex << i << " -> 0x" << Bits(got[i]) << ", want 0x" << want[i];
        ++bad;
      }
    for (int64_t n : kLengths) {
      std::vector<float> part(n + 2, 7.f);
      p.h2f(h.data() + 0x7c00 + kOffset, part.data(), n);  // around the infinities and NaNs
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(Bits(part[i]), want[0x7c00 + kOffset + i]) << p.name << " n=" << n;
      EXPECT_EQ(part[n], 7.f) << p.name << ": wrote past the end, n=" << n;
    }
  });
}

TEST(Convert, BFloat16ToFloatAllInputs) {
  std::vector<bfloat16> b(0x10000);
  for (uint32_t i = 0; i < 0x10000; ++i) b[i] = bfloat16::from_bits(static_cast<uint16_t>(i));
  ForEachPath([&](const Path& p) {
    std::vector<float> got(b.size(), -1.f);
    p.b2f(b.data(), got.data(), static_cast<int64_t>(b.size()));
    for (size_t i = 0; i < b.size(); ++i) ASSERT_EQ(Bits(got[i]), Bits(bfloat16::BitsToFloat(b[i].x))) << p.name << " i=" << i;
    for (int64_t n : kLengths) {
      std::vector<float> part(n + 2, 7.f);
      p.b2f(b.data() + kOffset, part.data(), n);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(Bits(part[i]), static_cast<uint32_t>(kOffset + i) << 16) << p.name;
      EXPECT_EQ(part[n], 7.f) << p.name << ": wrote past the end, n=" << n;
    }
  });
}

template <typename H>
void CheckDown(void (*fn)(const float*, H*, int64_t), const std::string& name, const std::vector<float>& x) {
  std::vector<H> got(x.size(), H::from_bits(0x1234));
  fn(x.data(), got.data(), static_cast<int64_t>(x.size()));
  int bad = 0;
  for (size_t i = 0; i < x.size() && bad < 5; ++i) {
    const uint16_t want = H::FloatToBits(x[i]);
    if (got[i].x != want) {
      ADD_FAILURE() << name << ": float 0x" << std::hex << Bits(x[i]) << " -> 0x" << got[i].x << ", want 0x" << want;
      ++bad;
    }
  }
  for (int64_t n : kLengths) {
    std::vector<H> part(n + 2, H::from_bits(0x1234));
    fn(x.data() + kOffset, part.data(), n);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(part[i].x, H::FloatToBits(x[kOffset + i])) << name << " n=" << n;
    EXPECT_EQ(part[n].x, 0x1234) << name << ": wrote past the end, n=" << n;
  }
}

TEST(Convert, FloatToFloat16EdgesAndRandom) {
  const std::vector<float> x = DownInputs();
  ForEachPath([&](const Path& p) {
    CheckDown<float16>(p.f2h, p.name, x);
  });
}

TEST(Convert, FloatToBFloat16EdgesAndRandom) {
  const std::vector<float> x = DownInputs();
  ForEachPath([&](const Path& p) {
    CheckDown<bfloat16>(p.f2b, p.name, x);
    // A block of 32 with one subnormal among normal values (the AVX-512 path redoes such
    // blocks in integer lanes).
    std::vector<float> mixed(1100, 1.00390625f + 0.001f);
    mixed[37] = FromBits(0x00012345u);
    mixed[5] = FromBits(0x807fffffu);
    CheckDown<bfloat16>(p.f2b, p.name, mixed);
  });
}

TEST(Convert, DispatchReportsTheTargetInUse) {
  // auto: the best supported target; each cap: at most that target, never an unsupported one.
  const int64_t best = simd::CpuTargetInUse();
  EXPECT_NE(simd::CpuTargetsSupported() & best, 0);
  EXPECT_EQ(best & (best - 1), 0) << "one target";
  for (const Path& p : Paths()) {
    if (p.name == "scalar") continue;
    paddle_ops::flags::SetFlag("PADDLE_OPS_CPU_ISA", p.name);
    const int64_t t = simd::CpuTargetInUse();
    EXPECT_NE(simd::CpuTargetsSupported() & t, 0) << p.name;
    EXPECT_GE(t, best) << p.name << ": a cap never picks a better target than auto";
  }
  paddle_ops::flags::SetFlag("PADDLE_OPS_CPU_ISA", "baseline");
  EXPECT_EQ(std::string(simd::CpuTargetName(simd::CpuTargetInUse())), "emu128");
  EXPECT_EQ(simd::CpuIsaInUse(), simd::CpuIsa::kBaseline);
  paddle_ops::flags::SetFlag("PADDLE_OPS_CPU_ISA", "auto");
  const std::string level = simd::CpuIsaName(simd::CpuIsaInUse());
  EXPECT_TRUE(level == "baseline" || level == "avx2" || level == "avx512") << level;
}

}  // namespace
