// InferMeta stand-ins for the generator fixtures (codegen_fixtures/*.yaml), with the
// signatures the generated api.cc calls: const MetaTensor& per tensor argument (absent
// optionals arrive as a null MetaTensor), the op_model.ATTR_TYPES C++ type per attribute,
// then MetaTensor* per output. test_codegen.py passes this header to gen.py through
// --infermeta-header and syntax-checks the generated code against it. Not part of the build.
#pragma once

#include <string>

#include "paddle_ops/common/scalar.h"
#include "paddle_ops/core/meta_tensor.h"

namespace phi {

// A deleted catch-all next to each stand-in: it is an exact match for any argument list, so
// a call whose arguments need any conversion to reach the declared signature (an int passed
// for a float, a bool for an int, a tensor in an attribute's place, one argument too many)
// picks it and fails to compile. Only an exactly matching call reaches the real declaration.
#define CODEGEN_FIXTURE_EXACT(name) \
  template <typename... Ts>         \
  void name(Ts...) = delete;

CODEGEN_FIXTURE_EXACT(PscanInferMeta)
CODEGEN_FIXTURE_EXACT(PscanGradInferMeta)
CODEGEN_FIXTURE_EXACT(RightFloodInferMeta)
CODEGEN_FIXTURE_EXACT(RightFloodGradInferMeta)
CODEGEN_FIXTURE_EXACT(GlaInferMeta)
CODEGEN_FIXTURE_EXACT(GlaGradInferMeta)
#undef CODEGEN_FIXTURE_EXACT

// pscan(Tensor a, Tensor x, Tensor initial_state?, bool reverse) -> y
inline void PscanInferMeta(const MetaTensor& a, const MetaTensor& x,
                           const MetaTensor& initial_state, bool reverse, MetaTensor* y) {}

// pscan_grad(a, x, initial_state?, y, y_grad, reverse) -> a_grad, x_grad, initial_state_grad?
inline void PscanGradInferMeta(const MetaTensor& a, const MetaTensor& x,
                               const MetaTensor& initial_state, const MetaTensor& y,
                               const MetaTensor& y_grad, bool reverse, MetaTensor* a_grad,
                               MetaTensor* x_grad, MetaTensor* initial_state_grad) {}

// right_flood(Tensor x, int axis, bool reverse, str hole) -> out, index (int64)
inline void RightFloodInferMeta(const MetaTensor& x, int axis, bool reverse,
                                const std::string& hole, MetaTensor* out, MetaTensor* index) {}

// right_flood_grad with infer_meta param [index, out_grad, axis] -> x_grad
inline void RightFloodGradInferMeta(const MetaTensor& index, const MetaTensor& out_grad, int axis,
                                    MetaTensor* x_grad) {}

// gla(q, k, v, gk, initial_state?, float scale, bool output_final_state, bool head_first)
//   -> o, final_state?
inline void GlaInferMeta(const MetaTensor& q, const MetaTensor& k, const MetaTensor& v,
                         const MetaTensor& gk, const MetaTensor& initial_state, float scale,
                         bool output_final_state, bool head_first, MetaTensor* o,
                         MetaTensor* final_state) {}

// gla_grad(q, k, v, gk, initial_state?, o, o_grad, final_state_grad?, scale,
//          output_final_state, head_first) -> q_grad, k_grad, v_grad, gk_grad, initial_state_grad?
inline void GlaGradInferMeta(const MetaTensor& q, const MetaTensor& k, const MetaTensor& v,
                             const MetaTensor& gk, const MetaTensor& initial_state,
                             const MetaTensor& o, const MetaTensor& o_grad,
                             const MetaTensor& final_state_grad, float scale,
                             bool output_final_state, bool head_first, MetaTensor* q_grad,
                             MetaTensor* k_grad, MetaTensor* v_grad, MetaTensor* gk_grad,
                             MetaTensor* initial_state_grad) {}

}  // namespace phi
