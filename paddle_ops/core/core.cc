// Definitions for paddle_ops/core: allocators, DenseTensor, contexts, MetaTensor, the
// kernel factory.
#include <sys/mman.h>
#include <sys/sysinfo.h>

#include <cstdlib>
#include <map>
#include <vector>
#include <cstring>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "paddle_ops/common/flags.h"
#include "paddle_ops/core/allocator.h"
#include "paddle_ops/core/dense_tensor.h"
#include "paddle_ops/core/device_context.h"
#include "paddle_ops/core/free_blocks.h"
#include "paddle_ops/core/kernel_factory.h"
#include "paddle_ops/core/meta_tensor.h"

namespace phi {

// ---- allocators ------------------------------------------------------------------------
namespace {
// The CPU allocator. Small blocks come from aligned_alloc (malloc keeps its own free lists for
// them). Blocks of kCacheMin bytes and more are rounded up to kCacheRound, aligned to 2 MiB
// and advised as transparent huge pages (so a first touch faults once per 2 MiB, not per
// 4 KiB page), and, when freed, kept in a free list keyed by their rounded size for the next
// allocation of that size, up to a cap on the bytes held (the flag PADDLE_OPS_CPU_CACHE_MB of
// paddle_ops/common/flags.h, default 2048, 0 under AddressSanitizer so that it sees every free;
// 0 turns the cache off). A fresh large buffer otherwise costs a page fault and a zeroed
// page per 4 KiB, which is more than a whole scan over it. When memory runs out the cache is
// emptied and the allocation tried once more before MemoryError. CpuEmptyCache() releases it.
class CachingCPUAllocator : public Allocator {
 public:
  static constexpr size_t kAlign = 64;
  static constexpr size_t kCacheMin = size_t{1} << 20;
  static constexpr size_t kCacheRound = size_t{1} << 16;
  static constexpr size_t kHugeAlign = size_t{1} << 21;

  std::shared_ptr<Allocation> Allocate(size_t bytes, const Place& place) override {
    if (bytes < kCacheMin) {
      const size_t rounded = ((bytes == 0 ? 1 : bytes) + kAlign - 1) / kAlign * kAlign;
      void* p = Raw(kAlign, rounded);
      PADDLE_ENFORCE(p != nullptr,
                     errors::ResourceExhausted("out of CPU memory: failed to allocate %d bytes", bytes));
      return std::make_shared<Allocation>(p, bytes, place, [](void* q) { std::free(q); });
    }
    limit();  // a bad PADDLE_OPS_CPU_CACHE_MB throws here, not later in the deleter
    // More than the machine's memory and swap together can never be backed. Refused here, at
    // once: where the kernel overcommits without limit (vm.overcommit_memory=1) the allocation
    // would succeed and the first writes would end in the OOM killer, not in MemoryError.
    PADDLE_ENFORCE(bytes <= MachineBytes(),
                   errors::ResourceExhausted("out of CPU memory: %d bytes asked for, more than this machine's "
                                             "memory and swap together (%d bytes)", bytes, MachineBytes()));
    const size_t rounded = (bytes + kCacheRound - 1) / kCacheRound * kCacheRound;
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      p = free_.Take(rounded);
      if (p) cached_ -= rounded;
    }
    if (!p) {
      p = Raw(kHugeAlign, (rounded + kHugeAlign - 1) / kHugeAlign * kHugeAlign);
      if (!p) {
        EmptyCache();
        p = Raw(kHugeAlign, (rounded + kHugeAlign - 1) / kHugeAlign * kHugeAlign);
      }
      PADDLE_ENFORCE(p != nullptr,
                     errors::ResourceExhausted("out of CPU memory: failed to allocate %d bytes", bytes));
#ifdef MADV_HUGEPAGE
      madvise(p, rounded, MADV_HUGEPAGE);
#endif
    }
    return std::make_shared<Allocation>(p, bytes, place, [this, rounded](void* q) { Release(q, rounded); });
  }

  void EmptyCache() {
    std::lock_guard<std::mutex> lock(mu_);
    free_.Clear([](void* q) { std::free(q); });
    cached_ = 0;
  }
  // The flag (0 by default under AddressSanitizer, which must see every free), looked up on use,
  // not in the constructor: the allocator is made during static initialization, where a bad
  // value of the variable must not throw.
  size_t limit() const { return static_cast<size_t>(paddle_ops::flags::CpuCacheMB()) << 20; }
  size_t cached() {
    std::lock_guard<std::mutex> lock(mu_);
    return cached_;
  }

 private:
  // Physical memory plus swap, read once (the largest allocation that could ever be backed).
  static size_t MachineBytes() {
    static const size_t total = [] {
      struct sysinfo info;
      if (sysinfo(&info) != 0) return ~size_t{0};
      const unsigned __int128 b = (static_cast<unsigned __int128>(info.totalram) + info.totalswap) * info.mem_unit;
      return b > ~size_t{0} ? ~size_t{0} : static_cast<size_t>(b);
    }();
    return total;
  }

  static void* Raw(size_t align, size_t bytes) { return std::aligned_alloc(align, (bytes + align - 1) / align * align); }

  void Release(void* q, size_t rounded) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cached_ + rounded <= limit()) {
        free_.Put(q, rounded);
        cached_ += rounded;
        return;
      }
    }
    std::free(q);
  }

  std::mutex mu_;
  FreeBlocks free_;
  size_t cached_ = 0;
};

CachingCPUAllocator& TheCpuAllocator() {
  static CachingCPUAllocator* a = new CachingCPUAllocator;  // never destroyed: blocks may outlive exit
  return *a;
}

struct Registry {
  std::mutex mu;
  Allocator* allocators[3] = {nullptr, nullptr, nullptr};
  MemcpyFn memcpy_fns[3] = {nullptr, nullptr, nullptr};
  MemsetZeroFn memset_fns[3] = {nullptr, nullptr, nullptr};
  DeviceContextPool::Factory factories[3] = {nullptr, nullptr, nullptr};
  std::unordered_map<int, std::unique_ptr<DeviceContext>> contexts;  // key: type*1000 + id
};
Registry& GetRegistry() {
  static Registry* r = [] {
    auto* reg = new Registry;
    reg->allocators[static_cast<int>(AllocationType::CPU)] = &TheCpuAllocator();
    return reg;
  }();
  return *r;
}
int TypeIndex(const Place& p) {
  const int t = static_cast<int>(p.GetType());
  PADDLE_ENFORCE(t >= 1 && t <= 2, errors::InvalidArgument("undefined place"));
  return t;
}
}  // namespace

void CpuEmptyCache() { TheCpuAllocator().EmptyCache(); }
size_t CpuCachedBytes() { return TheCpuAllocator().cached(); }
size_t CpuCacheLimit() { return TheCpuAllocator().limit(); }

Allocator* GetAllocator(const Place& place) {
  Allocator* a = GetRegistry().allocators[TypeIndex(place)];
  PADDLE_ENFORCE(a != nullptr,
                 errors::PreconditionNotMet("no allocator for %s: paddle_ops was built without "
                                            "support for this device",
                                            place.DebugString()));
  return a;
}
void RegisterAllocator(AllocationType type, Allocator* allocator) {
  GetRegistry().allocators[static_cast<int>(type)] = allocator;
}
void RegisterMemcpy(AllocationType type, MemcpyFn fn) { GetRegistry().memcpy_fns[static_cast<int>(type)] = fn; }
void RegisterMemsetZero(AllocationType type, MemsetZeroFn fn) {
  GetRegistry().memset_fns[static_cast<int>(type)] = fn;
}

void Memcpy(void* dst, const Place& dst_place, const void* src, const Place& src_place, size_t bytes) {
  if (bytes == 0) return;
  if (dst_place.GetType() == AllocationType::CPU && src_place.GetType() == AllocationType::CPU) {
    std::memcpy(dst, src, bytes);
    return;
  }
  // Any copy touching a device goes through that device's copier.
  const Place& dev = dst_place.GetType() != AllocationType::CPU ? dst_place : src_place;
  MemcpyFn fn = GetRegistry().memcpy_fns[TypeIndex(dev)];
  PADDLE_ENFORCE(fn != nullptr, errors::PreconditionNotMet("no copier registered for %s", dev.DebugString()));
  fn(dst, dst_place, src, src_place, bytes);
}

void MemsetZero(void* dst, const Place& place, size_t bytes) {
  if (bytes == 0) return;
  if (place.GetType() == AllocationType::CPU) {
    std::memset(dst, 0, bytes);
    return;
  }
  MemsetZeroFn fn = GetRegistry().memset_fns[TypeIndex(place)];
  PADDLE_ENFORCE(fn != nullptr, errors::PreconditionNotMet("no memset registered for %s", place.DebugString()));
  fn(dst, place, bytes);
}

// ---- DenseTensor -----------------------------------------------------------------------
const Place& DenseTensor::place() const {
  static const Place kUndefined;
  return holder_ ? holder_->place() : kUndefined;
}

DenseTensor& DenseTensor::Resize(const DDim& dims) {
  meta_.dims = dims;
  return *this;
}

DenseTensor& DenseTensor::ShareDataWith(const DenseTensor& src) {
  holder_ = src.holder_;
  meta_ = src.meta_;
  return *this;
}

void* DenseTensor::AllocateFrom(Allocator* allocator, DataType dtype, const Place& place) {
  PADDLE_ENFORCE(numel() >= 0, errors::InvalidArgument("cannot allocate a tensor with negative dims %s",
                                                        meta_.dims.to_str()));
  meta_.dtype = dtype;
  const size_t bytes = static_cast<size_t>(CheckedByteCount(meta_.dims, SizeOf(dtype)));
  if (!holder_ || holder_->place() != place || holder_->size() < bytes + meta_.offset) {
    holder_ = allocator->Allocate(bytes, place);
    meta_.offset = 0;
  }
  return raw_data();
}

const void* DenseTensor::raw_data() const {
  PADDLE_ENFORCE(holder_ != nullptr,
                 errors::PreconditionNotMet("tensor of shape %s holds no memory yet", meta_.dims.to_str()));
  return static_cast<const char*>(holder_->ptr()) + meta_.offset;
}
void* DenseTensor::raw_data() {
  return const_cast<void*>(static_cast<const DenseTensor*>(this)->raw_data());
}

void DenseTensor::CheckType(DataType t) const {
  PADDLE_ENFORCE(meta_.dtype == t,
                 errors::InvalidType("tensor holds %s but was read as %s", DataTypeToString(meta_.dtype),
                                     DataTypeToString(t)));
}

// ---- contexts --------------------------------------------------------------------------
void* DeviceContext::Alloc(DenseTensor* tensor, DataType dtype) const {
  PADDLE_ENFORCE_NOT_NULL(tensor, errors::InvalidArgument("Alloc: output tensor is null"));
  return tensor->AllocateFrom(GetAllocator(place_), dtype, place_);
}

DeviceContextPool& DeviceContextPool::Instance() {
  static DeviceContextPool pool;
  return pool;
}

const DeviceContext* DeviceContextPool::Get(const Place& place) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  const int key = static_cast<int>(place.GetType()) * 1000 + place.GetDeviceId();
  auto it = r.contexts.find(key);
  if (it != r.contexts.end()) return it->second.get();
  DeviceContext* ctx = nullptr;
  if (place.GetType() == AllocationType::CPU) {
    ctx = new CPUContext();
  } else {
    Factory f = r.factories[TypeIndex(place)];
    PADDLE_ENFORCE(f != nullptr, errors::PreconditionNotMet(
                                     "%s is not available: paddle_ops was built without CUDA",
                                     place.DebugString()));
    ctx = f(place);
  }
  r.contexts[key].reset(ctx);
  return ctx;
}

void DeviceContextPool::RegisterFactory(AllocationType type, Factory factory) {
  GetRegistry().factories[static_cast<int>(type)] = factory;
}

// ---- MetaTensor ------------------------------------------------------------------------
void MetaTensor::set_dims(const DDim& dims) {
  PADDLE_ENFORCE_NOT_NULL(tensor_, errors::Fatal("set_dims on a null MetaTensor"));
  // An InferMeta output whose element count overflows int64 is refused here, before any kernel
  // (the checked product names the shape); unknown dims (-1, static mode) are left to run time.
  bool known = true;
  for (int i = 0; i < dims.size(); ++i) known &= dims[i] >= 0;
  if (known) product(dims);
  tensor_->Resize(dims);
}
void MetaTensor::set_dtype(DataType dtype) {
  PADDLE_ENFORCE_NOT_NULL(tensor_, errors::Fatal("set_dtype on a null MetaTensor"));
  tensor_->set_dtype(dtype);
}
void MetaTensor::share_meta(const MetaTensor& other) {
  set_dims(other.dims());
  set_dtype(other.dtype());
}

// ---- kernels ---------------------------------------------------------------------------
std::string BackendToString(Backend b) {
  switch (b) {
    case Backend::CPU: return "CPU";
    case Backend::GPU: return "GPU";
    default: return "UNDEFINED";
  }
}

Backend TransToBackend(const Place& place) {
  switch (place.GetType()) {
    case AllocationType::CPU: return Backend::CPU;
    case AllocationType::GPU: return Backend::GPU;
    default: return Backend::UNDEFINED;
  }
}

Place DefaultPlace(Backend b, int device_id) {
  return b == Backend::GPU ? Place(AllocationType::GPU, device_id) : Place(AllocationType::CPU);
}

std::string KernelKey::ToString() const {
  return "(" + BackendToString(backend_) + ", " + DataTypeToString(dtype_) + ")";
}

KernelFactory& KernelFactory::Instance() {
  static KernelFactory* f = new KernelFactory;
  return *f;
}

Kernel* KernelFactory::Insert(const std::string& name, const KernelKey& key, Kernel kernel) {
  Kernel& slot = kernels_[name][key];
  slot = kernel;
  return &slot;
}

const Kernel* KernelFactory::Find(const std::string& name, const KernelKey& key) const {
  auto it = kernels_.find(name);
  if (it == kernels_.end()) return nullptr;
  auto k = it->second.find(key);
  return k == it->second.end() ? nullptr : &k->second;
}

const Kernel& KernelFactory::SelectKernelOrThrow(const std::string& name, const KernelKey& key) const {
  const Kernel* k = Find(name, key);
  if (k) return *k;
  std::ostringstream have;
  for (const KernelKey& kk : KeysOf(name)) have << ' ' << kk.ToString();
  PADDLE_THROW(errors::NotFound(
      "no kernel registered for op '%s' on backend %s with dtype %s (registered:%s)", name,
      BackendToString(key.backend()), DataTypeToString(key.dtype()),
      have.str().empty() ? std::string(" none") : have.str()));
}

std::vector<KernelKey> KernelFactory::KeysOf(const std::string& name) const {
  std::vector<KernelKey> keys;
  auto it = kernels_.find(name);
  if (it != kernels_.end())
    for (const auto& kv : it->second) keys.push_back(kv.first);
  return keys;
}

std::vector<std::string> KernelFactory::Names() const {
  std::vector<std::string> names;
  for (const auto& kv : kernels_) names.push_back(kv.first);
  return names;
}

}  // namespace phi
