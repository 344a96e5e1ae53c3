#include "paddle_ops/autograd/grad_node.h"

#include "paddle_ops_gen/api.h"

namespace paddle_ops {

namespace {
thread_local bool g_grad_enabled = true;
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

GradNodeBase::~GradNodeBase() {
  // Take over this node's references; a node whose last reference we then hold is opened in
  // turn (its edges join the list) before it dies, so its own destructor finds nothing to
  // free but nodes that others still hold. A node held twice by one node (x * x) is in the
  // list twice and is opened when the second copy is the last.
  std::vector<std::shared_ptr<GradNodeBase>> pending;
  auto take_edges = [&pending](std::vector<Edge>& edges) {
    for (Edge& e : edges)
      if (e.node) pending.push_back(std::move(e.node));
  };
  take_edges(edges_);
  while (!pending.empty()) {
    std::shared_ptr<GradNodeBase> node = std::move(pending.back());
    pending.pop_back();
    if (node.use_count() == 1) take_edges(node->edges_);
  }
}

void GradNodeBase::SetEdge(size_t slot, const Tensor& input) {
  if (!input.defined() || !egr::TakesGrad(input)) return;
  AutogradMeta* m = input.autograd_meta();
  if (m->grad_node) {
    edges_[slot] = Edge{m->grad_node, m->out_slot};
  } else {
    edges_[slot] = Edge{egr::AccumulationNodeOf(input), 0};
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
    // Read, add and store under the leaf's lock: backward passes on other threads may add
    // into the same .grad at the same time.
    meta->grad.Update([&g](const LockedGrad::Ptr& old) {
      return old ? egr::AddGrad(Tensor(old), g).impl() : g.impl();
    });
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

std::shared_ptr<GradNodeBase> AccumulationNodeOf(const Tensor& leaf) {
  AutogradMeta* m = leaf.autograd_meta();
  std::lock_guard<std::mutex> lock(m->accumulation_mu);
  if (!m->accumulation_node) {
    m->accumulation_node = std::make_shared<GradNodeAccumulation>(leaf.shared_autograd_meta());
  }
  return m->accumulation_node;
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
