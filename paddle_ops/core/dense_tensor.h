// DenseTensor: a contiguous (row-major) tensor with shape, dtype and place, whose memory is
// a shared Allocation (copies of a DenseTensor share data, as in phi).
#pragma once

#include <memory>

#include "paddle_ops/common/data_type.h"
#include "paddle_ops/common/ddim.h"
#include "paddle_ops/common/enforce.h"
#include "paddle_ops/common/place.h"
#include "paddle_ops/core/allocator.h"

namespace phi {

enum class DataLayout { ALL_LAYOUT = 0, NCHW = 0 };

struct DenseTensorMeta {
  DataType dtype = DataType::UNDEFINED;
  DDim dims;
  DataLayout layout = DataLayout::ALL_LAYOUT;
  size_t offset = 0;  // bytes into the allocation
};

class DenseTensor {
 public:
  DenseTensor() = default;
  DenseTensor(std::shared_ptr<Allocation> holder, const DenseTensorMeta& meta)
      : holder_(std::move(holder)), meta_(meta) {}
  DenseTensor(DataType dtype, const DDim& dims) { meta_.dtype = dtype, meta_.dims = dims; }

  const DDim& dims() const { return meta_.dims; }
  DataType dtype() const { return meta_.dtype; }
  DataType type() const { return meta_.dtype; }
  DataLayout layout() const { return meta_.layout; }
  const DenseTensorMeta& meta() const { return meta_; }
  int64_t numel() const { return product(meta_.dims); }
  // Place of the data; UNDEFINED place if not allocated yet.
  const Place& place() const;
  bool initialized() const { return holder_ != nullptr && holder_->ptr() != nullptr; }
  bool has_allocation() const { return holder_ != nullptr; }
  size_t capacity() const { return holder_ ? holder_->size() : 0; }
  const std::shared_ptr<Allocation>& Holder() const { return holder_; }

  // Changes the shape without touching memory (numel must stay within the allocation when
  // the tensor is already allocated).
  DenseTensor& Resize(const DDim& dims);
  void set_dtype(DataType dtype) { meta_.dtype = dtype; }
  void set_meta(const DenseTensorMeta& meta) { meta_ = meta; }
  // Share the allocation of `src` (metadata too).
  DenseTensor& ShareDataWith(const DenseTensor& src);

  // Allocates numel * SizeOf(dtype) bytes on `place` unless the current allocation is on
  // that place and large enough. Returns the data pointer.
  void* AllocateFrom(Allocator* allocator, DataType dtype, const Place& place);

  template <typename T>
  const T* data() const {
    CheckType(CppTypeToDataType<T>::Type());
    return reinterpret_cast<const T*>(raw_data());
  }
  template <typename T>
  T* data() {
    CheckType(CppTypeToDataType<T>::Type());
    return reinterpret_cast<T*>(raw_data());
  }
  const void* raw_data() const;
  void* raw_data();

 private:
  void CheckType(DataType t) const;
  std::shared_ptr<Allocation> holder_;
  DenseTensorMeta meta_;
};

}  // namespace phi
