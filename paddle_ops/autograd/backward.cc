#include "paddle_ops/autograd/backward.h"

#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "paddle_ops_gen/api.h"

namespace paddle_ops {

namespace {

// Where gradient for a tensor arrives: (node, slot). Leaves use their accumulation node.
Edge EdgeOf(const Tensor& t, const char* what, size_t index) {
  AutogradMeta* m = t.autograd_meta();
  if (m->grad_node) return Edge{m->grad_node, m->out_slot};
  PADDLE_ENFORCE(!t.stop_gradient(),
                 phi::errors::PreconditionNotMet(
                     "%s[%d] does not require grad (stop_gradient=True), so no gradient can flow "
                     "through it",
                     what, index));
  return Edge{egr::AccumulationNodeOf(t), 0};
}

// The (node, slot) pairs where the gradient of a no_grad_vars tensor would arrive: edges into
// them are cut for one pass. A tensor with no history that needs no gradient has none.
using CutSet = std::set<std::pair<const GradNodeBase*, size_t>>;
CutSet CutSetOf(const std::vector<Tensor>& no_grad_vars) {
  CutSet cut;
  for (const Tensor& t : no_grad_vars) {
    AutogradMeta* m = t.autograd_meta();
    if (m->grad_node) {
      cut.emplace(m->grad_node.get(), m->out_slot);
    } else if (!t.stop_gradient()) {
      cut.emplace(egr::AccumulationNodeOf(t).get(), 0);
    }
  }
  return cut;
}

void AccumulateInto(OptionalTensor& slot, const Tensor& g) {
  if (!slot) {
    slot = g;
  } else {
    slot = egr::AddGrad(*slot, g);
  }
}

// Runs the graph. With `capture`, gradients arriving at the captured (node, slot) pairs
// are returned and leaves' .grad is left alone; without it, leaves accumulate. Edges into
// the pairs of `cut` carry nothing (paddle.grad's no_grad_vars).
// All its bookkeeping is local, so passes on several threads share only the graph's nodes,
// each run under its node's lock, and the leaves' .grad, added to under the leaf's lock.
std::vector<OptionalTensor> RunBackward(const std::vector<Tensor>& outputs,
                                        const std::vector<OptionalTensor>& grad_outputs,
                                        bool retain_graph, const std::vector<Edge>* capture,
                                        const CutSet& cut = {}) {
  auto followed = [&cut](const Edge& e) {
    return e.valid() && (cut.empty() || cut.count({e.node.get(), e.slot}) == 0);
  };
  PADDLE_ENFORCE(grad_outputs.empty() || grad_outputs.size() == outputs.size(),
                 phi::errors::InvalidArgument("got %d grad_outputs for %d outputs", grad_outputs.size(),
                                              outputs.size()));
  std::unordered_map<GradNodeBase*, std::vector<OptionalTensor>> buffers;
  std::unordered_map<GradNodeBase*, std::shared_ptr<GradNodeBase>> owners;
  std::vector<std::shared_ptr<GradNodeBase>> roots;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    Edge e = EdgeOf(out, "outputs", i);
    Tensor g;
    if (i < grad_outputs.size() && grad_outputs[i]) {
      g = *grad_outputs[i];
      PADDLE_ENFORCE(g.dims() == out.dims(),
                     phi::errors::InvalidArgument("grad_outputs[%d] has shape %s but outputs[%d] has shape %s",
                                                  i, g.dims().to_str(), i, out.dims().to_str()));
    } else {
      g = experimental::full_like(out, phi::Scalar(1.0), phi::DataType::UNDEFINED);
    }
    auto& buf = buffers[e.node.get()];
    buf.resize(e.node->num_outputs());
    AccumulateInto(buf[e.slot], g);
    owners[e.node.get()] = e.node;
    roots.push_back(e.node);
  }

  // Count, for every reachable node, how many edges lead into it.
  std::unordered_map<GradNodeBase*, int> pending;
  std::deque<GradNodeBase*> stack;
  std::unordered_set<GradNodeBase*> seen;
  for (auto& r : roots)
    if (seen.insert(r.get()).second) stack.push_back(r.get());
  while (!stack.empty()) {
    GradNodeBase* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->edges()) {
      if (!followed(e)) continue;
      ++pending[e.node.get()];
      owners[e.node.get()] = e.node;
      if (seen.insert(e.node.get()).second) stack.push_back(e.node.get());
    }
  }

  std::vector<OptionalTensor> captured(capture ? capture->size() : 0);
  std::deque<GradNodeBase*> ready;
  for (GradNodeBase* n : seen)
    if (pending[n] == 0) ready.push_back(n);
  while (!ready.empty()) {
    GradNodeBase* n = ready.front();
    ready.pop_front();
    auto& buf = buffers[n];
    buf.resize(n->num_outputs());
    if (capture) {
      for (size_t k = 0; k < capture->size(); ++k) {
        if ((*capture)[k].node.get() == n && buf[(*capture)[k].slot]) captured[k] = buf[(*capture)[k].slot];
      }
    }
    std::vector<OptionalTensor> input_grads;
    {
      std::lock_guard<std::mutex> lock(n->mutex());
      if (!(capture && n->IsAccumulation())) input_grads = (*n)(buf);
      if (!retain_graph) n->ClearTensorWrappers();
    }
    const auto& edges = n->edges();
    for (size_t j = 0; j < edges.size(); ++j) {
      const Edge& e = edges[j];
      if (!followed(e)) continue;
      if (j < input_grads.size() && input_grads[j]) {
        auto& dst = buffers[e.node.get()];
        dst.resize(e.node->num_outputs());
        AccumulateInto(dst[e.slot], *input_grads[j]);
      }
      if (--pending[e.node.get()] == 0) ready.push_back(e.node.get());
    }
    buffers.erase(n);
  }
  return captured;
}

}  // namespace

void Backward(const std::vector<Tensor>& outputs, const std::vector<OptionalTensor>& grad_outputs,
              bool retain_graph) {
  RunBackward(outputs, grad_outputs, retain_graph, nullptr);
}

std::vector<OptionalTensor> Grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                                 const std::vector<OptionalTensor>& grad_outputs, bool retain_graph,
                                 bool allow_unused, const std::vector<Tensor>& no_grad_vars) {
  std::vector<Edge> capture;
  for (size_t i = 0; i < inputs.size(); ++i) capture.push_back(EdgeOf(inputs[i], "inputs", i));
  std::vector<OptionalTensor> result =
      RunBackward(outputs, grad_outputs, retain_graph, &capture, CutSetOf(no_grad_vars));
  for (size_t i = 0; i < result.size(); ++i) {
    PADDLE_ENFORCE(result[i] || allow_unused,
                   phi::errors::InvalidArgument(
                       "inputs[%d] is not used to compute the outputs, so it has no gradient; "
                       "pass allow_unused=True to get None for it",
                       i));
  }
  return result;
}

}  // namespace paddle_ops
