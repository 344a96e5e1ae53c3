// The plain-C interface of paddle_ops' runtime library (libpaddle_ops_runtime.so), shared by the
// Paddle and the JAX integrations and the torch integration's C++ kernels (po_runtime_run).
//
// Paddle's headers and ours both define a `phi::` (and a `paddle::`) namespace, so no
// translation unit may include both. This header is the whole interface between the two
// sides and names neither: plain C types only (raw data pointers, shapes, strides, a dtype
// enum, a device and a stream). The paddle_ops side (bridge.cc, the generated bridge_ops.cc and
// the JAX entry po_jax.cc) is linked once into libpaddle_ops_runtime.so, whose version script
// (runtime.map) exports only the po_paddle_*, po_jax_* and po_runtime_* functions; the Paddle
// extension (the generated paddle_ext.cc, which includes only paddle/extension.h and this header)
// and the XLA FFI handlers (ffi_handlers.cc: XLA's FFI headers and po_jax.h) both link it.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PO_PADDLE_MAX_RANK 9

// The runtime library is built with hidden visibility; only these functions are exported.
#if defined(__GNUC__)
#define PO_PADDLE_API __attribute__((visibility("default")))
#else
#define PO_PADDLE_API
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

// Error kinds, returned by po_paddle_run / po_paddle_infer (0: success).
enum PoError { PO_OK = 0, PO_VALUE_ERROR = 1, PO_TYPE_ERROR = 2, PO_INDEX_ERROR = 3,
               PO_MEMORY_ERROR = 4, PO_RUNTIME_ERROR = 5 };

// One tensor argument. `data` is the caller's memory, used in place (never copied).
typedef struct {
  void* data;              // null for a shape-only call (po_paddle_infer)
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

// How the bridge gets its outputs.
typedef struct {
  void* ctx;
  // The caller allocates output `index` (dims, PoDType) on the inputs' device and returns its
  // data pointer; the kernel writes there. Used whenever the output shape is known before
  // the kernel runs.
  void* (*alloc)(void* ctx, int32_t index, const int64_t* dims, int32_t ndim, int32_t dtype);
  // Output `index` was allocated by paddle_ops (its shape depended on the data): the caller
  // wraps `data` without a copy and calls po_paddle_release(owner) when it is freed.
  void (*adopt)(void* ctx, int32_t index, void* data, const int64_t* dims, int32_t ndim,
                int32_t dtype, void* owner);
  void* stream;            // the caller's device stream (unused on the CPU)
} PoOutputs;

// The shape and dtype of one output (po_paddle_infer). An optional output the op does not
// produce (gla's final_state without output_final_state, right_flood's index without
// return_index) is reported, and returned by po_paddle_run, as an empty float32 tensor [0].
typedef struct {
  int64_t dims[PO_PADDLE_MAX_RANK];
  int32_t ndim;
  int32_t dtype;
} PoMeta;

// Where po_paddle_run's outputs come from (the Paddle integration's setting; po_jax_run always
// binds XLA's buffers, whatever it is): 0 (the default) from paddle_ops' caching
// allocator, handed over with `adopt`; 1 from the caller (`alloc`) wherever the shape is known
// before the kernel runs. Both are without a copy; the first keeps large outputs in memory
// already touched, where a fresh allocation pays its page faults.
PO_PADDLE_API void po_paddle_set_caller_allocates(int32_t on);
PO_PADDLE_API int32_t po_paddle_caller_allocates(void);

// The process's settings, shared by both integrations (the runtime is loaded once). The runtime
// holds its own copy of paddle_ops' CPU runtime and flags, which alone would follow only
// OMP_NUM_THREADS and the PADDLE_OPS_* environment read when it is loaded. With a host set
// (paddle_ops' Python module: paddle_ops.integrations._runtime sets it when it loads the runtime),
// each op run here, by Paddle or by XLA, first takes from the host:
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
// -1 with the message in po_paddle_last_error where the environment holds a bad value).
PO_PADDLE_API void po_runtime_follow(int32_t (*threads)(void), int32_t (*flags)(int64_t* values, int32_t cap));
PO_PADDLE_API int32_t po_runtime_last_num_threads(void);
PO_PADDLE_API int32_t po_runtime_flags(int64_t* values, int32_t cap);

// Runs op `op` (its index in po_paddle_op_name's list) on the inputs, in the order of the
// op's YAML args; attributes in YAML order. An optional input is absent when `present` is 0,
// when its data is null, or when it has no elements. Returns a PoError; the message is in
// po_paddle_last_error() (this thread).
PO_PADDLE_API int32_t po_paddle_run(int32_t op, const PoTensor* ins, int32_t n_ins, const PoAttr* attrs,
                      int32_t n_attrs, const PoOutputs* outs, int32_t n_outs);
// Runs op `op` as po_paddle_run does, with the output policy given here rather than by the
// Paddle integration's process-wide setting (the torch extension: caller_allocates 1 on CUDA,
// where torch's caching allocator hands out the outputs on torch's current stream). On the
// GPU our kernels, copies and scratch allocations of this call run on `outs->stream` (a
// cudaStream_t; null is the legacy default stream, as torch names it) in place of our own
// stream, for the calling thread and the length of the call only: the caller's work queued
// before and after it is in that one stream's order, with no event and no host wait. Scratch
// and adopted outputs from our allocator belong to that stream and are reused only on it.
PO_PADDLE_API int32_t po_runtime_run(int32_t op, const PoTensor* ins, int32_t n_ins, const PoAttr* attrs,
                                     int32_t n_attrs, const PoOutputs* outs, int32_t n_outs,
                                     int32_t caller_allocates);
// The output shapes and dtypes of op `op` for the given input shapes and attributes, from the
// op's InferMeta. An input dtype of PO_UNDEFINED is not known (Paddle's shape inference does
// not pass dtypes): the bridge then tries float32, then int64 for each such input. An input dim
// of -1 is not known yet (a static graph's batch dim): output dims that depend on it are -1. An
// output dim of -1 is also one known only when the op runs (repeat_interleave with a tensor of
// counts).
PO_PADDLE_API int32_t po_paddle_infer(int32_t op, const PoTensor* ins, int32_t n_ins, const PoAttr* attrs,
                        int32_t n_attrs, PoMeta* outs, int32_t n_outs);
PO_PADDLE_API void po_paddle_release(void* owner);
PO_PADDLE_API const char* po_paddle_last_error(void);
// The ops, by index, and a hash of api_yaml/ shared with the generated extension source: the
// extension refuses a bridge generated from other YAML.
PO_PADDLE_API int32_t po_paddle_num_ops(void);
PO_PADDLE_API const char* po_paddle_op_name(int32_t op);
PO_PADDLE_API const char* po_paddle_yaml_hash(void);
// The data pointers of the last po_paddle_run on this thread: its inputs (null where absent) and
// outputs as the kernel left them (for the tests that check nothing was copied). Returns how
// many were written of each, up to `cap`.
PO_PADDLE_API int32_t po_paddle_last_pointers(const void** ins, const void** outs, int32_t cap);

#ifdef __cplusplus
}
#endif
