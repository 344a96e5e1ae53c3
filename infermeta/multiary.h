// Shape functions of ops with three or more inputs (pscan, gla, ... as they arrive).
#pragma once

#include "paddle_ops/common/scalar.h"
#include "paddle_ops/core/meta_tensor.h"

namespace phi {}  // namespace phi
