// The CPU scan engine's carry-in per line and line totals (kernels/funcs/scan_carry.h, the
// internal entries of the sequence-parallel scans): logcumsumexp and cumsum, rows and columns,
// forward / reverse / exclusive, -inf carries, against a reference of the line with its carry in
// front; the threaded strategies (a shrunk chunk) give bitwise the same results.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/funcs/cpu/scan_runtime.h"
#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"
#include "paddle_ops/core/device_context.h"
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
      ASSERT_TRUE(scan_carry_test::Close(ref_tot[i], got, 1e-13)) << scan_carry_test::Name(c) << " total " << i;
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

TEST(ScanCarryCpu, LogcumsumexpOfIntegersIsRefused) {
  const std::vector<int32_t> x = {1, 2};
  std::vector<int32_t> out(2);
  CarryScanCall call{CarryScanOp::kLogcumsumexp, phi::DataType::INT32, x.data(), nullptr, out.data(), {1, 2, 1},
                     false, false};
  EXPECT_ANY_THROW(phi::funcs::ScanWithCarry(Cpu(), call));
}

}  // namespace
