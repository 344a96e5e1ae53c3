// MetaTensor: the view of a tensor that InferMeta functions see and set (dims, dtype),
// without data. Wraps a DenseTensor*; a null MetaTensor stands for an absent optional.
#pragma once

#include "paddle_ops/core/dense_tensor.h"

namespace phi {

class MetaTensor {
 public:
  MetaTensor() = default;
  MetaTensor(DenseTensor* tensor) : tensor_(tensor) {}             // NOLINT
  MetaTensor(const DenseTensor& tensor) : tensor_(const_cast<DenseTensor*>(&tensor)) {}  // NOLINT

  explicit operator bool() const { return tensor_ != nullptr; }
  bool initialized() const { return tensor_ != nullptr; }
  int64_t numel() const { return tensor_->numel(); }
  DDim dims() const { return tensor_->dims(); }
  DataType dtype() const { return tensor_->dtype(); }
  DataLayout layout() const { return tensor_->layout(); }
  void set_dims(const DDim& dims);
  void set_dtype(DataType dtype);
  void set_layout(DataLayout) {}
  // Same dims and dtype as `other`.
  void share_meta(const MetaTensor& other);
  void share_dims(const MetaTensor& other) { set_dims(other.dims()); }

 private:
  DenseTensor* tensor_ = nullptr;
};

}  // namespace phi
