// The plain-C interface of paddle_ops' runtime library (libpaddle_ops_runtime.so): our kernels
// behind one C ABI, shared by the integrations (the Paddle extension, the XLA FFI handlers of the
// JAX integration and the torch integration's C++ kernels).
//
// A framework's headers and ours may define the same namespaces (Paddle's `phi::` and `paddle::`
// are ours too), so no translation unit includes both. This header is the whole interface and
// names neither side: plain C types only (raw data pointers, shapes, strides, a dtype enum, a
// device and a stream). Our side (runtime.cc, the op table generated from api_yaml/ as
// runtime_ops.cc by tools/codegen/gen_runtime.py, and the JAX entry jax_entry.cc) is linked once
// into libpaddle_ops_runtime.so, whose version script (runtime.map) exports only the po_runtime_*
// and po_jax_* functions; each framework's side (integrations_src/<framework>/, compiled at first
// import against the installed framework) includes only its framework's headers and this one.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PO_MAX_RANK 9

// The runtime library is built with hidden visibility; only these functions are exported.
#if defined(__GNUC__)
#define PO_API __attribute__((visibility("default")))
#else
#define PO_API
#endif

// Element types, numbered here (not Paddle's nor ours): each side maps its own enum to these.
enum PoDType {
  PO_UNDEFINED = -1,
  PO_BOOL = 0,
  PO_INT8 = 1,
  PO_UINT8 = 2,
  PO_INT16 = 3,
  PO_INT32 = 4,
  PO_INT64 = 5,
  PO_FLOAT16 = 6,
  PO_BFLOAT16 = 7,
  PO_FLOAT32 = 8,
  PO_FLOAT64 = 9,
};

enum PoDevice { PO_CPU = 0, PO_GPU = 1 };

// Error kinds, returned by po_runtime_run / po_runtime_infer (0: success).
enum PoError { PO_OK = 0, PO_VALUE_ERROR = 1, PO_TYPE_ERROR = 2, PO_INDEX_ERROR = 3,
               PO_MEMORY_ERROR = 4, PO_RUNTIME_ERROR = 5 };

// One tensor argument. `data` is the caller's memory, used in place (never copied).
typedef struct {
  void* data;              // null for a shape-only call (po_runtime_infer)
  const int64_t* dims;
  const int64_t* strides;  // in elements; null means contiguous
  int32_t ndim;
  int32_t dtype;           // PoDType
  int32_t device;          // PoDevice
  int32_t device_id;
  int32_t present;         // 0: an absent optional input
} PoTensor;

// One attribute: bool, int, int64_t and Scalar in `i`, float and double in `f`, str in `s`.
typedef struct {
  int64_t i;
  double f;
  const char* s;
} PoAttr;

// How the runtime gets its outputs.
typedef struct {
  void* ctx;
  // The caller allocates output `index` (dims, PoDType) on the inputs' device and returns its
  // data pointer; the kernel writes there. Used whenever the output shape is known before
  // the kernel runs.
  void* (*alloc)(void* ctx, int32_t index, const int64_t* dims, int32_t ndim, int32_t dtype);
  // Output `index` was allocated by paddle_ops (its shape depended on the data): the caller
  // wraps `data` without a copy and calls po_runtime_release(owner) when it is freed.
  void (*adopt)(void* ctx, int32_t index, void* data, const int64_t* dims, int32_t ndim,
                int32_t dtype, void* owner);
  void* stream;            // the caller's device stream (unused on the CPU)
} PoOutputs;

// The shape and dtype of one output (po_runtime_infer). An optional output the op does not
// produce (gla's final_state without output_final_state, right_flood's index without
// return_index) is reported, and returned by po_runtime_run, as an empty float32 tensor [0].
typedef struct {
  int64_t dims[PO_MAX_RANK];
  int32_t ndim;
  int32_t dtype;
} PoMeta;

// Where po_runtime_run's outputs come from, its `caller_allocates` argument: 1 from the caller
// (`alloc`) wherever the shape is known before the kernel runs; 0 from paddle_ops' caching
// allocator, handed over with `adopt`. Both are without a copy; the second keeps large outputs in
// memory already touched, where a fresh allocation pays its page faults. Two more values leave
// the choice to a setting:
// - PO_OUTPUTS_SETTING: the process's setting, po_runtime_set_caller_allocates (default 0; the
//   Paddle integration's paddle_ops.integrations.paddle.set_output_allocation);
// - PO_OUTPUTS_TORCH_FLAG: the flag PADDLE_OPS_TORCH_OUTPUTS (the torch integration's C++
//   kernels), read through the runtime's flags after it took the host's values: 'torch' 1,
//   'ours' 0, 'auto' 1 for GPU inputs (torch's caching allocator, on torch's stream) and 0 on the
//   CPU.
// po_jax_run always binds XLA's buffers, whatever these say.
#define PO_OUTPUTS_SETTING (-1)
#define PO_OUTPUTS_TORCH_FLAG (-2)
PO_API void po_runtime_set_caller_allocates(int32_t on);
PO_API int32_t po_runtime_caller_allocates(void);

// The process's settings, shared by the integrations (the runtime is loaded once). The runtime
// holds its own copy of paddle_ops' CPU runtime and flags, which alone would follow only
// OMP_NUM_THREADS and the PADDLE_OPS_* environment read when it is loaded. With a host set
// (paddle_ops' Python module: paddle_ops.integrations._runtime sets it when it loads the runtime),
// each op run here, by any integration, first takes from the host:
// - the CPU thread count: threads() (paddle_ops' get_num_threads, `int32_t (*)(void)`), so that
//   paddle_ops.set_num_threads reaches the kernels run here (read as each op runs: eager calls,
//   static programs and jit-compiled XLA programs alike);
// - the flags: flags(values, cap) writes the host's current value of every flag (its FlagTable's
//   order; the stored form: a choice's index or the integer) and returns how many there are, so
//   that paddle_ops.set_flags reaches them. A value that changed since the last op is set here
//   (flags read at start only are left as read). A count other than this runtime's (a host of
//   another build) is ignored.
// A null function stops following that setting (the thread count goes back to OMP_NUM_THREADS).
// po_runtime_last_num_threads is the count the last op (on any thread) gave its kernels, 0
// before the first; po_runtime_flags writes the runtime's own current flag values (the stored
// form, FlagTable order) and returns how many there are (the tests compare them with the host's;
// -1 with the message in po_runtime_last_error where the environment holds a bad value).
PO_API void po_runtime_follow(int32_t (*threads)(void), int32_t (*flags)(int64_t* values, int32_t cap));
PO_API int32_t po_runtime_last_num_threads(void);
PO_API int32_t po_runtime_flags(int64_t* values, int32_t cap);

// Runs op `op` (its index in po_runtime_op_name's list) on the inputs, in the order of the
// op's YAML args; attributes in YAML order; outputs as `caller_allocates` says (above). An
// optional input is absent when `present` is 0, when its data is null, or when it has no
// elements. On the GPU our kernels, copies and scratch allocations of this call run on
// `outs->stream` (a cudaStream_t; null is the legacy default stream, as torch names it) in place
// of our own stream, for the calling thread and the length of the call only: the caller's work
// queued before and after it is in that one stream's order, with no event and no host wait.
// Scratch and adopted outputs from our allocator belong to that stream and are reused only on
// it. Returns a PoError; the message is in po_runtime_last_error() (this thread).
PO_API int32_t po_runtime_run(int32_t op, const PoTensor* ins, int32_t n_ins, const PoAttr* attrs,
                              int32_t n_attrs, const PoOutputs* outs, int32_t n_outs, int32_t caller_allocates);
// The output shapes and dtypes of op `op` for the given input shapes and attributes, from the
// op's InferMeta. An input dtype of PO_UNDEFINED is not known (Paddle's shape inference does
// not pass dtypes): the runtime then tries float32, then int64 for each such input. An input dim
// of -1 is not known yet (a static graph's batch dim): output dims that depend on it are -1. An
// output dim of -1 is also one known only when the op runs (repeat_interleave with a tensor of
// counts).
PO_API int32_t po_runtime_infer(int32_t op, const PoTensor* ins, int32_t n_ins, const PoAttr* attrs,
                                int32_t n_attrs, PoMeta* outs, int32_t n_outs);
PO_API void po_runtime_release(void* owner);
PO_API const char* po_runtime_last_error(void);
// The ops, by index, and a hash of api_yaml/ shared with the generated framework sources: an
// extension refuses a runtime generated from other YAML.
PO_API int32_t po_runtime_num_ops(void);
PO_API const char* po_runtime_op_name(int32_t op);
PO_API const char* po_runtime_yaml_hash(void);
// The data pointers of the last po_runtime_run on this thread: its inputs (null where absent) and
// outputs as the kernel left them (for the tests that check nothing was copied). Returns how
// many were written of each, up to `cap`.
PO_API int32_t po_runtime_last_pointers(const void** ins, const void** outs, int32_t cap);

#ifdef __cplusplus
}
#endif
