// gla (docs/spec.md §5) on the CPU: the choice between the chunked form (chunk_cpu_impl.h, built
// once per instruction set: chunk_cpu_baseline.cc, chunk_cpu_avx2.cc, chunk_cpu_avx512.cc, chosen
// at run time by kernels/funcs/simd/cpu_isa.h) and the recurrent form (recurrent.h), and the CPU
// device step of the gla kernels. No Eigen here: only the per-ISA files include it.
#pragma once

#include <cstdint>
#include <type_traits>

#include <vector>

#include "kernels/funcs/simd/cpu_isa.h"
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

// The flag PADDLE_OPS_GLA_CPU (paddle_ops/common/flags.h) = chunked|recurrent (looked up per
// call): force one CPU path; auto (the default), the chunked form runs for T >= kGlaCpuChunkedMinT and Dk >= kGlaCpuChunkedMinDk. float64
// always runs the recurrent form.
inline bool UseGlaChunkedOnCpu(int64_t T, int64_t Dk) {
  const auto path = paddle_ops::flags::GlaCpuPath();
  if (path == paddle_ops::flags::GlaCpu::kAuto) return T >= kGlaCpuChunkedMinT && Dk >= kGlaCpuChunkedMinDk;
  return path == paddle_ops::flags::GlaCpu::kChunked;
}


// A whole call (every head), per instruction set: the chunked form when `chunked` (never for
// float64), the recurrent one otherwise, both compiled in chunk_cpu_<isa>.cc.
#define PADDLE_OPS_GLA_CPU_DECLARE()                                       \
  template <typename T>                                                    \
  void Forward(const GlaData<T>& d, double scale, bool chunked);           \
  template <typename T>                                                    \
  void Backward(const GlaGradData<T>& d, double scale, bool chunked);
namespace baseline {
PADDLE_OPS_GLA_CPU_DECLARE()
}  // namespace baseline
namespace avx2 {
PADDLE_OPS_GLA_CPU_DECLARE()
}  // namespace avx2
namespace avx512 {
PADDLE_OPS_GLA_CPU_DECLARE()
}  // namespace avx512
#undef PADDLE_OPS_GLA_CPU_DECLARE

// isa::fn<T>(args...) for the instruction set in use (kernels/funcs/simd/cpu_isa.h).
#if defined(PADDLE_OPS_CPU_ISA_AVX512)
#define PADDLE_OPS_GLA_CPU_AVX512_CASE(fn, ...) \
  case ::phi::funcs::simd::CpuIsa::kAvx512:     \
    return ::phi::funcs::gla_cpu::avx512::fn(__VA_ARGS__);
#else
#define PADDLE_OPS_GLA_CPU_AVX512_CASE(fn, ...)
#endif
#if defined(PADDLE_OPS_CPU_ISA_AVX2)
#define PADDLE_OPS_GLA_CPU_AVX2_CASE(fn, ...) \
  case ::phi::funcs::simd::CpuIsa::kAvx2:     \
    return ::phi::funcs::gla_cpu::avx2::fn(__VA_ARGS__);
#else
#define PADDLE_OPS_GLA_CPU_AVX2_CASE(fn, ...)
#endif
#define PADDLE_OPS_GLA_CPU_DISPATCH(fn, ...)       \
  switch (::phi::funcs::simd::CpuIsaInUse()) {    \
    PADDLE_OPS_GLA_CPU_AVX512_CASE(fn, __VA_ARGS__) \
    PADDLE_OPS_GLA_CPU_AVX2_CASE(fn, __VA_ARGS__)   \
    default:                                       \
      return ::phi::funcs::gla_cpu::baseline::fn(__VA_ARGS__); \
  }

}  // namespace gla_cpu
}  // namespace funcs

// ---- the CPU device step of the gla kernels (kernels/impl/gla_kernel_impl.h) -----------------
// The chunked form (float32 and the 16-bit types, computing in float) when UseGlaChunkedOnCpu
// says so, else the recurrent one (float64 always); both directions take the same path, built
// for the instruction set in use. One head per task; each head's result is independent of the
// thread count (one sequential computation per head).
namespace gla {

template <typename T>
bool RunsChunked(const GlaShape& s) {
  return !std::is_same<T, double>::value && funcs::gla_cpu::UseGlaChunkedOnCpu(s.T, s.Dk);
}

template <typename T>
void Forward(const CPUContext&, const GlaData<T>& d, double scale) {
  PADDLE_OPS_GLA_CPU_DISPATCH(Forward<T>, d, scale, RunsChunked<T>(d.s))
}

template <typename T>
void Backward(const CPUContext&, const GlaGradData<T>& d, double scale) {
  PADDLE_OPS_GLA_CPU_DISPATCH(Backward<T>, d, scale, RunsChunked<T>(d.s))
}

template <typename From, typename To>
void Convert(const CPUContext&, const From* src, To* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = CastValue<To>(src[i]);
}

inline std::vector<int64_t> ReadOffsets(const CPUContext&, const DenseTensor& cu_seqlens) {
  return OffsetsFromHost(cu_seqlens, cu_seqlens.raw_data());
}

}  // namespace gla
}  // namespace phi

#undef PADDLE_OPS_GLA_CPU_DISPATCH
#undef PADDLE_OPS_GLA_CPU_AVX2_CASE
#undef PADDLE_OPS_GLA_CPU_AVX512_CASE
