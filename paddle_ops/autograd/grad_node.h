// The eager autograd graph. Each forward op that needs a gradient records one GradNode:
// what backward.yaml says its grad op needs (saved tensors, attributes) and one Edge per
// forward input to the node that produced that input. Leaves that want a gradient get a
// GradNodeAccumulation, which adds what arrives into the tensor's .grad.
#pragma once

#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "paddle_ops/autograd/tensor.h"
#include "paddle_ops/common/optional.h"
#include "paddle_ops/common/scalar.h"

namespace paddle_ops {

// Gradient recording on/off for the current thread (paddle_ops.no_grad()).
class GradMode {
 public:
  static bool IsEnabled();
  static void SetEnabled(bool enabled);
};

struct Edge {
  std::shared_ptr<GradNodeBase> node;
  size_t slot = 0;  // which forward output of `node`'s op the gradient belongs to
  bool valid() const { return node != nullptr; }
};

// A tensor saved for backward: the data only, without autograd history (no cycles).
class TensorWrapper {
 public:
  TensorWrapper() = default;
  explicit TensorWrapper(const Tensor& t) : impl_(t.impl()), present_(t.defined()) {}
  explicit TensorWrapper(const paddle::optional<Tensor>& t)
      : impl_(t ? t->impl() : nullptr), present_(t.has_value() && t->defined()) {}
  // The saved tensor; throws if the graph was freed by a backward without retain_graph.
  Tensor Recover(const char* node_name, const char* arg) const;
  paddle::optional<Tensor> RecoverOptional(const char* node_name, const char* arg) const;
  void Clear() { impl_.reset(); }

 private:
  std::shared_ptr<phi::DenseTensor> impl_;
  bool present_ = false;
};

class GradNodeBase {
 public:
  GradNodeBase(size_t num_inputs, size_t num_outputs)
      : edges_(num_inputs), output_metas_(num_outputs), output_places_(num_outputs) {}
  // Releases the nodes this one alone keeps alive with a work list, not by nested destructors,
  // so freeing a chain of any length takes constant stack.
  virtual ~GradNodeBase();

  // grads[i]: gradient of forward output i (absent if nothing flowed into it).
  // Returns one gradient per forward input (absent where none).
  virtual std::vector<OptionalTensor> operator()(std::vector<OptionalTensor>& grads) = 0;
  virtual std::string name() const = 0;
  // Drop saved tensors (backward without retain_graph).
  virtual void ClearTensorWrappers() {}
  virtual bool IsAccumulation() const { return false; }

  // Connects forward input `slot` to its producer (or its accumulation node); inputs that
  // do not require grad get no edge.
  void SetEdge(size_t slot, const Tensor& input);
  void SetEdge(size_t slot, const paddle::optional<Tensor>& input) {
    if (input) SetEdge(slot, *input);
  }
  const std::vector<Edge>& edges() const { return edges_; }
  // Held by the engine while it runs this node or frees its saved tensors: a graph part shared
  // by backward passes on several threads runs one pass at a time.
  std::mutex& mutex() const { return mu_; }
  size_t num_outputs() const { return output_metas_.size(); }
  // Remembers forward output `slot`'s dims/dtype/place to make zeros when no grad arrives.
  void SetOutputMeta(size_t slot, const Tensor& out);
  Tensor ZerosForOutput(size_t slot) const;

 protected:
  std::vector<Edge> edges_;
  std::vector<phi::DenseTensorMeta> output_metas_;
  std::vector<phi::Place> output_places_;
  mutable std::mutex mu_;
};

class GradNodeAccumulation : public GradNodeBase {
 public:
  explicit GradNodeAccumulation(std::weak_ptr<AutogradMeta> meta)
      : GradNodeBase(0, 1), meta_(std::move(meta)) {}
  std::vector<OptionalTensor> operator()(std::vector<OptionalTensor>& grads) override;
  std::string name() const override { return "GradNodeAccumulation"; }
  bool IsAccumulation() const override { return true; }
  const std::weak_ptr<AutogradMeta>& meta() const { return meta_; }

 private:
  std::weak_ptr<AutogradMeta> meta_;
};

namespace egr {
// A floating tensor with stop_gradient == false. An integer or bool tensor may be set
// stop_gradient = false (as Paddle allows) but never receives a gradient.
inline bool TakesGrad(const Tensor& t) { return !t.stop_gradient() && phi::IsFloatingType(t.dtype()); }
// True when grad mode is on and any defined input takes a gradient (TakesGrad).
bool RequiresGrad(std::initializer_list<const Tensor*> inputs);
bool RequiresGrad(std::initializer_list<const paddle::optional<Tensor>*> inputs);
// The accumulation node of a leaf that requires grad, made on first use (thread-safe).
std::shared_ptr<GradNodeBase> AccumulationNodeOf(const Tensor& leaf);
// Makes `out` a non-leaf produced by forward output `slot` of `node`. Integer outputs stay
// stop_gradient (no gradient flows through indices).
void SetHistory(Tensor& out, const std::shared_ptr<GradNodeBase>& node, size_t slot);
// a + b (the generated `add` API), used to sum gradients that meet at one tensor.
Tensor AddGrad(const Tensor& a, const Tensor& b);
}  // namespace egr

}  // namespace paddle_ops
