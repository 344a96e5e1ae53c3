// The JAX entry of the runtime library (jax_entry.h): runs an op of the generated table every
// entry runs (runtime_impl.h, kOps) with every output bound to the buffer XLA allocated, and on
// the GPU orders our stream after XLA's and XLA's after ours.
#include "paddle_ops/runtime/jax_entry.h"

#include <exception>
#include <string>
#include <unordered_map>

#include "paddle_ops/common/place.h"
#include "paddle_ops/core/allocator.h"
#include "paddle_ops/runtime/runtime_impl.h"

#ifdef PADDLE_OPS_WITH_GPU
#include <cuda_runtime.h>

#include <optional>
#include <vector>

#include "paddle_ops/core/device_context.h"
#include "paddle_ops/core/gpu/gpu_context.h"
#endif

namespace {

thread_local std::string g_error;

int32_t Fail(int32_t kind, std::string message) {
  g_error = std::move(message);
  return kind;
}

std::string DimsText(const int64_t* dims, int32_t ndim) {
  std::string s = "[";
  for (int32_t i = 0; i < ndim; ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

// The outputs XLA allocated; the runtime asks for each one with the shape InferMeta gives on
// the real inputs, which must be the one given at trace time.
struct Sink {
  const PoTensor* outs;
  int32_t n_outs;
  phi::Place place;
  std::string mismatch;

  bool Matches(int32_t index, const int64_t* dims, int32_t ndim, int32_t dtype) {
    if (index < 0 || index >= n_outs) {
      mismatch = "the op made more outputs than XLA allocated";
      return false;
    }
    const PoTensor& b = outs[index];
    bool same = b.ndim == ndim && b.dtype == dtype;
    for (int32_t i = 0; same && i < ndim; ++i) same = b.dims[i] == dims[i];
    if (!same)
      mismatch = "output " + std::to_string(index) + ": the kernel makes " + DimsText(dims, ndim) + " (dtype " +
                 std::to_string(dtype) + "), but XLA allocated " + DimsText(b.dims, b.ndim) + " (dtype " +
                 std::to_string(b.dtype) + ")";
    return same;
  }
};

int64_t Numel(const int64_t* dims, int32_t ndim) {
  int64_t n = 1;
  for (int32_t i = 0; i < ndim; ++i) n *= dims[i];
  return n;
}

void* Alloc(void* ctx, int32_t index, const int64_t* dims, int32_t ndim, int32_t dtype) {
  auto* s = static_cast<Sink*>(ctx);
  if (!s->Matches(index, dims, ndim, dtype)) return nullptr;  // the runtime then fails the call
  return Numel(dims, ndim) == 0 ? nullptr : s->outs[index].data;
}

// An output whose shape was known only when the kernel ran (none of the calls the Python side
// makes: it passes repeat_interleave's output_size): copied into XLA's buffer if it fits.
void Adopt(void* ctx, int32_t index, void* data, const int64_t* dims, int32_t ndim, int32_t dtype, void* owner) {
  auto* s = static_cast<Sink*>(ctx);
  if (s->Matches(index, dims, ndim, dtype)) {
    const size_t bytes = static_cast<size_t>(Numel(dims, ndim)) *
                         phi::SizeOf(paddle_ops_runtime::ToPhi(dtype));
    phi::Memcpy(s->outs[index].data, s->place, data, s->place, bytes);
  }
  po_runtime_release(owner);
}

std::unordered_map<std::string, int32_t> BuildIds() {
  std::unordered_map<std::string, int32_t> ids;
  for (int32_t i = 0; i < paddle_ops_runtime::kNumOps; ++i) ids[paddle_ops_runtime::kOps[i].name] = i;
  return ids;
}

#ifdef PADDLE_OPS_WITH_GPU
// One event pair per device and thread (XLA may run handlers on several threads at once).
struct Events {
  cudaEvent_t before = nullptr, after = nullptr;
};

cudaError_t EventsOf(int32_t device, Events** out) {
  thread_local std::vector<Events> events;
  if (device >= static_cast<int32_t>(events.size())) events.resize(device + 1);
  Events& e = events[device];
  if (e.before == nullptr) {
    cudaError_t rc = cudaEventCreateWithFlags(&e.before, cudaEventDisableTiming);
    if (rc == cudaSuccess) rc = cudaEventCreateWithFlags(&e.after, cudaEventDisableTiming);
    if (rc != cudaSuccess) return rc;
  }
  *out = &e;
  return cudaSuccess;
}

cudaStream_t OurStream(int32_t device) {
  const auto* ctx = phi::DeviceContextPool::Instance().Get(phi::GPUPlace(device));
  return static_cast<const phi::GPUContext*>(ctx)->stream();
}

// The calling thread's current device is `device` while our kernels launch (XLA's threads need
// not have it current), and what it was afterwards.
class CurrentDevice {
 public:
  explicit CurrentDevice(int32_t device) {
    if (cudaGetDevice(&prev_) != cudaSuccess) prev_ = -1;
    if (prev_ != device) cudaSetDevice(device);
  }
  ~CurrentDevice() {
    int cur = -1;
    if (prev_ >= 0 && cudaGetDevice(&cur) == cudaSuccess && cur != prev_) cudaSetDevice(prev_);
  }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int prev_ = -1;
};

int32_t CudaFail(const char* what, cudaError_t rc) {
  return Fail(PO_RUNTIME_ERROR, std::string("paddle_ops (JAX): ") + what + ": " + cudaGetErrorString(rc));
}
#endif

}  // namespace

extern "C" {

int32_t po_jax_op_id(const char* name) {
  static const std::unordered_map<std::string, int32_t> ids = BuildIds();
  const auto it = name ? ids.find(name) : ids.end();
  return it == ids.end() ? -1 : it->second;
}

int32_t po_jax_run(int32_t op, const PoTensor* ins, int32_t n_ins, const PoAttr* attrs, int32_t n_attrs,
                   const PoTensor* outs, int32_t n_outs, void* stream) {
  Sink sink{outs, n_outs, phi::CPUPlace(), {}};
  bool gpu = false;
  int32_t device = 0;
  for (int32_t i = 0; i < n_ins; ++i) {
    if (ins[i].present && ins[i].device == PO_GPU) gpu = true, device = ins[i].device_id;
  }
  if (gpu) sink.place = phi::GPUPlace(device);
  const PoOutputs sinks{&sink, &Alloc, &Adopt, stream};
#ifdef PADDLE_OPS_WITH_GPU
  Events* ev = nullptr;
  cudaStream_t ours = nullptr;
  std::optional<CurrentDevice> current;
  if (gpu) {
    current.emplace(device);
    try {
      ours = OurStream(device);
    } catch (const std::exception& e) {
      return Fail(PO_RUNTIME_ERROR, e.what());
    }
    cudaError_t e = EventsOf(device, &ev);
    if (e == cudaSuccess) e = cudaEventRecord(ev->before, static_cast<cudaStream_t>(stream));
    if (e == cudaSuccess) e = cudaStreamWaitEvent(ours, ev->before, 0);
    if (e != cudaSuccess) return CudaFail("ordering after XLA's stream", e);
  }
#else
  if (gpu) return Fail(PO_VALUE_ERROR, "paddle_ops was built without CUDA: GPU arrays are not supported by this build");
#endif
  // Outputs always go into XLA's buffers (the Paddle integration's setting is not this call's).
  int32_t rc = paddle_ops_runtime::Run(op, ins, n_ins, attrs, n_attrs, &sinks, n_outs, /*caller_allocates=*/1);
  if (rc != PO_OK) {
    g_error = sink.mismatch.empty() ? std::string(po_runtime_last_error())
                                    : "paddle_ops (JAX): " + sink.mismatch +
                                          " (the shapes given at trace time differ from the op's InferMeta)";
  }
#ifdef PADDLE_OPS_WITH_GPU
  if (gpu) {  // also after a failure: XLA's stream must not run ahead of what we enqueued
    cudaError_t e = cudaEventRecord(ev->after, ours);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), ev->after, 0);
    if (e != cudaSuccess && rc == PO_OK) return CudaFail("ordering XLA's stream after ours", e);
  }
#endif
  return rc;
}

const char* po_jax_last_error(void) { return g_error.c_str(); }

int32_t po_jax_last_pointers(const void** ins, const void** outs, int32_t cap) {
  return po_runtime_last_pointers(ins, outs, cap);
}

}  // extern "C"
