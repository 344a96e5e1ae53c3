// Tests of the registered CPU scan kernels (logcumsumexp, logcumsumexp_grad, cumsum,
// cumsum_grad): every kernel is looked up in the KernelFactory and run with a CPUContext
// after the op's InferMeta has set the output's meta, as the generated API does.
// References are computed independently in long double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iomanip>
#include <limits>
#include <type_traits>
#include <random>
#include <string>
#include <vector>

#include "infermeta/unary.h"
#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/impl/cum_scan_ops.h"
#include "paddle_ops/common/scalar.h"
#include "paddle_ops/core/dense_tensor.h"
#include "paddle_ops/core/device_context.h"
#include "paddle_ops/core/kernel_factory.h"
#include "paddle_ops/core/meta_tensor.h"
#include "unittests/cpp/exact_sum.h"
#include "unittests/cpp/scan_view.h"

namespace {

using paddle_ops_test::ExactSum;
using paddle_ops_test::ScanView;
using paddle_ops_test::ScanViewOf;

using phi::Backend;
using phi::DataLayout;
using phi::DataType;
using phi::DDim;
using phi::DenseTensor;
using phi::KernelKey;
using phi::MetaTensor;
using phi::dtype::bfloat16;
using phi::dtype::float16;
using LD = long double;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr LD kLInf = std::numeric_limits<LD>::infinity();

const phi::CPUContext& Ctx() {
  static phi::CPUContext ctx;
  return ctx;
}

template <typename T>
LD ToLD(T v) {
  return static_cast<LD>(static_cast<double>(v));
}
template <>
LD ToLD<int32_t>(int32_t v) {
  return static_cast<LD>(v);
}
template <>
LD ToLD<int64_t>(int64_t v) {
  return static_cast<LD>(v);
}

template <typename T>
T FromD(double d) {
  return static_cast<T>(d);
}

template <typename T>
DenseTensor MakeTensor(const std::vector<int64_t>& shape, const std::vector<T>& values) {
  DenseTensor t;
  t.Resize(phi::make_ddim(shape));
  EXPECT_EQ(t.numel(), static_cast<int64_t>(values.size()));
  T* p = Ctx().Alloc<T>(&t);
  std::copy(values.begin(), values.end(), p);
  return t;
}
template <typename T>
DenseTensor MakeTensorD(const std::vector<int64_t>& shape, const std::vector<double>& values) {
  std::vector<T> v(values.size());
  for (size_t i = 0; i < values.size(); ++i) v[i] = FromD<T>(values[i]);
  return MakeTensor<T>(shape, v);
}
template <typename T>
std::vector<T> ToVector(const DenseTensor& t) {
  const T* p = t.data<T>();
  return std::vector<T>(p, p + t.numel());
}

KernelKey CpuKey(DataType t) { return KernelKey(Backend::CPU, DataLayout::ALL_LAYOUT, t); }

// ---- running the kernels -----------------------------------------------------------------

DenseTensor RunLogcumsumexp(const DenseTensor& x, int axis, bool flatten, bool exclusive,
                            bool reverse) {
  DenseTensor out;
  MetaTensor mo(&out);
  phi::CumInferMeta(MetaTensor(x), axis, flatten, exclusive, reverse, &mo);
  const DDim inferred = out.dims();
  const phi::Kernel& k =
      phi::KernelFactory::Instance().SelectKernelOrThrow("logcumsumexp", CpuKey(x.dtype()));
  k.Call<const DenseTensor&, int, bool, bool, bool, DenseTensor*>(Ctx(), x, axis, flatten,
                                                                  exclusive, reverse, &out);
  EXPECT_EQ(out.dims(), inferred);
  EXPECT_EQ(out.dtype(), x.dtype());
  return out;
}

DenseTensor RunCumsum(const DenseTensor& x, int axis, bool flatten, bool exclusive, bool reverse) {
  DenseTensor out;
  MetaTensor mo(&out);
  const phi::Scalar ax(axis);
  phi::CumScalarAxisInferMeta(MetaTensor(x), ax, flatten, exclusive, reverse, &mo);
  const DDim inferred = out.dims();
  const phi::Kernel& k =
      phi::KernelFactory::Instance().SelectKernelOrThrow("cumsum", CpuKey(x.dtype()));
  k.Call<const DenseTensor&, const phi::Scalar&, bool, bool, bool, DenseTensor*>(
      Ctx(), x, ax, flatten, exclusive, reverse, &out);
  EXPECT_EQ(out.dims(), inferred);
  EXPECT_EQ(out.dtype(), x.dtype());
  return out;
}

DenseTensor RunLogcumsumexpGrad(const DenseTensor& x, const DenseTensor& out,
                                const DenseTensor& dout, int axis, bool flatten, bool exclusive,
                                bool reverse) {
  DenseTensor dx;
  MetaTensor mdx(&dx);
  phi::UnchangedInferMeta(MetaTensor(x), &mdx);
  const phi::Kernel& k =
      phi::KernelFactory::Instance().SelectKernelOrThrow("logcumsumexp_grad", CpuKey(x.dtype()));
  k.Call<const DenseTensor&, const DenseTensor&, const DenseTensor&, int, bool, bool, bool,
         DenseTensor*>(Ctx(), x, out, dout, axis, flatten, exclusive, reverse, &dx);
  EXPECT_EQ(dx.dims(), x.dims());
  EXPECT_EQ(dx.dtype(), x.dtype());
  return dx;
}

DenseTensor RunCumsumGrad(const DenseTensor& x, const DenseTensor& dout, int axis, bool flatten,
                          bool exclusive, bool reverse) {
  DenseTensor dx;
  MetaTensor mdx(&dx);
  phi::UnchangedInferMeta(MetaTensor(x), &mdx);
  const phi::Scalar ax(axis);
  const phi::Kernel& k =
      phi::KernelFactory::Instance().SelectKernelOrThrow("cumsum_grad", CpuKey(x.dtype()));
  k.Call<const DenseTensor&, const DenseTensor&, const phi::Scalar&, bool, bool, bool,
         DenseTensor*>(Ctx(), x, dout, ax, flatten, exclusive, reverse, &dx);
  EXPECT_EQ(dx.dims(), x.dims());
  EXPECT_EQ(dx.dtype(), x.dtype());
  return dx;
}

// ---- references --------------------------------------------------------------------------

// Whether the output at scan index i reads input j.
bool InWindow(int64_t i, int64_t j, bool exclusive, bool reverse) {
  if (!reverse) return exclusive ? j < i : j <= i;
  return exclusive ? j > i : j >= i;
}

LD NaiveLse(const std::vector<LD>& w) {
  if (w.empty()) return -kLInf;
  LD m = -kLInf;
  for (LD v : w) {
    if (std::isnan(v)) return std::numeric_limits<LD>::quiet_NaN();
    m = std::max(m, v);
  }
  if (std::isinf(m)) return m;
  LD s = 0;
  for (LD v : w) s += expl(v - m);
  return m + logl(s);
}

// O(length^2) reference: each output from its own window.
template <typename T>
std::vector<LD> NaiveScan(const std::vector<T>& x, const ScanView& v, bool exclusive, bool reverse,
                          bool logsumexp) {
  std::vector<LD> out(x.size());
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t c = 0; c < v.inner; ++c)
      for (int64_t i = 0; i < v.length; ++i) {
        std::vector<LD> w;
        for (int64_t j = 0; j < v.length; ++j)
          if (InWindow(i, j, exclusive, reverse)) w.push_back(ToLD(x[v.Offset(o, j, c)]));
        LD r = 0;
        if (logsumexp) {
          r = NaiveLse(w);
        } else {
          for (LD a : w) r += a;
        }
        out[v.Offset(o, i, c)] = r;
      }
  return out;
}

// O(length) streaming log-sum-exp in long double with a compensated (Kahan) sum.
struct LseAcc {
  LD m = -kLInf, s = 0, c = 0;
  bool nan = false;
  void KahanAdd(LD val) {
    const LD y = val - c;
    const LD t = s + y;
    c = (t - s) - y;
    s = t;
  }
  void Add(LD x) {
    if (nan) return;
    if (std::isnan(x)) {
      nan = true;
      return;
    }
    if (x == -kLInf || m == kLInf) return;
    if (x == kLInf) {
      m = kLInf;
      return;
    }
    if (x <= m) {
      KahanAdd(expl(x - m));
    } else {
      const LD sc = m == -kLInf ? LD(0) : expl(m - x);
      s *= sc;
      c *= sc;
      m = x;
      KahanAdd(1);
    }
  }
  LD Value() const {
    if (nan) return std::numeric_limits<LD>::quiet_NaN();
    if (std::isinf(m)) return m;
    return m + logl(s);
  }
};

template <typename T>
std::vector<LD> StreamLse(const std::vector<T>& x, const ScanView& v, bool exclusive, bool reverse) {
  std::vector<LD> out(x.size());
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t c = 0; c < v.inner; ++c) {
      LseAcc acc;
      for (int64_t s = 0; s < v.length; ++s) {
        const int64_t i = reverse ? v.length - 1 - s : s;
        const int64_t off = v.Offset(o, i, c);
        if (exclusive) {
          out[off] = acc.Value();
          acc.Add(ToLD(x[off]));
        } else {
          acc.Add(ToLD(x[off]));
          out[off] = acc.Value();
        }
      }
    }
  return out;
}

// x_grad[i] = sum_{j : i in window(j)} g[j] * exp(x[i] - out[j]); also returns the sum of the
// absolute terms (the scale of rounding errors in the result).
template <typename T>
void NaiveLseGrad(const std::vector<T>& x, const std::vector<T>& out, const std::vector<T>& g,
                  const ScanView& v, bool exclusive, bool reverse, std::vector<LD>* grad,
                  std::vector<LD>* scale) {
  grad->assign(x.size(), 0);
  scale->assign(x.size(), 0);
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t c = 0; c < v.inner; ++c)
      for (int64_t j = 0; j < v.length; ++j)
        for (int64_t i = 0; i < v.length; ++i) {
          if (!InWindow(j, i, exclusive, reverse)) continue;
          const int64_t oi = v.Offset(o, i, c), oj = v.Offset(o, j, c);
          const LD xi = ToLD(x[oi]);
          if (xi == -kLInf) continue;
          const LD term = ToLD(g[oj]) * expl(xi - ToLD(out[oj]));
          (*grad)[oi] += term;
          (*scale)[oi] += fabsl(term);
        }
}

template <typename T>
std::vector<T> RandomVec(size_t n, double lo, double hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(n);
  for (auto& e : v) e = FromD<T>(d(rng));
  return v;
}

// ---- comparisons -------------------------------------------------------------------------

// got must match ref: same NaN-ness / same infinity, else |got-ref| <= rtol*max(1,|ref|).
template <typename T>
::testing::AssertionResult Near(T got_t, LD ref, double rtol) {
  const LD got = ToLD(got_t);
  if (std::isnan(ref) || std::isnan(got)) {
    if (std::isnan(ref) && std::isnan(got)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << static_cast<double>(got) << ", expected "
                                         << static_cast<double>(ref);
  }
  if (std::isinf(ref) || std::isinf(got)) {
    if (got == ref) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << static_cast<double>(got) << ", expected "
                                         << static_cast<double>(ref);
  }
  const LD tol = rtol * std::max<LD>(1, fabsl(ref));
  if (fabsl(got - ref) <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << std::setprecision(17) << "got " << static_cast<double>(got)
                                       << ", expected " << static_cast<double>(ref) << " (|diff| "
                                       << static_cast<double>(fabsl(got - ref)) << " > tol "
                                       << static_cast<double>(tol) << ")";
}

// Spacing of a 16-bit format at |v| (the ulp of the binade v lies in).
LD Ulp16(LD v, bool bf16) {
  const int mant = bf16 ? 7 : 10;
  const int emin = bf16 ? -126 : -14;
  const LD a = fabsl(v);
  int e = emin;
  if (a >= ldexpl(1, emin)) e = static_cast<int>(std::floor(static_cast<double>(log2l(a))));
  if (ldexpl(1, e) > a && e > emin) --e;  // guard log2 rounding
  return ldexpl(1, e - mant);
}

template <typename T>
constexpr bool kIsBf16 = std::is_same<T, bfloat16>::value;

// |got - ref| <= one ulp of the 16-bit output type (plus `extra`), or same special value.
template <typename T>
::testing::AssertionResult WithinUlp16(T got_t, LD ref, LD extra = 0) {
  const LD got = ToLD(got_t);
  if (std::isnan(ref) || std::isnan(got) || std::isinf(ref) || std::isinf(got)) {
    if ((std::isnan(ref) && std::isnan(got)) || got == ref) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << static_cast<double>(got) << ", expected "
                                         << static_cast<double>(ref);
  }
  const LD ulp = Ulp16(ref, kIsBf16<T>);
  if (fabsl(got - ref) <= ulp + extra) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << std::setprecision(17) << "got " << static_cast<double>(got)
                                       << ", expected " << static_cast<double>(ref) << " (ulp "
                                       << static_cast<double>(ulp) << ")";
}

std::string Case(int axis, bool ex, bool rev) {
  return "axis=" + std::to_string(axis) + " exclusive=" + std::to_string(ex) +
         " reverse=" + std::to_string(rev);
}

const std::vector<int64_t> kShape345{3, 4, 5};

// =========================================================================================
// logcumsumexp: small hand-computed cases
// =========================================================================================

TEST(LogcumsumexpKernelTest, HandComputedZeros) {
  auto x = MakeTensorD<double>({4}, {0, 0, 0, 0});
  auto out = ToVector<double>(RunLogcumsumexp(x, 0, false, false, false));
  const double expect[] = {0.0, 0.6931471805599453, 1.0986122886681098, 1.3862943611198906};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[i], expect[i], 1e-15) << i;

  auto ex = ToVector<double>(RunLogcumsumexp(x, 0, false, true, false));
  EXPECT_EQ(ex[0], -kInf);
  for (int i = 1; i < 4; ++i) EXPECT_NEAR(ex[i], expect[i - 1], 1e-15) << i;

  auto rv = ToVector<double>(RunLogcumsumexp(x, -1, false, false, true));
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(rv[i], expect[3 - i], 1e-15) << i;

  auto exrv = ToVector<double>(RunLogcumsumexp(x, -1, false, true, true));
  EXPECT_EQ(exrv[3], -kInf);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(exrv[i], expect[2 - i], 1e-15) << i;
}

TEST(LogcumsumexpKernelTest, HandComputedOneTwoThree) {
  auto x = MakeTensorD<double>({3}, {1, 2, 3});
  auto out = ToVector<double>(RunLogcumsumexp(x, 0, false, false, false));
  EXPECT_NEAR(out[0], 1.0, 1e-15);
  EXPECT_NEAR(out[1], 2.3132616875182226, 1e-14);
  EXPECT_NEAR(out[2], 3.40760596444438, 1e-14);
  auto rv = ToVector<double>(RunLogcumsumexp(x, 0, false, false, true));
  EXPECT_NEAR(rv[2], 3.0, 1e-15);
  EXPECT_NEAR(rv[1], 3.313261687518223, 1e-14);
  EXPECT_NEAR(rv[0], 3.40760596444438, 1e-14);

  auto xf = MakeTensorD<float>({3}, {1, 2, 3});
  auto outf = ToVector<float>(RunLogcumsumexp(xf, 0, false, false, false));
  EXPECT_EQ(outf[0], 1.0f);
  EXPECT_EQ(outf[1], static_cast<float>(2.3132616875182226));  // rounded once from the exact value
  EXPECT_EQ(outf[2], static_cast<float>(3.40760596444438));
}

TEST(LogcumsumexpKernelTest, HandComputedTwoDim) {
  // x = [[0, 1], [0, 1]]
  auto x = MakeTensorD<double>({2, 2}, {0, 1, 0, 1});
  auto a0 = ToVector<double>(RunLogcumsumexp(x, 0, false, false, false));
  EXPECT_NEAR(a0[0], 0.0, 1e-15);
  EXPECT_NEAR(a0[1], 1.0, 1e-15);
  EXPECT_NEAR(a0[2], 0.6931471805599453, 1e-15);
  EXPECT_NEAR(a0[3], 1.6931471805599453, 1e-15);
  auto a1 = ToVector<double>(RunLogcumsumexp(x, 1, false, false, false));
  EXPECT_NEAR(a1[0], 0.0, 1e-15);
  EXPECT_NEAR(a1[1], 1.3132616875182228, 1e-15);  // log(1 + e)
  EXPECT_NEAR(a1[2], 0.0, 1e-15);
  EXPECT_NEAR(a1[3], 1.3132616875182228, 1e-15);
}

// =========================================================================================
// logcumsumexp: every exclusive/reverse combination on [3,4,5] along each axis
// =========================================================================================

template <typename T>
void CheckAllCombos345(double rtol, uint64_t seed) {
  const auto xv = RandomVec<T>(60, -4.0, 4.0, seed);
  auto x = MakeTensor<T>(kShape345, xv);
  for (int axis : {0, 1, 2, -1, -3}) {
    for (bool ex : {false, true}) {
      for (bool rev : {false, true}) {
        auto out = ToVector<T>(RunLogcumsumexp(x, axis, false, ex, rev));
        const ScanView v = ScanViewOf(kShape345, axis, false);
        const auto ref = NaiveScan(xv, v, ex, rev, true);
        const auto ref2 = StreamLse(xv, v, ex, rev);
        for (size_t i = 0; i < out.size(); ++i) {
          ASSERT_TRUE(Near(static_cast<double>(ref2[i]), ref[i], 1e-15)) << "reference self-check " << i;
          ASSERT_TRUE(Near(out[i], ref[i], rtol)) << Case(axis, ex, rev) << " index " << i;
        }
      }
    }
  }
}

TEST(LogcumsumexpKernelTest, AllCombosFloat64) { CheckAllCombos345<double>(1e-14, 11); }
TEST(LogcumsumexpKernelTest, AllCombosFloat32) { CheckAllCombos345<float>(2.5e-7, 12); }

template <typename T>
void CheckAllCombos16(uint64_t seed) {
  const auto xv = RandomVec<T>(60, -8.0, 8.0, seed);
  auto x = MakeTensor<T>(kShape345, xv);
  for (int axis : {0, 1, 2}) {
    for (bool ex : {false, true}) {
      for (bool rev : {false, true}) {
        auto out = ToVector<T>(RunLogcumsumexp(x, axis, false, ex, rev));
        const auto ref = NaiveScan(xv, ScanViewOf(kShape345, axis, false), ex, rev, true);
        for (size_t i = 0; i < out.size(); ++i)
          ASSERT_TRUE(WithinUlp16(out[i], ref[i])) << Case(axis, ex, rev) << " index " << i;
      }
    }
  }
}

TEST(LogcumsumexpKernelTest, Float16WithinOneUlp) { CheckAllCombos16<float16>(21); }
TEST(LogcumsumexpKernelTest, BFloat16WithinOneUlp) { CheckAllCombos16<bfloat16>(22); }

TEST(LogcumsumexpKernelTest, SixteenBitLongerRowsWithinOneUlp) {
  // 1-D rows long enough that the output spans several binades
  const auto hv = RandomVec<float16>(3000, -3.0, 3.0, 23);
  auto h = ToVector<float16>(RunLogcumsumexp(MakeTensor<float16>({3000}, hv), 0, false, false, false));
  const auto href = StreamLse(hv, ScanViewOf({3000}, 0, false), false, false);
  for (size_t i = 0; i < h.size(); ++i) ASSERT_TRUE(WithinUlp16(h[i], href[i])) << i;
  const auto bv = RandomVec<bfloat16>(3000, -3.0, 3.0, 24);
  auto b = ToVector<bfloat16>(RunLogcumsumexp(MakeTensor<bfloat16>({3000}, bv), 0, false, true, true));
  const auto bref = StreamLse(bv, ScanViewOf({3000}, 0, false), true, true);
  for (size_t i = 0; i < b.size(); ++i) ASSERT_TRUE(WithinUlp16(b[i], bref[i])) << i;
}

TEST(LogcumsumexpKernelTest, FlattenAllCombos) {
  const std::vector<int64_t> shape{2, 3, 4};
  const auto xv = RandomVec<double>(24, -3.0, 3.0, 31);
  auto x = MakeTensor<double>(shape, xv);
  for (bool ex : {false, true}) {
    for (bool rev : {false, true}) {
      DenseTensor o = RunLogcumsumexp(x, -1, true, ex, rev);
      EXPECT_EQ(o.dims(), DDim({24}));
      auto out = ToVector<double>(o);
      const auto ref = NaiveScan(xv, ScanViewOf({24}, 0, false), ex, rev, true);
      for (size_t i = 0; i < 24; ++i)
        ASSERT_TRUE(Near(out[i], ref[i], 1e-14)) << Case(-1, ex, rev) << " index " << i;
    }
  }
}

TEST(LogcumsumexpKernelTest, ZeroSize) {
  for (const auto& shape : std::vector<std::vector<int64_t>>{{0}, {0, 3}, {2, 0, 3}, {3, 2, 0}}) {
    auto x = MakeTensor<float>(shape, {});
    const int rank = static_cast<int>(shape.size());
    for (int axis = -rank; axis < rank; ++axis) {
      for (bool ex : {false, true}) {
        DenseTensor o;
        ASSERT_NO_THROW(o = RunLogcumsumexp(x, axis, false, ex, !ex));
        EXPECT_EQ(o.dims(), phi::make_ddim(shape));
        EXPECT_EQ(o.numel(), 0);
      }
    }
    DenseTensor f = RunLogcumsumexp(x, -1, true, false, false);
    EXPECT_EQ(f.dims(), DDim({0}));
  }
}

TEST(LogcumsumexpKernelTest, ZeroDim) {
  for (int axis : {0, -1}) {
    auto x = MakeTensorD<double>({}, {2.5});
    DenseTensor o = RunLogcumsumexp(x, axis, false, false, false);
    EXPECT_EQ(o.dims(), DDim());
    EXPECT_EQ(o.data<double>()[0], 2.5);
    DenseTensor r = RunLogcumsumexp(x, axis, false, false, true);
    EXPECT_EQ(r.data<double>()[0], 2.5);
    DenseTensor e = RunLogcumsumexp(x, axis, false, true, false);
    EXPECT_EQ(e.dims(), DDim());
    EXPECT_EQ(e.data<double>()[0], -kInf);
  }
  auto xf = MakeTensorD<float>({}, {-1.25});
  DenseTensor f = RunLogcumsumexp(xf, -1, true, false, false);
  EXPECT_EQ(f.dims(), DDim({1}));
  EXPECT_EQ(f.data<float>()[0], -1.25f);
  auto xh = MakeTensorD<float16>({}, {0.5});
  EXPECT_EQ(static_cast<float>(RunLogcumsumexp(xh, 0, false, false, false).data<float16>()[0]), 0.5f);
}

// =========================================================================================
// logcumsumexp: special values, overflow, wide range
// =========================================================================================

template <typename T>
void CheckRow(const std::vector<double>& x, bool ex, bool rev, const std::vector<double>& expect,
              double tol) {
  auto out = ToVector<T>(RunLogcumsumexp(MakeTensorD<T>({static_cast<int64_t>(x.size())}, x), 0,
                                         false, ex, rev));
  ASSERT_EQ(out.size(), expect.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const double got = static_cast<double>(out[i]);
    if (std::isnan(expect[i])) {
      EXPECT_TRUE(std::isnan(got)) << "index " << i << " got " << got;
    } else if (std::isinf(expect[i])) {
      EXPECT_EQ(got, expect[i]) << "index " << i;
    } else {
      EXPECT_FALSE(std::isnan(got)) << "index " << i;
      EXPECT_NEAR(got, expect[i], tol) << "index " << i;
    }
  }
}

template <typename T>
void CheckNegInf(double tol) {
  const double ln2 = 0.6931471805599453;
  CheckRow<T>({-kInf, -kInf, -kInf, 1, -kInf}, false, false, {-kInf, -kInf, -kInf, 1, 1}, tol);
  CheckRow<T>({-kInf, -kInf, 0, 0}, true, false, {-kInf, -kInf, -kInf, 0}, tol);
  CheckRow<T>({-kInf, -kInf, -kInf}, false, false, {-kInf, -kInf, -kInf}, tol);
  CheckRow<T>({-kInf, -kInf, -kInf}, true, true, {-kInf, -kInf, -kInf}, tol);
  CheckRow<T>({-kInf, 0, -kInf, 0, -kInf}, false, true, {ln2, ln2, 0, 0, -kInf}, tol);
  CheckRow<T>({0, -kInf, 0}, false, false, {0, 0, ln2}, tol);
}
TEST(LogcumsumexpSpecialTest, NegInfPrefixIsNegInfNeverNaNFloat32) { CheckNegInf<float>(1e-6); }
TEST(LogcumsumexpSpecialTest, NegInfPrefixIsNegInfNeverNaNFloat64) { CheckNegInf<double>(1e-15); }
TEST(LogcumsumexpSpecialTest, NegInfPrefixIsNegInfNeverNaNFloat16) { CheckNegInf<float16>(1e-3); }
TEST(LogcumsumexpSpecialTest, NegInfPrefixIsNegInfNeverNaNBFloat16) { CheckNegInf<bfloat16>(4e-3); }

template <typename T>
void CheckPosInf() {
  CheckRow<T>({0, kInf, 1, -kInf, 2}, false, false, {0, kInf, kInf, kInf, kInf}, 1e-6);
  CheckRow<T>({kInf, kInf}, false, false, {kInf, kInf}, 0);
  CheckRow<T>({-kInf, kInf, -kInf}, false, false, {-kInf, kInf, kInf}, 0);
  CheckRow<T>({0, kInf, 1}, false, true, {kInf, kInf, 1}, 1e-6);
  CheckRow<T>({0, kInf, 1}, true, false, {-kInf, 0, kInf}, 1e-6);
}
TEST(LogcumsumexpSpecialTest, PosInfFloat32) { CheckPosInf<float>(); }
TEST(LogcumsumexpSpecialTest, PosInfFloat64) { CheckPosInf<double>(); }
TEST(LogcumsumexpSpecialTest, PosInfFloat16) { CheckPosInf<float16>(); }
TEST(LogcumsumexpSpecialTest, PosInfBFloat16) { CheckPosInf<bfloat16>(); }

template <typename T>
void CheckNaN(double tol) {
  CheckRow<T>({0, kNaN, 1, 2}, false, false, {0, kNaN, kNaN, kNaN}, tol);
  CheckRow<T>({0, kNaN, kInf, -kInf}, false, false, {0, kNaN, kNaN, kNaN}, tol);
  CheckRow<T>({kNaN, 1, 2}, true, false, {-kInf, kNaN, kNaN}, tol);
  CheckRow<T>({0, kNaN, 1, 2}, false, true, {kNaN, kNaN, 2.3132616875182226, 2}, tol);
  CheckRow<T>({-kInf, kNaN}, false, false, {-kInf, kNaN}, tol);
  // rows of a 2-D tensor: NaN in row 0 only
  const std::vector<double> xv{0, kNaN, 1, 2, /* row 1 */ 0, 1, 2, 3};
  auto out = ToVector<T>(RunLogcumsumexp(MakeTensorD<T>({2, 4}, xv), 1, false, false, false));
  EXPECT_NEAR(static_cast<double>(out[0]), 0.0, tol);
  for (int i = 1; i < 4; ++i) EXPECT_TRUE(std::isnan(static_cast<double>(out[i]))) << i;
  const double row1[] = {0, 1.3132616875182228, 2.40760596444438, 3.4401896985611957};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(static_cast<double>(out[4 + i]), row1[i], tol * 4) << i;
  // along axis 0 of a [4, 2] tensor: NaN in column 0 at row 1
  const std::vector<double> xc{0, 0, kNaN, 1, 1, 2, 2, 3};
  auto oc = ToVector<T>(RunLogcumsumexp(MakeTensorD<T>({4, 2}, xc), 0, false, false, false));
  EXPECT_NEAR(static_cast<double>(oc[0]), 0.0, tol);
  for (int r = 1; r < 4; ++r) EXPECT_TRUE(std::isnan(static_cast<double>(oc[2 * r]))) << r;
  for (int r = 0; r < 4; ++r) EXPECT_FALSE(std::isnan(static_cast<double>(oc[2 * r + 1]))) << r;
  EXPECT_NEAR(static_cast<double>(oc[7]), row1[3], tol * 4);
}
TEST(LogcumsumexpSpecialTest, NaNPoisonsLaterOutputsOfItsRowFloat32) { CheckNaN<float>(1e-6); }
TEST(LogcumsumexpSpecialTest, NaNPoisonsLaterOutputsOfItsRowFloat64) { CheckNaN<double>(1e-14); }
TEST(LogcumsumexpSpecialTest, NaNPoisonsLaterOutputsOfItsRowFloat16) { CheckNaN<float16>(2e-3); }
TEST(LogcumsumexpSpecialTest, NaNPoisonsLaterOutputsOfItsRowBFloat16) { CheckNaN<bfloat16>(2e-2); }

TEST(LogcumsumexpSpecialTest, ExclusiveFirstElementIsNegInf) {
  for (bool rev : {false, true}) {
    const int64_t first = rev ? 3 : 0;
    auto d = ToVector<double>(RunLogcumsumexp(MakeTensorD<double>({4}, {5, 6, 7, 8}), 0, false, true, rev));
    EXPECT_EQ(d[first], -kInf);
    EXPECT_TRUE(std::isfinite(d[rev ? 0 : 3]));
    auto f = ToVector<float>(RunLogcumsumexp(MakeTensorD<float>({4}, {5, 6, 7, 8}), 0, false, true, rev));
    EXPECT_EQ(f[first], -std::numeric_limits<float>::infinity());
    EXPECT_NE(f[first], std::numeric_limits<float>::lowest());
    auto h = ToVector<float16>(RunLogcumsumexp(MakeTensorD<float16>({4}, {5, 6, 7, 8}), 0, false, true, rev));
    EXPECT_EQ(h[first].x, 0xfc00);
    auto b = ToVector<bfloat16>(RunLogcumsumexp(MakeTensorD<bfloat16>({4}, {5, 6, 7, 8}), 0, false, true, rev));
    EXPECT_EQ(b[first].x, 0xff80);
  }
  // along a middle axis: the whole first slice is -inf, nothing else is
  auto x = MakeTensor<float>(kShape345, RandomVec<float>(60, -2, 2, 41));
  auto o = ToVector<float>(RunLogcumsumexp(x, 1, false, true, false));
  const ScanView v = ScanViewOf(kShape345, 1, false);
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t c = 0; c < 5; ++c) {
        const float val = o[v.Offset(a, i, c)];
        if (i == 0) {
          EXPECT_EQ(val, -std::numeric_limits<float>::infinity());
        } else {
          EXPECT_TRUE(std::isfinite(val));
        }
      }
}

template <typename T>
void CheckArangeOverflow(double rtol) {
  std::vector<T> xv;
  for (int i = 0; i < 24; ++i) xv.push_back(FromD<T>(10000.0 + i));
  auto x = MakeTensor<T>({24}, xv);
  for (bool ex : {false, true}) {
    for (bool rev : {false, true}) {
      auto out = ToVector<T>(RunLogcumsumexp(x, 0, false, ex, rev));
      const auto ref = StreamLse(xv, ScanViewOf({24}, 0, false), ex, rev);
      for (int i = 0; i < 24; ++i) {
        if (!std::isinf(ref[i])) {
          EXPECT_TRUE(std::isfinite(static_cast<double>(out[i]))) << Case(0, ex, rev) << " " << i;
        }
        EXPECT_TRUE(Near(out[i], ref[i], rtol)) << Case(0, ex, rev) << " " << i;
      }
    }
  }
  // spot check: inclusive last = 10023 + log(sum_{k=0}^{23} e^-k) = 10023 + log(1/(1-1/e)) (approx)
  auto out = ToVector<T>(RunLogcumsumexp(x, 0, false, false, false));
  EXPECT_NEAR(static_cast<double>(out[23]), 10023.458675145387, 10023.5 * rtol);
}
TEST(LogcumsumexpOverflowTest, ArangeFloat32) { CheckArangeOverflow<float>(2.5e-7); }
TEST(LogcumsumexpOverflowTest, ArangeFloat64) { CheckArangeOverflow<double>(1e-14); }

template <typename T>
void CheckWideRange(double rtol) {
  // -1000, 1000, -999, 999, ... interleaved
  std::vector<T> xv;
  for (int i = 0; i < 2001; ++i) xv.push_back(FromD<T>(i % 2 == 0 ? -1000.0 + i / 2 : 1000.0 - i / 2));
  const int64_t n = static_cast<int64_t>(xv.size());
  auto x = MakeTensor<T>({n}, xv);
  for (bool ex : {false, true}) {
    for (bool rev : {false, true}) {
      auto out = ToVector<T>(RunLogcumsumexp(x, 0, false, ex, rev));
      const auto ref = StreamLse(xv, ScanViewOf({n}, 0, false), ex, rev);
      for (int64_t i = 0; i < n; ++i) ASSERT_TRUE(Near(out[i], ref[i], rtol)) << Case(0, ex, rev) << " " << i;
    }
  }
  // small values that precede a large one keep their precision
  std::vector<T> small{FromD<T>(-1000), FromD<T>(-1000), FromD<T>(-999.5), FromD<T>(-1001),
                       FromD<T>(1000), FromD<T>(-1000)};
  auto so = ToVector<T>(RunLogcumsumexp(MakeTensor<T>({6}, small), 0, false, false, false));
  const auto sref = NaiveScan(small, ScanViewOf({6}, 0, false), false, false, true);
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(Near(so[i], sref[i], rtol)) << i;
  EXPECT_NEAR(static_cast<double>(so[1]), -1000 + 0.6931471805599453, 1000 * rtol);
  // the same along a column: wide range inside each [block] of a 2-D tensor
  std::vector<T> cv;
  for (int i = 0; i < 64; ++i)
    for (int c = 0; c < 3; ++c) cv.push_back(FromD<T>(((i * 7 + c * 13) % 41 - 20) * 50.0));
  auto co = ToVector<T>(RunLogcumsumexp(MakeTensor<T>({64, 3}, cv), 0, false, false, true));
  const auto cref = NaiveScan(cv, ScanViewOf({64, 3}, 0, false), false, true, true);
  for (size_t i = 0; i < cv.size(); ++i) ASSERT_TRUE(Near(co[i], cref[i], rtol)) << i;
}
TEST(LogcumsumexpWideRangeTest, Float32) { CheckWideRange<float>(2.5e-7); }
TEST(LogcumsumexpWideRangeTest, Float64) { CheckWideRange<double>(1e-14); }

// =========================================================================================
// logcumsumexp: accuracy on long rows
// =========================================================================================

TEST(LogcumsumexpAccuracyTest, Float32RowOf2Pow22Normals) {
  const int64_t n = int64_t{1} << 22;
  std::mt19937_64 rng(20240601);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> xv(n);
  for (auto& e : xv) e = nd(rng);
  auto out = ToVector<float>(RunLogcumsumexp(MakeTensor<float>({n}, xv), 0, false, false, false));
  const auto ref = StreamLse(xv, ScanViewOf({n}, 0, false), false, false);
  LD worst = 0;
  int64_t worst_i = -1;
  for (int64_t i = 0; i < n; ++i) {
    const LD err = fabsl(static_cast<LD>(out[i]) - ref[i]) / std::max<LD>(1, fabsl(ref[i]));
    if (!(err <= worst)) {
      worst = err;
      worst_i = i;
    }
  }
  EXPECT_LE(static_cast<double>(worst), 2.5e-7)
      << "at " << worst_i << ": got " << out[worst_i] << ", ref " << static_cast<double>(ref[worst_i]);
}

TEST(LogcumsumexpAccuracyTest, Float64RowsOf1e5) {
  const int64_t n = 100000;
  std::mt19937_64 rng(777);
  std::normal_distribution<double> nd(0.0, 3.0);
  // [2, n] along the last axis, every direction
  std::vector<double> xv(2 * n);
  for (auto& e : xv) e = nd(rng);
  auto x = MakeTensor<double>({2, n}, xv);
  for (bool ex : {false, true}) {
    for (bool rev : {false, true}) {
      auto out = ToVector<double>(RunLogcumsumexp(x, -1, false, ex, rev));
      const auto ref = StreamLse(xv, ScanViewOf({2, n}, -1, false), ex, rev);
      for (size_t i = 0; i < out.size(); ++i)
        ASSERT_TRUE(Near(out[i], ref[i], 1e-14)) << Case(-1, ex, rev) << " index " << i;
    }
  }
  // [n, 3] along axis 0 (strided rows)
  std::vector<double> yv(3 * n);
  for (auto& e : yv) e = nd(rng);
  auto y = MakeTensor<double>({n, 3}, yv);
  auto out = ToVector<double>(RunLogcumsumexp(y, 0, false, false, true));
  const auto ref = StreamLse(yv, ScanViewOf({n, 3}, 0, false), false, true);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_TRUE(Near(out[i], ref[i], 1e-14)) << i;
}

TEST(LogcumsumexpAccuracyTest, ManyRowsInParallelMatchSerialReference) {
  // enough rows and elements to take the parallel path; every row must be independent
  const std::vector<int64_t> shape{64, 300, 7};
  const auto xv = RandomVec<float>(64 * 300 * 7, -10, 10, 99);
  auto x = MakeTensor<float>(shape, xv);
  auto out = ToVector<float>(RunLogcumsumexp(x, 1, false, false, false));
  const auto ref = StreamLse(xv, ScanViewOf(shape, 1, false), false, false);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_TRUE(Near(out[i], ref[i], 2.5e-7)) << i;
  // bitwise the same on a second run
  auto again = ToVector<float>(RunLogcumsumexp(x, 1, false, false, false));
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(std::memcmp(&out[i], &again[i], sizeof(float)), 0) << i;
}

TEST(ScanLayoutTest, SixtyFourBitIndexing) {
  // shapes past 2^31 elements: the [outer, length, inner] view must not overflow
  const auto l = phi::CumScanLayout(DDim({4, int64_t{1} << 30, 3}), 1, false);
  EXPECT_EQ(l.outer, 4);
  EXPECT_EQ(l.length, int64_t{1} << 30);
  EXPECT_EQ(l.inner, 3);
  EXPECT_EQ(l.numel(), int64_t{3} << 32);
  const auto f = phi::CumScanLayout(DDim({int64_t{1} << 20, int64_t{1} << 20}), -1, true);
  EXPECT_EQ(f.outer, 1);
  EXPECT_EQ(f.length, int64_t{1} << 40);
  EXPECT_EQ(f.inner, 1);
  const auto n = phi::CumScanLayout(DDim({5, 6, int64_t{1} << 33}), -1, false);
  EXPECT_EQ(n.outer, 30);
  EXPECT_EQ(n.length, int64_t{1} << 33);
  EXPECT_EQ(n.inner, 1);
  const auto z = phi::CumScanLayout(DDim(), 0, false);
  EXPECT_EQ(z.numel(), 1);
}

// =========================================================================================
// cumsum
// =========================================================================================

TEST(CumsumKernelTest, HandComputed) {
  auto x = MakeTensorD<double>({4}, {1, 2, 3, 4});
  EXPECT_EQ(ToVector<double>(RunCumsum(x, 0, false, false, false)), (std::vector<double>{1, 3, 6, 10}));
  EXPECT_EQ(ToVector<double>(RunCumsum(x, 0, false, true, false)), (std::vector<double>{0, 1, 3, 6}));
  EXPECT_EQ(ToVector<double>(RunCumsum(x, 0, false, false, true)), (std::vector<double>{10, 9, 7, 4}));
  EXPECT_EQ(ToVector<double>(RunCumsum(x, 0, false, true, true)), (std::vector<double>{9, 7, 4, 0}));
  auto m = MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(ToVector<int32_t>(RunCumsum(m, 0, false, false, false)),
            (std::vector<int32_t>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(ToVector<int32_t>(RunCumsum(m, 1, false, false, false)),
            (std::vector<int32_t>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(ToVector<int32_t>(RunCumsum(m, -1, false, true, true)),
            (std::vector<int32_t>{5, 3, 0, 11, 6, 0}));
  DenseTensor f = RunCumsum(m, -1, true, false, false);
  EXPECT_EQ(f.dims(), DDim({6}));
  EXPECT_EQ(ToVector<int32_t>(f), (std::vector<int32_t>{1, 3, 6, 10, 15, 21}));
  auto xf = MakeTensorD<float>({3}, {0.5, 0.25, -1});
  EXPECT_EQ(ToVector<float>(RunCumsum(xf, 0, false, false, false)), (std::vector<float>{0.5f, 0.75f, -0.25f}));
}

template <typename T>
void CheckCumsumCombos(double rtol, uint64_t seed, double lo, double hi) {
  const auto xv = RandomVec<T>(60, lo, hi, seed);
  auto x = MakeTensor<T>(kShape345, xv);
  for (int axis : {0, 1, 2, -2}) {
    for (bool ex : {false, true}) {
      for (bool rev : {false, true}) {
        auto out = ToVector<T>(RunCumsum(x, axis, false, ex, rev));
        const auto ref = NaiveScan(xv, ScanViewOf(kShape345, axis, false), ex, rev, false);
        for (size_t i = 0; i < out.size(); ++i) {
          if constexpr (std::is_integral<T>::value) {
            ASSERT_EQ(ToLD(out[i]), ref[i]) << Case(axis, ex, rev) << " index " << i;
          } else if constexpr (std::is_same<T, float16>::value || std::is_same<T, bfloat16>::value) {
            ASSERT_TRUE(WithinUlp16(out[i], ref[i])) << Case(axis, ex, rev) << " index " << i;
          } else {
            ASSERT_TRUE(Near(out[i], ref[i], rtol)) << Case(axis, ex, rev) << " index " << i;
          }
        }
      }
    }
  }
}
TEST(CumsumKernelTest, AllCombosFloat64) { CheckCumsumCombos<double>(1e-15, 51, -5, 5); }
TEST(CumsumKernelTest, AllCombosFloat32) { CheckCumsumCombos<float>(1.2e-7, 52, -5, 5); }
TEST(CumsumKernelTest, AllCombosFloat16) { CheckCumsumCombos<float16>(0, 53, -5, 5); }
TEST(CumsumKernelTest, AllCombosBFloat16) { CheckCumsumCombos<bfloat16>(0, 54, -5, 5); }
TEST(CumsumKernelTest, AllCombosInt32) { CheckCumsumCombos<int32_t>(0, 55, -1e6, 1e6); }
TEST(CumsumKernelTest, AllCombosInt64) { CheckCumsumCombos<int64_t>(0, 56, -1e12, 1e12); }

TEST(CumsumKernelTest, Int64ExactNear2Pow40) {
  // partial sums pass 2^53, where a double accumulator would round
  const int64_t n = 10000;
  std::vector<int64_t> xv(n);
  for (int64_t i = 0; i < n; ++i) xv[i] = (int64_t{1} << 40) + 7919 * i + 1;
  auto x = MakeTensor<int64_t>({n}, xv);
  for (bool ex : {false, true}) {
    for (bool rev : {false, true}) {
      auto out = ToVector<int64_t>(RunCumsum(x, 0, false, ex, rev));
      int64_t acc = 0;
      for (int64_t s = 0; s < n; ++s) {
        const int64_t i = rev ? n - 1 - s : s;
        if (ex) {
          ASSERT_EQ(out[i], acc) << Case(0, ex, rev) << " index " << i;
          acc += xv[i];
        } else {
          acc += xv[i];
          ASSERT_EQ(out[i], acc) << Case(0, ex, rev) << " index " << i;
        }
      }
      EXPECT_GT(acc, int64_t{1} << 53);
    }
  }
  // mixed signs near +-2^40 with small odd offsets, 2-D along axis 0
  std::vector<int64_t> mv;
  for (int i = 0; i < 200; ++i)
    for (int c = 0; c < 3; ++c) mv.push_back(((i + c) % 3 == 0 ? -1 : 1) * ((int64_t{1} << 40) + 2 * i + c + 1));
  auto mo = ToVector<int64_t>(RunCumsum(MakeTensor<int64_t>({200, 3}, mv), 0, false, false, false));
  for (int c = 0; c < 3; ++c) {
    int64_t acc = 0;
    for (int i = 0; i < 200; ++i) {
      acc += mv[i * 3 + c];
      ASSERT_EQ(mo[i * 3 + c], acc) << i << "," << c;
    }
  }
}

TEST(CumsumKernelTest, Int32ExactAndWrapsOnOverflow) {
  auto x = MakeTensor<int32_t>({4}, {2147483000, 600, 47, 1});
  auto out = ToVector<int32_t>(RunCumsum(x, 0, false, false, false));
  EXPECT_EQ(out[0], 2147483000);
  EXPECT_EQ(out[1], 2147483600);
  EXPECT_EQ(out[2], 2147483647);
  EXPECT_EQ(out[3], std::numeric_limits<int32_t>::min());  // two's complement wrap (documented)
}

TEST(CumsumKernelTest, ZeroSizeAndZeroDim) {
  for (const auto& shape : std::vector<std::vector<int64_t>>{{0}, {0, 3}, {2, 0, 3}}) {
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      DenseTensor o = RunCumsum(MakeTensor<int64_t>(shape, {}), axis, false, true, false);
      EXPECT_EQ(o.numel(), 0);
      EXPECT_EQ(o.dims(), phi::make_ddim(shape));
      DenseTensor g = RunCumsumGrad(MakeTensor<float>(shape, {}), MakeTensor<float>(shape, {}),
                                    axis, false, false, true);
      EXPECT_EQ(g.numel(), 0);
    }
    EXPECT_EQ(RunCumsum(MakeTensor<double>(shape, {}), -1, true, false, false).dims(), DDim({0}));
  }
  auto s = MakeTensor<int32_t>({}, {7});
  DenseTensor o = RunCumsum(s, 0, false, false, false);
  EXPECT_EQ(o.dims(), DDim());
  EXPECT_EQ(o.data<int32_t>()[0], 7);
  EXPECT_EQ(RunCumsum(s, -1, false, true, false).data<int32_t>()[0], 0);
  EXPECT_EQ(RunCumsum(MakeTensorD<double>({}, {1.5}), 0, false, false, true).data<double>()[0], 1.5);
}

TEST(CumsumKernelTest, FloatSpecialValues) {
  auto x = MakeTensorD<float>({4}, {1, kInf, 1, -kInf});
  auto out = ToVector<float>(RunCumsum(x, 0, false, false, false));
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], std::numeric_limits<float>::infinity());
  EXPECT_EQ(out[2], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(out[3]));
  auto n = ToVector<double>(RunCumsum(MakeTensorD<double>({3}, {1, kNaN, 1}), 0, false, false, false));
  EXPECT_EQ(n[0], 1.0);
  EXPECT_TRUE(std::isnan(n[1]));
  EXPECT_TRUE(std::isnan(n[2]));
}

TEST(CumsumKernelTest, Float32LongRowIsAccurate) {
  const int64_t n = 1 << 20;
  const auto xv = RandomVec<float>(n, -1.0, 1.0, 61);
  auto out = ToVector<float>(RunCumsum(MakeTensor<float>({n}, xv), 0, false, false, false));
  LD acc = 0;
  for (int64_t i = 0; i < n; ++i) {
    acc += xv[i];
    // one rounding of the exact sum (plus one for the double->float step)
    ASSERT_LE(fabsl(static_cast<LD>(out[i]) - acc), ldexpl(fabsl(acc), -23) + 1e-30L) << i;
  }
}

// =========================================================================================
// logcumsumexp_grad
// =========================================================================================

template <typename T>
void CheckLseGradCombos(const std::vector<int64_t>& shape, const std::vector<T>& xv,
                        const std::vector<T>& gv, double rtol, bool ulp16 = false) {
  auto x = MakeTensor<T>(shape, xv);
  auto g = MakeTensor<T>(shape, gv);
  const int rank = static_cast<int>(shape.size());
  for (int axis = 0; axis < std::max(rank, 1); ++axis) {
    for (bool ex : {false, true}) {
      for (bool rev : {false, true}) {
        DenseTensor out = RunLogcumsumexp(x, axis, false, ex, rev);
        const auto ov = ToVector<T>(out);
        auto dx = ToVector<T>(RunLogcumsumexpGrad(x, out, g, axis, false, ex, rev));
        std::vector<LD> ref, scale;
        NaiveLseGrad(xv, ov, gv, ScanViewOf(shape, axis, false), ex, rev, &ref, &scale);
        for (size_t i = 0; i < dx.size(); ++i) {
          ASSERT_TRUE(std::isfinite(static_cast<double>(dx[i]))) << Case(axis, ex, rev) << " " << i;
          if (ulp16) {
            ASSERT_TRUE(WithinUlp16(dx[i], ref[i], 1e-12L * scale[i])) << Case(axis, ex, rev) << " " << i;
          } else {
            const LD err = fabsl(ToLD(dx[i]) - ref[i]);
            ASSERT_LE(static_cast<double>(err), rtol * static_cast<double>(std::max<LD>(1, scale[i])))
                << Case(axis, ex, rev) << " index " << i << ": got " << static_cast<double>(dx[i])
                << ", expected " << static_cast<double>(ref[i]);
          }
        }
      }
    }
  }
}

TEST(LogcumsumexpGradKernelTest, AllCombosFloat64MixedSign) {
  CheckLseGradCombos<double>(kShape345, RandomVec<double>(60, -3, 3, 71),
                             RandomVec<double>(60, -1, 1, 72), 1e-13);
}
TEST(LogcumsumexpGradKernelTest, AllCombosFloat32MixedSign) {
  CheckLseGradCombos<float>(kShape345, RandomVec<float>(60, -3, 3, 73), RandomVec<float>(60, -1, 1, 74),
                            1e-6);
}
TEST(LogcumsumexpGradKernelTest, AllCombosFloat16MixedSign) {
  CheckLseGradCombos<float16>(kShape345, RandomVec<float16>(60, -3, 3, 75),
                              RandomVec<float16>(60, -1, 1, 76), 0, true);
}
TEST(LogcumsumexpGradKernelTest, AllCombosBFloat16MixedSign) {
  CheckLseGradCombos<bfloat16>(kShape345, RandomVec<bfloat16>(60, -3, 3, 77),
                               RandomVec<bfloat16>(60, -1, 1, 78), 0, true);
}

TEST(LogcumsumexpGradKernelTest, HandComputed) {
  // x = [0, 0], g = [1, 1], inclusive: out = [0, ln2];
  // x_grad[0] = 1*e^0 + 1*e^(0-ln2) = 1.5, x_grad[1] = e^(0-ln2) = 0.5
  auto x = MakeTensorD<double>({2}, {0, 0});
  auto g = MakeTensorD<double>({2}, {1, 1});
  DenseTensor out = RunLogcumsumexp(x, 0, false, false, false);
  auto dx = ToVector<double>(RunLogcumsumexpGrad(x, out, g, 0, false, false, false));
  EXPECT_NEAR(dx[0], 1.5, 1e-15);
  EXPECT_NEAR(dx[1], 0.5, 1e-15);
  // exclusive: out = [-inf, 0]; x_grad[0] = g[1]*e^(0-0) = 1, x_grad[1] = 0 (feeds nothing)
  DenseTensor oe = RunLogcumsumexp(x, 0, false, true, false);
  auto de = ToVector<double>(RunLogcumsumexpGrad(x, oe, g, 0, false, true, false));
  EXPECT_NEAR(de[0], 1.0, 1e-15);
  EXPECT_EQ(de[1], 0.0);
}

TEST(LogcumsumexpGradKernelTest, FlattenAndZeroDim) {
  const std::vector<int64_t> shape{3, 4};
  const auto xv = RandomVec<double>(12, -2, 2, 81);
  const auto gv = RandomVec<double>(12, -1, 1, 82);
  auto x = MakeTensor<double>(shape, xv);
  auto g = MakeTensor<double>({12}, gv);  // out_grad has out's (flattened) shape
  for (bool ex : {false, true}) {
    for (bool rev : {false, true}) {
      DenseTensor out = RunLogcumsumexp(x, -1, true, ex, rev);
      auto dx = RunLogcumsumexpGrad(x, out, g, -1, true, ex, rev);
      EXPECT_EQ(dx.dims(), DDim({3, 4}));
      std::vector<LD> ref, scale;
      NaiveLseGrad(xv, ToVector<double>(out), gv, ScanViewOf({12}, 0, false), ex, rev, &ref, &scale);
      auto d = ToVector<double>(dx);
      for (int i = 0; i < 12; ++i)
        EXPECT_NEAR(d[i], static_cast<double>(ref[i]), 1e-13 * std::max<double>(1, scale[i])) << i;
    }
  }
  auto s = MakeTensorD<double>({}, {0.75});
  auto sg = MakeTensorD<double>({}, {-2.0});
  DenseTensor so = RunLogcumsumexp(s, 0, false, false, false);
  EXPECT_NEAR(RunLogcumsumexpGrad(s, so, sg, 0, false, false, false).data<double>()[0], -2.0, 1e-15);
  DenseTensor se = RunLogcumsumexp(s, -1, false, true, false);
  EXPECT_EQ(RunLogcumsumexpGrad(s, se, sg, -1, false, true, false).data<double>()[0], 0.0);
}

TEST(LogcumsumexpGradKernelTest, ZeroSize) {
  for (const auto& shape : std::vector<std::vector<int64_t>>{{0}, {0, 4}, {3, 0}}) {
    auto x = MakeTensor<float>(shape, {});
    for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis) {
      DenseTensor out = RunLogcumsumexp(x, axis, false, false, false);
      DenseTensor dx;
      ASSERT_NO_THROW(dx = RunLogcumsumexpGrad(x, out, out, axis, false, false, false));
      EXPECT_EQ(dx.numel(), 0);
      EXPECT_EQ(dx.dims(), phi::make_ddim(shape));
    }
  }
}

template <typename T>
void CheckGradNegInf() {
  const std::vector<double> xd{-kInf, -kInf, 1, 2, -kInf, 0.5, -kInf};
  const std::vector<double> gd{0.5, -1, 2, -0.25, 1, -3, 0.75};
  const int64_t n = static_cast<int64_t>(xd.size());
  std::vector<T> xv, gv;
  for (double v : xd) xv.push_back(FromD<T>(v));
  for (double v : gd) gv.push_back(FromD<T>(v));
  auto x = MakeTensor<T>({n}, xv);
  auto g = MakeTensor<T>({n}, gv);
  for (bool ex : {false, true}) {
    for (bool rev : {false, true}) {
      DenseTensor out = RunLogcumsumexp(x, 0, false, ex, rev);
      auto dx = ToVector<T>(RunLogcumsumexpGrad(x, out, g, 0, false, ex, rev));
      std::vector<LD> ref, scale;
      NaiveLseGrad(xv, ToVector<T>(out), gv, ScanViewOf({n}, 0, false), ex, rev, &ref, &scale);
      for (int64_t i = 0; i < n; ++i) {
        const double d = static_cast<double>(dx[i]);
        ASSERT_FALSE(std::isnan(d)) << Case(0, ex, rev) << " " << i;
        if (xd[i] == -kInf) {
          EXPECT_EQ(d, 0.0) << Case(0, ex, rev) << " " << i;
        } else {
          EXPECT_NEAR(d, static_cast<double>(ref[i]), 1e-5 * std::max<double>(1, scale[i]))
              << Case(0, ex, rev) << " " << i;
        }
      }
    }
  }
  // an all -inf row: every gradient is 0
  std::vector<T> allneg(5, FromD<T>(-kInf));
  auto xa = MakeTensor<T>({5}, allneg);
  auto ga = MakeTensor<T>({5}, std::vector<T>(5, FromD<T>(1.0)));
  for (bool ex : {false, true}) {
    DenseTensor out = RunLogcumsumexp(xa, 0, false, ex, false);
    auto dx = ToVector<T>(RunLogcumsumexpGrad(xa, out, ga, 0, false, ex, false));
    for (int i = 0; i < 5; ++i) EXPECT_EQ(static_cast<double>(dx[i]), 0.0) << i;
  }
}
TEST(LogcumsumexpGradKernelTest, NegInfInputGivesZeroGradFloat64) { CheckGradNegInf<double>(); }
TEST(LogcumsumexpGradKernelTest, NegInfInputGivesZeroGradFloat32) { CheckGradNegInf<float>(); }

template <typename T>
void CheckGradHugeMagnitude(double rtol) {
  std::vector<double> xd;
  for (int i = 0; i < 40; ++i) xd.push_back((i % 3 == 1 ? -1e4 : 1e4) + ((i * 37) % 11 - 5) * 0.75);
  const auto gv = RandomVec<T>(40, -2, 2, 91);
  std::vector<T> xv;
  for (double v : xd) xv.push_back(FromD<T>(v));
  auto x = MakeTensor<T>({40}, xv);
  auto g = MakeTensor<T>({40}, gv);
  for (bool ex : {false, true}) {
    for (bool rev : {false, true}) {
      DenseTensor out = RunLogcumsumexp(x, 0, false, ex, rev);
      auto dx = ToVector<T>(RunLogcumsumexpGrad(x, out, g, 0, false, ex, rev));
      std::vector<LD> ref, scale;
      NaiveLseGrad(xv, ToVector<T>(out), gv, ScanViewOf({40}, 0, false), ex, rev, &ref, &scale);
      for (int i = 0; i < 40; ++i) {
        ASSERT_TRUE(std::isfinite(static_cast<double>(dx[i]))) << Case(0, ex, rev) << " " << i;
        EXPECT_NEAR(static_cast<double>(dx[i]), static_cast<double>(ref[i]),
                    rtol * std::max<double>(1, scale[i]))
            << Case(0, ex, rev) << " " << i;
      }
    }
  }
}
TEST(LogcumsumexpGradKernelTest, HugeMagnitudeFiniteFloat64) { CheckGradHugeMagnitude<double>(1e-11); }
TEST(LogcumsumexpGradKernelTest, HugeMagnitudeFiniteFloat32) { CheckGradHugeMagnitude<float>(1e-3); }

TEST(LogcumsumexpGradKernelTest, Float64LongRowMatchesLinearReference) {
  const int64_t n = 100000;
  const auto xv = RandomVec<double>(n, -5, 5, 101);
  const auto gv = RandomVec<double>(n, -1, 1, 102);
  auto x = MakeTensor<double>({n}, xv);
  auto g = MakeTensor<double>({n}, gv);
  for (bool rev : {false, true}) {
    DenseTensor out = RunLogcumsumexp(x, 0, false, false, rev);
    const auto ov = ToVector<double>(out);
    auto dx = ToVector<double>(RunLogcumsumexpGrad(x, out, g, 0, false, false, rev));
    // inclusive: x_grad[i] = exp(x[i]) * sum_{j in window} g[j] exp(-out[j])
    LD s = 0, sa = 0;
    for (int64_t k = 0; k < n; ++k) {
      const int64_t i = rev ? k : n - 1 - k;  // walk against the forward direction
      const LD w = expl(-static_cast<LD>(ov[i]));
      s += gv[i] * w;
      sa += fabsl(gv[i] * w);
      const LD ref = expl(static_cast<LD>(xv[i])) * s;
      const LD scale = expl(static_cast<LD>(xv[i])) * sa;
      ASSERT_LE(static_cast<double>(fabsl(dx[i] - ref)), 1e-11 * std::max<double>(1, scale))
          << "reverse=" << rev << " index " << i;
    }
  }
}

// =========================================================================================
// cumsum_grad
// =========================================================================================

template <typename T>
void CheckCumsumGrad(double rtol, uint64_t seed) {
  const auto xv = RandomVec<T>(60, -3, 3, seed);
  const auto gv = RandomVec<T>(60, -100, 100, seed + 1);
  auto x = MakeTensor<T>(kShape345, xv);
  auto g = MakeTensor<T>(kShape345, gv);
  for (int axis : {0, 1, 2, -1}) {
    for (bool ex : {false, true}) {
      for (bool rev : {false, true}) {
        auto dx = ToVector<T>(RunCumsumGrad(x, g, axis, false, ex, rev));
        // reverse cumsum: x_grad[i] = sum of g[j] over the outputs j that x[i] feeds,
        // i.e. a cumsum of g with the same exclusive and the opposite direction
        const auto ref = NaiveScan(gv, ScanViewOf(kShape345, axis, false), ex, !rev, false);
        auto again = ToVector<T>(RunCumsum(g, axis, false, ex, !rev));
        for (size_t i = 0; i < dx.size(); ++i) {
          if constexpr (std::is_integral<T>::value) {
            ASSERT_EQ(ToLD(dx[i]), ref[i]) << Case(axis, ex, rev) << " " << i;
          } else {
            ASSERT_TRUE(Near(dx[i], ref[i], rtol)) << Case(axis, ex, rev) << " " << i;
          }
          ASSERT_EQ(ToLD(dx[i]), ToLD(again[i])) << Case(axis, ex, rev) << " " << i;
        }
      }
    }
  }
  // flatten: out_grad is 1-D, x_grad has x's shape
  auto g1 = MakeTensor<T>({60}, gv);
  DenseTensor df = RunCumsumGrad(x, g1, -1, true, false, false);
  EXPECT_EQ(df.dims(), phi::make_ddim(kShape345));
  const auto ref = NaiveScan(gv, ScanViewOf({60}, 0, false), false, true, false);
  auto d = ToVector<T>(df);
  for (size_t i = 0; i < d.size(); ++i) {
    if constexpr (std::is_integral<T>::value) {
      ASSERT_EQ(ToLD(d[i]), ref[i]) << i;
    } else {
      ASSERT_TRUE(Near(d[i], ref[i], rtol)) << i;
    }
  }
}
TEST(CumsumGradKernelTest, ReverseCumsumFloat64) { CheckCumsumGrad<double>(1e-15, 111); }
TEST(CumsumGradKernelTest, ReverseCumsumFloat32) { CheckCumsumGrad<float>(1.2e-7, 113); }
TEST(CumsumGradKernelTest, ReverseCumsumInt64) { CheckCumsumGrad<int64_t>(0, 115); }
TEST(CumsumGradKernelTest, ReverseCumsumInt32) { CheckCumsumGrad<int32_t>(0, 117); }

TEST(CumsumGradKernelTest, HandComputed) {
  auto x = MakeTensorD<double>({4}, {9, 9, 9, 9});
  auto g = MakeTensorD<double>({4}, {1, 2, 3, 4});
  EXPECT_EQ(ToVector<double>(RunCumsumGrad(x, g, 0, false, false, false)), (std::vector<double>{10, 9, 7, 4}));
  EXPECT_EQ(ToVector<double>(RunCumsumGrad(x, g, 0, false, true, false)), (std::vector<double>{9, 7, 4, 0}));
  EXPECT_EQ(ToVector<double>(RunCumsumGrad(x, g, 0, false, false, true)), (std::vector<double>{1, 3, 6, 10}));
  EXPECT_EQ(ToVector<double>(RunCumsumGrad(x, g, 0, false, true, true)), (std::vector<double>{0, 1, 3, 6}));
}

// =========================================================================================
// Accuracy on every CPU strategy (issue 17 items 6 and 12; docs/spec.md §1, §2)
// =========================================================================================

// Runs fn once per CPU strategy: SIMD on (where the CPU has it) and off; the default chunk on
// 1 and 2 threads, and chunks shrunk to 1024 steps on 1, 2 and 3 threads (three-phase rows,
// carries between chunks). `what` names the strategy for messages.
void ForEachCpuStrategy(const std::function<void(const std::string& what)>& fn) {
  struct Restore {
    ~Restore() {
      phi::funcs::SetCpuNumThreads(0);
      phi::funcs::SetCpuScanSimdEnabled(true);
      phi::funcs::SetCpuScanChunkForTesting(0);
    }
  } restore;
  std::vector<bool> simd = {false};
  if (phi::funcs::CpuScanSimdSupported()) simd.push_back(true);
  for (bool on : simd) {
    phi::funcs::SetCpuScanSimdEnabled(on);
    for (int64_t chunk : {int64_t{0}, int64_t{1024}}) {
      phi::funcs::SetCpuScanChunkForTesting(chunk);
      for (int threads : {1, 2, 3}) {
        if (chunk == 0 && threads == 3) continue;
        phi::funcs::SetCpuNumThreads(threads);
        fn(std::string(on ? "simd" : "generic") + " chunk " + std::to_string(chunk) + " threads " +
           std::to_string(threads));
      }
    }
  }
}

// Terms over 20 orders of magnitude, each cancelled by its negative two steps later, and
// [2^60, -2^60, 1] runs every 97 steps: prefixes cancel to small values.
template <typename T>
std::vector<T> Cancelling(int64_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> mag(-10, 20);
  std::vector<T> x(static_cast<size_t>(n));
  T last = T(0);
  for (int64_t i = 0; i < n; ++i) {
    if (i % 2 == 0) {
      last = static_cast<T>(((g() & 1) ? 1.0 : -1.0) * std::pow(10.0, mag(g)));
      x[i] = last;
    } else {
      x[i] = -last;
    }
  }
  for (int64_t k = 0; k + 3 <= n; k += 97) {
    x[k] = static_cast<T>(0x1p60);
    x[k + 1] = static_cast<T>(-0x1p60);
    x[k + 2] = T(1);
  }
  return x;
}

// Every output of a sum scan against the exact prefix: no further from it than the left-to-right
// float64 loop rounded once to T.
template <typename T>
::testing::AssertionResult NeverWorseThanLoop(const std::vector<T>& x, const std::vector<T>& out,
                                              const ScanView& v, bool exclusive, bool reverse) {
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t c = 0; c < v.inner; ++c) {
      ExactSum exact;
      double loop = 0;
      for (int64_t s = 0; s < v.length; ++s) {
        const int64_t off = v.Offset(o, reverse ? v.length - 1 - s : s, c);
        if (!exclusive) {
          exact.Add(x[off]);
          loop += x[off];
        }
        const LD ours = exact.DistanceTo(out[off]);
        const LD theirs = exact.DistanceTo(static_cast<T>(loop));
        if (ours > theirs) {
          return ::testing::AssertionFailure() << std::setprecision(17) << "line (" << o << ", " << c << ") step "
                                               << s << ": ours " << out[off] << " is " << static_cast<double>(ours)
                                               << " from the exact sum, the float64 loop's "
                                               << static_cast<T>(loop) << " " << static_cast<double>(theirs);
        }
        if (exclusive) {
          exact.Add(x[off]);
          loop += x[off];
        }
      }
    }
  return ::testing::AssertionSuccess();
}

template <typename T>
void CheckCumsumNeverWorseThanLoop() {
  // one row past a default chunk; rows and columns past 1024-step chunks
  const std::vector<std::pair<std::vector<int64_t>, int>> cases = {{{70000}, 0}, {{3, 5000}, 1}, {{5000, 3}, 0}};
  ForEachCpuStrategy([&](const std::string& what) {
    uint64_t seed = 300;
    for (const auto& c : cases) {
      const auto xv = Cancelling<T>(phi::product(phi::make_ddim(c.first)), ++seed);
      auto x = MakeTensor<T>(c.first, xv);
      const ScanView v = ScanViewOf(c.first, c.second, false);
      for (bool ex : {false, true}) {
        for (bool rev : {false, true}) {
          const auto out = ToVector<T>(RunCumsum(x, c.second, false, ex, rev));
          ASSERT_TRUE(NeverWorseThanLoop(xv, out, v, ex, rev)) << what << " " << Case(c.second, ex, rev);
          // the gradient: the same scan of out_grad against the forward's direction
          const auto dx = ToVector<T>(RunCumsumGrad(x, x, c.second, false, ex, rev));
          ASSERT_TRUE(NeverWorseThanLoop(xv, dx, v, ex, !rev)) << what << " grad " << Case(c.second, ex, rev);
        }
      }
    }
  });
}
TEST(CumsumAccuracyTest, Float32NeverWorseThanFloat64Loop) { CheckCumsumNeverWorseThanLoop<float>(); }
TEST(CumsumAccuracyTest, Float64NeverWorseThanFloat64Loop) { CheckCumsumNeverWorseThanLoop<double>(); }

TEST(CumsumAccuracyTest, BigMinusBigPlusOne) {
  ForEachCpuStrategy([](const std::string& what) {
    for (int64_t n : {3, 20, 3000}) {  // a row shorter than a vector, a block, several chunks
      std::vector<float> xv(static_cast<size_t>(n), 0.f);
      xv[0] = 1e20f;
      xv[1] = -1e20f;
      xv[2] = 1.f;
      const auto out = ToVector<float>(RunCumsum(MakeTensor<float>({n}, xv), 0, false, false, false));
      EXPECT_EQ(out[0], 1e20f) << what;
      EXPECT_EQ(out[1], 0.f) << what;
      for (int64_t i = 2; i < n; ++i) ASSERT_EQ(out[i], 1.f) << what << " n " << n << " step " << i;
      // gradient: out_grad [1, -1e20, 1e20] -> [1, 0, 1e20]
      if (n == 3) {
        auto g = MakeTensor<float>({3}, {1.f, -1e20f, 1e20f});
        const auto dx = ToVector<float>(RunCumsumGrad(g, g, 0, false, false, false));
        EXPECT_EQ(dx, (std::vector<float>{1.f, 0.f, 1e20f})) << what;
      }
    }
  });
}

// logcumsumexp: a prefix holding one finite term gives that term bit for bit (arange's first
// output is 0, an exclusive scan's second is x[0], after a head of -inf the first finite term).
template <typename T>
void CheckLseSingleTermExact() {
  ForEachCpuStrategy([](const std::string& what) {
    for (int64_t n = 1; n <= 64; ++n) {
      std::vector<T> xv(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) xv[i] = static_cast<T>(static_cast<float>(i));
      auto x = MakeTensor<T>({n}, xv);
      ASSERT_EQ(ToLD(ToVector<T>(RunLogcumsumexp(x, 0, false, false, false))[0]), 0) << what << " n " << n;
      if (n > 1) {
        ASSERT_EQ(ToLD(ToVector<T>(RunLogcumsumexp(x, 0, false, true, false))[1]), 0) << what << " n " << n;
      }
      // the same down columns (axis 0 of [n, 3])
      std::vector<T> cv(static_cast<size_t>(3 * n));
      for (int64_t i = 0; i < 3 * n; ++i) cv[i] = static_cast<T>(static_cast<float>(i / 3));
      const auto co = ToVector<T>(RunLogcumsumexp(MakeTensor<T>({n, 3}, cv), 0, false, false, false));
      for (int c = 0; c < 3; ++c) ASSERT_EQ(ToLD(co[c]), 0) << what << " column " << c << " n " << n;
    }
    // -inf heads of several lengths (across blocks and 1024-step chunks), then v, -inf, -inf, w
    std::mt19937_64 g(77);
    std::uniform_real_distribution<double> d(-30, 30);
    for (int64_t head : {0, 1, 7, 8, 127, 128, 129, 1023, 1024, 1500}) {
      const int64_t n = head + 300;
      std::vector<T> xv(static_cast<size_t>(n));
      for (auto& e : xv) e = static_cast<T>(static_cast<float>(d(g)));
      for (int64_t i = 0; i < head; ++i) xv[i] = static_cast<T>(-std::numeric_limits<float>::infinity());
      xv[head + 1] = xv[head + 2] = static_cast<T>(-std::numeric_limits<float>::infinity());
      xv[head] = static_cast<T>(static_cast<float>(d(g) / 3000));  // small: a fine ulp, below the block max
      const LD v = ToLD(xv[head]);
      auto x = MakeTensor<T>({n}, xv);
      const auto inc = ToVector<T>(RunLogcumsumexp(x, 0, false, false, false));
      const auto exc = ToVector<T>(RunLogcumsumexp(x, 0, false, true, false));
      for (int64_t k = head; k < head + 3; ++k) ASSERT_EQ(ToLD(inc[k]), v) << what << " head " << head << " at " << k;
      for (int64_t k = head + 1; k < head + 4; ++k) ASSERT_EQ(ToLD(exc[k]), v) << what << " head " << head << " at " << k;
      // reversed: the row read backwards
      std::vector<T> rv(xv.rbegin(), xv.rend());
      const auto rinc = ToVector<T>(RunLogcumsumexp(MakeTensor<T>({n}, rv), 0, false, false, true));
      ASSERT_EQ(ToLD(rinc[n - 1 - head]), v) << what << " reversed, head " << head;
      // columns: [n, 9], each column the row above
      std::vector<T> cv(static_cast<size_t>(9 * n));
      for (int64_t i = 0; i < n; ++i)
        for (int c = 0; c < 9; ++c) cv[i * 9 + c] = xv[i];
      const auto cinc = ToVector<T>(RunLogcumsumexp(MakeTensor<T>({n, 9}, cv), 0, false, false, false));
      const auto cexc = ToVector<T>(RunLogcumsumexp(MakeTensor<T>({n, 9}, cv), 0, false, true, false));
      for (int c = 0; c < 9; ++c) {
        ASSERT_EQ(ToLD(cinc[head * 9 + c]), v) << what << " column " << c << " head " << head;
        ASSERT_EQ(ToLD(cexc[(head + 1) * 9 + c]), v) << what << " column " << c << " head " << head;
      }
    }
  });
}
TEST(LogcumsumexpAccuracyTest, SingleFiniteTermExactFloat32) { CheckLseSingleTermExact<float>(); }
TEST(LogcumsumexpAccuracyTest, SingleFiniteTermExactFloat64) { CheckLseSingleTermExact<double>(); }
TEST(LogcumsumexpAccuracyTest, SingleFiniteTermExactFloat16) { CheckLseSingleTermExact<float16>(); }
TEST(LogcumsumexpAccuracyTest, SingleFiniteTermExactBFloat16) { CheckLseSingleTermExact<bfloat16>(); }

// float32 near zero: relative error <= 1e-6 wherever |ref| >= 1e-6 (and the 2.5e-7 bound). The
// rows' sums of exponentials cross 1 (ref crosses 0) somewhere inside, after many terms of
// similar size, after a chunk's carry, or after one big term and many tiny ones.
TEST(LogcumsumexpAccuracyTest, Float32NearZeroRelative) {
  std::mt19937_64 g(91);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  std::vector<std::pair<std::vector<int64_t>, int>> cases = {
      {{8, 300}, 1}, {{300, 8}, 0}, {{2, 70000}, 1}, {{5000, 9}, 0}, {{40, 64}, 1}};
  std::vector<std::vector<float>> data;
  for (const auto& c : cases) {
    const int64_t L = c.first[c.second];
    const int64_t n = phi::product(phi::make_ddim(c.first));
    std::vector<float> xv(static_cast<size_t>(n));
    // term i of a line about exp(x) = k / L: the line's sum reaches k (about 1) at its end
    for (auto& e : xv) e = static_cast<float>(std::log(u(g) / static_cast<double>(L)));
    data.push_back(xv);
  }
  // one term just below 0 then tiny terms: the prefix creeps across 0 through values ~1e-6
  std::vector<float> creep(4000, static_cast<float>(std::log(2e-9)));
  creep[0] = -1e-6f;
  cases.push_back({{4000}, 0});
  data.push_back(creep);
  ForEachCpuStrategy([&](const std::string& what) {
    for (size_t k = 0; k < cases.size(); ++k) {
      const auto& shape = cases[k].first;
      const int axis = cases[k].second;
      auto x = MakeTensor<float>(shape, data[k]);
      for (bool ex : {false, true}) {
        for (bool rev : {false, true}) {
          const auto out = ToVector<float>(RunLogcumsumexp(x, axis, false, ex, rev));
          const auto ref = StreamLse(data[k], ScanViewOf(shape, axis, false), ex, rev);
          int near = 0;
          for (size_t i = 0; i < out.size(); ++i) {
            if (std::isinf(ref[i])) continue;
            const LD err = fabsl(static_cast<LD>(out[i]) - ref[i]);
            ASSERT_LE(static_cast<double>(err), 2.5e-7 * std::max<double>(1, fabsl(ref[i])))
                << what << " case " << k << " " << Case(axis, ex, rev) << " at " << i;
            if (fabsl(ref[i]) >= 1e-6L) {
              near += fabsl(ref[i]) < 1e-2L;
              ASSERT_LE(static_cast<double>(err), 1e-6 * static_cast<double>(fabsl(ref[i])))
                  << what << " case " << k << " " << Case(axis, ex, rev) << " at " << i << ": out " << out[i]
                  << " ref " << static_cast<double>(ref[i]);
            }
          }
          if (!ex && !rev) EXPECT_GT(near, 0) << "case " << k << " has no output near 0";
        }
      }
    }
  });
}

}  // namespace
