// What the CPU and GPU sum kernels share (their reductions are different algorithms: a
// threaded segment sum on the CPU, block reductions on the GPU).
#pragma once

#include "kernels/reduce_kernel.h"
#include "paddle_ops/common/data_type.h"

namespace phi {

// The dtype sum writes: out's as SumInferMeta set it (out_dtype, or the widened default), else
// out_dtype, else x's.
inline DataType SumOutDtype(const DenseTensor& x, DataType out_dtype, const DenseTensor& out) {
  return out.dtype() != DataType::UNDEFINED ? out.dtype() : out_dtype != DataType::UNDEFINED ? out_dtype : x.dtype();
}

}  // namespace phi
