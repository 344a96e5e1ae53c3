// The paddle_ops side of the runtime library (runtime.h): tensors over the caller's memory,
// outputs bound to the caller's tensors, errors turned into a kind and a message, and the
// process's settings taken from the host (po_runtime_follow).
#include "paddle_ops/runtime/runtime_impl.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <new>
#include <string>

#include "paddle_ops/common/enforce.h"
#include "paddle_ops/common/flags.h"
#include "paddle_ops/core/allocator.h"
#include "paddle_ops/core/cpu_threads.h"

#ifdef PADDLE_OPS_WITH_GPU
#include <optional>

#include "paddle_ops/core/gpu/gpu_info.h"
#endif

namespace paddle_ops_runtime {
namespace {

thread_local std::string g_error;
std::atomic<int32_t> g_caller_allocates{0};  // PO_OUTPUTS_SETTING (the Paddle integration's)
thread_local bool g_bind_outputs = false;     // this call's: BindOutput asks the caller
using ThreadsSource = int32_t (*)(void);
using FlagsSource = int32_t (*)(int64_t*, int32_t);
std::atomic<ThreadsSource> g_threads_source{nullptr};
std::atomic<FlagsSource> g_flags_source{nullptr};
std::atomic<int32_t> g_last_threads{0};
// The host's flag values last set here (FlagTable order); kNotSeen: set at the next op.
constexpr int32_t kMaxFlags = 32;
constexpr int64_t kNotSeen = INT64_MIN;
std::atomic<int64_t> g_seen_flags[kMaxFlags];
constexpr int32_t kMaxArgs = 16;
thread_local const void* g_in_ptrs[kMaxArgs];
thread_local const void* g_out_ptrs[kMaxArgs];
thread_local int32_t g_n_in = 0, g_n_out = 0;

constexpr phi::DataType kPoToPhi[] = {
    phi::DataType::BOOL,    phi::DataType::INT8,     phi::DataType::UINT8,   phi::DataType::INT16,
    phi::DataType::INT32,   phi::DataType::INT64,    phi::DataType::FLOAT16, phi::DataType::BFLOAT16,
    phi::DataType::FLOAT32, phi::DataType::FLOAT64};

phi::Place PlaceOf(const PoTensor& t) {
  if (t.device == PO_GPU) return phi::GPUPlace(t.device_id);
  return phi::CPUPlace();
}

phi::DDim DimsOf(const PoTensor& t) {
  PADDLE_ENFORCE(t.ndim >= 0 && t.ndim <= PO_MAX_RANK,
                 phi::errors::InvalidArgument("paddle_ops runtime: rank %d is outside [0, %d]", t.ndim,
                                              PO_MAX_RANK));
  return phi::DDim(t.dims, t.ndim);
}

phi::DenseTensorMeta Meta(phi::DataType dtype, const phi::DDim& dims) {
  phi::DenseTensorMeta meta;
  meta.dtype = dtype, meta.dims = dims;
  return meta;
}

bool HasZeroDim(const PoTensor& t) {
  for (int32_t i = 0; i < t.ndim; ++i)
    if (t.dims[i] == 0) return true;
  return false;
}

bool Present(const PoTensor& t) {
  return t.present && t.data != nullptr && !HasZeroDim(t);
}

int32_t Fail(int32_t kind, const std::string& message) {
  g_error = message;
  return kind;
}

template <typename F>
int32_t Guard(F&& body) {
  try {
    body();
    return PO_OK;
  } catch (const phi::EnforceNotMet& e) {
    switch (e.code()) {
      case phi::ErrorCode::INVALID_ARGUMENT: return Fail(PO_VALUE_ERROR, e.message());
      case phi::ErrorCode::INVALID_TYPE: return Fail(PO_TYPE_ERROR, e.message());
      case phi::ErrorCode::OUT_OF_RANGE: return Fail(PO_INDEX_ERROR, e.message());
      case phi::ErrorCode::RESOURCE_EXHAUSTED: return Fail(PO_MEMORY_ERROR, e.message());
      default: return Fail(PO_RUNTIME_ERROR, e.message());
    }
  } catch (const std::bad_alloc&) {
    return Fail(PO_MEMORY_ERROR, "out of host memory");
  } catch (const std::exception& e) {
    return Fail(PO_RUNTIME_ERROR, e.what());
  }
}

// Takes the host's thread count and changed flags (po_runtime_follow). Flags change only when the
// host's did: one call of the host's function and a comparison per flag otherwise.
void FollowHost() {
  if (auto threads = g_threads_source.load(std::memory_order_relaxed)) phi::SetCpuNumThreads(threads());
  g_last_threads.store(phi::CpuNumThreads(), std::memory_order_relaxed);
  const FlagsSource flags = g_flags_source.load(std::memory_order_relaxed);
  if (flags == nullptr) return;
  namespace fl = paddle_ops::flags;
  const auto& table = fl::FlagTable();
  int64_t host[kMaxFlags];
  if (table.size() > kMaxFlags || flags(host, kMaxFlags) != static_cast<int32_t>(table.size()))
    return;  // another build's host (or more flags than kept here)
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i].start_only || g_seen_flags[i].load(std::memory_order_relaxed) == host[i]) continue;
    fl::SetFlag(table[i].name, fl::FormatFlagValue(table[i], host[i]));
    g_seen_flags[i].store(host[i], std::memory_order_relaxed);
  }
}

}  // namespace

phi::DataType ToPhi(int32_t po_dtype) {
  if (po_dtype < 0 || po_dtype > PO_FLOAT64) return phi::DataType::UNDEFINED;
  return kPoToPhi[po_dtype];
}

int32_t ToPo(phi::DataType dtype) {
  for (int32_t i = 0; i <= PO_FLOAT64; ++i)
    if (kPoToPhi[i] == dtype) return i;
  return PO_UNDEFINED;
}

phi::DenseTensor Input(const PoTensor& t, const char* op, const char* name) {
  PADDLE_ENFORCE(t.present && (t.data != nullptr || HasZeroDim(t)),
                 phi::errors::InvalidArgument("%s(): input '%s' is required", op, name));
  const phi::DataType dtype = ToPhi(t.dtype);
  PADDLE_ENFORCE(dtype != phi::DataType::UNDEFINED,
                 phi::errors::InvalidType("%s(): input '%s' has a dtype paddle_ops does not take", op, name));
  const phi::DDim dims = DimsOf(t);
  if (t.strides != nullptr) {  // the caller passes contiguous tensors; check, never misread
    int64_t expect = 1;
    for (int32_t i = t.ndim - 1; i >= 0; --i) {
      PADDLE_ENFORCE(t.dims[i] <= 1 || t.strides[i] == expect,
                     phi::errors::InvalidArgument("%s(): input '%s' is not contiguous", op, name));
      expect *= t.dims[i];
    }
  }
  const size_t bytes = static_cast<size_t>(phi::product(dims)) * phi::SizeOf(dtype);
  // No deleter: the memory stays the caller's.
  auto holder = std::make_shared<phi::Allocation>(t.data, bytes, PlaceOf(t), nullptr);
  return phi::DenseTensor(holder, Meta(dtype, dims));
}

paddle::optional<phi::DenseTensor> OptionalInput(const PoTensor& t, const char* op, const char* name) {
  if (!Present(t)) return paddle::none;
  return Input(t, op, name);
}

phi::DenseTensor MetaInput(const PoTensor& t, phi::DataType dtype) {
  return phi::DenseTensor(dtype, DimsOf(t));
}

paddle::optional<phi::DenseTensor> OptionalMetaInput(const PoTensor& t, phi::DataType dtype) {
  if (!t.present || HasZeroDim(t)) return paddle::none;
  return MetaInput(t, dtype);
}

phi::Place CommonPlace(const char* op, const PoTensor* ins, int32_t n) {
  bool found = false;
  phi::Place place = phi::CPUPlace();
  for (int32_t i = 0; i < n; ++i) {
    if (!ins[i].present) continue;
    const phi::Place p = PlaceOf(ins[i]);
    if (!found) {
      place = p, found = true;
    } else {
      PADDLE_ENFORCE(p == place, phi::errors::InvalidArgument("%s(): the inputs are on different devices", op));
    }
  }
#ifndef PADDLE_OPS_WITH_GPU
  PADDLE_ENFORCE(place.GetType() == phi::AllocationType::CPU,
                 phi::errors::InvalidArgument("%s(): paddle_ops was built without CUDA: GPU tensors are not "
                                              "supported by this build",
                                              op));
#endif
  return place;
}

const phi::DeviceContext& Context(const phi::Place& place) {
  return *phi::DeviceContextPool::Instance().Get(place);
}

bool BindOutput(phi::DenseTensor* out, const PoOutputs& sink, int32_t index, const phi::Place& place,
                void** bound) {
  *bound = nullptr;
  if (!g_bind_outputs) return false;
  if (out->dtype() == phi::DataType::UNDEFINED || ToPo(out->dtype()) == PO_UNDEFINED) return false;
  const phi::DDim& dims = out->dims();
  for (int i = 0; i < dims.size(); ++i)
    if (dims[i] < 0) return false;  // known only when the kernel runs
  std::vector<int64_t> d(dims.Get(), dims.Get() + dims.size());
  void* data = sink.alloc(sink.ctx, index, d.data(), static_cast<int32_t>(d.size()), ToPo(out->dtype()));
  const size_t bytes = static_cast<size_t>(phi::product(dims)) * phi::SizeOf(out->dtype());
  if (data == nullptr) {  // an empty output: the caller's tensor is all there is to it
    PADDLE_ENFORCE(bytes == 0, phi::errors::ResourceExhausted("the caller could not allocate an output"));
    return true;
  }
  *out = phi::DenseTensor(std::make_shared<phi::Allocation>(data, bytes, place, nullptr), Meta(out->dtype(), dims));
  *bound = data;
  return true;
}

void FinishOutput(const std::shared_ptr<phi::DenseTensor>& out, const PoOutputs& sink, int32_t index, bool given,
                  void* bound, const phi::Place& place) {
  RecordOutput(index, out->has_allocation() ? out->raw_data() : nullptr);
  if (given) {
    if (bound == nullptr || !out->has_allocation() || out->raw_data() == bound || out->numel() == 0) return;
    // The kernel replaced the caller's buffer (it never does today): copy into it.
    phi::Memcpy(bound, place, out->raw_data(), out->place(),
                static_cast<size_t>(out->numel()) * phi::SizeOf(out->dtype()));
    return;
  }
  const int64_t empty_dims[1] = {0};
  if (!out->has_allocation()) {  // an optional output the op did not produce
    sink.alloc(sink.ctx, index, empty_dims, 1, PO_FLOAT32);
    return;
  }
  const phi::DDim& dims = out->dims();
  std::vector<int64_t> d(dims.Get(), dims.Get() + dims.size());
  if (out->numel() == 0) {  // nothing to hand over: the caller allocates the empty tensor
    sink.alloc(sink.ctx, index, d.data(), static_cast<int32_t>(d.size()), ToPo(out->dtype()));
    return;
  }
  // Keeps the allocation alive until the caller's tensor releases it.
  auto* owner = new std::shared_ptr<phi::Allocation>(out->Holder());
  sink.adopt(sink.ctx, index, out->raw_data(), d.data(), static_cast<int32_t>(d.size()), ToPo(out->dtype()), owner);
}

void RecordInput(int32_t index, const void* data) {
  if (index < kMaxArgs) g_in_ptrs[index] = data, g_n_in = std::max(g_n_in, index + 1);
}

void RecordOutput(int32_t index, const void* data) {
  if (index < kMaxArgs) g_out_ptrs[index] = data, g_n_out = std::max(g_n_out, index + 1);
}

void MetaOutput(const phi::DenseTensor& out, PoMeta* meta) {
  const phi::DDim& dims = out.dims();
  if (out.dtype() == phi::DataType::UNDEFINED) {  // an optional output the op does not produce
    meta->ndim = 1, meta->dims[0] = 0, meta->dtype = PO_FLOAT32;
    return;
  }
  meta->ndim = dims.size();
  for (int i = 0; i < dims.size(); ++i) meta->dims[i] = dims[i];
  meta->dtype = ToPo(out.dtype());
}

// What `caller_allocates` (runtime.h) comes to for this call; after FollowHost, so that a flag
// the host just set counts.
static bool BindsOutputs(int32_t caller_allocates, const PoTensor* ins, int32_t n_ins) {
  if (caller_allocates == PO_OUTPUTS_SETTING) return g_caller_allocates.load(std::memory_order_relaxed) != 0;
  if (caller_allocates != PO_OUTPUTS_TORCH_FLAG) return caller_allocates != 0;
  switch (paddle_ops::flags::TorchOutputsPolicy()) {
    case paddle_ops::flags::TorchOutputs::kTorch: return true;
    case paddle_ops::flags::TorchOutputs::kOurs: return false;
    default: break;
  }
  for (int32_t i = 0; i < n_ins; ++i)
    if (ins[i].present) return ins[i].device == PO_GPU;
  return false;
}

int32_t Run(int32_t op, const PoTensor* ins, int32_t n_ins, const PoAttr* attrs, int32_t n_attrs,
            const PoOutputs* outs, int32_t n_outs, int32_t caller_allocates) {
  if (op < 0 || op >= kNumOps) return Fail(PO_RUNTIME_ERROR, "paddle_ops runtime: no such op");
  const auto& e = kOps[op];
  if (n_ins != e.n_ins || n_attrs != e.n_attrs || n_outs != e.n_outs)
    return Fail(PO_RUNTIME_ERROR, std::string(e.name) + ": the extension and the runtime library disagree "
                                                        "on the op's arguments (rebuild the extension)");
  g_n_in = g_n_out = 0;
  for (int32_t i = 0; i < n_ins; ++i) RecordInput(i, ins[i].present ? ins[i].data : nullptr);
  return Guard([&] {
    FollowHost();
    g_bind_outputs = BindsOutputs(caller_allocates, ins, n_ins);
    e.run(ins, attrs, *outs);
  });
}

}  // namespace paddle_ops_runtime

using paddle_ops_runtime::kNumOps;
using paddle_ops_runtime::kOps;

extern "C" {

int32_t po_runtime_run(int32_t op, const PoTensor* ins, int32_t n_ins, const PoAttr* attrs, int32_t n_attrs,
                       const PoOutputs* outs, int32_t n_outs, int32_t caller_allocates) {
#ifdef PADDLE_OPS_WITH_GPU
  std::optional<phi::gpu::ScopedStream> on_callers;  // our kernels on the caller's stream until return
  for (int32_t i = 0; i < n_ins; ++i) {
    if (!ins[i].present || ins[i].device != PO_GPU) continue;
    on_callers.emplace(ins[i].device_id, reinterpret_cast<uintptr_t>(outs->stream));
    break;
  }
#endif
  return paddle_ops_runtime::Run(op, ins, n_ins, attrs, n_attrs, outs, n_outs, caller_allocates);
}

int32_t po_runtime_last_pointers(const void** ins, const void** outs, int32_t cap) {
  for (int32_t i = 0; i < paddle_ops_runtime::g_n_in && i < cap; ++i) ins[i] = paddle_ops_runtime::g_in_ptrs[i];
  for (int32_t i = 0; i < paddle_ops_runtime::g_n_out && i < cap; ++i) outs[i] = paddle_ops_runtime::g_out_ptrs[i];
  return std::min(std::max(paddle_ops_runtime::g_n_in, paddle_ops_runtime::g_n_out), cap);
}

int32_t po_runtime_infer(int32_t op, const PoTensor* ins, int32_t n_ins, const PoAttr* attrs, int32_t n_attrs,
                        PoMeta* outs, int32_t n_outs) {
  if (op < 0 || op >= kNumOps) return paddle_ops_runtime::Fail(PO_RUNTIME_ERROR, "paddle_ops runtime: no such op");
  const auto& e = kOps[op];
  if (n_ins != e.n_ins || n_attrs != e.n_attrs || n_outs != e.n_outs)
    return paddle_ops_runtime::Fail(PO_RUNTIME_ERROR, std::string(e.name) + ": the extension and the runtime library disagree "
                                                     "on the op's arguments (rebuild the extension)");
  // Dims not known yet (-1 in a static graph: a batch dim) become one placeholder prime, the
  // same for all, so that dims that must agree still agree; an output dim that is a multiple of
  // it depends on an unknown dim and is reported as -1.
  constexpr int64_t kUnknown = 10007;
  std::vector<PoTensor> known(ins, ins + n_ins);
  std::vector<std::vector<int64_t>> dims(n_ins);
  bool any_unknown = false;
  for (int32_t i = 0; i < n_ins; ++i) {
    dims[i].assign(ins[i].dims, ins[i].dims + std::max(ins[i].ndim, 0));
    for (auto& d : dims[i])
      if (d < 0) d = kUnknown, any_unknown = true;
    known[i].dims = dims[i].data();
  }
  // Unknown input dtypes: try float32 for each, then int64, in every combination; the first
  // that InferMeta accepts decides (the error of the all-float32 try otherwise).
  std::vector<int32_t> unknown;
  std::vector<phi::DataType> dtypes(n_ins);
  for (int32_t i = 0; i < n_ins; ++i) {
    dtypes[i] = paddle_ops_runtime::ToPhi(ins[i].dtype);
    if (dtypes[i] == phi::DataType::UNDEFINED) unknown.push_back(i);
  }
  int32_t first = PO_OK;
  std::string first_error;
  for (uint32_t mask = 0; mask < (1u << unknown.size()); ++mask) {
    for (size_t j = 0; j < unknown.size(); ++j)
      dtypes[unknown[j]] = (mask >> j) & 1 ? phi::DataType::INT64 : phi::DataType::FLOAT32;
    const int32_t rc = paddle_ops_runtime::Guard([&] { e.infer(known.data(), dtypes.data(), attrs, outs); });
    if (rc == PO_OK) {
      for (int32_t o = 0; o < n_outs && any_unknown; ++o)
        for (int32_t d = 0; d < outs[o].ndim; ++d)
          if (outs[o].dims[d] != 0 && outs[o].dims[d] % kUnknown == 0) outs[o].dims[d] = -1;
      return PO_OK;
    }
    if (mask == 0) first = rc, first_error = paddle_ops_runtime::g_error;
  }
  return paddle_ops_runtime::Fail(first, first_error);
}

void po_runtime_set_caller_allocates(int32_t on) { paddle_ops_runtime::g_caller_allocates.store(on ? 1 : 0); }

int32_t po_runtime_caller_allocates(void) { return paddle_ops_runtime::g_caller_allocates.load(); }

void po_runtime_follow(int32_t (*threads)(void), int32_t (*flags)(int64_t* values, int32_t cap)) {
  for (auto& seen : paddle_ops_runtime::g_seen_flags) seen.store(paddle_ops_runtime::kNotSeen);
  paddle_ops_runtime::g_flags_source.store(flags);
  paddle_ops_runtime::g_threads_source.store(threads);
  if (threads == nullptr) phi::SetCpuNumThreads(0);  // OMP_NUM_THREADS again
}

int32_t po_runtime_last_num_threads(void) { return paddle_ops_runtime::g_last_threads.load(); }

int32_t po_runtime_flags(int64_t* values, int32_t cap) {
  const auto& table = paddle_ops::flags::FlagTable();
  try {
    for (size_t i = 0; i < table.size() && static_cast<int32_t>(i) < cap; ++i)
      values[i] = paddle_ops::flags::GetFlagValue(table[i].name);
  } catch (const std::exception& e) {  // a bad PADDLE_OPS_* variable (the import fails on it first)
    return paddle_ops_runtime::Fail(-1, e.what());
  }
  return static_cast<int32_t>(table.size());
}

void po_runtime_release(void* owner) { delete static_cast<std::shared_ptr<phi::Allocation>*>(owner); }

const char* po_runtime_last_error(void) { return paddle_ops_runtime::g_error.c_str(); }

int32_t po_runtime_num_ops(void) { return kNumOps; }

const char* po_runtime_op_name(int32_t op) { return op >= 0 && op < kNumOps ? kOps[op].name : nullptr; }

const char* po_runtime_yaml_hash(void) { return paddle_ops_runtime::kYamlHash; }

}  // extern "C"
