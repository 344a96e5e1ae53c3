// PADDLE_ENFORCE-style checks with typed errors. Each error code maps to one Python
// exception type in the bindings (see paddle_ops/python/module.cc):
//   OutOfRange -> IndexError, InvalidArgument -> ValueError, InvalidType -> TypeError,
//   NotFound / PreconditionNotMet / Unimplemented / Fatal -> RuntimeError,
//   ResourceExhausted -> MemoryError.
#pragma once

// fmt is used header-only (no library to link, on the host and in nvcc's host pass).
#ifndef FMT_HEADER_ONLY
#define FMT_HEADER_ONLY
#endif
#include <fmt/format.h>
#include <fmt/printf.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace phi {

enum class ErrorCode {
  INVALID_ARGUMENT,
  OUT_OF_RANGE,
  INVALID_TYPE,
  NOT_FOUND,
  RESOURCE_EXHAUSTED,
  PRECONDITION_NOT_MET,
  UNIMPLEMENTED,
  FATAL,
};

const char* ErrorCodeName(ErrorCode code);  // "InvalidArgument", ...

// printf-style formatting by fmt (fmt::sprintf): conversions, flags, width and precision
// mean what they mean in printf ("%.2f" of 0.5 is "0.50"); a length modifier (%ld, %zu) is
// accepted and needs not match the argument's type. A message must never fail in the
// making: a format that does not fit its arguments (a bug at the call site) gives the
// format text and the arguments, not a different exception.
template <typename... Args>
std::string Sprintf(const char* format, const Args&... args) {
  try {
    return fmt::sprintf(format, args...);
  } catch (const fmt::format_error&) {
    std::string out = format;
    ((out += " | " + fmt::format("{}", args)), ...);
    return out;
  }
}

class ErrorSummary {
 public:
  ErrorSummary(ErrorCode code, std::string msg) : code_(code), msg_(std::move(msg)) {}
  ErrorCode code() const { return code_; }
  const std::string& error_message() const { return msg_; }
  std::string to_string() const { return std::string(ErrorCodeName(code_)) + "Error: " + msg_; }

 private:
  ErrorCode code_;
  std::string msg_;
};

class EnforceNotMet : public std::exception {
 public:
  EnforceNotMet(const ErrorSummary& summary, const char* file, int line);
  ErrorCode code() const { return code_; }
  // The message alone (what Python shows), without the code name or source location.
  const std::string& message() const { return message_; }
  const char* what() const noexcept override { return full_.c_str(); }

 private:
  ErrorCode code_;
  std::string message_;
  std::string full_;
};

namespace errors {
#define PD_DEFINE_ERROR(name, code)                                     \
  template <typename... Args>                                           \
  ErrorSummary name(const char* format, const Args&... args) {           \
    return ErrorSummary(ErrorCode::code, Sprintf(format, args...));               \
  }
PD_DEFINE_ERROR(InvalidArgument, INVALID_ARGUMENT)
PD_DEFINE_ERROR(OutOfRange, OUT_OF_RANGE)
PD_DEFINE_ERROR(InvalidType, INVALID_TYPE)
PD_DEFINE_ERROR(NotFound, NOT_FOUND)
PD_DEFINE_ERROR(ResourceExhausted, RESOURCE_EXHAUSTED)
PD_DEFINE_ERROR(PreconditionNotMet, PRECONDITION_NOT_MET)
PD_DEFINE_ERROR(Unimplemented, UNIMPLEMENTED)
PD_DEFINE_ERROR(Fatal, FATAL)
#undef PD_DEFINE_ERROR
}  // namespace errors

}  // namespace phi

#define PADDLE_THROW(summary) throw ::phi::EnforceNotMet((summary), __FILE__, __LINE__)

#define PADDLE_ENFORCE(cond, summary) \
  do {                                \
    if (!(cond)) PADDLE_THROW(summary); \
  } while (0)

#define PD_ENFORCE_CMP(a, b, op, summary)                                   \
  do {                                                                      \
    if (!((a)op(b))) PADDLE_THROW(summary);                                 \
  } while (0)
#define PADDLE_ENFORCE_EQ(a, b, summary) PD_ENFORCE_CMP(a, b, ==, summary)
#define PADDLE_ENFORCE_NE(a, b, summary) PD_ENFORCE_CMP(a, b, !=, summary)
#define PADDLE_ENFORCE_GT(a, b, summary) PD_ENFORCE_CMP(a, b, >, summary)
#define PADDLE_ENFORCE_GE(a, b, summary) PD_ENFORCE_CMP(a, b, >=, summary)
#define PADDLE_ENFORCE_LT(a, b, summary) PD_ENFORCE_CMP(a, b, <, summary)
#define PADDLE_ENFORCE_LE(a, b, summary) PD_ENFORCE_CMP(a, b, <=, summary)
#define PADDLE_ENFORCE_NOT_NULL(p, summary) PD_ENFORCE_CMP(p, nullptr, !=, summary)
