#include "infermeta/binary.h"

#include <algorithm>
#include <vector>

#include "infermeta/unary.h"

namespace phi {

DDim BroadcastDims(const DDim& a, const DDim& b, const char* a_name, const char* b_name) {
  const int rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.size() - rank + i, ib = b.size() - rank + i;
    const int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    PADDLE_ENFORCE(da == db || da == 1 || db == 1,
                   errors::InvalidArgument("%s %s and %s %s cannot be broadcast together: expected each dim equal "
                                           "or 1, but got %d vs %d at dim %d",
                                           a_name, a.to_str(), b_name, b.to_str(), da, db, i));
    out[i] = da == 1 ? db : da;
  }
  return make_ddim(out);
}

void ElementwiseInferMeta(const MetaTensor& x, const MetaTensor& y, MetaTensor* out) {
  PADDLE_ENFORCE(x.dtype() == y.dtype(),
                 errors::InvalidType("x and y must have the same dtype, but got %s and %s",
                                     DataTypeToString(x.dtype()), DataTypeToString(y.dtype())));
  out->set_dims(BroadcastDims(x.dims(), y.dims()));
  out->set_dtype(x.dtype());
}

void GeneralBinaryGradInferMeta(const MetaTensor& x, const MetaTensor& y, MetaTensor* dx,
                                MetaTensor* dy) {
  if (dx) dx->share_meta(x);
  if (dy) dy->share_meta(y);
}

void RepeatInterleaveWithTensorIndexInferMeta(const MetaTensor& x, const MetaTensor& repeats, int axis,
                                              int64_t output_size, MetaTensor* out) {
  const DDim dims = x.dims();
  const int ax = NormalizeAxis(axis, dims.size(), "axis");
  const DataType rt = repeats.dtype();
  PADDLE_ENFORCE(rt == DataType::INT32 || rt == DataType::INT64,
                 errors::InvalidType("repeat_interleave: repeats must be an int or a Tensor of int32 or int64, but "
                                     "got a Tensor of %s",
                                     DataTypeToString(rt)));
  const DDim rd = repeats.dims();
  PADDLE_ENFORCE(rd.size() <= 1, errors::InvalidArgument("repeat_interleave: repeats must be a 0-D or 1-D tensor, "
                                                         "but got repeats of shape %s",
                                                         rd.to_str()));
  DDim od = dims.size() == 0 ? DDim({1}) : dims;
  const int64_t n = od[ax];
  const int64_t counts = product(rd);
  PADDLE_ENFORCE(counts == n || counts == 1,
                 errors::InvalidArgument("repeat_interleave: repeats must hold one count for each of the %d slices of "
                                         "x (shape %s) along axis %d, or a single count, but got %d counts",
                                         n, dims.to_str(), ax, counts));
  PADDLE_ENFORCE(output_size >= -1,
                 errors::InvalidArgument("repeat_interleave: output_size must be >= 0 (or None), but got %d",
                                         output_size));
  od[ax] = output_size;
  out->set_dims(od);
  out->set_dtype(x.dtype());
}

}  // namespace phi
