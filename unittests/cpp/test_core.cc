// Tests of paddle_ops/core: DenseTensor, allocators and Memcpy, CPUContext, MetaTensor,
// KernelKey / KernelFactory and PD_REGISTER_KERNEL.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "paddle_ops/common/scalar.h"
#include "paddle_ops/core/allocator.h"
#include "paddle_ops/core/dense_tensor.h"
#include "paddle_ops/core/device_context.h"
#include "paddle_ops/core/kernel_factory.h"
#include "paddle_ops/core/kernel_registry.h"
#include "paddle_ops/core/meta_tensor.h"
#include "unittests/cpp/test_util.h"

// ---- a test-local kernel registered with PD_REGISTER_KERNEL ------------------------------
namespace core_test {
template <typename T, typename Context>
void DummyFillKernel(const Context& dev_ctx, const phi::DenseTensor& x, int value,
                     phi::DenseTensor* out) {
  out->Resize(x.dims());
  T* o = dev_ctx.template Alloc<T>(out);
  for (int64_t i = 0; i < out->numel(); ++i) o[i] = static_cast<T>(value + i);
}
}  // namespace core_test

PD_REGISTER_KERNEL(core_test_dummy_fill, CPU, ALL_LAYOUT, core_test::DummyFillKernel, float,
                   double, int32_t) {
  kernel->OutputAt(0).SetDataType(phi::DataType::INT64);
}

namespace {

using paddle_ops_test::CatchEnforce;
using paddle_ops_test::Contains;
using phi::Backend;
using phi::DataLayout;
using phi::DataType;
using phi::DDim;
using phi::DenseTensor;
using phi::ErrorCode;
using phi::KernelKey;

std::set<DataType> DTypesOf(const std::string& op, Backend backend = Backend::CPU) {
  std::set<DataType> out;
  for (const KernelKey& k : phi::KernelFactory::Instance().KeysOf(op)) {
    if (k.backend() == backend) out.insert(k.dtype());
  }
  return out;
}

bool HasGpuAllocator() {
  try {
    phi::GetAllocator(phi::GPUPlace(0));
    return true;
  } catch (const phi::EnforceNotMet&) {
    return false;
  }
}

// ---------------------------------------------------------------------------------------
// DenseTensor
// ---------------------------------------------------------------------------------------

TEST(DenseTensorTest, UnallocatedTensor) {
  DenseTensor t(DataType::FLOAT32, DDim({2, 3}));
  EXPECT_EQ(t.dims(), DDim({2, 3}));
  EXPECT_EQ(t.dtype(), DataType::FLOAT32);
  EXPECT_EQ(t.type(), DataType::FLOAT32);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_FALSE(t.initialized());
  EXPECT_FALSE(t.has_allocation());
  EXPECT_EQ(t.capacity(), 0u);
  EXPECT_EQ(t.place().GetType(), phi::AllocationType::UNDEFINED);
  auto e = CatchEnforce([&] { t.raw_data(); });
  EXPECT_EQ(e.code(), ErrorCode::PRECONDITION_NOT_MET);
  auto e2 = CatchEnforce([&] { t.data<float>(); });
  EXPECT_EQ(e2.code(), ErrorCode::PRECONDITION_NOT_MET);

  DenseTensor d;
  EXPECT_EQ(d.dims().size(), 0);
  EXPECT_EQ(d.numel(), 1);  // a default tensor is 0-D
  EXPECT_EQ(d.dtype(), DataType::UNDEFINED);
}

TEST(DenseTensorTest, CPUContextAlloc) {
  phi::CPUContext ctx;
  EXPECT_EQ(ctx.GetPlace(), phi::CPUPlace());
  DenseTensor t;
  t.Resize(DDim({3, 5}));
  float* p = ctx.Alloc<float>(&t);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(t.initialized());
  EXPECT_TRUE(t.has_allocation());
  EXPECT_EQ(t.dtype(), DataType::FLOAT32);
  EXPECT_EQ(t.place(), phi::CPUPlace());
  EXPECT_GE(t.capacity(), 15 * sizeof(float));
  EXPECT_EQ(t.data<float>(), p);
  EXPECT_EQ(t.raw_data(), static_cast<void*>(p));
  for (int i = 0; i < 15; ++i) p[i] = static_cast<float>(i) * 0.5f;
  const DenseTensor& ct = t;
  EXPECT_EQ(ct.data<float>()[14], 7.0f);

  // allocating again for the same size keeps the memory
  EXPECT_EQ(ctx.Alloc<float>(&t), p);
  // a smaller shape fits the existing allocation
  t.Resize(DDim({2, 5}));
  EXPECT_EQ(ctx.Alloc<float>(&t), p);
  EXPECT_EQ(t.data<float>()[9], 4.5f);
  // a larger one needs new memory
  t.Resize(DDim({100, 100}));
  double* q = ctx.Alloc<double>(&t);
  EXPECT_EQ(t.dtype(), DataType::FLOAT64);
  EXPECT_GE(t.capacity(), 10000 * sizeof(double));
  for (int i = 0; i < 10000; ++i) q[i] = i;  // whole buffer writable
  EXPECT_EQ(t.data<double>()[9999], 9999.0);

  // untyped Alloc
  DenseTensor u(DataType::UNDEFINED, DDim({4}));
  void* r = ctx.Alloc(&u, DataType::INT64);
  EXPECT_EQ(u.dtype(), DataType::INT64);
  EXPECT_EQ(r, static_cast<void*>(u.data<int64_t>()));
  EXPECT_GE(u.capacity(), 32u);
}

TEST(DenseTensorTest, AllocNullTensorThrowsInvalidArgument) {
  phi::CPUContext ctx;
  auto e = CatchEnforce([&] { ctx.Alloc(nullptr, DataType::FLOAT32); });
  EXPECT_EQ(e.code(), ErrorCode::INVALID_ARGUMENT);
}

TEST(DenseTensorTest, ZeroSizeAndScalarAlloc) {
  phi::CPUContext ctx;
  DenseTensor z;
  z.Resize(DDim({0, 7}));
  EXPECT_EQ(z.numel(), 0);
  EXPECT_NO_THROW(ctx.Alloc<float>(&z));
  EXPECT_TRUE(z.has_allocation());
  EXPECT_EQ(z.dtype(), DataType::FLOAT32);

  DenseTensor s;  // 0-D
  int32_t* p = ctx.Alloc<int32_t>(&s);
  *p = 42;
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.data<int32_t>()[0], 42);
}

TEST(DenseTensorTest, ReadAsWrongTypeThrowsInvalidType) {
  phi::CPUContext ctx;
  DenseTensor t;
  t.Resize(DDim({4}));
  ctx.Alloc<float>(&t);
  auto e = CatchEnforce([&] { t.data<double>(); });
  EXPECT_EQ(e.code(), ErrorCode::INVALID_TYPE);
  EXPECT_TRUE(Contains(e.message(), "float32")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "float64")) << e.message();
  const DenseTensor& ct = t;
  auto e2 = CatchEnforce([&] { ct.data<int32_t>(); });
  EXPECT_EQ(e2.code(), ErrorCode::INVALID_TYPE);
  auto e3 = CatchEnforce([&] { t.data<phi::dtype::float16>(); });
  EXPECT_EQ(e3.code(), ErrorCode::INVALID_TYPE);
  auto e4 = CatchEnforce([&] { t.data<phi::dtype::bfloat16>(); });
  EXPECT_EQ(e4.code(), ErrorCode::INVALID_TYPE);
  EXPECT_TRUE(Contains(e4.message(), "bfloat16")) << e4.message();
  EXPECT_NO_THROW(t.data<float>());
}

TEST(DenseTensorTest, CopiesAndShareDataWithShareMemory) {
  phi::CPUContext ctx;
  DenseTensor a;
  a.Resize(DDim({2, 2}));
  float* p = ctx.Alloc<float>(&a);
  p[0] = 1.0f;

  DenseTensor copy = a;  // copies share the allocation
  EXPECT_EQ(copy.Holder(), a.Holder());
  EXPECT_EQ(copy.data<float>(), p);
  copy.data<float>()[1] = 2.0f;
  EXPECT_EQ(a.data<float>()[1], 2.0f);

  DenseTensor b;
  b.ShareDataWith(a);
  EXPECT_EQ(b.Holder(), a.Holder());
  EXPECT_EQ(b.dims(), a.dims());
  EXPECT_EQ(b.dtype(), DataType::FLOAT32);
  EXPECT_EQ(b.data<float>(), p);
  EXPECT_EQ(a.Holder().use_count(), 3);

  // resizing the sharer leaves the original's meta alone but keeps the memory shared
  b.Resize(DDim({4}));
  EXPECT_EQ(a.dims(), DDim({2, 2}));
  EXPECT_EQ(b.data<float>()[1], 2.0f);

  // memory outlives the tensor that allocated it
  std::weak_ptr<phi::Allocation> weak;
  {
    DenseTensor owner;
    owner.Resize(DDim({8}));
    ctx.Alloc<int64_t>(&owner);
    owner.data<int64_t>()[7] = 77;
    b.ShareDataWith(owner);
    weak = owner.Holder();
  }
  EXPECT_FALSE(weak.expired());
  EXPECT_EQ(b.data<int64_t>()[7], 77);
  b = DenseTensor();
  EXPECT_TRUE(weak.expired());
}

TEST(DenseTensorTest, ResizeKeepsMemoryAndDtype) {
  phi::CPUContext ctx;
  DenseTensor t;
  t.Resize(DDim({2, 3}));
  int32_t* p = ctx.Alloc<int32_t>(&t);
  for (int i = 0; i < 6; ++i) p[i] = i;
  t.Resize(DDim({3, 2}));
  EXPECT_EQ(t.dims(), DDim({3, 2}));
  EXPECT_EQ(t.dtype(), DataType::INT32);
  EXPECT_EQ(t.data<int32_t>(), p);
  EXPECT_EQ(t.data<int32_t>()[5], 5);
  t.Resize(DDim({6}));
  EXPECT_EQ(t.numel(), 6);
}

TEST(DenseTensorTest, SetDtypeAndMeta) {
  DenseTensor t;
  t.set_dtype(DataType::BFLOAT16);
  EXPECT_EQ(t.dtype(), DataType::BFLOAT16);
  phi::DenseTensorMeta m;
  m.dtype = DataType::INT16;
  m.dims = DDim({5, 1});
  t.set_meta(m);
  EXPECT_EQ(t.dtype(), DataType::INT16);
  EXPECT_EQ(t.dims(), DDim({5, 1}));
  EXPECT_EQ(t.meta().dims, DDim({5, 1}));
}

TEST(DenseTensorTest, ConstructFromHolderAndOffset) {
  auto holder = phi::GetAllocator(phi::CPUPlace())->Allocate(64, phi::CPUPlace());
  ASSERT_NE(holder->ptr(), nullptr);
  EXPECT_EQ(holder->size(), 64u);
  EXPECT_EQ(holder->place(), phi::CPUPlace());
  auto* base = static_cast<float*>(holder->ptr());
  for (int i = 0; i < 16; ++i) base[i] = static_cast<float>(i);
  phi::DenseTensorMeta meta;
  meta.dtype = DataType::FLOAT32;
  meta.dims = DDim({4});
  meta.offset = 8 * sizeof(float);
  DenseTensor t(holder, meta);
  EXPECT_TRUE(t.initialized());
  EXPECT_EQ(t.data<float>()[0], 8.0f);
  EXPECT_EQ(t.data<float>()[3], 11.0f);
}

// ---------------------------------------------------------------------------------------
// Allocator, Memcpy, DeviceContextPool, MetaTensor
// ---------------------------------------------------------------------------------------

TEST(AllocatorTest, CpuAllocatorAndUndefinedPlace) {
  phi::Allocator* a = phi::GetAllocator(phi::CPUPlace());
  ASSERT_NE(a, nullptr);
  auto blk = a->Allocate(0, phi::CPUPlace());  // zero bytes still gives a valid block
  ASSERT_NE(blk, nullptr);
  EXPECT_EQ(blk->size(), 0u);
  auto e = CatchEnforce([] { phi::GetAllocator(phi::Place()); });
  EXPECT_EQ(e.code(), ErrorCode::INVALID_ARGUMENT);
}

TEST(AllocatorTest, GpuWithoutBackendThrowsPreconditionNotMet) {
  if (HasGpuAllocator()) GTEST_SKIP() << "a GPU backend is linked in";
  auto e = CatchEnforce([] { phi::GetAllocator(phi::GPUPlace(0)); });
  EXPECT_EQ(e.code(), ErrorCode::PRECONDITION_NOT_MET);
  EXPECT_TRUE(Contains(e.message(), "gpu:0")) << e.message();
  phi::CPUContext ctx;
  float x = 1.0f, y = 0.0f;
  auto e2 = CatchEnforce([&] { phi::Memcpy(&y, phi::GPUPlace(0), &x, phi::CPUPlace(), 4); });
  EXPECT_EQ(e2.code(), ErrorCode::PRECONDITION_NOT_MET);
  auto e3 = CatchEnforce([&] { phi::DeviceContextPool::Instance().Get(phi::GPUPlace(0)); });
  EXPECT_EQ(e3.code(), ErrorCode::PRECONDITION_NOT_MET);
}

TEST(MemcpyTest, CpuToCpu) {
  std::vector<double> src(1000), dst(1000, -1.0);
  for (int i = 0; i < 1000; ++i) src[i] = i * 1.25;
  phi::Memcpy(dst.data(), phi::CPUPlace(), src.data(), phi::CPUPlace(), 1000 * sizeof(double));
  EXPECT_EQ(dst, src);
  // partial copy touches only the requested bytes
  std::vector<int32_t> a{1, 2, 3, 4}, b{9, 9, 9, 9};
  phi::Memcpy(b.data(), phi::CPUPlace(), a.data(), phi::CPUPlace(), 2 * sizeof(int32_t));
  EXPECT_EQ(b, (std::vector<int32_t>{1, 2, 9, 9}));
  // zero bytes is a no-op, even with null pointers
  EXPECT_NO_THROW(phi::Memcpy(nullptr, phi::CPUPlace(), nullptr, phi::CPUPlace(), 0));
}

TEST(MemcpyTest, BetweenTensors) {
  phi::CPUContext ctx;
  DenseTensor a, b;
  a.Resize(DDim({3, 3}));
  b.Resize(DDim({3, 3}));
  auto* pa = ctx.Alloc<int64_t>(&a);
  auto* pb = ctx.Alloc<int64_t>(&b);
  for (int i = 0; i < 9; ++i) pa[i] = (int64_t{1} << 40) + i;
  phi::Memcpy(pb, b.place(), pa, a.place(), 9 * sizeof(int64_t));
  for (int i = 0; i < 9; ++i) EXPECT_EQ(pb[i], (int64_t{1} << 40) + i);
}

TEST(MemsetZeroTest, Cpu) {
  std::vector<uint8_t> buf(37, 0xab);
  phi::MemsetZero(buf.data(), phi::CPUPlace(), 30);
  for (int i = 0; i < 30; ++i) EXPECT_EQ(buf[i], 0) << i;
  for (int i = 30; i < 37; ++i) EXPECT_EQ(buf[i], 0xab) << i;
  EXPECT_NO_THROW(phi::MemsetZero(nullptr, phi::CPUPlace(), 0));
}

TEST(DeviceContextPoolTest, OneContextPerPlace) {
  auto& pool = phi::DeviceContextPool::Instance();
  const phi::DeviceContext* a = pool.Get(phi::CPUPlace());
  const phi::DeviceContext* b = pool.Get(phi::CPUPlace());
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a->GetPlace(), phi::CPUPlace());
  EXPECT_NE(dynamic_cast<const phi::CPUContext*>(a), nullptr);
  EXPECT_EQ(&pool, &phi::DeviceContextPool::Instance());
}

TEST(MetaTensorTest, SetAndShareMeta) {
  DenseTensor x(DataType::FLOAT64, DDim({4, 5}));
  DenseTensor out;
  phi::MetaTensor mx(x), mo(&out);
  EXPECT_TRUE(static_cast<bool>(mx));
  EXPECT_EQ(mx.numel(), 20);
  EXPECT_EQ(mx.dtype(), DataType::FLOAT64);
  mo.share_meta(mx);
  EXPECT_EQ(out.dims(), DDim({4, 5}));
  EXPECT_EQ(out.dtype(), DataType::FLOAT64);
  mo.set_dims(DDim({20}));
  mo.set_dtype(DataType::INT32);
  EXPECT_EQ(out.dims(), DDim({20}));
  EXPECT_EQ(out.dtype(), DataType::INT32);
  mo.share_dims(mx);
  EXPECT_EQ(out.dims(), DDim({4, 5}));
  EXPECT_EQ(out.dtype(), DataType::INT32);

  phi::MetaTensor null_meta;
  EXPECT_FALSE(static_cast<bool>(null_meta));
  EXPECT_FALSE(null_meta.initialized());
  auto e = CatchEnforce([&] { null_meta.set_dims(DDim({1})); });
  EXPECT_EQ(e.code(), ErrorCode::FATAL);
  auto e2 = CatchEnforce([&] { null_meta.set_dtype(DataType::FLOAT32); });
  EXPECT_EQ(e2.code(), ErrorCode::FATAL);
}

// ---------------------------------------------------------------------------------------
// KernelKey / KernelFactory
// ---------------------------------------------------------------------------------------

TEST(KernelKeyTest, ToStringAndOrdering) {
  KernelKey a(Backend::CPU, DataLayout::ALL_LAYOUT, DataType::FLOAT32);
  KernelKey b(Backend::CPU, DataLayout::ALL_LAYOUT, DataType::FLOAT64);
  KernelKey g(Backend::GPU, DataLayout::ALL_LAYOUT, DataType::FLOAT32);
  EXPECT_EQ(a.ToString(), "(CPU, float32)");
  EXPECT_EQ(g.ToString(), "(GPU, float32)");
  EXPECT_TRUE(a == KernelKey(Backend::CPU, DataLayout::ALL_LAYOUT, DataType::FLOAT32));
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(a < b || b < a);
  EXPECT_FALSE(a < a);
  EXPECT_TRUE(a < g);  // backend orders first
  EXPECT_TRUE(b < g);
  EXPECT_EQ(phi::BackendToString(Backend::CPU), "CPU");
  EXPECT_EQ(phi::BackendToString(Backend::GPU), "GPU");
  EXPECT_EQ(phi::TransToBackend(phi::CPUPlace()), Backend::CPU);
  EXPECT_EQ(phi::TransToBackend(phi::GPUPlace(1)), Backend::GPU);
  EXPECT_EQ(phi::TransToBackend(phi::Place()), Backend::UNDEFINED);
  EXPECT_EQ(phi::DefaultPlace(Backend::CPU), phi::CPUPlace());
  EXPECT_EQ(phi::DefaultPlace(Backend::GPU, 2), phi::GPUPlace(2));
}

TEST(KernelFactoryTest, LogcumsumexpRegisteredDtypes) {
  auto& f = phi::KernelFactory::Instance();
  ASSERT_TRUE(f.HasKernel("logcumsumexp"));
  const std::set<DataType> expect{DataType::FLOAT16, DataType::BFLOAT16, DataType::FLOAT32,
                                  DataType::FLOAT64};
  EXPECT_EQ(DTypesOf("logcumsumexp"), expect);
  ASSERT_TRUE(f.HasKernel("logcumsumexp_grad"));
  EXPECT_EQ(DTypesOf("logcumsumexp_grad"), expect);
  for (DataType t : expect) {
    const phi::Kernel* k = f.Find("logcumsumexp", KernelKey(Backend::CPU, DataLayout::ALL_LAYOUT, t));
    ASSERT_NE(k, nullptr) << phi::DataTypeToString(t);
    EXPECT_TRUE(k->IsValid());
  }
}

TEST(KernelFactoryTest, CumsumRegisteredDtypes) {
  auto& f = phi::KernelFactory::Instance();
  ASSERT_TRUE(f.HasKernel("cumsum"));
  const std::set<DataType> expect{DataType::FLOAT16, DataType::BFLOAT16, DataType::FLOAT32,
                                  DataType::FLOAT64, DataType::INT32,    DataType::INT64};
  EXPECT_EQ(DTypesOf("cumsum"), expect);
  ASSERT_TRUE(f.HasKernel("cumsum_grad"));
  EXPECT_EQ(DTypesOf("cumsum_grad"), expect);
  const auto names = f.Names();
  EXPECT_NE(std::find(names.begin(), names.end(), "cumsum"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "logcumsumexp"), names.end());
}

TEST(KernelFactoryTest, KeysAreUniquePerOp) {
  auto keys = phi::KernelFactory::Instance().KeysOf("cumsum");
  for (size_t i = 0; i < keys.size(); ++i)
    for (size_t j = i + 1; j < keys.size(); ++j) EXPECT_FALSE(keys[i] == keys[j]);
}

TEST(KernelFactoryTest, SelectMissingDtypeThrowsNotFound) {
  auto& f = phi::KernelFactory::Instance();
  const KernelKey key(Backend::CPU, DataLayout::ALL_LAYOUT, DataType::INT32);
  EXPECT_EQ(f.Find("logcumsumexp", key), nullptr);
  auto e = CatchEnforce([&] { f.SelectKernelOrThrow("logcumsumexp", key); });
  EXPECT_EQ(e.code(), ErrorCode::NOT_FOUND);
  EXPECT_TRUE(Contains(e.message(), "logcumsumexp")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "CPU")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "int32")) << e.message();
  // it lists what is registered
  EXPECT_TRUE(Contains(e.message(), "float32")) << e.message();

  auto e2 = CatchEnforce([&] {
    f.SelectKernelOrThrow("cumsum", KernelKey(Backend::CPU, DataLayout::ALL_LAYOUT, DataType::BOOL));
  });
  EXPECT_EQ(e2.code(), ErrorCode::NOT_FOUND);
  EXPECT_TRUE(Contains(e2.message(), "cumsum")) << e2.message();
  EXPECT_TRUE(Contains(e2.message(), "bool")) << e2.message();
}

TEST(KernelFactoryTest, SelectMissingBackendOrOpThrowsNotFound) {
  auto& f = phi::KernelFactory::Instance();
  const KernelKey gpu(Backend::GPU, DataLayout::ALL_LAYOUT, DataType::FLOAT32);
  if (f.Find("logcumsumexp", gpu) == nullptr) {
    auto e = CatchEnforce([&] { f.SelectKernelOrThrow("logcumsumexp", gpu); });
    EXPECT_EQ(e.code(), ErrorCode::NOT_FOUND);
    EXPECT_TRUE(Contains(e.message(), "GPU")) << e.message();
    EXPECT_TRUE(Contains(e.message(), "float32")) << e.message();
  }
  EXPECT_FALSE(f.HasKernel("no_such_op_xyz"));
  EXPECT_TRUE(f.KeysOf("no_such_op_xyz").empty());
  auto e2 = CatchEnforce([&] {
    f.SelectKernelOrThrow("no_such_op_xyz",
                          KernelKey(Backend::CPU, DataLayout::ALL_LAYOUT, DataType::FLOAT32));
  });
  EXPECT_EQ(e2.code(), ErrorCode::NOT_FOUND);
  EXPECT_TRUE(Contains(e2.message(), "no_such_op_xyz")) << e2.message();
}

TEST(KernelFactoryTest, CallWithWrongSignatureThrows) {
  auto& f = phi::KernelFactory::Instance();
  const phi::Kernel& k = f.SelectKernelOrThrow(
      "logcumsumexp", KernelKey(Backend::CPU, DataLayout::ALL_LAYOUT, DataType::FLOAT32));
  phi::CPUContext ctx;
  DenseTensor x;
  x.Resize(DDim({4}));
  float* px = ctx.Alloc<float>(&x);
  for (int i = 0; i < 4; ++i) px[i] = static_cast<float>(i);
  DenseTensor out;
  out.Resize(DDim({4}));

  // axis passed as a Scalar (cumsum's signature) instead of int
  auto e = CatchEnforce([&] {
    k.Call<const DenseTensor&, const phi::Scalar&, bool, bool, bool, DenseTensor*>(
        ctx, x, phi::Scalar(0), false, false, false, &out);
  });
  EXPECT_EQ(e.code(), ErrorCode::FATAL);
  EXPECT_TRUE(Contains(e.message(), "signature")) << e.message();
  // missing argument
  auto e2 = CatchEnforce([&] {
    k.Call<const DenseTensor&, int, bool, bool, DenseTensor*>(ctx, x, 0, false, false, &out);
  });
  EXPECT_EQ(e2.code(), ErrorCode::FATAL);
  // deduced (by-value) argument types do not match `const DenseTensor&`
  auto e3 = CatchEnforce([&] { k.Call(ctx, x, 0, false, false, false, &out); });
  EXPECT_EQ(e3.code(), ErrorCode::FATAL);
  EXPECT_FALSE(out.has_allocation());  // the kernel never ran

  // the right signature works
  k.Call<const DenseTensor&, int, bool, bool, bool, DenseTensor*>(ctx, x, 0, false, false, false,
                                                                  &out);
  ASSERT_TRUE(out.initialized());
  EXPECT_EQ(out.data<float>()[0], 0.0f);
}

TEST(KernelRegistryTest, LocalRegistrationOneEntryPerDtype) {
  auto& f = phi::KernelFactory::Instance();
  ASSERT_TRUE(f.HasKernel("core_test_dummy_fill"));
  EXPECT_EQ(f.KeysOf("core_test_dummy_fill").size(), 3u);
  EXPECT_EQ(DTypesOf("core_test_dummy_fill"),
            (std::set<DataType>{DataType::FLOAT32, DataType::FLOAT64, DataType::INT32}));
  EXPECT_TRUE(DTypesOf("core_test_dummy_fill", Backend::GPU).empty());
  for (const KernelKey& key : f.KeysOf("core_test_dummy_fill")) {
    EXPECT_EQ(key.backend(), Backend::CPU);
    EXPECT_EQ(key.layout(), DataLayout::ALL_LAYOUT);
  }
}

TEST(KernelRegistryTest, RegistrationBodyIsApplied) {
  auto& f = phi::KernelFactory::Instance();
  for (DataType t : {DataType::FLOAT32, DataType::FLOAT64, DataType::INT32}) {
    const phi::Kernel* k =
        f.Find("core_test_dummy_fill", KernelKey(Backend::CPU, DataLayout::ALL_LAYOUT, t));
    ASSERT_NE(k, nullptr) << phi::DataTypeToString(t);
    ASSERT_GE(k->outputs().size(), 1u);
    EXPECT_EQ(k->outputs()[0].dtype, DataType::INT64) << phi::DataTypeToString(t);
  }
  // kernels registered without a body have no output overrides
  const phi::Kernel* lk = f.Find("logcumsumexp",
                                 KernelKey(Backend::CPU, DataLayout::ALL_LAYOUT, DataType::FLOAT32));
  ASSERT_NE(lk, nullptr);
  for (const auto& def : lk->outputs()) EXPECT_EQ(def.dtype, DataType::UNDEFINED);
}

TEST(KernelRegistryTest, LocalKernelRunsForEachDtype) {
  auto& f = phi::KernelFactory::Instance();
  phi::CPUContext ctx;
  DenseTensor x(DataType::FLOAT32, DDim({2, 2}));
  {
    DenseTensor out;
    f.SelectKernelOrThrow("core_test_dummy_fill",
                          KernelKey(Backend::CPU, DataLayout::ALL_LAYOUT, DataType::FLOAT64))
        .Call<const DenseTensor&, int, DenseTensor*>(ctx, x, 10, &out);
    ASSERT_EQ(out.dtype(), DataType::FLOAT64);
    EXPECT_EQ(out.dims(), DDim({2, 2}));
    EXPECT_EQ(out.data<double>()[3], 13.0);
  }
  {
    DenseTensor out;
    f.SelectKernelOrThrow("core_test_dummy_fill",
                          KernelKey(Backend::CPU, DataLayout::ALL_LAYOUT, DataType::INT32))
        .Call<const DenseTensor&, int, DenseTensor*>(ctx, x, -5, &out);
    ASSERT_EQ(out.dtype(), DataType::INT32);
    EXPECT_EQ(out.data<int32_t>()[0], -5);
    EXPECT_EQ(out.data<int32_t>()[3], -2);
  }
}

TEST(KernelFactoryTest, InsertReplacesAndReturnsSlot) {
  auto& f = phi::KernelFactory::Instance();
  const KernelKey key(Backend::CPU, DataLayout::ALL_LAYOUT, DataType::INT8);
  phi::Kernel* slot = f.Insert("core_test_insert_op", key,
                               phi::MakeKernel<phi::CPUContext>(
                                   &core_test::DummyFillKernel<int8_t, phi::CPUContext>));
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(f.Find("core_test_insert_op", key), slot);
  slot->OutputAt(2).SetDataType(DataType::FLOAT16);
  EXPECT_EQ(f.Find("core_test_insert_op", key)->outputs().size(), 3u);
  EXPECT_EQ(f.Find("core_test_insert_op", key)->outputs()[2].dtype, DataType::FLOAT16);
  EXPECT_EQ(f.Find("core_test_insert_op", key)->outputs()[0].dtype, DataType::UNDEFINED);
  EXPECT_EQ(f.KeysOf("core_test_insert_op").size(), 1u);
  // re-inserting the same key keeps one entry
  f.Insert("core_test_insert_op", key,
           phi::MakeKernel<phi::CPUContext>(&core_test::DummyFillKernel<int8_t, phi::CPUContext>));
  EXPECT_EQ(f.KeysOf("core_test_insert_op").size(), 1u);
  EXPECT_FALSE(phi::Kernel().IsValid());
}

}  // namespace
