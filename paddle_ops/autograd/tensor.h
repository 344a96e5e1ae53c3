// paddle_ops::Tensor: the user-facing tensor of the eager (dynamic) mode: a shared
// DenseTensor plus autograd metadata (stop_gradient, accumulated grad, producing grad node).
// Copies share both, so a Python object and the graph see the same tensor.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "paddle_ops/common/optional.h"
#include "paddle_ops/core/dense_tensor.h"

namespace paddle_ops {

class GradNodeBase;

// The accumulated gradient of a leaf. Backward passes on several threads (each releases the
// GIL) add into it while Python may read or reset it, so every access takes the lock;
// Update() reads, combines and stores under it, so no accumulation is lost.
class LockedGrad {
 public:
  using Ptr = std::shared_ptr<phi::DenseTensor>;
  LockedGrad() = default;
  LockedGrad(const LockedGrad& other) : value_(other.get()) {}
  LockedGrad& operator=(const LockedGrad& other) { return *this = other.get(); }
  LockedGrad& operator=(Ptr v) {
    std::lock_guard<std::mutex> lock(mu_);
    value_ = std::move(v);
    return *this;
  }
  Ptr get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return value_;
  }
  operator Ptr() const { return get(); }  // NOLINT: reads like the plain pointer it replaces
  explicit operator bool() const { return get() != nullptr; }
  void reset() { *this = nullptr; }
  // value = f(value) under the lock (f must not touch this LockedGrad).
  template <class F>
  void Update(F&& f) {
    std::lock_guard<std::mutex> lock(mu_);
    value_ = f(value_);
  }

 private:
  mutable std::mutex mu_;
  Ptr value_;
};

struct AutogradMeta {
  bool stop_gradient = true;
  LockedGrad grad;                          // accumulated gradient (leaves)
  std::shared_ptr<GradNodeBase> grad_node;  // the node that produced this tensor
  size_t out_slot = 0;                      // which output of grad_node's forward op
  // Created on first use, leaves only; forward ops on several threads may ask for it at once,
  // so it is made and read under accumulation_mu (egr::AccumulationNodeOf).
  std::shared_ptr<GradNodeBase> accumulation_node;
  std::mutex accumulation_mu;
};

class Tensor {
 public:
  Tensor() : meta_(std::make_shared<AutogradMeta>()) {}
  explicit Tensor(std::shared_ptr<phi::DenseTensor> impl)
      : impl_(std::move(impl)), meta_(std::make_shared<AutogradMeta>()) {}
  explicit Tensor(const phi::DenseTensor& dense)
      : Tensor(std::make_shared<phi::DenseTensor>(dense)) {}

  bool defined() const { return impl_ != nullptr; }
  const std::shared_ptr<phi::DenseTensor>& impl() const { return impl_; }
  const phi::DenseTensor& dense() const;  // throws if undefined
  phi::DenseTensor* mutable_dense() const { return impl_.get(); }
  phi::DDim dims() const { return dense().dims(); }
  phi::DataType dtype() const { return dense().dtype(); }
  phi::Place place() const { return dense().place(); }
  int64_t numel() const { return dense().numel(); }

  AutogradMeta* autograd_meta() const { return meta_.get(); }
  const std::shared_ptr<AutogradMeta>& shared_autograd_meta() const { return meta_; }
  bool stop_gradient() const { return meta_->stop_gradient; }
  void set_stop_gradient(bool s) { meta_->stop_gradient = s; }
  bool is_leaf() const { return meta_->grad_node == nullptr; }
  // A tensor sharing the data but none of the autograd history (Tensor.detach()).
  Tensor detach() const { return Tensor(impl_); }

 private:
  std::shared_ptr<phi::DenseTensor> impl_;
  std::shared_ptr<AutogradMeta> meta_;
};

using OptionalTensor = paddle::optional<Tensor>;

}  // namespace paddle_ops
