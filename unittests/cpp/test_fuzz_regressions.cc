// Regressions of what the fuzzer (unittests/fuzz) found through the C++ API.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "paddle_ops/common/enforce.h"
#include "paddle_ops/core/device_context.h"
#include "paddle_ops_gen/api.h"
#include "unittests/cpp/test_util.h"

namespace {

namespace api = paddle_ops::experimental;
using paddle_ops::Tensor;
using paddle_ops_test::CatchEnforce;

Tensor Ones(const std::vector<int64_t>& dims) {
  static phi::CPUContext ctx;
  phi::DenseTensor t;
  t.Resize(phi::make_ddim(dims));
  float* p = ctx.Alloc<float>(&t);
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = 1.0f;
  return Tensor(t);
}

// cumsum_grad / logcumsumexp_grad called directly with an axis out of range: the grad ops'
// InferMeta does not check it, so a 0-D x took any axis silently (and a larger rank indexed
// past its dims). The kernels check it now.
TEST(FuzzRegressions, CumGradOpsRejectAnAxisOutOfRange) {
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{}, std::vector<int64_t>{2, 3}}) {
    const Tensor x = Ones(dims);
    for (int64_t axis : {int64_t{std::numeric_limits<int>::min()}, int64_t{2}, int64_t{-3}, int64_t{1} << 32}) {
      EXPECT_EQ(CatchEnforce([&] { api::cumsum_grad(x, x, phi::Scalar(axis), false, false, false); }).code(),
                phi::ErrorCode::OUT_OF_RANGE)
          << "cumsum_grad axis " << axis << " rank " << dims.size();
      if (axis == static_cast<int>(axis)) {
        EXPECT_EQ(CatchEnforce([&] { api::logcumsumexp_grad(x, x, x, static_cast<int>(axis), false, false, false); }).code(),
                  phi::ErrorCode::OUT_OF_RANGE)
            << "logcumsumexp_grad axis " << axis << " rank " << dims.size();
      }
    }
    // The valid axes still work.
    EXPECT_EQ(api::cumsum_grad(x, x, phi::Scalar(-1), false, false, false).numel(), x.numel());
  }
}

}  // namespace
