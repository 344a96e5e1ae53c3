// GPU backend tests: the GPU kernels against the CPU ones, the caching allocator, copies,
// out-of-memory. They skip, saying why, in a build without CUDA or on a machine without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>
#include <type_traits>

#include "infermeta/unary.h"
#include "paddle_ops/common/flags.h"
#include "paddle_ops/common/float16.h"
#include "paddle_ops/core/kernel_factory.h"
#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/funcs/scan_carry.h"
#include "paddle_ops/common/bfloat16.h"
#include "unittests/cpp/exact_sum.h"

#ifdef PADDLE_OPS_WITH_GPU
#include "paddle_ops/core/gpu/gpu_info.h"
#endif

namespace phi {
namespace {

#ifdef PADDLE_OPS_WITH_GPU
#define REQUIRE_GPU()                                                        \
  do {                                                                       \
    if (gpu::DeviceCount() == 0) GTEST_SKIP() << "no GPU present: skipped";  \
  } while (0)
#else
#define REQUIRE_GPU() GTEST_SKIP() << "paddle_ops was built without CUDA: GPU test skipped"
#endif

#ifdef PADDLE_OPS_WITH_GPU
// After the last test, hand the caching allocator's free blocks back to the driver: they are
// cached on purpose, but compute-sanitizer's leak check (tools/dev/sanitize_gpu.sh) reports every
// block still held at exit as a leak.
class ReleaseGpuCache : public ::testing::Environment {
 public:
  void TearDown() override {
    if (gpu::DeviceCount() > 0) gpu::EmptyCache();
  }
};
[[maybe_unused]] const auto* const kReleaseGpuCache = ::testing::AddGlobalTestEnvironment(new ReleaseGpuCache);
#endif

DenseTensor ToPlace(const DenseTensor& src, const Place& place) {
  DenseTensor dst(src.dtype(), src.dims());
  void* p = dst.AllocateFrom(GetAllocator(place), src.dtype(), place);
  Memcpy(p, place, src.raw_data(), src.place(), src.numel() * SizeOf(src.dtype()));
  return dst;
}

DenseTensor ToGpu(const DenseTensor& t) { return ToPlace(t, GPUPlace(0)); }
DenseTensor ToCpu(const DenseTensor& t) { return ToPlace(t, CPUPlace()); }

template <typename T>
DenseTensor MakeCpu(const std::vector<int64_t>& dims, const std::vector<T>& v) {
  DenseTensor t(CppTypeToDataType<T>::Type(), make_ddim(dims));
  T* p = static_cast<T*>(t.AllocateFrom(GetAllocator(CPUPlace()), t.dtype(), CPUPlace()));
  std::copy(v.begin(), v.end(), p);
  return t;
}

// A tensor of `dims` holding v, on the GPU.
template <typename T>
DenseTensor MakeGpu(const std::vector<int64_t>& dims, const std::vector<T>& v) {
  return ToGpu(MakeCpu<T>(dims, v));
}

// Runs logcumsumexp (or cumsum) on `place` through the registry.
DenseTensor RunCum(const char* op, const DenseTensor& x, int axis, bool exclusive, bool reverse) {
  const Place place = x.place();
  DenseTensor out;
  MetaTensor m(&out);
  CumInferMeta(MetaTensor(x), axis, false, exclusive, reverse, &m);
  const DeviceContext& ctx = *DeviceContextPool::Instance().Get(place);
  const Kernel& k = KernelFactory::Instance().SelectKernelOrThrow(
      op, KernelKey(TransToBackend(place), DataLayout::ALL_LAYOUT, x.dtype()));
  if (std::string(op) == "cumsum") {
    k.Call<const DenseTensor&, const Scalar&, bool, bool, bool, DenseTensor*>(ctx, x, Scalar(axis), false,
                                                                              exclusive, reverse, &out);
  } else {
    k.Call<const DenseTensor&, int, bool, bool, bool, DenseTensor*>(ctx, x, axis, false, exclusive, reverse, &out);
  }
  ctx.Wait();
  return out;
}

TEST(GpuTest, RegisteredKernels) {
#ifndef PADDLE_OPS_WITH_GPU
  GTEST_SKIP() << "paddle_ops was built without CUDA: GPU test skipped";
#endif
  for (const char* op : {"logcumsumexp", "logcumsumexp_grad", "cumsum", "cumsum_grad"}) {
    for (DataType t : {DataType::FLOAT16, DataType::BFLOAT16, DataType::FLOAT32, DataType::FLOAT64}) {
      EXPECT_NE(KernelFactory::Instance().Find(op, KernelKey(Backend::GPU, DataLayout::ALL_LAYOUT, t)), nullptr)
          << op << " " << DataTypeToString(t);
    }
  }
  EXPECT_NE(KernelFactory::Instance().Find("cumsum", KernelKey(Backend::GPU, DataLayout::ALL_LAYOUT, DataType::INT64)),
            nullptr);
}

TEST(GpuTest, CumOpsMatchCpuOnEveryAxisAndMode) {
  REQUIRE_GPU();
  std::mt19937 rng(3);
  std::normal_distribution<double> nd(0, 3);
  std::vector<double> v(3 * 70 * 5);
  for (double& e : v) e = nd(rng);
  v[7] = -INFINITY;
  const DenseTensor cpu = MakeCpu<double>({3, 70, 5}, v);
  const DenseTensor gpu = ToGpu(cpu);
  for (const char* op : {"logcumsumexp", "cumsum"}) {
    for (int axis = 0; axis < 3; ++axis) {
      for (int mode = 0; mode < 4; ++mode) {
        const DenseTensor a = RunCum(op, cpu, axis, mode & 1, mode & 2);
        const DenseTensor b = ToCpu(RunCum(op, gpu, axis, mode & 1, mode & 2));
        for (int64_t i = 0; i < a.numel(); ++i) {
          const double x = a.data<double>()[i], y = b.data<double>()[i];
          if (std::isinf(x)) {
            EXPECT_EQ(x, y);
          } else {
            EXPECT_NEAR(x, y, 1e-13 * std::max(1.0, std::fabs(x))) << op << " axis " << axis << " mode " << mode;
          }
        }
      }
    }
  }
}

TEST(GpuTest, Float32RowOf2To24MeetsTheBound) {
  REQUIRE_GPU();
  const int64_t n = int64_t{1} << 24;
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0, 1);
  std::vector<float> v(n);
  for (float& e : v) e = nd(rng);
  const DenseTensor out = ToCpu(RunCum("logcumsumexp", MakeGpu<float>({n}, v), 0, false, false));
  long double m = -INFINITY, s = 0, worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    const long double x = v[i];
    if (x > m) {
      s = s * std::exp(m - x) + 1;
      m = x;
    } else {
      s += std::exp(x - m);
    }
    const long double ref = m + std::log(s);
    const long double err = std::fabs(out.data<float>()[i] - ref) / std::max<long double>(1, std::fabs(ref));
    worst = std::max(worst, err);
  }
  EXPECT_LE(static_cast<double>(worst), 2.5e-7);
  std::printf("float32 2^24 row on the GPU: max error %.3g * max(1,|ref|)\n", static_cast<double>(worst));
}

// Sets the flag PADDLE_OPS_GPU_SCAN for one test and restores it after.
class ScopedGpuScanBackend {
 public:
  explicit ScopedGpuScanBackend(const char* backend)
      : old_(paddle_ops::flags::GetFlag("PADDLE_OPS_GPU_SCAN")) {
    paddle_ops::flags::SetFlag("PADDLE_OPS_GPU_SCAN", backend);
  }
  ~ScopedGpuScanBackend() { paddle_ops::flags::SetFlag("PADDLE_OPS_GPU_SCAN", old_); }

 private:
  std::string old_;
};

// logcumsumexp_grad through the registry (x, out, out_grad on one place).
DenseTensor RunLcseGrad(const DenseTensor& x, const DenseTensor& out, const DenseTensor& dout, int axis,
                        bool exclusive, bool reverse) {
  const Place place = x.place();
  DenseTensor dx;
  MetaTensor m(&dx);
  UnchangedInferMeta(MetaTensor(x), &m);
  const DeviceContext& ctx = *DeviceContextPool::Instance().Get(place);
  const Kernel& k = KernelFactory::Instance().SelectKernelOrThrow(
      "logcumsumexp_grad", KernelKey(TransToBackend(place), DataLayout::ALL_LAYOUT, x.dtype()));
  k.Call<const DenseTensor&, const DenseTensor&, const DenseTensor&, int, bool, bool, bool, DenseTensor*>(
      ctx, x, out, dout, axis, false, exclusive, reverse, &dx);
  ctx.Wait();
  return dx;
}

bool SameBits(const DenseTensor& a, const DenseTensor& b) {
  return a.numel() == b.numel() &&
         (a.numel() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.numel() * SizeOf(a.dtype())) == 0);
}

// `run()` (a GPU call returning its output) `runs` times: the first output copied to the host,
// each later one expected bitwise equal to it (`what` names the failure).
template <typename Run>
DenseTensor OnHostDeterministic(Run&& run, const std::string& what, int runs = 2) {
  const DenseTensor first = ToCpu(run());
  for (int r = 1; r < runs; ++r) EXPECT_TRUE(SameBits(first, ToCpu(run()))) << what << ": not deterministic";
  return first;
}

// logcumsumexp or cumsum (RunCum) of the GPU tensor xg, on the host, checked by OnHostDeterministic.
DenseTensor CumOnHost(const char* op, const DenseTensor& xg, int axis, bool exclusive, bool reverse,
                      const std::string& what, int runs = 2) {
  return OnHostDeterministic([&] { return RunCum(op, xg, axis, exclusive, reverse); }, what, runs);
}

void ExpectNearCpu(const DenseTensor& cpu, const DenseTensor& gpu_on_cpu, double tol, const std::string& what) {
  int bad = 0;
  for (int64_t i = 0; i < cpu.numel() && bad < 5; ++i) {
    const double x = cpu.data<double>()[i], y = gpu_on_cpu.data<double>()[i];
    const bool ok = (std::isinf(x) || std::isnan(x)) ? (x == y || (std::isnan(x) && std::isnan(y)))
                                                      : std::fabs(x - y) <= tol * std::max(1.0, std::fabs(x));
    if (!ok) {
      ++bad;
      ADD_FAILURE() << what << " element " << i << ": cpu " << x << " gpu " << y;
    }
  }
}

// A tensor shape and the axis to scan it along, for the engine-strategy tests below.
struct EngineCase {
  std::vector<int64_t> dims;
  int axis;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  std::string Describe(int mode) const {
    std::string s = "shape [";
    for (int64_t d : dims) s += std::to_string(d) + " ";
    return s + "] axis " + std::to_string(axis) + " mode " + std::to_string(mode);
  }
};

// One shape per engine strategy (kernels/funcs/gpu/scan_launch.cuh): short rows (4 and 16 lanes a row; power-of-two
// rows staged in shared memory, scan_staged_rows.cuh), whole rows
// per warp, long rows split into segments (the single pass with its look-back, scan_onepass.cuh),
// columns, columns split along the length in three phases, and few columns in one pass
// (scan_columns.cuh, under 1024 lines); odd lengths elsewhere. Each is run three times and compared bitwise, and
// against the CPU kernels, in all four exclusive/reverse modes, for logcumsumexp, its
// gradient and cumsum.
TEST(GpuTest, ScanEngineEveryStrategyDeterministicAndMatchesCpu) {
  REQUIRE_GPU();
  ScopedGpuScanBackend engine("engine");
  const std::vector<EngineCase> cases = {
      {{1001, 13}, 1},      // short rows, 4 lanes a row
      {{517, 61}, 1},       // short rows, 16 lanes a row
      {{1001, 64}, 1},      // short rows staged in shared memory, two threads a row (8-byte)
      {{333, 16}, 1},       // short rows staged, a thread a row
      {{2100, 301}, 1},     // rows, one warp a row
      {{3, 100003}, 1},     // long rows split into segments
      {{1, 300007}, 0},     // one long row
      {{5, 1001, 7}, 1},    // few columns: the one pass (no vector accesses: inner 7)
      {{2, 4099, 96}, 1},   // few columns: the one pass, 3 tiles across, 33 segments
      {{8300, 1024}, 0},    // columns split along the length: three phases, 130 segments a line
      {{3, 77, 4099}, 0},   // columns, axis 0
      {{9, 33, 30011}, 1},  // columns, one thread a column
  };
  std::mt19937 rng(11);
  std::normal_distribution<double> nd(0, 3);
  for (const EngineCase& c : cases) {
    const int64_t n = c.numel();
    std::vector<double> v(n), g(n);
    for (double& e : v) e = nd(rng);
    for (double& e : g) e = nd(rng);
    v[n / 3] = -INFINITY;
    const DenseTensor x = MakeCpu<double>(c.dims, v), dout = MakeCpu<double>(c.dims, g);
    const DenseTensor xg = ToGpu(x), doutg = ToGpu(dout);
    for (int mode = 0; mode < 4; ++mode) {
      const bool excl = mode & 1, rev = mode & 2;
      const std::string what = c.Describe(mode);
      for (const char* op : {"logcumsumexp", "cumsum"}) {
        const DenseTensor ref = RunCum(op, x, c.axis, excl, rev);
        const DenseTensor first = CumOnHost(op, xg, c.axis, excl, rev, std::string(op) + " " + what, 3);
        ExpectNearCpu(ref, first, 1e-13, std::string(op) + " " + what);
      }
      const DenseTensor out = RunCum("logcumsumexp", x, c.axis, excl, rev);
      const DenseTensor outg = ToGpu(out);
      const DenseTensor ref = RunLcseGrad(x, out, dout, c.axis, excl, rev);
      const DenseTensor first = OnHostDeterministic(
          [&] { return RunLcseGrad(xg, outg, doutg, c.axis, excl, rev); }, "logcumsumexp_grad " + what);
      ExpectNearCpu(ref, first, 1e-12, "logcumsumexp_grad " + what);
    }
  }
}

// The fast tiles of logcumsumexp and its gradient (float32 and float16; logcumsumexp_tiles.cuh)
// on the engine's strategies: rows in one pass with 1 to 1024 segments ([3, 100003], [1, 300007],
// [1, 2^22]; float32 takes the block tiles of scan_block_rows.cuh there, and on [2, 262147], a
// length off the vector width, and [128, 65536], the most rows of 2^16 they take), few columns in one pass ([5, 1001, 7]; [1, 20000, 3]: 157 segments a line, a deep
// look-back tree), column phase 2 of the three phases a block per line ([8300, 1024]: 130
// segments, beyond ScanPolicy::kWarpTotals). Each call is repeated and compared bitwise; the forward is also held to
// the CPU kernel (both within docs/spec.md §1 of the float64 truth, so within twice that of each other).
// Inputs mix N(0, 3) with -inf, a NaN-free wide range (±150, ±400) in a few places so that
// some tiles take the generic fallback.
template <typename T>
void CheckFastTiles(double tol) {
  ScopedGpuScanBackend engine("engine");
  const std::vector<EngineCase> cases = {
      {{1001, 13}, 1}, {{517, 61}, 1},   {{2100, 301}, 1},    {{3, 100003}, 1},
      {{1, 300007}, 0}, {{1, 1 << 22}, 0}, {{5, 1001, 7}, 1}, {{1, 20000, 3}, 1}, {{8300, 1024}, 0},
      {{1001, 64}, 1}, {{300, 256}, 1},  // staged short rows: a thread a row, 4 threads a row
      {{2, 262147}, 1}, {{128, 65536}, 1},
  };
  std::mt19937 rng(17);
  std::normal_distribution<float> nd(0, 3);
  for (const EngineCase& c : cases) {
    const int64_t n = c.numel();
    std::vector<T> v(n), g(n);
    for (int64_t i = 0; i < n; ++i) {
      v[i] = static_cast<T>(nd(rng));
      g[i] = static_cast<T>(nd(rng));
    }
    v[n / 3] = static_cast<T>(-INFINITY);
    v[n / 2] = static_cast<T>(150.f);
    v[n / 2 + 1] = static_cast<T>(-400.f);
    v[n - 1] = static_cast<T>(-150.f);
    const DenseTensor x = MakeCpu<T>(c.dims, v), dout = MakeCpu<T>(c.dims, g);
    const DenseTensor xg = ToGpu(x), doutg = ToGpu(dout);
    for (int mode = 0; mode < 4; ++mode) {
      const bool excl = mode & 1, rev = mode & 2;
      const std::string what = DataTypeToString(x.dtype()) + " " + c.Describe(mode);
      const DenseTensor ref = RunCum("logcumsumexp", x, c.axis, excl, rev);
      const DenseTensor outg = RunCum("logcumsumexp", xg, c.axis, excl, rev);
      const DenseTensor first = ToCpu(outg);
      int bad = 0;
      for (int64_t i = 0; i < n && bad < 5; ++i) {
        const double a = static_cast<float>(ref.data<T>()[i]), b = static_cast<float>(first.data<T>()[i]);
        const bool ok = std::isinf(a) ? a == b : std::fabs(a - b) <= tol * std::max(1.0, std::fabs(a));
        if (!ok) {
          ++bad;
          ADD_FAILURE() << "logcumsumexp " << what << " element " << i << ": cpu " << a << " gpu " << b;
        }
      }
      EXPECT_TRUE(SameBits(first, ToCpu(RunCum("logcumsumexp", xg, c.axis, excl, rev)))) << what;
      OnHostDeterministic([&] { return RunLcseGrad(xg, outg, doutg, c.axis, excl, rev); }, "logcumsumexp_grad " + what);
    }
  }
}

TEST(GpuTest, ScanEngineFastTilesFloat32DeterministicAndMatchCpu) {
  REQUIRE_GPU();
  CheckFastTiles<float>(5e-7);
}

TEST(GpuTest, ScanEngineFastTilesFloat16DeterministicAndMatchCpu) {
  REQUIRE_GPU();
  CheckFastTiles<dtype::float16>(std::ldexp(1.0, -9));  // two float16 ulps at |out| in [1, 2)
}

// float32 logcumsumexp's gradient on the block tiles' second tile (logcumsumexp_tiles.cuh's
// BlockTile2, LseGradBlock2RowsFor: rows of 8192 steps or more that the forward's rule leaves,
// whatever their count; scan_launch.cuh's TileBlockRows2): the length edge at 129 rows (8188
// keeps the warp segments, 8192 takes the tile, one a row), lengths off the vector width with
// few rows (8195: a second tile of 3 steps; 20001: three tiles), 129 rows of 2^16 (past the
// forward's 128), and 3072 rows (the engine's target for the gradient: before, a warp a row) in
// two modes. The GPU's x_grad, run twice bitwise, against the
// CPU's float64 gradient on the GPU's float32 outputs (docs/spec.md §1, gradient): within 1e-5
// of the same gradient of |out_grad|, 0 exactly where x is -inf. Inputs N(0, 2) with a leading
// run of -inf and one value far below the rest.
TEST(GpuTest, ScanEngineLogcumsumexpFloat32GradSecondBlockTile) {
  REQUIRE_GPU();
  ScopedGpuScanBackend engine("engine");
  const std::vector<EngineCase> cases = {
      {{129, 8188}, 1}, {{129, 8192}, 1}, {{3, 8195}, 1}, {{3, 20001}, 1}, {{129, 65536}, 1}, {{3072, 8192}, 1}};
  std::mt19937 rng(41);
  std::normal_distribution<float> nd(0, 2);
  for (const EngineCase& c : cases) {
    const int64_t n = c.numel(), L = c.dims[1];
    std::vector<float> v(n), g(n);
    for (int64_t i = 0; i < n; ++i) {
      v[i] = (i % L) < std::min<int64_t>(9000, L / 2) ? -INFINITY : nd(rng);
      g[i] = nd(rng) / 2;
    }
    v[n / 2 + 17] = -400.f;
    const DenseTensor xg = MakeGpu<float>(c.dims, v), doutg = MakeGpu<float>(c.dims, g);
    std::vector<double> xd(v.begin(), v.end()), gd(g.begin(), g.end()), ga(n);
    for (int64_t i = 0; i < n; ++i) ga[i] = std::fabs(gd[i]);
    const DenseTensor x64 = MakeCpu<double>(c.dims, xd), g64 = MakeCpu<double>(c.dims, gd),
                      a64 = MakeCpu<double>(c.dims, ga);
    for (int mode = 0; mode < 4; ++mode) {
      if (c.dims[0] >= 3072 && mode != 0 && mode != 3) continue;
      const bool excl = mode & 1, rev = mode & 2;
      const std::string what = "logcumsumexp_grad float32 " + c.Describe(mode);
      const DenseTensor outg = RunCum("logcumsumexp", xg, c.axis, excl, rev);
      const DenseTensor got = OnHostDeterministic([&] { return RunLcseGrad(xg, outg, doutg, c.axis, excl, rev); }, what);
      const DenseTensor out = ToCpu(outg);
      const DenseTensor o64 = MakeCpu<double>(c.dims, std::vector<double>(out.data<float>(), out.data<float>() + n));
      const DenseTensor ref = RunLcseGrad(x64, o64, g64, c.axis, excl, rev);
      const DenseTensor mag = RunLcseGrad(x64, o64, a64, c.axis, excl, rev);
      int bad = 0;
      for (int64_t i = 0; i < n && bad < 5; ++i) {
        const double a = got.data<float>()[i], r = ref.data<double>()[i], m = mag.data<double>()[i];
        const bool ok = std::isinf(v[i]) && v[i] < 0 ? a == 0.0 : std::fabs(a - r) <= 1e-5 * std::max(m, 1e-30);
        if (!ok) {
          ++bad;
          ADD_FAILURE() << what << " element " << i << ": gpu " << a << " float64 " << r << " |out_grad| sum " << m;
        }
      }
    }
  }
}

// float32 logcumsumexp on the thread steps (logcumsumexp_tiles.cuh's Thread: the column three
// phases and the staged short rows), whose level (precise, float-float, lean 1, lean 2) is chosen
// per chunk and held once the carry is past kLean2: outputs crossing 0 slowly (x ~ U(-14, -6))
// and quickly (U(-4, 0.5)), in every exclusive/reverse mode, held to docs/spec.md §1 against a
// long double reference (2.5e-7 relative where |ref| >= 0.5, 1e-6 where 1e-6 <= |ref| < 0.5, an
// empty prefix -inf), and two runs bitwise equal. Shapes: [8300, 1024] axis 0 (1024 lines of
// 130 segments), [3, 2000, 300] axis 1 (900 lines: the one pass, ColumnScan), [1001, 64] and
// [300, 256] (staged rows, one and four threads a row).
TEST(GpuTest, ScanEngineLogcumsumexpFloat32ThreadStepsAcrossZero) {
  REQUIRE_GPU();
  ScopedGpuScanBackend engine("engine");
  const std::vector<EngineCase> cases = {{{8300, 1024}, 0}, {{3, 2000, 300}, 1}, {{1001, 64}, 1}, {{300, 256}, 1}};
  std::mt19937 rng(23);
  for (const EngineCase& c : cases) {
    for (const auto& range : {std::pair<float, float>{-14.f, -6.f}, std::pair<float, float>{-4.f, 0.5f}}) {
      std::uniform_real_distribution<float> ud(range.first, range.second);
      const int64_t n = c.numel();
      std::vector<float> v(n);
      for (float& e : v) e = ud(rng);
      const DenseTensor xg = MakeGpu<float>(c.dims, v);
      int64_t outer = 1, inner = 1;
      for (int d = 0; d < c.axis; ++d) outer *= c.dims[d];
      for (size_t d = c.axis + 1; d < c.dims.size(); ++d) inner *= c.dims[d];
      const int64_t len = c.dims[c.axis];
      for (int mode = 0; mode < 4; ++mode) {
        const bool excl = mode & 1, rev = mode & 2;
        const std::string what = c.Describe(mode) + " x in [" + std::to_string(range.first) + ", " +
                                 std::to_string(range.second) + ")";
        const DenseTensor out = CumOnHost("logcumsumexp", xg, c.axis, excl, rev, what);
        int bad = 0;
        for (int64_t line = 0; line < outer * inner && bad < 5; ++line) {
          const int64_t base = (line / inner) * len * inner + line % inner;
          long double m = -INFINITY, sum = 0;
          for (int64_t k = 0; k < len && bad < 5; ++k) {
            const int64_t off = base + (rev ? len - 1 - k : k) * inner;
            const auto value = [&] { return m == -INFINITY ? -INFINITY : m + std::log(sum); };
            long double ref = excl ? value() : 0;
            const long double x = v[off];
            if (x > m) {
              sum = sum * std::exp(m - x) + 1;
              m = x;
            } else {
              sum += std::exp(x - m);
            }
            if (!excl) ref = value();
            const double o = out.data<float>()[off];
            bool ok;
            if (std::isinf(static_cast<double>(ref))) {
              ok = o == static_cast<double>(ref);
            } else {
              const long double a = std::fabs(ref);
              ok = a < 1e-6 || std::fabs(o - ref) <= (a >= 0.5 ? 2.5e-7L : 1e-6L) * a;
            }
            if (!ok) {
              ++bad;
              ADD_FAILURE() << "logcumsumexp " << what << " element " << off << ": ref " << static_cast<double>(ref)
                            << " gpu " << o;
            }
          }
        }
      }
    }
  }
}

// float32 cumsum on 16384 and more lines split along the length (the column strips of
// scan_columns.cuh until 2026-11-30, the three phases since: PO_CUMSUM_STRIP_LINES in
// cumsum_tiles.cuh; the float32 strips are checked in tools/dev/harness/scan --strips):
// docs/spec.md §2's rule itself, every output no further from the exact sum than the float64
// loop rounded once to float, in every exclusive/reverse mode, and two runs bitwise equal.
// Shapes: 16384 lines of 300 steps, 20020 lines of 37 steps (tiles across outer indices, the
// last one partial); N(0, 3) with a
// +-1e20 pair down one line (the two-sum's slow steps) and a subnormal.
TEST(GpuTest, ScanEngineColumnStripsCumsumFloat32) {
  REQUIRE_GPU();
  ScopedGpuScanBackend engine("engine");
  const std::vector<EngineCase> cases = {{{2, 300, 8192}, 1}, {{1001, 37, 20}, 1}};
  std::mt19937 rng(23);
  std::normal_distribution<float> nd(0, 3);
  for (const EngineCase& c : cases) {
    const int64_t n = c.numel(), L = c.dims[1], inner = c.dims[2], outer = c.dims[0];
    std::vector<float> v(n);
    for (float& e : v) e = nd(rng);
    v[5 * inner + 3] = 1e20f;
    v[9 * inner + 3] = -1e20f;
    v[n / 2] = 1e-40f;
    const DenseTensor xg = MakeGpu<float>(c.dims, v);
    for (int mode = 0; mode < 4; ++mode) {
      const bool excl = mode & 1, rev = mode & 2;
      const DenseTensor first = CumOnHost("cumsum", xg, 1, excl, rev, c.Describe(mode));
      const float* out = first.data<float>();
      int bad = 0;
      for (int64_t line = 0; line < outer * inner && bad < 5; ++line) {
        const int64_t base = line / inner * L * inner + line % inner;
        paddle_ops_test::ExactSum exact;
        double loop = 0;
        for (int64_t k = 0; k < L && bad < 5; ++k) {
          const int64_t off = base + (rev ? L - 1 - k : k) * inner;
          if (!excl) exact.Add(v[off]), loop += v[off];
          const long double got = exact.DistanceTo(out[off]);
          const long double floor = exact.DistanceTo(static_cast<float>(loop));
          if (got > floor) {
            ++bad;
            ADD_FAILURE() << "cumsum float32 " << c.Describe(mode) << " element " << off << ": gpu " << out[off]
                          << " float64 loop " << static_cast<float>(loop);
          }
          if (excl) exact.Add(v[off]), loop += v[off];
        }
      }
    }
  }
}

// float32 logcumsumexp and cumsum on columns split along the length, where a wrong fold of the
// segments before a tile shows in every later output of the line: [1, 8500, 1024] (1024 lines,
// three phases with 133 segments a line: phase 2 a block per line), [3, 700, 1500] (4500 lines
// across outer indices, 11 segments), [2, 1100, 1030] (inner not a multiple of 4: no vector
// accesses), [1, 5000, 600] (the one pass of scan_columns.cuh, 40 tiles down each line). (The
// harness-only chained look-back, tools/dev/harness/scan/scan_column_chain.cuh, is checked by
// tools/dev/harness/scan --lookback, not here.) Every
// exclusive/reverse mode, two runs bitwise equal; non-finite lines (+inf then -inf, a NaN, a
// -inf prefix), a +-1e20 pair and a subnormal. logcumsumexp against a long double reference
// within docs/spec.md §1 (2.5e-7 relative where |ref| >= 0.5, 1e-6 below; inf and NaN exactly);
// cumsum within §2's rule (never further from the exact sum than the float64 loop rounded once;
// inf and NaN as that loop's).
TEST(GpuTest, ScanEngineSegmentedColumnsFloat32NonFinite) {
  REQUIRE_GPU();
  ScopedGpuScanBackend engine("engine");
  const std::vector<EngineCase> cases = {
      {{1, 8500, 1024}, 1}, {{3, 700, 1500}, 1}, {{2, 1100, 1030}, 1}, {{1, 5000, 600}, 1}};
  std::mt19937 rng(29);
  std::normal_distribution<float> nd(0, 3);
  for (const EngineCase& c : cases) {
    const int64_t n = c.numel(), L = c.dims[1], inner = c.dims[2], outer = c.dims[0], lines = outer * inner;
    std::vector<float> v(n);
    for (float& e : v) e = nd(rng);
    auto at = [&](int64_t line, int64_t k) { return line / inner * L * inner + line % inner + k * inner; };
    const int64_t a = lines / 3, b = lines / 2, d = lines - 1, e = 70;
    v[at(a, L / 3)] = INFINITY;  // +inf, later -inf: logcumsumexp +inf, cumsum NaN from there
    v[at(a, L / 2)] = -INFINITY;
    v[at(b, L - 200)] = NAN;
    for (int64_t k = 0; k < L / 2; ++k) v[at(d, k)] = -INFINITY;  // an empty logcumsumexp prefix
    v[at(e, 5)] = 1e20f;
    v[at(e, L - 5)] = -1e20f;
    v[at(e, L / 2)] = 1e-40f;
    const DenseTensor xg = MakeGpu<float>(c.dims, v);
    for (int mode = 0; mode < 4; ++mode) {
      const bool excl = mode & 1, rev = mode & 2;
      const std::string what = c.Describe(mode);
      const DenseTensor lse = CumOnHost("logcumsumexp", xg, 1, excl, rev, "logcumsumexp " + what);
      const DenseTensor sum = CumOnHost("cumsum", xg, 1, excl, rev, "cumsum " + what);
      int bad = 0;
      for (int64_t line = 0; line < lines && bad < 5; ++line) {
        long double m = -INFINITY, s = 0;
        paddle_ops_test::ExactSum exact;
        double loop = 0;
        // cumsum: the float64 loop, and the exact sum while the loop is finite (every element so far is)
        const auto check_sum = [&](int64_t off) {
          const float got = sum.data<float>()[off];
          const bool ok = std::isfinite(loop)  ? std::isfinite(got) && exact.DistanceTo(got) <= exact.DistanceTo(static_cast<float>(loop))
                          : std::isnan(loop) ? std::isnan(got)
                                             : static_cast<double>(got) == loop;
          if (!ok) {
            ++bad;
            ADD_FAILURE() << "cumsum " << what << " element " << off << ": gpu " << got << " float64 loop "
                          << static_cast<float>(loop);
          }
        };
        for (int64_t k = 0; k < L && bad < 5; ++k) {
          const int64_t off = at(line, rev ? L - 1 - k : k);
          const float x = v[off];
          const auto value = [&] { return m == -INFINITY ? -INFINITY : m + std::log(s); };
          long double ref = excl ? value() : 0;
          if (x == -INFINITY) {
          } else if (x > m) {
            s = (m == -INFINITY ? 0 : s * std::exp(m - x)) + 1;
            m = x;
          } else {
            s += x == m ? 1 : std::exp(static_cast<long double>(x) - m);
          }
          if (!excl) ref = value();
          const double o = lse.data<float>()[off];
          bool ok;
          if (std::isnan(static_cast<double>(ref))) {
            ok = std::isnan(o);
          } else if (std::isinf(static_cast<double>(ref))) {
            ok = o == static_cast<double>(ref);
          } else {
            const long double r = std::fabs(ref);
            ok = r < 1e-6 || std::fabs(o - ref) <= (r >= 0.5 ? 2.5e-7L : 1e-6L) * r;
          }
          if (!ok) {
            ++bad;
            ADD_FAILURE() << "logcumsumexp " << what << " element " << off << ": ref " << static_cast<double>(ref)
                          << " gpu " << o;
          }
          if (excl) check_sum(off);
          loop += x;
          if (std::isfinite(x)) exact.Add(x);
          if (!excl) check_sum(off);
        }
      }
    }
  }
}

TEST(GpuTest, ScanEngineIntegerCumsumIsExact) {
  REQUIRE_GPU();
  ScopedGpuScanBackend engine("engine");
  std::mt19937_64 rng(2);
  for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{{7, 100001}, {300, 31}, {40, 9, 513}, {300, 32}, {1001, 128}}) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<int64_t> v(n);
    for (int64_t& e : v) e = static_cast<int64_t>(rng());  // wraps: two's complement, exact either way
    const DenseTensor x = MakeCpu<int64_t>(dims, v);
    for (int mode = 0; mode < 4; ++mode) {
      const DenseTensor a = RunCum("cumsum", x, 1, mode & 1, mode & 2);
      const DenseTensor b = ToCpu(RunCum("cumsum", ToGpu(x), 1, mode & 1, mode & 2));
      EXPECT_TRUE(SameBits(a, b)) << "int64 cumsum dims[0] " << dims[0] << " mode " << mode;
    }
  }
}

// Integer cumsum's own paths (kernels/gpu/cumsum_tiles.cuh): 1-D tensors and up to 4 long rows
// through CUB's DeviceScan (lengths off its tiles, more than one tile), 5 long rows through the
// engine's single pass, columns of 8192 and 16384 lines through the one-pass columns, and of
// 4096 and 4500 lines through the column strips (scan_columns.cuh; 4500: strips across outer
// indices, the last one partial); int64 and int32 (wrapping values), every exclusive/reverse
// mode, bit for bit against the CPU.
template <typename T>
void CheckIntegerCumsumPaths() {
  std::mt19937_64 rng(5);
  const std::vector<std::pair<std::vector<int64_t>, int>> cases{
      {{300001}, 0},          {{1 << 20}, 0},         {{3, 200003}, 1},     {{5, 70001}, 1},
      {{2, 700, 4096}, 1},    {{4, 300, 4096}, 1},    {{1, 700, 4096}, 1},  {{3, 300, 1500}, 1}};
  for (const auto& [dims, axis] : cases) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<T> v(n);
    for (T& e : v) e = static_cast<T>(rng());  // wraps: two's complement, exact either way
    const DenseTensor x = MakeCpu<T>(dims, v);
    for (int mode = 0; mode < 4; ++mode) {
      const DenseTensor a = RunCum("cumsum", x, axis, mode & 1, mode & 2);
      const DenseTensor b = ToCpu(RunCum("cumsum", ToGpu(x), axis, mode & 1, mode & 2));
      EXPECT_TRUE(SameBits(a, b)) << sizeof(T) * 8 << "-bit cumsum numel " << n << " dims[0] " << dims[0]
                                  << " mode " << mode;
    }
  }
}

TEST(GpuTest, ScanEngineIntegerCumsumLongRowsAndColumns) {
  REQUIRE_GPU();
  ScopedGpuScanBackend engine("engine");
  CheckIntegerCumsumPaths<int64_t>();
  CheckIntegerCumsumPaths<int32_t>();
}

// 64-bit indexing: one float16 row of 2^31 + 3 elements, zeros except a 12 at 2^31 + 1, so
// out[k] = log(k + 1) before it (checked at sampled points and at the end, within one fp16 ulp).
TEST(GpuTest, ScanEngineFloat16RowPast2To31) {
  REQUIRE_GPU();
  ScopedGpuScanBackend engine("engine");
  const int64_t n = (int64_t{1} << 31) + 3;
  DenseTensor x(DataType::FLOAT16, DDim({n}));
  auto* p = static_cast<dtype::float16*>(x.AllocateFrom(GetAllocator(CPUPlace()), x.dtype(), CPUPlace()));
  std::fill(p, p + n, dtype::float16(0.0f));
  const int64_t spike = (int64_t{1} << 31) + 1;
  p[spike] = dtype::float16(12.0f);
  DenseTensor out;
  try {
    out = ToCpu(RunCum("logcumsumexp", ToGpu(x), 0, false, false));
  } catch (const EnforceNotMet& e) {
    if (e.code() == ErrorCode::RESOURCE_EXHAUSTED) GTEST_SKIP() << "not enough GPU memory: " << e.message();
    throw;
  }
  const dtype::float16* o = out.data<dtype::float16>();
  auto ref = [&](int64_t k) -> double {
    if (k < spike) return std::log(static_cast<double>(k) + 1);
    return std::log(static_cast<double>(k) + std::exp(12.0));  // k zeros before, the spike, and more zeros
  };
  for (int64_t k : std::vector<int64_t>{0, 1, 2, 1000, (int64_t{1} << 31) - 1, int64_t{1} << 31, spike, spike + 1,
                                         n - 1}) {
    const double r = ref(k), got = static_cast<float>(o[k]);
    const double ulp = std::max(std::ldexp(1.0, std::ilogb(r) - 10), std::ldexp(1.0, -24));
    EXPECT_LE(std::fabs(got - r), ulp) << "element " << k << ": " << got << " vs " << r;
  }
}

TEST(GpuTest, OutOfMemoryRaisesResourceExhaustedAndTheNextAllocationWorks) {
  REQUIRE_GPU();
  DenseTensor huge(DataType::FLOAT32, DDim({int64_t{1} << 40}));  // 4 TiB
  try {
    huge.AllocateFrom(GetAllocator(GPUPlace(0)), DataType::FLOAT32, GPUPlace(0));
    FAIL() << "4 TiB allocation succeeded";
  } catch (const EnforceNotMet& e) {
    EXPECT_EQ(e.code(), ErrorCode::RESOURCE_EXHAUSTED);
    EXPECT_NE(e.message().find("4398046511104"), std::string::npos) << e.message();
  }
  DenseTensor ok(DataType::FLOAT32, DDim({1024}));
  EXPECT_NE(ok.AllocateFrom(GetAllocator(GPUPlace(0)), DataType::FLOAT32, GPUPlace(0)), nullptr);
}

TEST(GpuTest, CachingAllocatorReusesFreedBlocks) {
  REQUIRE_GPU();
  void* first = nullptr;
  {
    auto a = GetAllocator(GPUPlace(0))->Allocate(1 << 20, GPUPlace(0));
    first = a->ptr();
  }
  auto b = GetAllocator(GPUPlace(0))->Allocate(1 << 20, GPUPlace(0));
  EXPECT_EQ(b->ptr(), first);
}


// The engine's carry-in per line and line totals (kernels/funcs/scan_carry.h, the sequence-parallel
// scans' internal entries) on every GPU path the engine picks: 1-D single pass, long rows (single
// pass), short and staged rows (which take the single pass with a carry), columns in one pass
// (< 1024 lines), in three phases and in strips (scan_columns.cuh: integer cumsum's), an inner axis; forward / reverse / exclusive, -inf
// carries. Each call runs twice (bitwise the same) and matches the CPU engine's carry scan on its
// generic steps (float64 terms: the reference these tolerances were set against; the CPU's SIMD
// paths are checked on their own in test_scan_carry.cc).
#ifdef PADDLE_OPS_WITH_GPU
template <typename T>
void CheckCarryGpu(bool lse, double tol) {
  constexpr bool kInt = std::is_integral<T>::value;
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 1 << 20, 1},   // 1-D: the single pass with its look-back
      {4, 100003, 1},    // long rows
      {4096, 16, 1},     // short rows
      {2048, 256, 1},    // staged rows
      {4, 5000, 64},     // columns, one pass (256 lines)
      {2, 700, 4096},    // columns, three phases (8192 lines; integers: the one pass)
      {1, 100, 16384},   // columns, 16384 lines (three phases; float32 cumsum's strips until 2026-11-30)
      {1, 300, 4096},    // columns, integer cumsum's strips (4096 lines)
      {3, 2000, 5},      // an inner axis, few lines
  };
  const auto& cpu_ctx = *static_cast<const CPUContext*>(DeviceContextPool::Instance().Get(CPUPlace()));
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> u(-3, 3);
  for (const auto& sh : shapes) {
    for (int mode = 0; mode < 4; ++mode) {
      const bool exclusive = mode & 1, reverse = mode & 2;
      const int64_t n = sh[0] * sh[1] * sh[2], lines = sh[0] * sh[2];
      std::vector<T> xv(n);
      for (auto& e : xv) e = static_cast<T>(kInt ? std::floor(10 * u(rng)) : u(rng));
      std::vector<double> cd(lines);
      std::vector<int64_t> ci(lines);
      for (int64_t i = 0; i < lines; ++i) {
        cd[i] = lse && i % 4 == 1 ? -INFINITY : 10 * u(rng);
        ci[i] = static_cast<int64_t>(std::floor(1000 * u(rng)));
      }
      const DenseTensor x = MakeCpu<T>(sh, xv);
      const DenseTensor carry = kInt ? MakeCpu<int64_t>({lines}, ci) : MakeCpu<double>({lines}, cd);
      const DenseTensor xg = ToGpu(x), cg = ToGpu(carry);
      funcs::CarryScanCall call{lse ? funcs::CarryScanOp::kLogcumsumexp : funcs::CarryScanOp::kCumsum,
                                x.dtype(), x.raw_data(), carry.raw_data(), nullptr, {sh[0], sh[1], sh[2]},
                                exclusive, reverse};
      DenseTensor ref = MakeCpu<T>(sh, xv);
      call.out = const_cast<void*>(ref.raw_data());
      funcs::SetCpuScanSimdEnabled(false);
      funcs::ScanWithCarry(cpu_ctx, call);
      funcs::SetCpuScanSimdEnabled(true);
      const DeviceContext& gctx = *DeviceContextPool::Instance().Get(GPUPlace(0));
      DenseTensor outs[2];
      for (auto& o : outs) {
        o = DenseTensor(x.dtype(), x.dims());
        call.x = xg.raw_data();
        call.carry = cg.raw_data();
        call.out = gctx.Alloc(&o, x.dtype());
        funcs::ScanWithCarryGpu(0, call);
      }
      gctx.Wait();
      const DenseTensor a = ToCpu(outs[0]), b = ToCpu(outs[1]);
      const std::string what = std::string(lse ? "lse" : "cumsum") + " [" + std::to_string(sh[0]) + ", " +
                               std::to_string(sh[1]) + ", " + std::to_string(sh[2]) + "] " + DataTypeToString(x.dtype()) + " mode " + std::to_string(mode);
      EXPECT_TRUE(SameBits(a, b)) << what << ": not deterministic";
      int bad = 0;
      for (int64_t i = 0; i < n && bad < 5; ++i) {
        const double want = static_cast<double>(ref.data<T>()[i]), got = static_cast<double>(a.data<T>()[i]);
        const bool ok = std::isinf(want) ? want == got : std::fabs(want - got) <= tol * std::max(1.0, std::fabs(want));
        if (!ok) ++bad, ADD_FAILURE() << what << " element " << i << ": cpu " << want << " gpu " << got;
      }
      // Line totals, against the CPU's.
      DenseTensor tc = kInt ? MakeCpu<int64_t>({lines}, ci) : MakeCpu<double>({lines}, cd);
      call.x = x.raw_data();
      call.out = const_cast<void*>(tc.raw_data());
      funcs::SetCpuScanSimdEnabled(false);
      funcs::ScanLineTotals(cpu_ctx, call);
      funcs::SetCpuScanSimdEnabled(true);
      DenseTensor tg(tc.dtype(), tc.dims());
      call.x = xg.raw_data();
      call.out = gctx.Alloc(&tg, tc.dtype());
      funcs::ScanLineTotalsGpu(0, call);
      gctx.Wait();
      const DenseTensor th = ToCpu(tg);
      // The GPU's logcumsumexp totals of 32- and 16-bit inputs take float32 terms (the fast tiles'
      // exp): within 2e-8 of the CPU's float64 ones (measured on the H200: 1.9e-9 at most), a third
      // of a float32 ulp at most in every output the carry enters. float64 and cumsum: 1e-12.
      // 16-bit inputs take the lean16 terms on the columns' totals (r23-lsehalf): 2.3e-8 seen on
      // the H200 ([1, 300, 4096]); 2e-7 is still 1/2400 of a float16 ulp in the outputs.
      constexpr bool k16 = std::is_same<T, dtype::float16>::value || std::is_same<T, dtype::bfloat16>::value;
      const double ttol = !lse || std::is_same<T, double>::value ? 1e-12 : k16 ? 2e-7 : 2e-8;
      for (int64_t i = 0; i < lines; ++i) {
        const double want = kInt ? static_cast<double>(tc.data<int64_t>()[i]) : tc.data<double>()[i];
        const double got = kInt ? static_cast<double>(th.data<int64_t>()[i]) : th.data<double>()[i];
        EXPECT_TRUE(std::isinf(want) ? want == got : std::fabs(want - got) <= ttol * std::max(1.0, std::fabs(want)))
            << what << " total " << i << ": cpu " << want << " gpu " << got;
      }
    }
  }
}
#else
template <typename T>
void CheckCarryGpu(bool, double) {}
#endif

TEST(GpuTest, ScanCarryLogcumsumexp) {
  REQUIRE_GPU();
  CheckCarryGpu<float>(true, 3e-7);
  CheckCarryGpu<double>(true, 1e-13);
  CheckCarryGpu<dtype::float16>(true, 2e-3);
  CheckCarryGpu<dtype::bfloat16>(true, 1.6e-2);
}

TEST(GpuTest, ScanCarryCumsum) {
  REQUIRE_GPU();
  CheckCarryGpu<float>(false, 1e-7);
  CheckCarryGpu<double>(false, 1e-13);
  CheckCarryGpu<dtype::float16>(false, 2e-3);
  CheckCarryGpu<dtype::bfloat16>(false, 1.6e-2);
  CheckCarryGpu<int32_t>(false, 0);
  CheckCarryGpu<int64_t>(false, 0);
}

}  // namespace
}  // namespace phi
