// Place: where a tensor's memory lives (CPU, or GPU:n).
#pragma once

#include <string>

namespace phi {

enum class AllocationType { UNDEFINED = 0, CPU = 1, GPU = 2 };

class Place {
 public:
  Place() = default;
  explicit Place(AllocationType type, int device_id = 0)
      : type_(type), device_id_(type == AllocationType::GPU ? device_id : 0) {}
  AllocationType GetType() const { return type_; }
  int GetDeviceId() const { return device_id_; }
  bool operator==(const Place& o) const { return type_ == o.type_ && device_id_ == o.device_id_; }
  bool operator!=(const Place& o) const { return !(*this == o); }
  std::string DebugString() const;  // "Place(cpu)", "Place(gpu:0)"
  std::string ShortString() const;  // "cpu", "gpu:0"

 private:
  AllocationType type_ = AllocationType::UNDEFINED;
  int device_id_ = 0;
};

class CPUPlace : public Place {
 public:
  CPUPlace() : Place(AllocationType::CPU) {}
};
class GPUPlace : public Place {
 public:
  explicit GPUPlace(int id = 0) : Place(AllocationType::GPU, id) {}
};

}  // namespace phi
