// The CPU scan engine's carry-in per line and line totals (kernels/funcs/scan_carry.h, the
// internal entries of the sequence-parallel scans): logcumsumexp and cumsum, rows and columns,
// forward / reverse / exclusive, -inf carries, against a reference of the line with its carry in
// front; the threaded strategies (a shrunk chunk) give bitwise the same results. The SIMD paths
// with a carry (kernels/funcs/simd: logcumsumexp and cumsum, every layout path, every floating type)
// on every Highway target this CPU runs, against the generic steps and the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/funcs/simd/scan_cumsum.h"
#include "kernels/funcs/simd/scan_logcumsumexp.h"
#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"
#include "paddle_ops/core/device_context.h"
#include "unittests/cpp/hwy_test_targets.h"
#include "unittests/cpp/scan_carry_check.h"

namespace {

using scan_carry_test::CarryCase;
using phi::funcs::CarryScanCall;
using phi::funcs::CarryScanOp;

const phi::CPUContext& Cpu() {
  return *static_cast<const phi::CPUContext*>(phi::DeviceContextPool::Instance().Get(phi::CPUPlace()));
}

std::vector<CarryCase> Cases() {
  std::vector<CarryCase> cases;
  const int64_t shapes[][3] = {{1, 1000, 1}, {3, 257, 1}, {4, 64, 5}, {2, 300, 70}, {1, 1, 1}, {2, 0, 3}};
  for (const auto& s : shapes)
    for (int m = 0; m < 4; ++m) cases.push_back({s[0], s[1], s[2], (m & 1) != 0, (m & 2) != 0});
  return cases;
}

template <typename T>
void CheckType(bool lse, double tol) {
  constexpr bool kInt = std::is_integral<T>::value;
  for (const CarryCase& c : Cases()) {
    std::vector<double> xd, cd;
    scan_carry_test::Inputs(lse, kInt, c, 7, &xd, &cd);
    std::vector<T> x(xd.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(xd[i]);
    for (size_t i = 0; i < x.size(); ++i) xd[i] = static_cast<double>(x[i]);  // as stored
    std::vector<long double> ref_tot;
    const auto ref = scan_carry_test::Reference(lse, c, xd, cd, &ref_tot);
    std::vector<int64_t> ci(cd.size());
    if (kInt) {  // integer cumsum's carries (finite); logcumsumexp's may be -inf, not converted
      for (size_t i = 0; i < cd.size(); ++i) ci[i] = static_cast<int64_t>(cd[i]);
    }
    CarryScanCall call;
    call.op = lse ? CarryScanOp::kLogcumsumexp : CarryScanOp::kCumsum;
    call.dtype = phi::CppTypeToDataType<T>::Type();
    call.x = x.data();
    call.carry = kInt ? static_cast<const void*>(ci.data()) : static_cast<const void*>(cd.data());
    call.layout = {c.outer, c.length, c.inner};
    call.exclusive = c.exclusive;
    call.reverse = c.reverse;
    std::vector<T> out(x.size()), out_threaded(x.size());
    call.out = out.data();
    phi::funcs::ScanWithCarry(Cpu(), call);
    phi::funcs::SetCpuScanChunkForTesting(16);  // threaded strategies: the same bits
    call.out = out_threaded.data();
    phi::funcs::ScanWithCarry(Cpu(), call);
    phi::funcs::SetCpuScanChunkForTesting(0);
    for (size_t i = 0; i < out.size(); ++i) {
      ASSERT_TRUE(scan_carry_test::Close(ref[i], static_cast<double>(out[i]), tol))
          << scan_carry_test::Name(c) << " at " << i << ": " << static_cast<double>(out[i]) << " vs "
          << static_cast<double>(ref[i]);
      ASSERT_EQ(0, std::memcmp(&out[i], &out_threaded[i], sizeof(T))) << scan_carry_test::Name(c) << " at " << i;
    }
    std::vector<double> tot(cd.size());
    std::vector<int64_t> tot_i(cd.size());
    call.out = kInt ? static_cast<void*>(tot_i.data()) : static_cast<void*>(tot.data());
    phi::funcs::ScanLineTotals(Cpu(), call);
    for (size_t i = 0; i < tot.size(); ++i) {
      const double got = kInt ? static_cast<double>(tot_i[i]) : tot[i];
      ASSERT_TRUE(scan_carry_test::Close(ref_tot[i], got, scan_carry_test::TotalTol<T>(lse)))
          << scan_carry_test::Name(c) << " total " << i;
    }
  }
}

TEST(ScanCarryCpu, LogcumsumexpFloat64) { CheckType<double>(true, 1e-13); }
TEST(ScanCarryCpu, LogcumsumexpFloat32) { CheckType<float>(true, 3e-7); }
TEST(ScanCarryCpu, LogcumsumexpFloat16) { CheckType<phi::dtype::float16>(true, 1e-3); }
TEST(ScanCarryCpu, LogcumsumexpBfloat16) { CheckType<phi::dtype::bfloat16>(true, 8e-3); }
TEST(ScanCarryCpu, CumsumFloat64) { CheckType<double>(false, 1e-13); }
TEST(ScanCarryCpu, CumsumFloat32) { CheckType<float>(false, 1e-7); }
TEST(ScanCarryCpu, CumsumInt32) { CheckType<int32_t>(false, 0); }
TEST(ScanCarryCpu, CumsumInt64) { CheckType<int64_t>(false, 0); }

// The exclusive scan stores the carry first; no carry (null) is the plain scan.
TEST(ScanCarryCpu, ExclusiveStoresTheCarryFirst) {
  const std::vector<float> x = {1.0f, 2.0f, 3.0f};
  const std::vector<double> carry = {0.5};
  std::vector<float> out(3);
  CarryScanCall call{CarryScanOp::kLogcumsumexp, phi::DataType::FLOAT32, x.data(), carry.data(), out.data(),
                     {1, 3, 1}, true, false};
  phi::funcs::ScanWithCarry(Cpu(), call);
  EXPECT_EQ(out[0], 0.5f);
  call.op = CarryScanOp::kCumsum;
  phi::funcs::ScanWithCarry(Cpu(), call);
  EXPECT_EQ(out[0], 0.5f);
  EXPECT_EQ(out[2], 3.5f);
  call.carry = nullptr;
  phi::funcs::ScanWithCarry(Cpu(), call);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[2], 3.0f);
}

// The SIMD kernels with a carry-in per line, called directly on each target (so that a path left to
// the generic engine shows), with the 1024-step chunk of ForEachHwyTarget: rows across chunks (and
// split in three phases on 2 threads), short rows as lanes (cumsum; the last outer % K rows on the
// row path), 16-bit rows through buffers, columns in partial and whole vectors, in groups of 8 and
// of up to 256. Each must: take the call (but emu128 on x86-64 and float64 cumsum columns whose
// inner size is not a multiple of 8, which must leave it); give the same bits at 1 and 2 threads
// and through ScanWithCarry; stay within tol of the reference; and agree with the generic steps
// (SIMD off): cumsum bit for bit (integer-valued inputs and carries: both are the exact sum rounded
// once, docs/spec.md §2), logcumsumexp within tol. The line totals likewise.
template <typename T>
void CheckSimdTarget(bool lse, double tol, const std::string& target) {
  using phi::funcs::simd::LineState;
  const int64_t shapes[][3] = {{1, 2500, 1}, {3, 1030, 1}, {9, 64, 1}, {2, 100, 1},  {5, 7, 1},   {2, 130, 8},
                               {1, 300, 5},  {1, 1100, 20}, {1, 40, 264}, {2, 50, 16}, {1, 2100, 3}};
  uint32_t seed = 11;
  for (const auto& sh : shapes) {
    for (int m = 0; m < 4; ++m) {
      const CarryCase c{sh[0], sh[1], sh[2], (m & 1) != 0, (m & 2) != 0};
      const std::string what = target + " " + scan_carry_test::Name(c);
      std::vector<double> xd, cd;
      scan_carry_test::Inputs(lse, !lse, c, seed++, &xd, &cd);  // cumsum: integer-valued
      std::vector<T> x(xd.size());
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(xd[i]);
      for (size_t i = 0; i < x.size(); ++i) xd[i] = static_cast<double>(x[i]);
      std::vector<long double> ref_tot;
      const auto ref = scan_carry_test::Reference(lse, c, xd, cd, &ref_tot);
      std::vector<LineState> init(cd.size());
      for (size_t i = 0; i < cd.size(); ++i) {  // the wire's carries as states (scan_carry.h's CarryWire)
        init[i] = {cd[i], lse ? (cd[i] == -INFINITY ? 0.0 : 1.0) : 0.0};
      }
      const phi::funcs::ScanLayout l{c.outer, c.length, c.inner};
      auto direct = [&](std::vector<T>* out) {
        return lse ? phi::funcs::simd::LogcumsumexpVector(x.data(), out->data(), l, c.exclusive, c.reverse, init.data())
                   : phi::funcs::simd::CumsumVector(x.data(), out->data(), l, c.exclusive, c.reverse, init.data());
      };
      std::vector<T> one(x.size(), static_cast<T>(-7.0f)), two(x.size(), static_cast<T>(-7.0f));
      phi::funcs::SetCpuNumThreads(1);
      const bool took = direct(&one);
      phi::funcs::SetCpuNumThreads(2);
      direct(&two);
      const bool left = (target == "emu128" && !HWY_ARCH_ARM_A64) || (lse && c.inner == 1 && c.length < 8) ||
                        (!lse && std::is_same<T, double>::value && c.inner != 1 && c.inner % 8 != 0);
      if (left) {
        EXPECT_FALSE(took) << what << ": left to the generic engine";
        continue;
      }
      ASSERT_TRUE(took) << what;
      // The generic steps (SIMD off) and the engine's entry (SIMD on) with the same carries.
      CarryScanCall call{lse ? CarryScanOp::kLogcumsumexp : CarryScanOp::kCumsum,
                         phi::CppTypeToDataType<T>::Type(), x.data(), cd.data(), nullptr, {c.outer, c.length, c.inner},
                         c.exclusive, c.reverse};
      std::vector<T> generic(x.size()), entry(x.size());
      phi::funcs::SetCpuScanSimdEnabled(false);
      call.out = generic.data();
      phi::funcs::ScanWithCarry(Cpu(), call);
      std::vector<double> tot_generic(cd.size()), tot(cd.size()), tot_two(cd.size());
      call.out = tot_generic.data();
      phi::funcs::ScanLineTotals(Cpu(), call);
      phi::funcs::SetCpuScanSimdEnabled(true);
      call.out = entry.data();
      phi::funcs::ScanWithCarry(Cpu(), call);
      call.out = tot_two.data();
      phi::funcs::ScanLineTotals(Cpu(), call);
      phi::funcs::SetCpuNumThreads(1);
      call.out = tot.data();
      phi::funcs::ScanLineTotals(Cpu(), call);
      for (size_t i = 0; i < x.size(); ++i) {
        const double got = static_cast<double>(one[i]);
        ASSERT_EQ(0, std::memcmp(&one[i], &two[i], sizeof(T))) << what << " threads, at " << i;
        ASSERT_EQ(0, std::memcmp(&two[i], &entry[i], sizeof(T))) << what << " entry, at " << i;
        ASSERT_TRUE(scan_carry_test::Close(ref[i], got, tol))
            << what << " at " << i << ": " << got << " vs " << static_cast<double>(ref[i]);
        if (lse) {
          ASSERT_TRUE(scan_carry_test::Close(static_cast<double>(generic[i]), got, 2 * tol))
              << what << " at " << i << ": " << got << " generic " << static_cast<double>(generic[i]);
        } else {
          ASSERT_EQ(0, std::memcmp(&one[i], &generic[i], sizeof(T)))
              << what << " at " << i << ": " << got << " generic " << static_cast<double>(generic[i]);
        }
      }
      for (size_t i = 0; i < tot.size(); ++i) {
        ASSERT_EQ(0, std::memcmp(&tot[i], &tot_two[i], sizeof(double))) << what << " total threads " << i;
        const double tt = scan_carry_test::TotalTol<T>(lse);
        ASSERT_TRUE(scan_carry_test::Close(ref_tot[i], tot[i], tt)) << what << " total " << i;
        ASSERT_TRUE(scan_carry_test::Close(tot_generic[i], tot[i], tt)) << what << " total generic " << i;
      }
    }
  }
}

template <typename T>
void CheckSimd(bool lse, double tol) {
  paddle_ops_test::ForEachHwyTarget([&](const std::string& t) {
    CheckSimdTarget<T>(lse, tol, t);
    phi::funcs::SetCpuScanSimdEnabled(true);
  });
}

TEST(ScanCarryCpuSimd, LogcumsumexpFloat64) { CheckSimd<double>(true, 1e-13); }
TEST(ScanCarryCpuSimd, LogcumsumexpFloat32) { CheckSimd<float>(true, 3e-7); }
TEST(ScanCarryCpuSimd, LogcumsumexpFloat16) { CheckSimd<phi::dtype::float16>(true, 1e-3); }
TEST(ScanCarryCpuSimd, LogcumsumexpBfloat16) { CheckSimd<phi::dtype::bfloat16>(true, 8e-3); }
TEST(ScanCarryCpuSimd, CumsumFloat64) { CheckSimd<double>(false, 1e-15); }
TEST(ScanCarryCpuSimd, CumsumFloat32) { CheckSimd<float>(false, 1e-7); }
TEST(ScanCarryCpuSimd, CumsumFloat16) { CheckSimd<phi::dtype::float16>(false, 1e-3); }
TEST(ScanCarryCpuSimd, CumsumBfloat16) { CheckSimd<phi::dtype::bfloat16>(false, 8e-3); }

// Non-finite carries (+inf, NaN; -inf for cumsum) on the SIMD paths give what the generic steps
// give: +inf / NaN from the carry on (a NaN is any NaN), -inf carries of cumsum likewise, with
// finite lines beside them.
TEST(ScanCarryCpuSimd, NonFiniteCarries) {
  const double kNaN = std::numeric_limits<double>::quiet_NaN();
  for (const bool lse : {true, false}) {
    for (const auto& sh : std::vector<std::vector<int64_t>>{{4, 64, 1}, {1, 300, 8}, {1, 2100, 1}}) {
      for (int m = 0; m < 4; ++m) {
        const CarryCase c{sh[0], sh[1], sh[2], (m & 1) != 0, (m & 2) != 0};
        std::vector<double> xd, cd;
        scan_carry_test::Inputs(lse, false, c, 5, &xd, &cd);
        const double special[] = {INFINITY, kNaN, -INFINITY};
        for (size_t i = 0; i < cd.size(); i += 2) cd[i] = special[(i / 2) % 3];
        std::vector<float> x(xd.begin(), xd.end()), simd(x.size()), generic(x.size());
        CarryScanCall call{lse ? CarryScanOp::kLogcumsumexp : CarryScanOp::kCumsum, phi::DataType::FLOAT32,
                           x.data(), cd.data(), nullptr, {c.outer, c.length, c.inner}, c.exclusive, c.reverse};
        phi::funcs::SetCpuScanChunkForTesting(1024);
        call.out = simd.data();
        phi::funcs::ScanWithCarry(Cpu(), call);
        phi::funcs::SetCpuScanSimdEnabled(false);
        call.out = generic.data();
        phi::funcs::ScanWithCarry(Cpu(), call);
        phi::funcs::SetCpuScanSimdEnabled(true);
        phi::funcs::SetCpuScanChunkForTesting(0);
        for (size_t i = 0; i < x.size(); ++i) {
          const bool same = std::isnan(simd[i]) ? std::isnan(generic[i])
                                                : (std::isinf(generic[i]) ? simd[i] == generic[i]
                                                                          : std::fabs(simd[i] - generic[i]) <=
                                                                                1e-6 * std::fmax(1.0f, std::fabs(generic[i])));
          ASSERT_TRUE(same) << (lse ? "lse " : "cumsum ") << scan_carry_test::Name(c) << " at " << i << ": " << simd[i]
                            << " generic " << generic[i];
        }
      }
    }
  }
}

TEST(ScanCarryCpu, LogcumsumexpOfIntegersIsRefused) {
  const std::vector<int32_t> x = {1, 2};
  std::vector<int32_t> out(2);
  CarryScanCall call{CarryScanOp::kLogcumsumexp, phi::DataType::INT32, x.data(), nullptr, out.data(), {1, 2, 1},
                     false, false};
  EXPECT_ANY_THROW(phi::funcs::ScanWithCarry(Cpu(), call));
}

}  // namespace
