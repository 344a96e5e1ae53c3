// The backward engine: runs the grad nodes reachable from `outputs` in dependency order.
#pragma once

#include <vector>

#include "paddle_ops/autograd/grad_node.h"

namespace paddle_ops {

// Tensor.backward(): accumulate gradients into the .grad of every leaf that requires one.
// A missing grad_output means ones of the output's shape.
void Backward(const std::vector<Tensor>& outputs, const std::vector<OptionalTensor>& grad_outputs,
              bool retain_graph);

// paddle_ops.grad(): the gradients of `outputs` w.r.t. `inputs`, returned rather than
// accumulated. An input that `outputs` does not depend on raises unless allow_unused, in
// which case its entry is absent. No gradient flows through the tensors of `no_grad_vars`
// (constants for this call only).
std::vector<OptionalTensor> Grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                                 const std::vector<OptionalTensor>& grad_outputs, bool retain_graph,
                                 bool allow_unused, const std::vector<Tensor>& no_grad_vars = {});

}  // namespace paddle_ops
