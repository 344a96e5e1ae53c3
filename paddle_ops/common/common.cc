// Definitions for paddle_ops/common: DataType names, DDim, Place, errors.
#include <sstream>

#include "paddle_ops/common/data_type.h"
#include "paddle_ops/common/ddim.h"
#include "paddle_ops/common/enforce.h"
#include "paddle_ops/common/place.h"

namespace phi {

size_t SizeOf(DataType dtype) {
  switch (dtype) {
    case DataType::BOOL:
    case DataType::UINT8:
    case DataType::INT8:
      return 1;
    case DataType::INT16:
    case DataType::FLOAT16:
    case DataType::BFLOAT16:
      return 2;
    case DataType::INT32:
    case DataType::FLOAT32:
      return 4;
    case DataType::INT64:
    case DataType::FLOAT64:
      return 8;
    default:
      PADDLE_THROW(errors::InvalidType("SizeOf: undefined data type"));
  }
}

std::string DataTypeToString(DataType dtype) {
  switch (dtype) {
    case DataType::BOOL: return "bool";
    case DataType::UINT8: return "uint8";
    case DataType::INT8: return "int8";
    case DataType::INT16: return "int16";
    case DataType::INT32: return "int32";
    case DataType::INT64: return "int64";
    case DataType::FLOAT16: return "float16";
    case DataType::BFLOAT16: return "bfloat16";
    case DataType::FLOAT32: return "float32";
    case DataType::FLOAT64: return "float64";
    default: return "undefined";
  }
}

DataType StringToDataType(const std::string& name) {
  for (int i = 1; i < static_cast<int>(DataType::NUM_DATA_TYPES); ++i) {
    if (DataTypeToString(static_cast<DataType>(i)) == name) return static_cast<DataType>(i);
  }
  if (name == "float" ) return DataType::FLOAT32;
  if (name == "double") return DataType::FLOAT64;
  if (name == "half") return DataType::FLOAT16;
  if (name == "int") return DataType::INT32;
  if (name == "long") return DataType::INT64;
  return DataType::UNDEFINED;
}

DDim::DDim(const int64_t* d, int rank) {
  PADDLE_ENFORCE(rank >= 0 && rank <= kMaxRank,
                 errors::InvalidArgument("tensor rank must be in [0, %d], but got %d", kMaxRank, rank));
  rank_ = rank;
  for (int i = 0; i < rank; ++i) dims_[i] = d[i];
}

int64_t DDim::at(int i) const {
  PADDLE_ENFORCE(i >= 0 && i < rank_,
                 errors::OutOfRange("dimension index must be in [0, %d), but got %d", rank_, i));
  return dims_[i];
}

bool DDim::operator==(const DDim& o) const {
  if (rank_ != o.rank_) return false;
  for (int i = 0; i < rank_; ++i)
    if (dims_[i] != o.dims_[i]) return false;
  return true;
}

std::string DDim::to_str() const {
  std::ostringstream os;
  os << '[';
  for (int i = 0; i < rank_; ++i) os << (i ? ", " : "") << dims_[i];
  os << ']';
  return os.str();
}

DDim make_ddim(const std::vector<int64_t>& dims) {
  return DDim(dims.data(), static_cast<int>(dims.size()));
}
std::vector<int64_t> vectorize(const DDim& d) { return std::vector<int64_t>(d.Get(), d.Get() + d.size()); }
// Checked, as NumPy checks an array's size: the product of the nonzero dims must fit int64 (so
// every sub-product, stride and element count of the shape does, whatever zero it holds), else
// ValueError naming the shape. *zero tells whether a dim is 0.
namespace {
int64_t NonzeroProduct(const DDim& d, int begin, int end, bool* zero) {
  int64_t p = 1;
  *zero = false;
  for (int i = begin; i < end; ++i) {
    if (d[i] == 0) {
      *zero = true;
    } else if (__builtin_mul_overflow(p, d[i], &p)) {
      PADDLE_THROW(errors::InvalidArgument(
          "a tensor of shape %s would have more than 2**63 - 1 elements (the product of its dims "
          "overflows int64)",
          d.to_str()));
    }
  }
  return p;
}
}  // namespace

int64_t product(const DDim& d) { return product(d, 0, d.size()); }
int64_t product(const DDim& d, int begin, int end) {
  bool zero = false;
  const int64_t p = NonzeroProduct(d, begin, end, &zero);
  return zero ? 0 : p;
}

int64_t CheckedByteCount(const DDim& d, size_t element_size) {
  bool zero = false;
  int64_t bytes = 0;
  if (__builtin_mul_overflow(NonzeroProduct(d, 0, d.size(), &zero), static_cast<int64_t>(element_size), &bytes)) {
    PADDLE_THROW(errors::InvalidArgument(
        "a tensor of shape %s with %d-byte elements would take more than 2**63 - 1 bytes", d.to_str(),
        element_size));
  }
  return zero ? 0 : bytes;
}

std::string Place::ShortString() const {
  switch (type_) {
    case AllocationType::CPU: return "cpu";
    case AllocationType::GPU: return "gpu:" + std::to_string(device_id_);
    default: return "undefined";
  }
}
std::string Place::DebugString() const { return "Place(" + ShortString() + ")"; }

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::INVALID_ARGUMENT: return "InvalidArgument";
    case ErrorCode::OUT_OF_RANGE: return "OutOfRange";
    case ErrorCode::INVALID_TYPE: return "InvalidType";
    case ErrorCode::NOT_FOUND: return "NotFound";
    case ErrorCode::RESOURCE_EXHAUSTED: return "ResourceExhausted";
    case ErrorCode::PRECONDITION_NOT_MET: return "PreconditionNotMet";
    case ErrorCode::UNIMPLEMENTED: return "Unimplemented";
    default: return "Fatal";
  }
}

EnforceNotMet::EnforceNotMet(const ErrorSummary& summary, const char* file, int line)
    : code_(summary.code()), message_(summary.error_message()) {
  full_ = summary.to_string() + " (at " + file + ":" + std::to_string(line) + ")";
}

}  // namespace phi
