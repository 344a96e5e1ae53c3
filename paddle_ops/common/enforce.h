// PADDLE_ENFORCE-style checks with typed errors. Each error code maps to one Python
// exception type in the bindings (see paddle_ops/python/module.cc):
//   OutOfRange -> IndexError, InvalidArgument -> ValueError, InvalidType -> TypeError,
//   NotFound / PreconditionNotMet / Unimplemented / Fatal -> RuntimeError,
//   ResourceExhausted -> MemoryError.
#pragma once

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

namespace detail {
inline void FormatInto(std::ostringstream& os, const char* fmt) {
  for (; *fmt; ++fmt) {
    if (fmt[0] == '%' && fmt[1] == '%') ++fmt;
    os << *fmt;
  }
}
// printf-like but type-safe: every conversion (%d, %ld, %s, %f, %g, ...) prints the next
// argument with operator<<, so a wrong length modifier cannot corrupt the message.
template <typename A, typename... Rest>
void FormatInto(std::ostringstream& os, const char* fmt, A&& a, Rest&&... rest) {
  for (; *fmt; ++fmt) {
    if (fmt[0] == '%') {
      if (fmt[1] == '%') {
        os << '%';
        ++fmt;
        continue;
      }
      ++fmt;
      while (*fmt && std::string("-+ #0123456789.lhzjtL").find(*fmt) != std::string::npos) ++fmt;
      os << std::forward<A>(a);
      if (*fmt) ++fmt;
      return FormatInto(os, fmt, std::forward<Rest>(rest)...);
    }
    os << *fmt;
  }
}
}  // namespace detail

template <typename... Args>
std::string Sprintf(const char* fmt, Args&&... args) {
  std::ostringstream os;
  os.precision(17);
  detail::FormatInto(os, fmt, std::forward<Args>(args)...);
  return os.str();
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
  ErrorSummary name(const char* fmt, Args&&... args) {                  \
    return ErrorSummary(ErrorCode::code, Sprintf(fmt, std::forward<Args>(args)...)); \
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
