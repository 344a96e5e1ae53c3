// Axis normalization, shared by the shape functions (infermeta/) and the kernels (which check
// the axis again where a grad op's InferMeta does not see it): it lives on the ground floor so
// that neither has to include the other.
#pragma once

#include <cstdint>

namespace phi {

// Normalizes `axis` against `rank` to [0, rank) (a 0-D tensor takes axis 0 or -1, as a 1-D one
// would); raises OutOfRange naming `what` otherwise.
int NormalizeAxis(int64_t axis, int rank, const char* what);

}  // namespace phi
