// Tests of the InferMeta shape functions (infermeta/unary.h, infermeta/binary.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "infermeta/binary.h"
#include "infermeta/unary.h"
#include "paddle_ops/common/scalar.h"
#include "paddle_ops/core/dense_tensor.h"
#include "paddle_ops/core/meta_tensor.h"
#include "unittests/cpp/test_util.h"

namespace {

using paddle_ops_test::CatchEnforce;
using paddle_ops_test::Contains;
using phi::DataType;
using phi::DDim;
using phi::DenseTensor;
using phi::ErrorCode;
using phi::MetaTensor;

DDim CumDims(const DDim& in, int axis, bool flatten, DataType dtype = DataType::FLOAT32,
             DataType* out_dtype = nullptr) {
  DenseTensor x(dtype, in);
  DenseTensor out;
  MetaTensor mo(&out);
  phi::CumInferMeta(MetaTensor(x), axis, flatten, false, false, &mo);
  if (out_dtype) *out_dtype = out.dtype();
  return out.dims();
}

// ---------------------------------------------------------------------------------------
// CumInferMeta
// ---------------------------------------------------------------------------------------

TEST(CumInferMetaTest, ValidAxesKeepShapeAndDtype) {
  const DDim in({2, 3, 4});
  for (int axis = -3; axis < 3; ++axis) {
    for (DataType t : {DataType::FLOAT16, DataType::BFLOAT16, DataType::FLOAT32,
                       DataType::FLOAT64, DataType::INT32, DataType::INT64}) {
      DataType got;
      EXPECT_EQ(CumDims(in, axis, false, t, &got), in) << "axis " << axis;
      EXPECT_EQ(got, t);
    }
  }
}

TEST(CumInferMetaTest, AxisTooLargeIsOutOfRangeNamingRangeAndValue) {
  auto e = CatchEnforce([] { CumDims(DDim({2, 3, 4}), 3, false); });
  EXPECT_EQ(e.code(), ErrorCode::OUT_OF_RANGE);
  EXPECT_TRUE(Contains(e.message(), "[-3, 3)")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "3")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "axis")) << e.message();

  auto e2 = CatchEnforce([] { CumDims(DDim({2, 3, 4}), 17, false); });
  EXPECT_EQ(e2.code(), ErrorCode::OUT_OF_RANGE);
  EXPECT_TRUE(Contains(e2.message(), "[-3, 3)")) << e2.message();
  EXPECT_TRUE(Contains(e2.message(), "17")) << e2.message();
}

TEST(CumInferMetaTest, AxisTooNegativeIsOutOfRange) {
  auto e = CatchEnforce([] { CumDims(DDim({5, 6}), -3, false); });
  EXPECT_EQ(e.code(), ErrorCode::OUT_OF_RANGE);
  EXPECT_TRUE(Contains(e.message(), "[-2, 2)")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "-3")) << e.message();
}

TEST(CumInferMetaTest, FailureLeavesOutputUntouched) {
  DenseTensor x(DataType::FLOAT64, DDim({2, 3}));
  DenseTensor out(DataType::INT8, DDim({9}));
  MetaTensor mo(&out);
  EXPECT_THROW(phi::CumInferMeta(MetaTensor(x), 2, false, false, false, &mo), phi::EnforceNotMet);
  EXPECT_EQ(out.dims(), DDim({9}));
  EXPECT_EQ(out.dtype(), DataType::INT8);
}

TEST(CumInferMetaTest, ZeroDimAcceptsZeroAndMinusOne) {
  EXPECT_EQ(CumDims(DDim(), 0, false), DDim());
  EXPECT_EQ(CumDims(DDim(), -1, false), DDim());
  auto e = CatchEnforce([] { CumDims(DDim(), 1, false); });
  EXPECT_EQ(e.code(), ErrorCode::OUT_OF_RANGE);
  EXPECT_TRUE(Contains(e.message(), "[-1, 1)")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "1")) << e.message();
  auto e2 = CatchEnforce([] { CumDims(DDim(), -2, false); });
  EXPECT_EQ(e2.code(), ErrorCode::OUT_OF_RANGE);
  EXPECT_TRUE(Contains(e2.message(), "-2")) << e2.message();
}

TEST(CumInferMetaTest, OneDimRange) {
  EXPECT_EQ(CumDims(DDim({7}), 0, false), DDim({7}));
  EXPECT_EQ(CumDims(DDim({7}), -1, false), DDim({7}));
  EXPECT_THROW(CumDims(DDim({7}), 1, false), phi::EnforceNotMet);
  EXPECT_THROW(CumDims(DDim({7}), -2, false), phi::EnforceNotMet);
}

TEST(CumInferMetaTest, FlattenGivesOneDimNumel) {
  DataType got;
  EXPECT_EQ(CumDims(DDim({2, 3, 4}), -1, true, DataType::FLOAT64, &got), DDim({24}));
  EXPECT_EQ(got, DataType::FLOAT64);
  EXPECT_EQ(CumDims(DDim({5}), -1, true), DDim({5}));
  EXPECT_EQ(CumDims(DDim(), -1, true), DDim({1}));          // 0-D flattens to [1]
  EXPECT_EQ(CumDims(DDim({3, 0, 2}), -1, true), DDim({0}));  // zero-size
}

// As Paddle's kernels: flatten takes axis 0 or -1 (Paddle's own tests pass 0), nothing else.
TEST(CumInferMetaTest, FlattenTakesAxisZeroOrMinusOne) {
  for (int axis : {0, -1}) EXPECT_EQ(CumDims(DDim({2, 3}), axis, true), DDim({6})) << axis;
  for (int axis : {1, -2, 2}) {
    auto e = CatchEnforce([&] { CumDims(DDim({2, 3}), axis, true); });
    EXPECT_EQ(e.code(), ErrorCode::INVALID_ARGUMENT) << axis;
    EXPECT_TRUE(Contains(e.message(), "0 or -1")) << e.message();
    EXPECT_TRUE(Contains(e.message(), std::to_string(axis))) << e.message();
  }
}

// The grad ops check the axis as the forward does (a grad op called directly).
TEST(CumInferMetaTest, GradChecksTheAxisAsTheForward) {
  DenseTensor x(DataType::FLOAT32, DDim({2, 3}));
  auto grad_dims = [&](int axis, bool flatten) {
    DenseTensor g;
    MetaTensor m(&g);
    phi::CumGradInferMeta(MetaTensor(x), axis, flatten, &m);
    return g.dims();
  };
  for (bool flatten : {false, true}) {
    for (int axis : {0, -1}) EXPECT_EQ(grad_dims(axis, flatten), DDim({2, 3}));
  }
  EXPECT_EQ(CatchEnforce([&] { grad_dims(1, true); }).code(), ErrorCode::INVALID_ARGUMENT);
  EXPECT_EQ(CatchEnforce([&] { grad_dims(2, false); }).code(), ErrorCode::OUT_OF_RANGE);
  DenseTensor g;
  MetaTensor m(&g);
  EXPECT_EQ(CatchEnforce([&] { phi::CumScalarAxisGradInferMeta(MetaTensor(x), phi::Scalar(5), true, &m); }).code(),
            ErrorCode::INVALID_ARGUMENT);
}

TEST(CumInferMetaTest, ZeroSizeKeepsShape) {
  EXPECT_EQ(CumDims(DDim({0}), 0, false), DDim({0}));
  EXPECT_EQ(CumDims(DDim({3, 0, 2}), 1, false), DDim({3, 0, 2}));
  EXPECT_EQ(CumDims(DDim({3, 0, 2}), -1, false), DDim({3, 0, 2}));
}

TEST(CumInferMetaTest, ExclusiveReverseDoNotChangeShape) {
  DenseTensor x(DataType::FLOAT32, DDim({4, 5}));
  for (bool ex : {false, true}) {
    for (bool rev : {false, true}) {
      DenseTensor out;
      MetaTensor mo(&out);
      phi::CumInferMeta(MetaTensor(x), 1, false, ex, rev, &mo);
      EXPECT_EQ(out.dims(), DDim({4, 5}));
      EXPECT_EQ(out.dtype(), DataType::FLOAT32);
    }
  }
}

TEST(CumScalarAxisInferMetaTest, IntegerScalarAxis) {
  DenseTensor x(DataType::INT64, DDim({2, 3}));
  DenseTensor out;
  MetaTensor mo(&out);
  phi::CumScalarAxisInferMeta(MetaTensor(x), phi::Scalar(1), false, false, false, &mo);
  EXPECT_EQ(out.dims(), DDim({2, 3}));
  EXPECT_EQ(out.dtype(), DataType::INT64);
  phi::CumScalarAxisInferMeta(MetaTensor(x), phi::Scalar(int64_t{-2}), false, false, false, &mo);
  EXPECT_EQ(out.dims(), DDim({2, 3}));
  phi::CumScalarAxisInferMeta(MetaTensor(x), phi::Scalar(-1), true, false, false, &mo);
  EXPECT_EQ(out.dims(), DDim({6}));
}

TEST(CumScalarAxisInferMetaTest, FloatScalarAxisIsInvalidType) {
  DenseTensor x(DataType::FLOAT32, DDim({2, 3}));
  DenseTensor out;
  MetaTensor mo(&out);
  auto e = CatchEnforce(
      [&] { phi::CumScalarAxisInferMeta(MetaTensor(x), phi::Scalar(1.0), false, false, false, &mo); });
  EXPECT_EQ(e.code(), ErrorCode::INVALID_TYPE);
  EXPECT_TRUE(Contains(e.message(), "axis")) << e.message();
}

TEST(CumScalarAxisInferMetaTest, OutOfRangeScalarAxis) {
  DenseTensor x(DataType::FLOAT32, DDim({2, 3}));
  DenseTensor out;
  MetaTensor mo(&out);
  auto e = CatchEnforce([&] {
    phi::CumScalarAxisInferMeta(MetaTensor(x), phi::Scalar(int64_t{5}), false, false, false, &mo);
  });
  EXPECT_EQ(e.code(), ErrorCode::OUT_OF_RANGE);
  EXPECT_TRUE(Contains(e.message(), "[-2, 2)")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "5")) << e.message();
}

TEST(NormalizeAxisTest, Values) {
  EXPECT_EQ(phi::NormalizeAxis(-1, 4, "axis"), 3);
  EXPECT_EQ(phi::NormalizeAxis(-4, 4, "axis"), 0);
  EXPECT_EQ(phi::NormalizeAxis(2, 4, "axis"), 2);
  EXPECT_EQ(phi::NormalizeAxis(0, 0, "axis"), 0);
  EXPECT_EQ(phi::NormalizeAxis(-1, 0, "axis"), 0);
  auto e = CatchEnforce([] { phi::NormalizeAxis(4, 4, "dim_arg"); });
  EXPECT_EQ(e.code(), ErrorCode::OUT_OF_RANGE);
  EXPECT_TRUE(Contains(e.message(), "dim_arg")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "[-4, 4)")) << e.message();
  // a huge 64-bit axis is rejected rather than truncated into range
  auto e2 = CatchEnforce([] { phi::NormalizeAxis((int64_t{1} << 32) + 1, 4, "axis"); });
  EXPECT_EQ(e2.code(), ErrorCode::OUT_OF_RANGE);
}

// ---------------------------------------------------------------------------------------
// Reduce / Sum
// ---------------------------------------------------------------------------------------

DDim ReduceDims(const DDim& in, std::vector<int64_t> axis, bool keepdim) {
  DenseTensor x(DataType::FLOAT32, in);
  DenseTensor out;
  MetaTensor mo(&out);
  phi::ReduceInferMeta(MetaTensor(x), phi::IntArray(axis), keepdim, &mo);
  EXPECT_EQ(out.dtype(), DataType::FLOAT32);
  return out.dims();
}

TEST(ReduceInferMetaTest, Shapes) {
  const DDim in({2, 3, 4});
  EXPECT_EQ(ReduceDims(in, {1}, false), DDim({2, 4}));
  EXPECT_EQ(ReduceDims(in, {1}, true), DDim({2, 1, 4}));
  EXPECT_EQ(ReduceDims(in, {-1}, false), DDim({2, 3}));
  EXPECT_EQ(ReduceDims(in, {0, 2}, false), DDim({3}));
  EXPECT_EQ(ReduceDims(in, {0, -1}, true), DDim({1, 3, 1}));
  EXPECT_EQ(ReduceDims(in, {}, false), DDim());
  EXPECT_EQ(ReduceDims(in, {}, true), DDim({1, 1, 1}));
  EXPECT_EQ(ReduceDims(in, {0, 1, 2}, false), DDim());
  EXPECT_EQ(ReduceDims(DDim(), {}, false), DDim());
  EXPECT_EQ(ReduceDims(DDim(), {0}, false), DDim());
  EXPECT_EQ(ReduceDims(DDim(), {-1}, true), DDim());
  EXPECT_EQ(ReduceDims(DDim({0, 5}), {0}, false), DDim({5}));
}

TEST(ReduceInferMetaTest, BadAxisIsOutOfRange) {
  auto e = CatchEnforce([] { ReduceDims(DDim({2, 3, 4}), {3}, false); });
  EXPECT_EQ(e.code(), ErrorCode::OUT_OF_RANGE);
  EXPECT_TRUE(Contains(e.message(), "[-3, 3)")) << e.message();
  auto e2 = CatchEnforce([] { ReduceDims(DDim({2, 3, 4}), {0, -4}, false); });
  EXPECT_EQ(e2.code(), ErrorCode::OUT_OF_RANGE);
  EXPECT_TRUE(Contains(e2.message(), "-4")) << e2.message();
}

TEST(SumInferMetaTest, DtypePromotion) {
  auto run = [](DataType in, DataType requested) {
    DenseTensor x(in, DDim({2, 3}));
    DenseTensor out;
    MetaTensor mo(&out);
    phi::SumInferMeta(MetaTensor(x), phi::IntArray({0}), requested, false, &mo);
    EXPECT_EQ(out.dims(), DDim({3}));
    return out.dtype();
  };
  EXPECT_EQ(run(DataType::FLOAT32, DataType::UNDEFINED), DataType::FLOAT32);
  EXPECT_EQ(run(DataType::FLOAT16, DataType::UNDEFINED), DataType::FLOAT16);
  EXPECT_EQ(run(DataType::INT32, DataType::UNDEFINED), DataType::INT64);
  EXPECT_EQ(run(DataType::BOOL, DataType::UNDEFINED), DataType::INT64);
  EXPECT_EQ(run(DataType::INT64, DataType::UNDEFINED), DataType::INT64);
  EXPECT_EQ(run(DataType::INT32, DataType::FLOAT64), DataType::FLOAT64);
  EXPECT_EQ(run(DataType::FLOAT32, DataType::FLOAT16), DataType::FLOAT16);
}

// ---------------------------------------------------------------------------------------
// Reshape
// ---------------------------------------------------------------------------------------

DDim ReshapeDims(const DDim& in, std::vector<int64_t> shape) {
  DenseTensor x(DataType::INT32, in);
  DenseTensor out;
  MetaTensor mo(&out);
  phi::ReshapeInferMeta(MetaTensor(x), phi::IntArray(shape), &mo);
  EXPECT_EQ(out.dtype(), DataType::INT32);
  return out.dims();
}

TEST(ReshapeInferMetaTest, InfersMinusOneAndCopiesZero) {
  const DDim in({2, 3, 4});
  EXPECT_EQ(ReshapeDims(in, {-1, 4}), DDim({6, 4}));
  EXPECT_EQ(ReshapeDims(in, {4, -1}), DDim({4, 6}));
  EXPECT_EQ(ReshapeDims(in, {-1}), DDim({24}));
  EXPECT_EQ(ReshapeDims(in, {0, -1}), DDim({2, 12}));
  EXPECT_EQ(ReshapeDims(in, {0, 0, -1}), DDim({2, 3, 4}));
  EXPECT_EQ(ReshapeDims(in, {4, 6}), DDim({4, 6}));
  EXPECT_EQ(ReshapeDims(in, {1, 24, 1}), DDim({1, 24, 1}));
  EXPECT_EQ(ReshapeDims(in, {2, -1, 2, 1}), DDim({2, 6, 2, 1}));
  EXPECT_EQ(ReshapeDims(DDim({1}), {}), DDim());   // to 0-D
  EXPECT_EQ(ReshapeDims(DDim(), {1, 1}), DDim({1, 1}));
  EXPECT_EQ(ReshapeDims(DDim(), {-1}), DDim({1}));
  EXPECT_EQ(ReshapeDims(DDim({0, 3}), {-1, 3}), DDim({0, 3}));
}

TEST(ReshapeInferMetaTest, MismatchIsInvalidArgument) {
  auto e = CatchEnforce([] { ReshapeDims(DDim({2, 3, 4}), {5, 5}); });
  EXPECT_EQ(e.code(), ErrorCode::INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(e.message(), "[2, 3, 4]")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "[5, 5]")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "24")) << e.message();

  auto e2 = CatchEnforce([] { ReshapeDims(DDim({2, 3, 4}), {5, -1}); });
  EXPECT_EQ(e2.code(), ErrorCode::INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(e2.message(), "[5, -1]")) << e2.message();

  auto e3 = CatchEnforce([] { ReshapeDims(DDim({2, 3, 4}), {-1, -1}); });
  EXPECT_EQ(e3.code(), ErrorCode::INVALID_ARGUMENT);

  auto e4 = CatchEnforce([] { ReshapeDims(DDim({2, 3, 4}), {-2, -12}); });
  EXPECT_EQ(e4.code(), ErrorCode::INVALID_ARGUMENT);

  auto e5 = CatchEnforce([] { ReshapeDims(DDim({24}), {4, 0, -1}); });  // 0 beyond x's rank
  EXPECT_EQ(e5.code(), ErrorCode::INVALID_ARGUMENT);

  auto e6 = CatchEnforce([] { ReshapeDims(DDim({0, 3}), {0, -1}); });  // -1 with known == 0
  EXPECT_EQ(e6.code(), ErrorCode::INVALID_ARGUMENT);
}

// ---------------------------------------------------------------------------------------
// Misc unary / binary
// ---------------------------------------------------------------------------------------

TEST(UnaryInferMetaTest, UnchangedCastFullLike) {
  DenseTensor x(DataType::BFLOAT16, DDim({3, 1, 2}));
  DenseTensor out;
  MetaTensor mo(&out);
  phi::UnchangedInferMeta(MetaTensor(x), &mo);
  EXPECT_EQ(out.dims(), DDim({3, 1, 2}));
  EXPECT_EQ(out.dtype(), DataType::BFLOAT16);

  DenseTensor c;
  MetaTensor mc(&c);
  phi::CastInferMeta(MetaTensor(x), DataType::FLOAT64, &mc);
  EXPECT_EQ(c.dims(), DDim({3, 1, 2}));
  EXPECT_EQ(c.dtype(), DataType::FLOAT64);
  auto e = CatchEnforce([&] { phi::CastInferMeta(MetaTensor(x), DataType::UNDEFINED, &mc); });
  EXPECT_EQ(e.code(), ErrorCode::INVALID_TYPE);

  DenseTensor f;
  MetaTensor mf(&f);
  phi::FullLikeInferMeta(MetaTensor(x), phi::Scalar(1.5), DataType::UNDEFINED, &mf);
  EXPECT_EQ(f.dims(), DDim({3, 1, 2}));
  EXPECT_EQ(f.dtype(), DataType::BFLOAT16);
  phi::FullLikeInferMeta(MetaTensor(x), phi::Scalar(1), DataType::INT32, &mf);
  EXPECT_EQ(f.dtype(), DataType::INT32);
}

TEST(BroadcastDimsTest, Compatible) {
  EXPECT_EQ(phi::BroadcastDims(DDim({2, 1, 4}), DDim({3, 1})), DDim({2, 3, 4}));
  EXPECT_EQ(phi::BroadcastDims(DDim({3, 1}), DDim({2, 1, 4})), DDim({2, 3, 4}));
  EXPECT_EQ(phi::BroadcastDims(DDim(), DDim({2, 3})), DDim({2, 3}));
  EXPECT_EQ(phi::BroadcastDims(DDim({2, 3}), DDim()), DDim({2, 3}));
  EXPECT_EQ(phi::BroadcastDims(DDim(), DDim()), DDim());
  EXPECT_EQ(phi::BroadcastDims(DDim({5}), DDim({5})), DDim({5}));
  EXPECT_EQ(phi::BroadcastDims(DDim({0}), DDim({1})), DDim({0}));
  EXPECT_EQ(phi::BroadcastDims(DDim({1}), DDim({0, 1})), DDim({0, 1}));
  EXPECT_EQ(phi::BroadcastDims(DDim({1, 1}), DDim({1})), DDim({1, 1}));
}

TEST(BroadcastDimsTest, IncompatibleIsInvalidArgumentNamingShapes) {
  auto e = CatchEnforce([] { phi::BroadcastDims(DDim({2, 3}), DDim({4, 3})); });
  EXPECT_EQ(e.code(), ErrorCode::INVALID_ARGUMENT);
  EXPECT_TRUE(Contains(e.message(), "[2, 3]")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "[4, 3]")) << e.message();
  auto e2 = CatchEnforce([] { phi::BroadcastDims(DDim({3}), DDim({2, 0})); });
  EXPECT_EQ(e2.code(), ErrorCode::INVALID_ARGUMENT);
}

TEST(ElementwiseInferMetaTest, ShapeAndDtypeCheck) {
  DenseTensor x(DataType::FLOAT32, DDim({4, 1}));
  DenseTensor y(DataType::FLOAT32, DDim({3}));
  DenseTensor out;
  MetaTensor mo(&out);
  phi::ElementwiseInferMeta(MetaTensor(x), MetaTensor(y), &mo);
  EXPECT_EQ(out.dims(), DDim({4, 3}));
  EXPECT_EQ(out.dtype(), DataType::FLOAT32);
  DenseTensor z(DataType::FLOAT64, DDim({3}));
  auto e = CatchEnforce([&] { phi::ElementwiseInferMeta(MetaTensor(x), MetaTensor(z), &mo); });
  EXPECT_EQ(e.code(), ErrorCode::INVALID_TYPE);
  EXPECT_TRUE(Contains(e.message(), "float32")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "float64")) << e.message();

  DenseTensor dx, dy;
  MetaTensor mdx(&dx), mdy(&dy);
  phi::GeneralBinaryGradInferMeta(MetaTensor(x), MetaTensor(z), &mdx, &mdy);
  EXPECT_EQ(dx.dims(), DDim({4, 1}));
  EXPECT_EQ(dy.dtype(), DataType::FLOAT64);
  EXPECT_NO_THROW(phi::GeneralBinaryGradInferMeta(MetaTensor(x), MetaTensor(z), nullptr, &mdy));
}

}  // namespace
