// The fuzzer's shared part: drawing cases from the fuzz input (dtypes, shapes, values with the
// special ones), host arrays and tensors, the checks (Expect, ExpectExact, Run with the expected
// error code), the scan references used by several ops, and the op table each
// unittests/fuzz/ops/<op>.cc file registers its entries into (REGISTER_FUZZ_OP).
// The fuzzer's includes of the library's internals stand here only (one place to change).
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/util/cast_value.h"
#include "kernels/funcs/cpu/scan_runtime.h"
#include "paddle_ops/common/enforce.h"
#include "paddle_ops/core/device_context.h"
#include "paddle_ops/core/kernel_factory.h"
#include "paddle_ops_gen/api.h"
#include "unittests/cpp/scan_view.h"

namespace paddle_ops_fuzz {


using phi::DataType;
using paddle_ops::Tensor;
namespace api = paddle_ops::experimental;
using LD = long double;
using Fdp = FuzzedDataProvider;

constexpr LD kInf = std::numeric_limits<LD>::infinity();
constexpr LD kNaN = std::numeric_limits<LD>::quiet_NaN();

const DataType kAllTypes[] = {DataType::BOOL,    DataType::UINT8,   DataType::INT8,     DataType::INT16,
                              DataType::INT32,   DataType::INT64,   DataType::FLOAT16,  DataType::BFLOAT16,
                              DataType::FLOAT32, DataType::FLOAT64};
const DataType kFloatTypes[] = {DataType::FLOAT16, DataType::BFLOAT16, DataType::FLOAT32, DataType::FLOAT64};

inline std::string g_case;  // what the current input is, for the failure message

[[noreturn]] inline void Fail(const std::string& what) {
  std::fprintf(stderr, "\n*** paddle_ops fuzz failure: %s\n    case: %s\n", what.c_str(), g_case.c_str());
  std::fflush(stderr);
  std::abort();
}

// ---- host arrays ------------------------------------------------------------------------

struct Arr {
  std::vector<int64_t> dims;
  DataType dtype = DataType::FLOAT32;
  std::vector<LD> v;  // the values the tensor holds (already rounded to dtype)
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
};

inline std::string Str(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

// v rounded to dtype, as the tensor will hold it (the library's own element conversion).
inline LD RoundTo(DataType t, LD v) {
  return PD_VISIT_ALL_TYPES(t, "fuzz", [&] {
    if constexpr (std::is_integral<data_t>::value && !std::is_same<data_t, bool>::value) {
      // Integer data is drawn in range; a float reference result is truncated the same way.
      if (!(v >= -9223372036854775808.0L && v < 9223372036854775808.0L)) {
        return static_cast<LD>(static_cast<data_t>(std::numeric_limits<int64_t>::min()));
      }
      return static_cast<LD>(static_cast<data_t>(static_cast<int64_t>(v)));
    } else {
      return static_cast<LD>(static_cast<double>(phi::CastValue<data_t>(static_cast<double>(v))));
    }
  });
}

inline Tensor ToTensor(const Arr& a) {
  phi::DenseTensor t;
  t.Resize(phi::make_ddim(a.dims));
  static phi::CPUContext ctx;
  PD_VISIT_ALL_TYPES(a.dtype, "fuzz", [&] {
    data_t* p = ctx.Alloc<data_t>(&t);
    for (size_t i = 0; i < a.v.size(); ++i) {
      if constexpr (std::is_integral<data_t>::value && !std::is_same<data_t, bool>::value) {
        p[i] = static_cast<data_t>(static_cast<int64_t>(a.v[i]));
      } else {
        p[i] = phi::CastValue<data_t>(static_cast<double>(a.v[i]));
      }
    }
  });
  return Tensor(t);
}

inline Arr FromTensor(const Tensor& t) {
  Arr a;
  a.dims = phi::vectorize(t.dims());
  a.dtype = t.dtype();
  const phi::DenseTensor& d = t.dense();
  PD_VISIT_ALL_TYPES(a.dtype, "fuzz", [&] {
    const data_t* p = d.data<data_t>();
    for (int64_t i = 0; i < d.numel(); ++i) {
      if constexpr (std::is_integral<data_t>::value) {
        a.v.push_back(static_cast<LD>(p[i]));
      } else {
        a.v.push_back(static_cast<LD>(static_cast<double>(p[i])));
      }
    }
  });
  return a;
}

// ---- drawing cases --------------------------------------------------------------------------

inline bool IsFloat(DataType t) { return phi::IsFloatingType(t); }

// Whether the registry has a CPU kernel of `op` for `t` (a call without one must raise NotFound).
inline bool HasCpuKernel(const char* op, DataType t) {
  return phi::KernelFactory::Instance().Find(op, phi::KernelKey(phi::Backend::CPU, phi::DataLayout::ALL_LAYOUT, t)) !=
         nullptr;
}

inline DataType PickType(Fdp& f, bool floats_only = false) {
  return floats_only ? f.PickValueInArray(kFloatTypes) : f.PickValueInArray(kAllTypes);
}

// A value of dtype t: ordinary ones mostly, then the special ones.
inline LD PickValue(Fdp& f, DataType t) {
  if (t == DataType::BOOL) return f.ConsumeBool() ? 1 : 0;
  if (!IsFloat(t)) {
    const int64_t lo = t == DataType::UINT8 ? 0 : t == DataType::INT8 ? -128 : t == DataType::INT16 ? -32768
                       : t == DataType::INT32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
    const int64_t hi = t == DataType::UINT8 ? 255 : t == DataType::INT8 ? 127 : t == DataType::INT16 ? 32767
                       : t == DataType::INT32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
    switch (f.ConsumeIntegralInRange<int>(0, 7)) {
      case 0: return static_cast<LD>(lo);
      case 1: return static_cast<LD>(hi);
      default: return static_cast<LD>(f.ConsumeIntegralInRange<int64_t>(std::max<int64_t>(lo, -20), std::min<int64_t>(hi, 20)));
    }
  }
  LD v;
  switch (f.ConsumeIntegralInRange<int>(0, 23)) {
    case 0: v = kInf; break;
    case 1: v = -kInf; break;
    case 2: v = kNaN; break;
    case 3: v = 1e300L; break;                                  // huge (inf below float64)
    case 4: v = -3e38L; break;                                  // huge for float32
    case 5: v = 6e4L; break;                                    // near float16's max
    case 6: v = std::numeric_limits<double>::denorm_min() * f.ConsumeIntegralInRange<int>(1, 9); break;
    case 7: v = std::numeric_limits<float>::denorm_min() * f.ConsumeIntegralInRange<int>(1, 9); break;
    case 8: v = 1e-300L; break;                                 // tiny
    case 9: v = -0.0L; break;
    case 10: v = 1e4L * (f.ConsumeBool() ? 1 : -1); break;
    default: v = static_cast<LD>(f.ConsumeFloatingPointInRange<double>(-8.0, 8.0));
  }
  return RoundTo(t, v);
}

// max_total caps the elements (the gradients' quadratic references need a smaller one).
inline std::vector<int64_t> PickDims(Fdp& f, int max_rank = 4, int64_t max_total = 6000) {
  const int rank = f.ConsumeIntegralInRange<int>(0, max_rank);
  std::vector<int64_t> d(rank);
  int64_t total = 1;
  for (int i = 0; i < rank; ++i) {
    // Mostly small; sometimes zero; rarely a long axis that crosses the 1024-step chunks.
    const int kind = f.ConsumeIntegralInRange<int>(0, 15);
    d[i] = kind == 0 ? 0
           : kind == 1 ? f.ConsumeIntegralInRange<int64_t>(1025, std::max<int64_t>(1025, max_total * 5 / 8))
                       : f.ConsumeIntegralInRange<int64_t>(1, 9);
    if (total * std::max<int64_t>(d[i], 1) > max_total) d[i] = std::min<int64_t>(d[i], 2);
    total *= std::max<int64_t>(d[i], 1);
  }
  return d;
}

inline Arr PickArr(Fdp& f, const std::vector<int64_t>& dims, DataType t) {
  Arr a;
  a.dims = dims;
  a.dtype = t;
  const int64_t n = a.numel();
  a.v.resize(n);
  // Values: all ordinary, or with specials sprinkled in (one PickValue per element is slow
  // for long rows on a short input, so the fuzz bytes seed a small generator).
  uint64_t s = f.ConsumeIntegral<uint64_t>() | 1;
  const bool specials = f.ConsumeBool();
  for (int64_t i = 0; i < n; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    if (specials && (s >> 59) == 0 && f.remaining_bytes() > 0) {
      a.v[i] = PickValue(f, t);
    } else if (IsFloat(t)) {
      a.v[i] = RoundTo(t, (static_cast<LD>(s >> 11) / 9007199254740992.0L - 0.5L) * 8);
    } else if (t == DataType::BOOL) {
      a.v[i] = (s >> 40) & 1;
    } else {
      a.v[i] = static_cast<LD>(static_cast<int64_t>((s >> 40) % 21) - (t == DataType::UINT8 ? 0 : 10));
    }
  }
  return a;
}

// ---- checking -------------------------------------------------------------------------------

// The dtype's unit roundoff.
inline LD Eps(DataType t) {
  switch (t) {
    case DataType::FLOAT64: return std::ldexp(1.0L, -53);
    case DataType::FLOAT32: return std::ldexp(1.0L, -24);
    case DataType::FLOAT16: return std::ldexp(1.0L, -11);
    case DataType::BFLOAT16: return std::ldexp(1.0L, -8);
    default: return 0;
  }
}

// A tolerance: |got - ref| <= rtol(dtype) * scale + ulps * ulp(ref) (ulp of the output type).
struct Tol {
  double f64, f32, f16, bf16, ulps;
  double rtol(DataType t) const {
    return t == DataType::FLOAT64 ? f64 : t == DataType::FLOAT32 ? f32 : t == DataType::FLOAT16 ? f16 : bf16;
  }
};
// docs/spec.md (and unittests/python/op_test.py): float64 1e-14, float32 2.5e-7 of max(1, |ref|); the
// 16-bit types one ulp after a float32-accurate computation.
const Tol kSpecTol{1e-14, 2.5e-7, 2.5e-7, 2.5e-7, 1};
// cumsum and pscan (op_db.py): float32 accumulation bounds, against the running sum of |x|.
const Tol kSumTol{1e-14, 4e-6, 4e-6, 4e-6, 1};
// Gradients (op_test.py GRAD_TOLERANCES), of max(1, max |ref|) over the tensor.
const Tol kGradTol{1e-12, 1e-5, 2e-3, 1.6e-2, 0};
// Elementwise results, casts and fills: correctly rounded (one ulp for double rounding).
const Tol kUlpTol{0, 0, 0, 0, 1};

// got vs ref (ref rounded to got's dtype first): NaN where NaN, the same infinity, else
// within tol; integers exactly.
inline void Expect(const char* what, const Arr& got, const std::vector<LD>& ref, const std::vector<int64_t>& dims,
            DataType dtype, const Tol& tol, const std::vector<LD>* scale = nullptr) {
  if (got.dims != dims) Fail(std::string(what) + ": dims " + Str(got.dims) + ", expected " + Str(dims));
  if (got.dtype != dtype) {
    Fail(std::string(what) + ": dtype " + phi::DataTypeToString(got.dtype) + ", expected " + phi::DataTypeToString(dtype));
  }
  if (got.v.size() != ref.size()) Fail(std::string(what) + ": element count");
  for (size_t i = 0; i < ref.size(); ++i) {
    const LD r = RoundTo(dtype, ref[i]);
    const LD g = got.v[i];
    bool ok;
    if (!IsFloat(dtype)) {
      ok = g == r;
    } else if (std::isnan(r) || std::isnan(g)) {
      ok = std::isnan(r) && std::isnan(g);
    } else if (std::isinf(r) || std::isinf(g)) {
      ok = g == r;
    } else {
      const LD sc = scale ? (*scale)[i] : std::max<LD>(1, std::fabs(ref[i]));
      const LD ulp = 2 * Eps(dtype) * std::max(std::fabs(r), static_cast<LD>(std::numeric_limits<double>::min()));
      ok = g == r || std::fabs(g - r) <= tol.rtol(dtype) * sc + tol.ulps * ulp;
    }
    if (!ok) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "%s[%zu] = %.21Lg, reference %.21Lg (rounded %.21Lg)", what, i, g, ref[i], r);
      Fail(buf);
    }
  }
}

// Runs call; `expected` is the error code an invalid case must raise (or -1 for a valid
// case). Returns whether the call ran (and so whether to check its result).
inline bool Run(const std::function<void()>& call, int expected) {
  try {
    call();
  } catch (const phi::EnforceNotMet& e) {
    if (expected < 0) Fail(std::string("valid call raised: ") + e.what());
    if (static_cast<int>(e.code()) != expected) {
      Fail(std::string("raised ") + e.what() + " but expected error code " + std::to_string(expected));
    }
    return false;
  } catch (const std::exception& e) {
    Fail(std::string("a non-phi exception escaped: ") + e.what());
  }
  if (expected >= 0) Fail("an invalid call did not raise (expected error code " + std::to_string(expected) + ")");
  return true;
}

constexpr int kValid = -1;
const int kOutOfRange = static_cast<int>(phi::ErrorCode::OUT_OF_RANGE);
const int kInvalidArgument = static_cast<int>(phi::ErrorCode::INVALID_ARGUMENT);
const int kNotFound = static_cast<int>(phi::ErrorCode::NOT_FOUND);

// ---- scans: [outer, length, inner] views of the reference ------------------------------------

using paddle_ops_test::ScanView;
using paddle_ops_test::ScanViewOf;

// Draws (axis, flatten, exclusive, reverse) and whether the axis is valid for `rank`.
struct ScanAttrs {
  int axis;
  bool flatten, exclusive, reverse, valid;
  // The error code of an invalid draw: a bad axis with flatten is an InvalidArgument.
  int error() const { return flatten ? kInvalidArgument : kOutOfRange; }
};
inline ScanAttrs PickScanAttrs(Fdp& f, int rank) {
  ScanAttrs a;
  a.flatten = f.ConsumeIntegralInRange<int>(0, 4) == 0;
  const int r = std::max(rank, 1);
  if (a.flatten) {  // Paddle's kernels take axis 0 or -1 with flatten; any other is an error
    const int pick = f.ConsumeIntegralInRange<int>(0, 3);
    a.axis = pick == 0 ? 0 : pick == 1 ? f.ConsumeIntegralInRange<int>(-r - 2, r + 1) : -1;
  } else {
    a.axis = f.ConsumeIntegralInRange<int>(-r - 2, r + 1);
  }
  if (!a.flatten && f.ConsumeIntegralInRange<int>(0, 31) == 0) {
    a.axis = f.ConsumeBool() ? std::numeric_limits<int>::max() : std::numeric_limits<int>::min();
  }
  a.exclusive = f.ConsumeBool();
  a.reverse = f.ConsumeBool();
  a.valid = a.flatten ? (a.axis == 0 || a.axis == -1) : (a.axis >= -r && a.axis < r);
  return a;
}

// position k (0-based, in scan order) of the row as a forward index
inline int64_t Step(const ScanView& s, int64_t k, bool reverse) { return reverse ? s.length - 1 - k : k; }

template <typename Comb>
inline std::vector<LD> ScanRef(const Arr& x, const ScanAttrs& at, LD identity, Comb comb) {
  const ScanView s = ScanViewOf(x.dims, at.axis, at.flatten);
  std::vector<LD> out(x.v.size());
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      LD acc = identity;
      for (int64_t k = 0; k < s.length; ++k) {
        const int64_t e = s.Offset(o, Step(s, k, at.reverse), i);
        if (at.exclusive) {
          out[e] = acc;
          acc = comb(acc, x.v[e]);
        } else {
          acc = comb(acc, x.v[e]);
          out[e] = acc;
        }
      }
    }
  }
  return out;
}

// The gradient of a scan by its definition: x_grad[e] = sum over the outputs j whose window
// holds e of out_grad[j] * partial(x[e], out[j]) (quadratic: the slow reference).
template <typename Partial>
inline std::vector<LD> ScanGradRef(const Arr& x, const Arr& out, const Arr& gout, const ScanAttrs& at, Partial partial) {
  const ScanView s = ScanViewOf(x.dims, at.axis, at.flatten);
  std::vector<LD> g(x.v.size(), 0);
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      for (int64_t k = 0; k < s.length; ++k) {  // the element, k-th in scan order
        const int64_t e = s.Offset(o, Step(s, k, at.reverse), i);
        LD acc = 0;
        for (int64_t j = at.exclusive ? k + 1 : k; j < s.length; ++j) {
          const int64_t oj = s.Offset(o, Step(s, j, at.reverse), i);
          acc += gout.v[oj] * partial(x.v[e], out.v[oj]);
        }
        g[e] = acc;
      }
    }
  }
  return g;
}

inline void SetEngine(Fdp& f) {
  phi::funcs::SetCpuScanChunkForTesting(f.ConsumeBool() ? 1024 : 0);
  phi::funcs::SetCpuScanSimdEnabled(f.ConsumeIntegralInRange<int>(0, 3) != 0);
  phi::funcs::SetCpuNumThreads(f.ConsumeIntegralInRange<int>(1, 2));
}

inline std::string Describe(const char* op, const Arr& x, const ScanAttrs& at) {
  return std::string(op) + " x" + Str(x.dims) + " " + phi::DataTypeToString(x.dtype) + " axis=" +
         std::to_string(at.axis) + " flatten=" + std::to_string(at.flatten) + " exclusive=" +
         std::to_string(at.exclusive) + " reverse=" + std::to_string(at.reverse);
}

// Exact results: the same value bit for bit where it is a number (the sign of a zero too),
// NaN where NaN (the payload is not compared).
inline void ExpectExact(const char* what, const Arr& got, const std::vector<LD>& ref, const std::vector<int64_t>& dims,
                 DataType dtype) {
  Expect(what, got, ref, dims, dtype, Tol{0, 0, 0, 0, 0});
  for (size_t i = 0; i < ref.size(); ++i) {
    const LD r = RoundTo(dtype, ref[i]);
    if (IsFloat(dtype) && !std::isnan(r) && std::signbit(got.v[i]) != std::signbit(r)) {
      Fail(std::string(what) + "[" + std::to_string(i) + "]: the sign of zero differs from the reference");
    }
  }
}

// The attribute axis of the flood / repeat ops and whether it is valid (a 0-D x counts as 1-D).
inline int PickAxis(Fdp& f, int rank, bool* valid) {
  const int r = std::max(rank, 1);
  int axis = f.ConsumeIntegralInRange<int>(-r - 2, r + 1);
  if (f.ConsumeIntegralInRange<int>(0, 31) == 0) {
    axis = f.ConsumeBool() ? std::numeric_limits<int>::max() : std::numeric_limits<int>::min();
  }
  *valid = axis >= -r && axis < r;
  return axis;
}

// ---- the op table ---------------------------------------------------------------------------

struct OpEntry {
  std::string name;
  std::function<void(Fdp&)> fuzz;
};

// Filled before main by the REGISTER_FUZZ_OP lines of the ops/ files (fuzz_main.cc sorts it).
inline std::vector<OpEntry>& OpTable() {
  static std::vector<OpEntry> table;
  return table;
}

inline bool RegisterOp(const char* name, std::function<void(Fdp&)> fuzz) {
  OpTable().push_back({name, std::move(fuzz)});
  return true;
}

}  // namespace paddle_ops_fuzz

// At the start of a line in unittests/fuzz/ops/*.cc, outside any namespace: the op's name (as the
// fuzzer's --op=NAME, the corpus folder unittests/fuzz/corpus/NAME and the CTest test fuzz_NAME,
// which CMakeLists.txt finds by this line) and a callable taking the FuzzedDataProvider.
#define REGISTER_FUZZ_OP(name, ...) \
  [[maybe_unused]] static const bool paddle_ops_fuzz_registered_##name = ::paddle_ops_fuzz::RegisterOp(#name, __VA_ARGS__)
