// DataType: the element types a DenseTensor can hold, with compile-time traits.
#pragma once

#include <cstdint>
#include <string>

#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/enforce.h"
#include "paddle_ops/common/float16.h"

namespace phi {

enum class DataType {
  UNDEFINED = 0,
  BOOL,
  UINT8,
  INT8,
  INT16,
  INT32,
  INT64,
  FLOAT16,
  BFLOAT16,
  FLOAT32,
  FLOAT64,
  NUM_DATA_TYPES,
};

template <typename T>
struct CppTypeToDataType;
#define PD_DECLARE_CPP_TYPE(cpp_type, data_type)                     \
  template <>                                                        \
  struct CppTypeToDataType<cpp_type> {                               \
    static constexpr DataType Type() { return DataType::data_type; } \
  };
PD_DECLARE_CPP_TYPE(bool, BOOL)
PD_DECLARE_CPP_TYPE(uint8_t, UINT8)
PD_DECLARE_CPP_TYPE(int8_t, INT8)
PD_DECLARE_CPP_TYPE(int16_t, INT16)
PD_DECLARE_CPP_TYPE(int32_t, INT32)
PD_DECLARE_CPP_TYPE(int64_t, INT64)
PD_DECLARE_CPP_TYPE(dtype::float16, FLOAT16)
PD_DECLARE_CPP_TYPE(dtype::bfloat16, BFLOAT16)
PD_DECLARE_CPP_TYPE(float, FLOAT32)
PD_DECLARE_CPP_TYPE(double, FLOAT64)
#undef PD_DECLARE_CPP_TYPE

size_t SizeOf(DataType dtype);
// "float32", "bfloat16", ... (the names Python uses).
std::string DataTypeToString(DataType dtype);
// Inverse of DataTypeToString; also accepts "float" (float32), "double", "half", "int", "long".
// Returns UNDEFINED for an unknown name.
DataType StringToDataType(const std::string& name);
inline bool IsFloatingType(DataType t) {
  return t == DataType::FLOAT16 || t == DataType::BFLOAT16 || t == DataType::FLOAT32 ||
         t == DataType::FLOAT64;
}
inline bool IsIntegerType(DataType t) {
  return t == DataType::UINT8 || t == DataType::INT8 || t == DataType::INT16 ||
         t == DataType::INT32 || t == DataType::INT64;
}

// Calls f(T{}) with T the C++ type of `dtype`; throws InvalidType for UNDEFINED.
#define PD_VISIT_ALL_TYPES(visit_dtype_, name, ...)                                             \
  [&] {                                                                                  \
    switch (visit_dtype_) {                                                              \
      case ::phi::DataType::BOOL: { using data_t = bool; return __VA_ARGS__(); }          \
      case ::phi::DataType::UINT8: { using data_t = uint8_t; return __VA_ARGS__(); }      \
      case ::phi::DataType::INT8: { using data_t = int8_t; return __VA_ARGS__(); }        \
      case ::phi::DataType::INT16: { using data_t = int16_t; return __VA_ARGS__(); }      \
      case ::phi::DataType::INT32: { using data_t = int32_t; return __VA_ARGS__(); }      \
      case ::phi::DataType::INT64: { using data_t = int64_t; return __VA_ARGS__(); }      \
      case ::phi::DataType::FLOAT16: { using data_t = ::phi::dtype::float16; return __VA_ARGS__(); } \
      case ::phi::DataType::BFLOAT16: { using data_t = ::phi::dtype::bfloat16; return __VA_ARGS__(); } \
      case ::phi::DataType::FLOAT32: { using data_t = float; return __VA_ARGS__(); }      \
      case ::phi::DataType::FLOAT64: { using data_t = double; return __VA_ARGS__(); }     \
      default:                                                                           \
        PADDLE_THROW(::phi::errors::InvalidType("%s: unsupported data type %s", name,    \
                                                ::phi::DataTypeToString(visit_dtype_)));  \
    }                                                                                    \
  }()

}  // namespace phi
