// Definition of NormalizeAxis (paddle_ops/common/axis.h).
#include "paddle_ops/common/axis.h"

#include "paddle_ops/common/enforce.h"

namespace phi {

int NormalizeAxis(int64_t axis, int rank, const char* what) {
  // A 0-D tensor behaves as a rank-1 one for axis checks (axis 0 or -1), as in Paddle.
  const int r = rank == 0 ? 1 : rank;
  PADDLE_ENFORCE(axis >= -r && axis < r,
                 errors::OutOfRange("%s is out of range for a %d-D tensor: expected it to be in "
                                    "range of [%d, %d), but got %d",
                                    what, rank, -r, r, axis));
  return static_cast<int>(axis < 0 ? axis + r : axis);
}

}  // namespace phi
