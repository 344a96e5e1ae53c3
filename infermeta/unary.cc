#include "infermeta/unary.h"

#include <vector>

namespace phi {

void UnchangedInferMeta(const MetaTensor& x, MetaTensor* out) { out->share_meta(x); }

namespace {

// The out dims of a cum op, after checking the axis: flatten takes 0 or -1 (as Paddle's
// kernels), otherwise axis in [-rank, rank).
DDim CumOutDims(const DDim& dims, int axis, bool flatten) {
  if (flatten) {
    // Paddle's kernels take 0 or -1 with flatten (its own tests pass 0); the axis is unused.
    PADDLE_ENFORCE(axis == -1 || axis == 0,
                   errors::InvalidArgument("when flatten is true, axis must be 0 or -1, but got %d", axis));
    return DDim({product(dims)});
  }
  NormalizeAxis(axis, dims.size(), "axis");
  return dims;
}

// A Scalar axis as the int the cum ops take.
int CumIntAxis(const Scalar& axis, int rank) {
  PADDLE_ENFORCE(axis.is_integer(), errors::InvalidType("axis must be an integer, but got a float"));
  const int64_t a = axis.to<int64_t>();
  // An axis beyond 32 bits is out of range for any rank: raise before it narrows (2^32 -> 0).
  if (a != static_cast<int>(a)) NormalizeAxis(a, rank, "axis");
  return static_cast<int>(a);
}

}  // namespace

void CumInferMeta(const MetaTensor& x, int axis, bool flatten, bool exclusive, bool reverse,
                  MetaTensor* out) {
  out->set_dims(CumOutDims(x.dims(), axis, flatten));
  out->set_dtype(x.dtype());
}

void CumScalarAxisInferMeta(const MetaTensor& x, const Scalar& axis, bool flatten, bool exclusive,
                            bool reverse, MetaTensor* out) {
  CumInferMeta(x, CumIntAxis(axis, x.dims().size()), flatten, exclusive, reverse, out);
}

void CumGradInferMeta(const MetaTensor& x, int axis, bool flatten, MetaTensor* x_grad) {
  CumOutDims(x.dims(), axis, flatten);  // the forward's checks: a grad op called directly too
  x_grad->share_meta(x);
}

void CumScalarAxisGradInferMeta(const MetaTensor& x, const Scalar& axis, bool flatten, MetaTensor* x_grad) {
  CumGradInferMeta(x, CumIntAxis(axis, x.dims().size()), flatten, x_grad);
}

void RightFloodInferMeta(const MetaTensor& x, int axis, bool reverse, const std::string& hole,
                         bool return_index, MetaTensor* out, MetaTensor* index) {
  const DataType dt = x.dtype();
  PADDLE_ENFORCE(IsFloatingType(dt) || dt == DataType::INT32 || dt == DataType::INT64,
                 errors::InvalidType("right_flood: x must be float16, bfloat16, float32, float64, int32 or "
                                     "int64, but got %s",
                                     DataTypeToString(dt)));
  NormalizeAxis(axis, x.dims().size(), "axis");
  PADDLE_ENFORCE(hole == "zero" || hole == "nan",
                 errors::InvalidArgument("right_flood: hole must be 'zero' or 'nan', but got '%s'", hole));
  PADDLE_ENFORCE(hole == "zero" || IsFloatingType(dt),
                 errors::InvalidArgument("right_flood: hole='nan' needs a floating x, but x is %s (it has no NaN)",
                                         DataTypeToString(dt)));
  out->set_dims(x.dims());
  out->set_dtype(dt);
  if (return_index && index) {
    index->set_dims(x.dims());
    index->set_dtype(DataType::INT64);
  }
}

void RepeatInterleaveInferMeta(const MetaTensor& x, int repeats, int axis, MetaTensor* out) {
  const DDim dims = x.dims();
  const int ax = NormalizeAxis(axis, dims.size(), "axis");
  PADDLE_ENFORCE(repeats >= 0,
                 errors::InvalidArgument("repeat_interleave: repeats must be non-negative, but got %d", repeats));
  DDim od = dims.size() == 0 ? DDim({1}) : dims;
  PADDLE_ENFORCE(!__builtin_mul_overflow(od[ax], static_cast<int64_t>(repeats), &od[ax]),
                 errors::InvalidArgument("repeat_interleave: %d slices of x (shape %s) repeated %d times each "
                                         "are more than 2**63 - 1",
                                         dims.size() == 0 ? 1 : dims[ax], dims.to_str(), repeats));
  out->set_dims(od);
  out->set_dtype(x.dtype());
}

void ReduceInferMeta(const MetaTensor& x, const IntArray& axis, bool keepdim, MetaTensor* out) {
  const DDim dims = x.dims();
  const int rank = dims.size();
  std::vector<bool> reduce(rank, axis.size() == 0);
  for (int64_t a : axis.GetData()) {
    const int ax = NormalizeAxis(a, rank, "axis");
    if (rank > 0) reduce[ax] = true;
  }
  std::vector<int64_t> od;
  for (int i = 0; i < rank; ++i) {
    if (!reduce[i]) {
      od.push_back(dims[i]);
    } else if (keepdim) {
      od.push_back(1);
    }
  }
  out->set_dims(make_ddim(od));
  out->set_dtype(x.dtype());
}

void SumInferMeta(const MetaTensor& x, const IntArray& axis, DataType dtype, bool keepdim,
                  MetaTensor* out) {
  ReduceInferMeta(x, axis, keepdim, out);
  if (dtype != DataType::UNDEFINED) {
    out->set_dtype(dtype);
  } else if (x.dtype() == DataType::BOOL || x.dtype() == DataType::INT32) {
    out->set_dtype(DataType::INT64);  // as Paddle: integer sums widen
  }
}

void ReshapeInferMeta(const MetaTensor& x, const IntArray& shape, MetaTensor* out) {
  const DDim in = x.dims();
  std::vector<int64_t> od(shape.GetData());
  int unknown = -1;
  int64_t known = 1;
  for (size_t i = 0; i < od.size(); ++i) {
    if (od[i] == -1) {
      PADDLE_ENFORCE(unknown < 0, errors::InvalidArgument(
                                      "shape can contain at most one -1, but got %s",
                                      make_ddim(shape.GetData()).to_str()));
      unknown = static_cast<int>(i);
      continue;
    }
    if (od[i] == 0) {
      PADDLE_ENFORCE(static_cast<int>(i) < in.size(),
                     errors::InvalidArgument("shape[%d] is 0 (copy the input dim) but x has only %d dims",
                                             i, in.size()));
      od[i] = in[static_cast<int>(i)];
    }
    PADDLE_ENFORCE(od[i] >= 0, errors::InvalidArgument("shape[%d] must be >= -1, but got %d", i, od[i]));
  }
  {
    std::vector<int64_t> given(od);  // the -1 counted as 1: the checked product names the shape
    if (unknown >= 0) given[unknown] = 1;
    known = product(make_ddim(given));
  }
  const int64_t numel = product(in);
  if (unknown >= 0) {
    PADDLE_ENFORCE(known != 0 && numel % known == 0,
                   errors::InvalidArgument("cannot reshape a tensor of shape %s (%d elements) into %s",
                                           in.to_str(), numel, make_ddim(shape.GetData()).to_str()));
    od[unknown] = numel / known;
  } else {
    PADDLE_ENFORCE_EQ(known, numel,
                      errors::InvalidArgument("cannot reshape a tensor of shape %s (%d elements) into %s",
                                              in.to_str(), numel, make_ddim(shape.GetData()).to_str()));
  }
  out->set_dims(make_ddim(od));
  out->set_dtype(x.dtype());
}

void CastInferMeta(const MetaTensor& x, DataType dtype, MetaTensor* out) {
  PADDLE_ENFORCE(dtype != DataType::UNDEFINED, errors::InvalidType("cast: dtype must be given"));
  out->set_dims(x.dims());
  out->set_dtype(dtype);
}

void FullLikeInferMeta(const MetaTensor& x, const Scalar& value, DataType dtype, MetaTensor* out) {
  out->set_dims(x.dims());
  out->set_dtype(dtype == DataType::UNDEFINED ? x.dtype() : dtype);
}

}  // namespace phi
