// The runtime side of the JAX integration (paddle_ops.integrations.jax): our kernels behind one
// plain-C entry, for the XLA FFI handlers (ffi_handlers.cc) that JAX calls.
//
// The handlers include only XLA's FFI headers (jaxlib ships them: jax.ffi.include_dir()) and
// this header; they are compiled at first import against the installed jaxlib. The runtime is
// paddle_ops' one runtime library (libpaddle_ops_runtime.so, built with paddle_ops: the kernels,
// the generated op table every integration uses, and jax_entry.cc), which exports only the
// plain-C functions of runtime.h and of this header. The tensor and attribute structs are
// runtime.h's, plain C as well.
#pragma once

#include <stdint.h>

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

// The index of op `name` (a YAML forward or grad op) in the runtime's table, or -1.
PO_API int32_t po_jax_op_id(const char* name);

// Runs op `op` on XLA's buffers: inputs in YAML order (an absent optional input has present 0),
// attributes in YAML order, outputs already allocated by XLA with the shapes and dtypes that
// the op's InferMeta gave at trace time (an optional output the op does not produce is a
// float32 [0]); the kernels write into them without a copy. On the GPU (the inputs' device
// PO_GPU) `stream` is XLA's cudaStream_t: our stream of the device waits for the work XLA put
// on it before, and XLA's stream waits for ours after (events, no host synchronization).
// Returns a PoError; the message is in po_jax_last_error() (this thread).
PO_API int32_t po_jax_run(int32_t op, const PoTensor* ins, int32_t n_ins, const PoAttr* attrs,
                                 int32_t n_attrs, const PoTensor* outs, int32_t n_outs, void* stream);
PO_API const char* po_jax_last_error(void);
// The data pointers the kernels read and wrote in the last po_jax_run on this thread (for the
// tests that check nothing was copied); returns how many were written of each, up to `cap`.
PO_API int32_t po_jax_last_pointers(const void** ins, const void** outs, int32_t cap);

#ifdef __cplusplus
}
#endif
