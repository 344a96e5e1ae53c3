#include "infermeta/binary.h"

#include <algorithm>
#include <vector>

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

}  // namespace phi
