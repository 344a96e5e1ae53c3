// GPU backend tests: the GPU kernels against the CPU ones, the caching allocator, copies,
// out-of-memory. They skip, saying why, in a build without CUDA or on a machine without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "infermeta/unary.h"
#include "paddle_ops/core/kernel_factory.h"

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

DenseTensor ToPlace(const DenseTensor& src, const Place& place) {
  DenseTensor dst(src.dtype(), src.dims());
  void* p = dst.AllocateFrom(GetAllocator(place), src.dtype(), place);
  Memcpy(p, place, src.raw_data(), src.place(), src.numel() * SizeOf(src.dtype()));
  return dst;
}

template <typename T>
DenseTensor MakeCpu(const std::vector<int64_t>& dims, const std::vector<T>& v) {
  DenseTensor t(CppTypeToDataType<T>::Type(), make_ddim(dims));
  T* p = static_cast<T*>(t.AllocateFrom(GetAllocator(CPUPlace()), t.dtype(), CPUPlace()));
  std::copy(v.begin(), v.end(), p);
  return t;
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
  const DenseTensor gpu = ToPlace(cpu, GPUPlace(0));
  for (const char* op : {"logcumsumexp", "cumsum"}) {
    for (int axis = 0; axis < 3; ++axis) {
      for (int mode = 0; mode < 4; ++mode) {
        const DenseTensor a = RunCum(op, cpu, axis, mode & 1, mode & 2);
        const DenseTensor b = ToPlace(RunCum(op, gpu, axis, mode & 1, mode & 2), CPUPlace());
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
  const DenseTensor out = ToPlace(RunCum("logcumsumexp", ToPlace(MakeCpu<float>({n}, v), GPUPlace(0)), 0, false,
                                         false), CPUPlace());
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

}  // namespace
}  // namespace phi
