// Helpers shared by the C++ tests (unittests/cpp/*.cc): catching the library's errors and
// matching their messages.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <string>

#include "paddle_ops/common/enforce.h"

namespace paddle_ops_test {

// Runs `fn` and returns the EnforceNotMet it throws; fails the test (and returns a FATAL error)
// if it throws nothing or something else.
template <typename Fn>
phi::EnforceNotMet CatchEnforce(Fn&& fn) {
  try {
    fn();
  } catch (const phi::EnforceNotMet& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-EnforceNotMet exception: " << e.what();
    return phi::EnforceNotMet(phi::ErrorSummary(phi::ErrorCode::FATAL, "<wrong exception>"), "", 0);
  }
  ADD_FAILURE() << "expected an EnforceNotMet, nothing was thrown";
  return phi::EnforceNotMet(phi::ErrorSummary(phi::ErrorCode::FATAL, "<nothing thrown>"), "", 0);
}

// The bits of a float32 and back.
inline float BitsAsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline bool Contains(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

}  // namespace paddle_ops_test
