#include "paddle_ops/autograd/grad_node.h"

#include "paddle_ops_gen/api.h"

namespace paddle_ops {

namespace {
thread_local bool g_grad_enabled = true;

std::shared_ptr<GradNodeBase> AccumulationNodeOf(const Tensor& t) {
  AutogradMeta* m = t.autograd_meta();
  if (!m->accumulation_node) {
    m->accumulation_node = std::make_shared<GradNodeAccumulation>(t.shared_autograd_meta());
  }
  return m->accumulation_node;
}
}  // namespace

bool GradMode::IsEnabled() { return g_grad_enabled; }
void GradMode::SetEnabled(bool enabled) { g_grad_enabled = enabled; }

Tensor TensorWrapper::Recover(const char* node_name, const char* arg) const {
  PADDLE_ENFORCE(impl_ != nullptr,
                 phi::errors::PreconditionNotMet(
                     "%s: the tensor '%s' saved for backward has been freed; call backward() or "
                     "paddle_ops.grad() with retain_graph=True to backpropagate through the graph twice",
                     node_name, arg));
  return Tensor(impl_);
}

paddle::optional<Tensor> TensorWrapper::RecoverOptional(const char* node_name, const char* arg) const {
  if (!present_) return paddle::none;
  return Recover(node_name, arg);
}

void GradNodeBase::SetEdge(size_t slot, const Tensor& input) {
  if (!input.defined() || !egr::TakesGrad(input)) return;
  AutogradMeta* m = input.autograd_meta();
  if (m->grad_node) {
    edges_[slot] = Edge{m->grad_node, m->out_slot};
  } else {
    edges_[slot] = Edge{AccumulationNodeOf(input), 0};
  }
}

void GradNodeBase::SetOutputMeta(size_t slot, const Tensor& out) {
  if (!out.defined()) return;
  output_metas_[slot] = out.dense().meta();
  output_metas_[slot].offset = 0;
  output_places_[slot] = out.place();
}

Tensor GradNodeBase::ZerosForOutput(size_t slot) const {
  auto t = std::make_shared<phi::DenseTensor>();
  t->set_meta(output_metas_[slot]);
  const phi::Place& place = output_places_[slot];
  void* p = t->AllocateFrom(phi::GetAllocator(place), output_metas_[slot].dtype, place);
  phi::MemsetZero(p, place, static_cast<size_t>(t->numel()) * phi::SizeOf(t->dtype()));
  return Tensor(t);
}

std::vector<OptionalTensor> GradNodeAccumulation::operator()(std::vector<OptionalTensor>& grads) {
  auto meta = meta_.lock();
  if (meta && grads[0]) {
    const Tensor& g = *grads[0];
    if (meta->grad) {
      meta->grad = egr::AddGrad(Tensor(meta->grad), g).impl();
    } else {
      meta->grad = g.impl();
    }
  }
  return {};
}

namespace egr {

bool RequiresGrad(std::initializer_list<const Tensor*> inputs) {
  if (!GradMode::IsEnabled()) return false;
  for (const Tensor* t : inputs)
    if (t->defined() && TakesGrad(*t)) return true;
  return false;
}

bool RequiresGrad(std::initializer_list<const paddle::optional<Tensor>*> inputs) {
  if (!GradMode::IsEnabled()) return false;
  for (const auto* t : inputs)
    if (*t && (*t)->defined() && TakesGrad(**t)) return true;
  return false;
}

void SetHistory(Tensor& out, const std::shared_ptr<GradNodeBase>& node, size_t slot) {
  if (!out.defined()) return;
  node->SetOutputMeta(slot, out);
  if (!phi::IsFloatingType(out.dtype())) return;
  AutogradMeta* m = out.autograd_meta();
  m->grad_node = node;
  m->out_slot = slot;
  m->stop_gradient = false;
}

Tensor AddGrad(const Tensor& a, const Tensor& b) { return experimental::add(a, b); }

}  // namespace egr
}  // namespace paddle_ops
