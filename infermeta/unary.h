// Shape functions of single-input ops. They check arguments and set the output's dims and
// dtype before any kernel runs (phi's InferMeta). Messages name the argument, the valid
// range or value and the one given.
#pragma once

#include <string>

#include "paddle_ops/common/axis.h"  // NormalizeAxis, used by the shape functions and their callers
#include "paddle_ops/common/scalar.h"
#include "paddle_ops/core/meta_tensor.h"

namespace phi {

// out has x's dims and dtype.
void UnchangedInferMeta(const MetaTensor& x, MetaTensor* out);

// cumsum / logcumsumexp: axis in [-rank, rank) (a 0-D x takes 0 or -1); flatten gives a
// 1-D out of numel(x) elements and then requires axis 0 or -1 (as Paddle's kernels).
void CumInferMeta(const MetaTensor& x, int axis, bool flatten, bool exclusive, bool reverse,
                  MetaTensor* out);
void CumScalarAxisInferMeta(const MetaTensor& x, const Scalar& axis, bool flatten,
                            bool exclusive, bool reverse, MetaTensor* out);
// Their grads: the same axis checks (a grad op called directly), x_grad like x.
void CumGradInferMeta(const MetaTensor& x, int axis, bool flatten, MetaTensor* x_grad);
void CumScalarAxisGradInferMeta(const MetaTensor& x, const Scalar& axis, bool flatten, MetaTensor* x_grad);

// right_flood: x float16/bfloat16/float32/float64/int32/int64 (InvalidType otherwise), axis in
// [-rank, rank), hole "zero" or "nan" (InvalidArgument otherwise; "nan" needs a floating x).
// out is like x; index (int64, x's dims) is set only when return_index, else left unset (an
// absent optional output).
void RightFloodInferMeta(const MetaTensor& x, int axis, bool reverse, const std::string& hole,
                         bool return_index, MetaTensor* out, MetaTensor* index);

// repeat_interleave with one count for every slice: repeats >= 0; out has x's dims with
// dims[axis] * repeats along axis (a 0-D x is taken as [1]).
void RepeatInterleaveInferMeta(const MetaTensor& x, int repeats, int axis, MetaTensor* out);

// sum / mean over `axis` (empty: all axes).
void ReduceInferMeta(const MetaTensor& x, const IntArray& axis, bool keepdim, MetaTensor* out);
void SumInferMeta(const MetaTensor& x, const IntArray& axis, DataType dtype, bool keepdim,
                  MetaTensor* out);
// reshape: one -1 entry is inferred, 0 copies the input dim; numel must match.
void ReshapeInferMeta(const MetaTensor& x, const IntArray& shape, MetaTensor* out);
void CastInferMeta(const MetaTensor& x, DataType dtype, MetaTensor* out);
void FullLikeInferMeta(const MetaTensor& x, const Scalar& value, DataType dtype, MetaTensor* out);

}  // namespace phi
