// gla (docs/spec.md §5) on the CPU: the choice between the chunked form and the recurrent form
// (recurrent.h), and the CPU device step of the gla kernels. Both forms run from chunk_cpu.cc, one
// Highway source compiled for every target and chosen at run time (kernels/funcs/simd/cpu_isa.h).
#pragma once

#include <cstdint>
#include <functional>
#include <type_traits>

#include <vector>

#include "kernels/gla/recurrent.h"
#include "kernels/util/cast_value.h"
#include "paddle_ops/common/flags.h"
#include "paddle_ops/core/device_context.h"

namespace phi {
namespace funcs {
namespace gla_cpu {

constexpr int64_t kGlaCpuChunk = 32;  // 16, 32, 64 timed on SSE2, 32, 48, 64 on AVX-512 (Zen 4): 32 the best
constexpr int64_t kGlaCpuSub = 16;
// The default path: chunked from this length and key size on (below them the recurrent form
// was as fast or faster in that timing: at Dk = Dv = 64 it is about 1.4x faster).
constexpr int64_t kGlaCpuChunkedMinT = 32;
constexpr int64_t kGlaCpuChunkedMinDk = 128;

// The chunked form raises gates below this floor to it as it loads them (a NaN stays NaN).
// Exact, not an approximation: a gate at or below the floor makes every decay across it
// exp(<= -1e4 + the other gates of the chunk) = 0 in float, as the true gate does, as long as
// the chunk's other gates sum to less than 1e4 - 104 (31 gates each <= 88, above which exp
// overflows float anyway, stay far below). It keeps the in-chunk cumulative decays B finite and
// small: a -inf gate would make B_r - B_s = -inf - (-inf) = NaN, and a huge finite one (-1e30)
// would swallow the small gates beside it in B's double sum (B_r - B_s = 0 where
// sum_{s < u <= r} gk_u should remain). With |B| <= 32 * 1e4 the differences of B keep about
// 1e-10 absolute, far below float's rounding of the decays.
constexpr float kGlaCpuGateFloor = -1e4f;

// The recurrent backward in float32 keeps the state of a channel in double (its gk gradient within
// 1e-5 where the channel decays strongly: docs/spec.md §5) when one of its gates in the head is
// below this. In a sweep of fuzzer-like inputs (T <= 40, half the values 0) the float state kept
// gk_grad within 1.9e-6 for gates in [-0.5, 0] and reached 1.9e-5 in [-1, -0.5], 3.9e-2 in
// [-4.5, -3.5]. Language models' gates (logsigmoid(x) / 16) stay above it: they keep the float
// state's speed.
constexpr float kGlaCpuStrongGate = -0.5f;

// The flag PADDLE_OPS_GLA_CPU (paddle_ops/common/flags.h) = chunked|recurrent (looked up per
// call): force one CPU path; auto (the default), the chunked form runs for T >= kGlaCpuChunkedMinT and Dk >= kGlaCpuChunkedMinDk. float64
// always runs the recurrent form.
inline bool UseGlaChunkedOnCpu(int64_t T, int64_t Dk) {
  const auto path = paddle_ops::flags::GlaCpuPath();
  if (path == paddle_ops::flags::GlaCpu::kAuto) return T >= kGlaCpuChunkedMinT && Dk >= kGlaCpuChunkedMinDk;
  return path == paddle_ops::flags::GlaCpu::kChunked;
}


// A whole call (every head) on the target in use: the chunked form when `chunked` (never for
// float64), the recurrent one otherwise (chunk_cpu.cc, for float, double, float16, bfloat16).
template <typename T>
void Forward(const GlaData<T>& d, double scale, bool chunked);
template <typename T>
void Backward(const GlaGradData<T>& d, double scale, bool chunked);
#define PADDLE_OPS_GLA_CPU_DECLARE(T)                                           \
  template <>                                                                   \
  void Forward<T>(const GlaData<T>& d, double scale, bool chunked);             \
  template <>                                                                   \
  void Backward<T>(const GlaGradData<T>& d, double scale, bool chunked);
PADDLE_OPS_GLA_CPU_DECLARE(float)
PADDLE_OPS_GLA_CPU_DECLARE(double)
PADDLE_OPS_GLA_CPU_DECLARE(dtype::float16)
PADDLE_OPS_GLA_CPU_DECLARE(dtype::bfloat16)
#undef PADDLE_OPS_GLA_CPU_DECLARE

}  // namespace gla_cpu
}  // namespace funcs

// ---- the CPU device step of the gla kernels (kernels/impl/gla_kernel_impl.h) -----------------
// The chunked form (float32 and the 16-bit types, computing in float) when UseGlaChunkedOnCpu
// says so, else the recurrent one (float64 always); both directions take the same path, on the
// target in use. One head per task; each head's result is independent of the
// thread count (one sequential computation per head).
namespace gla {

template <typename T>
bool RunsChunked(const GlaShape& s) {
  return !std::is_same<T, double>::value && funcs::gla_cpu::UseGlaChunkedOnCpu(s.T, s.Dk);
}

template <typename T>
void Forward(const CPUContext&, const GlaData<T>& d, double scale) {
  funcs::gla_cpu::Forward<T>(d, scale, RunsChunked<T>(d.s));
}

template <typename T>
void Backward(const CPUContext&, const GlaGradData<T>& d, double scale) {
  funcs::gla_cpu::Backward<T>(d, scale, RunsChunked<T>(d.s));
}

template <typename From, typename To>
void Convert(const CPUContext&, const From* src, To* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = CastValue<To>(src[i]);
}

inline std::vector<int64_t> ReadOffsets(const CPUContext&, const DenseTensor& cu_seqlens) {
  return OffsetsFromHost(cu_seqlens, cu_seqlens.raw_data());
}

inline void ForEachSequence(const CPUContext&, int64_t count, const std::function<void(int64_t)>& step) {
  for (int64_t n = 0; n < count; ++n) step(n);
}

template <typename T>
bool ForwardPacked(const CPUContext&, const GlaData<T>&, const DenseTensor&, int64_t, double) {
  return false;  // the CPU runs each sequence on its own
}

}  // namespace gla
}  // namespace phi

