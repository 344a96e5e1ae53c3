// libFuzzer target over the C++ API (paddle_ops::experimental, the generated shims: kernel
// lookup, InferMeta, CPU kernel). Each input picks one op of kOps (or the op named by
// PADDLE_OPS_FUZZ_OP), random shapes (0-D and zero-size included), axes, attributes, dtypes
// and values (+-inf, NaN, huge, tiny, subnormal, -0, extreme integers), runs it, and checks:
//   - a valid call succeeds and matches a slow, independent reference (long double loops,
//     written here from the op's definition) within the dtype's tolerance; NaN where the
//     reference is NaN, the same infinity where it is infinite;
//   - an invalid call (axis out of range, bad shape, unsupported dtype, ...) throws
//     phi::EnforceNotMet with the expected error code, and nothing else escapes.
// Any mismatch aborts with a message naming the op and the case. The CPU scan engine's chunk
// is shrunk to 1024 steps and its SIMD path and thread count vary, so small inputs reach the
// three-phase long-row paths.
//
// Adding an op: one entry in kOps (a name and a function drawing a case and checking it).
//
// Run: build with -DPADDLE_OPS_FUZZ=ON (clang), then tools/dev/fuzz.sh [seconds per op] [op...].
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/funcs/cast_value.h"
#include "kernels/funcs/cpu/scan_runtime.h"
#include "paddle_ops/common/enforce.h"
#include "paddle_ops/core/device_context.h"
#include "paddle_ops/core/kernel_factory.h"
#include "paddle_ops_gen/api.h"

namespace {

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

std::string g_case;  // what the current input is, for the failure message

[[noreturn]] void Fail(const std::string& what) {
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

std::string Str(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

// v rounded to dtype, as the tensor will hold it (the library's own element conversion).
LD RoundTo(DataType t, LD v) {
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

Tensor ToTensor(const Arr& a) {
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

Arr FromTensor(const Tensor& t) {
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

bool IsFloat(DataType t) { return phi::IsFloatingType(t); }

// Whether the registry has a CPU kernel of `op` for `t` (a call without one must raise NotFound).
bool HasCpuKernel(const char* op, DataType t) {
  return phi::KernelFactory::Instance().Find(op, phi::KernelKey(phi::Backend::CPU, phi::DataLayout::ALL_LAYOUT, t)) !=
         nullptr;
}

DataType PickType(Fdp& f, bool floats_only = false) {
  return floats_only ? f.PickValueInArray(kFloatTypes) : f.PickValueInArray(kAllTypes);
}

// A value of dtype t: ordinary ones mostly, then the special ones.
LD PickValue(Fdp& f, DataType t) {
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
std::vector<int64_t> PickDims(Fdp& f, int max_rank = 4, int64_t max_total = 6000) {
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

Arr PickArr(Fdp& f, const std::vector<int64_t>& dims, DataType t) {
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
LD Eps(DataType t) {
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
// SPEC (and unittests/python/op_test.py): float64 1e-14, float32 2.5e-7 of max(1, |ref|); the
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
void Expect(const char* what, const Arr& got, const std::vector<LD>& ref, const std::vector<int64_t>& dims,
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
bool Run(const std::function<void()>& call, int expected) {
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

struct Scan {
  int64_t outer = 1, len = 1, inner = 1;
  // Element indices of row (o, i) in forward order.
  int64_t At(int64_t o, int64_t i, int64_t k) const { return (o * len + k) * inner + i; }
};

Scan ScanOf(const std::vector<int64_t>& dims, int axis, bool flatten) {
  Scan s;
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  if (flatten || dims.empty()) {
    s.len = n;
    return s;
  }
  const int r = static_cast<int>(dims.size());
  const int a = axis < 0 ? axis + r : axis;
  for (int i = 0; i < a; ++i) s.outer *= dims[i];
  s.len = dims[a];
  for (int i = a + 1; i < r; ++i) s.inner *= dims[i];
  return s;
}

// Draws (axis, flatten, exclusive, reverse) and whether the axis is valid for `rank`.
struct ScanAttrs {
  int axis;
  bool flatten, exclusive, reverse, valid;
};
ScanAttrs PickScanAttrs(Fdp& f, int rank) {
  ScanAttrs a;
  a.flatten = f.ConsumeIntegralInRange<int>(0, 4) == 0;
  const int r = std::max(rank, 1);
  a.axis = a.flatten ? -1 : f.ConsumeIntegralInRange<int>(-r - 2, r + 1);
  if (!a.flatten && f.ConsumeIntegralInRange<int>(0, 31) == 0) {
    a.axis = f.ConsumeBool() ? std::numeric_limits<int>::max() : std::numeric_limits<int>::min();
  }
  a.exclusive = f.ConsumeBool();
  a.reverse = f.ConsumeBool();
  a.valid = a.flatten || (a.axis >= -r && a.axis < r);
  return a;
}

// position k (0-based, in scan order) of the row as a forward index
int64_t Step(const Scan& s, int64_t k, bool reverse) { return reverse ? s.len - 1 - k : k; }

LD LogAddExp(LD a, LD b) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  const LD m = std::max(a, b);
  if (std::isinf(m)) return m;  // +inf, or both -inf
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

template <typename Comb>
std::vector<LD> ScanRef(const Arr& x, const ScanAttrs& at, LD identity, Comb comb) {
  const Scan s = ScanOf(x.dims, at.axis, at.flatten);
  std::vector<LD> out(x.v.size());
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      LD acc = identity;
      for (int64_t k = 0; k < s.len; ++k) {
        const int64_t e = s.At(o, i, Step(s, k, at.reverse));
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
std::vector<LD> ScanGradRef(const Arr& x, const Arr& out, const Arr& gout, const ScanAttrs& at, Partial partial) {
  const Scan s = ScanOf(x.dims, at.axis, at.flatten);
  std::vector<LD> g(x.v.size(), 0);
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      for (int64_t k = 0; k < s.len; ++k) {  // the element, k-th in scan order
        const int64_t e = s.At(o, i, Step(s, k, at.reverse));
        LD acc = 0;
        for (int64_t j = at.exclusive ? k + 1 : k; j < s.len; ++j) {
          const int64_t oj = s.At(o, i, Step(s, j, at.reverse));
          acc += gout.v[oj] * partial(x.v[e], out.v[oj]);
        }
        g[e] = acc;
      }
    }
  }
  return g;
}

void SetEngine(Fdp& f) {
  phi::funcs::SetCpuScanChunkForTesting(f.ConsumeBool() ? 1024 : 0);
  phi::funcs::SetCpuScanSimdEnabled(f.ConsumeIntegralInRange<int>(0, 3) != 0);
  phi::funcs::SetCpuNumThreads(f.ConsumeIntegralInRange<int>(1, 2));
}

std::string Describe(const char* op, const Arr& x, const ScanAttrs& at) {
  return std::string(op) + " x" + Str(x.dims) + " " + phi::DataTypeToString(x.dtype) + " axis=" +
         std::to_string(at.axis) + " flatten=" + std::to_string(at.flatten) + " exclusive=" +
         std::to_string(at.exclusive) + " reverse=" + std::to_string(at.reverse);
}

// ---- the ops ---------------------------------------------------------------------------------

// logcumsumexp and its grad: float types only (the Python wrapper promotes the others).
void FuzzLogcumsumexp(Fdp& f, bool grad) {
  SetEngine(f);
  const DataType t = PickType(f, f.ConsumeIntegralInRange<int>(0, 15) != 0);
  const Arr x = PickArr(f, PickDims(f, 4, grad ? 2600 : 6000), t);
  const ScanAttrs at = PickScanAttrs(f, static_cast<int>(x.dims.size()));
  g_case = Describe(grad ? "logcumsumexp_grad" : "logcumsumexp", x, at);
  const int expected = !HasCpuKernel("logcumsumexp", t) ? kNotFound : !at.valid ? kOutOfRange : kValid;
  Tensor out;
  if (!Run([&] { out = api::logcumsumexp(ToTensor(x), at.axis, at.flatten, at.exclusive, at.reverse); }, expected)) return;
  const Arr o = FromTensor(out);
  std::vector<int64_t> odims = x.dims;
  if (at.flatten) odims = {x.numel()};
  Arr xs = x;  // the reference scans x with the output's dims
  xs.dims = odims;
  const std::vector<LD> ref = ScanRef(xs, at, -kInf, LogAddExp);
  if (!grad) {
    Expect("out", o, ref, odims, t, kSpecTol);
    return;
  }
  Arr gout = PickArr(f, odims, t);
  Tensor xg;
  Run([&] { xg = api::logcumsumexp_grad(ToTensor(x), out, ToTensor(gout), at.axis, at.flatten, at.exclusive, at.reverse); },
      kValid);
  const std::vector<LD> gref = ScanGradRef(xs, o, gout, at, [](LD xe, LD oj) -> LD {
    if (xe == -kInf) return 0;
    return std::exp(xe - oj);
  });
  LD m = 1;
  for (LD v : gref) {
    if (std::isfinite(v)) m = std::max(m, std::fabs(v));
  }
  std::vector<LD> scale(gref.size(), m);
  Expect("x_grad", FromTensor(xg), gref, x.dims, t, kGradTol, &scale);
}

// cumsum and its grad: floats, int32, int64 (other dtypes: NotFound).
void FuzzCumsum(Fdp& f, bool grad) {
  SetEngine(f);
  const DataType t = PickType(f);
  const Arr x = PickArr(f, PickDims(f, 4, grad ? 2600 : 6000), t);
  const ScanAttrs at = PickScanAttrs(f, static_cast<int>(x.dims.size()));
  g_case = Describe(grad ? "cumsum_grad" : "cumsum", x, at);
  const bool has_kernel = HasCpuKernel("cumsum", t);
  const int expected = !has_kernel ? kNotFound : !at.valid ? kOutOfRange : kValid;
  std::vector<int64_t> odims = x.dims;
  if (at.flatten) odims = {x.numel()};
  Arr xs = x;
  xs.dims = odims;
  const bool is_int = !IsFloat(t);
  auto add = [is_int, t](LD a, LD b) -> LD {
    if (!is_int) return a + b;
    // Integers wrap (two's complement), as documented.
    const uint64_t s = static_cast<uint64_t>(static_cast<int64_t>(a)) + static_cast<uint64_t>(static_cast<int64_t>(b));
    return t == DataType::INT32 ? static_cast<LD>(static_cast<int32_t>(static_cast<uint32_t>(s)))
                                : static_cast<LD>(static_cast<int64_t>(s));
  };
  if (!grad) {
    Tensor out;
    if (!Run([&] { out = api::cumsum(ToTensor(x), phi::Scalar(at.axis), at.flatten, at.exclusive, at.reverse); },
             expected)) {
      return;
    }
    Arr ax = xs;
    for (LD& v : ax.v) v = std::fabs(v);
    std::vector<LD> scale = ScanRef(ax, at, 0, [](LD a, LD b) { return a + b; });
    for (LD& v : scale) v = std::max<LD>(1, v);
    Expect("out", FromTensor(out), ScanRef(xs, at, 0, add), odims, t, kSumTol, &scale);
    return;
  }
  if (!has_kernel || !HasCpuKernel("cumsum_grad", t)) return;
  const Arr gout = PickArr(f, odims, t);
  Tensor xg;
  if (!Run([&] { xg = api::cumsum_grad(ToTensor(x), ToTensor(gout), phi::Scalar(at.axis), at.flatten, at.exclusive, at.reverse); },
           at.valid ? kValid : kOutOfRange)) {
    return;
  }
  Arr o = xs;  // unused by the partial
  std::vector<LD> gref = ScanGradRef(xs, o, gout, at, [](LD, LD) -> LD { return 1; });
  // The reference's sum of inf and -inf is NaN whatever the order; so must the kernel's be.
  Arr ag = gout;
  for (LD& v : ag.v) v = std::fabs(v);
  std::vector<LD> scale = ScanGradRef(xs, o, ag, at, [](LD, LD) -> LD { return 1; });
  for (LD& v : scale) v = std::max<LD>(1, v);
  Expect("x_grad", FromTensor(xg), gref, x.dims, t, kSumTol, &scale);
}

// pscan: y[:, t] = a[:, t] * y[:, t-1] + x[:, t]; a [N, T] or [N, T, D], initial_state [N, D].
void FuzzPscan(Fdp& f, bool grad) {
  SetEngine(f);
  const DataType t = PickType(f, f.ConsumeIntegralInRange<int>(0, 15) != 0);
  const int64_t N = f.ConsumeIntegralInRange<int64_t>(0, 3);
  const int64_t T = f.ConsumeIntegralInRange<int>(0, 7) == 0 ? f.ConsumeIntegralInRange<int64_t>(1000, 2200)
                                                             : f.ConsumeIntegralInRange<int64_t>(0, 9);
  const int64_t D = f.ConsumeIntegralInRange<int64_t>(0, 4);
  const bool per_step = f.ConsumeBool();
  const bool with_state = f.ConsumeBool();
  const bool reverse = f.ConsumeBool();
  const int bad = f.ConsumeIntegralInRange<int>(0, 11);  // 1: a's shape, 2: state's shape, 3: a's dtype
  Arr x = PickArr(f, {N, T, D}, t);
  std::vector<int64_t> adims = per_step ? std::vector<int64_t>{N, T} : std::vector<int64_t>{N, T, D};
  if (bad == 1) adims.back() += 1;
  Arr a = PickArr(f, adims, bad == 3 && t != DataType::FLOAT64 ? DataType::FLOAT64 : t);
  // Finite gates within [-1, 1] (tanh of the drawn value: exact 0, +-1 at the ends), as a
  // decaying recurrence uses them. Gates of magnitude > 1 are out of the checked domain: in
  // float32 the scan's gate products can overflow before the output does (inf where the
  // sequential loop stays finite), a limit the fuzzer found and the README states.
  for (LD& v : a.v) {
    if (std::isfinite(v)) v = RoundTo(a.dtype, std::tanh(v));
  }
  Arr h0 = PickArr(f, {N, D + (bad == 2 ? 1 : 0)}, t);
  g_case = "pscan x" + Str(x.dims) + " a" + Str(a.dims) + " " + phi::DataTypeToString(t) + (with_state ? " h0" : "") +
           (reverse ? " reverse" : "") + " bad=" + std::to_string(bad);
  int expected = kValid;
  if (!HasCpuKernel("pscan", t)) {
    expected = kNotFound;
  } else if (bad == 1 || (bad == 2 && with_state)) {
    expected = kInvalidArgument;
  } else if (bad == 3 && t != DataType::FLOAT64) {
    expected = static_cast<int>(phi::ErrorCode::INVALID_TYPE);
  }
  paddle::optional<Tensor> state;
  if (with_state) state = ToTensor(h0);
  Tensor out;
  if (!Run([&] { out = api::pscan(ToTensor(a), ToTensor(x), state, reverse); }, expected)) return;
  // Reference: the loop in long double; its magnitudes give the tolerance's scale.
  std::vector<LD> ref(x.v.size()), mag(x.v.size());
  auto gate = [&](int64_t n, int64_t s, int64_t d) { return a.v[per_step ? n * T + s : (n * T + s) * D + d]; };
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t d = 0; d < D; ++d) {
      bool have = with_state;
      LD h = with_state ? h0.v[n * D + d] : 0, hm = std::fabs(h);
      for (int64_t k = 0; k < T; ++k) {
        const int64_t s = reverse ? T - 1 - k : k;
        const int64_t e = (n * T + s) * D + d;
        h = have ? gate(n, s, d) * h + x.v[e] : x.v[e];
        hm = have ? std::fabs(gate(n, s, d)) * hm + std::fabs(x.v[e]) : std::fabs(x.v[e]);
        have = true;
        ref[e] = h;
        mag[e] = std::max<LD>(1, hm);
      }
    }
  }
  const Arr o = FromTensor(out);
  // With inf or NaN in a recurrence, (gate, value) pairs combined in another order than the
  // loop's may give NaN where the loop gives inf (0 * inf): only finite references are compared
  // for pscan, and those must match.
  Arr oc = o;
  std::vector<LD> rc = ref;
  bool all_finite = true;
  for (LD v : x.v) all_finite &= std::isfinite(v);
  for (LD v : a.v) all_finite &= std::isfinite(v);
  if (with_state) {
    for (LD v : h0.v) all_finite &= std::isfinite(v);
  }
  for (size_t i = 0; i < rc.size(); ++i) {
    if (!all_finite && !std::isfinite(RoundTo(t, rc[i]))) oc.v[i] = rc[i] = 0;
  }
  // pscan accumulates float32 for the 32- and 16-bit types (float64 for float64): when the
  // magnitudes' recurrence leaves that range an intermediate may overflow although the output
  // is finite (as in a sequential float32 loop); such cases are out of the checked domain.
  const LD acc_max = t == DataType::FLOAT64 ? 1e307L : 1e37L;
  for (LD m : mag) {
    if (!(m < acc_max)) return;
  }
  Expect("out", oc, rc, x.dims, t, kSumTol, &mag);
  if (!grad) return;
  const Arr gout = PickArr(f, x.dims, t);
  std::tuple<Tensor, Tensor, Tensor> gr;
  Run([&] { gr = api::pscan_grad(ToTensor(a), state, out, ToTensor(gout), reverse); }, kValid);
  // x_grad by its loop: g[s] = gout[s] + a[next] * g[next] (next = the step after s).
  std::vector<LD> gx(x.v.size()), gm(x.v.size());
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t d = 0; d < D; ++d) {
      LD g = 0, m = 0;
      for (int64_t k = T - 1; k >= 0; --k) {
        const int64_t s = reverse ? T - 1 - k : k;
        const int64_t e = (n * T + s) * D + d;
        const bool last = k == T - 1;
        const int64_t nxt = reverse ? s - 1 : s + 1;
        g = last ? gout.v[e] : gout.v[e] + gate(n, nxt, d) * g;
        m = last ? std::fabs(gout.v[e]) : std::fabs(gout.v[e]) + std::fabs(gate(n, nxt, d)) * m;
        gx[e] = g;
        gm[e] = std::max<LD>(1, m);
      }
    }
  }
  if (!all_finite) return;  // see above; the forward's special values were checked
  for (LD v : gout.v) {
    if (!std::isfinite(v)) return;
  }
  Expect("x_grad", FromTensor(std::get<1>(gr)), gx, x.dims, t, kSumTol, &gm);
}

// Broadcast shapes: y's dims are x's with some set to 1 or dropped in front (or not
// broadcastable when `bad`).
void FuzzElementwise(Fdp& f, int which) {
  static const char* kNames[] = {"add", "subtract", "multiply"};
  const DataType t = PickType(f);
  std::vector<int64_t> xd = PickDims(f, 3);
  std::vector<int64_t> yd = xd;
  const int drop = yd.empty() ? 0 : f.ConsumeIntegralInRange<int>(0, static_cast<int>(yd.size()));
  yd.erase(yd.begin(), yd.begin() + drop);
  for (int64_t& d : yd) {
    if (f.ConsumeIntegralInRange<int>(0, 3) == 0) d = 1;
  }
  const bool bad = !yd.empty() && f.ConsumeIntegralInRange<int>(0, 15) == 0 && yd.back() != 1;
  if (bad) yd.back() = yd.back() == 0 ? 2 : yd.back() + 1;  // neither equal to x's dim nor 1
  if (f.ConsumeBool()) std::swap(xd, yd);
  const Arr x = PickArr(f, xd, t), y = PickArr(f, yd, t);
  g_case = std::string(kNames[which]) + " x" + Str(xd) + " y" + Str(yd) + " " + phi::DataTypeToString(t);
  const bool has_kernel = HasCpuKernel(kNames[which], t);
  Tensor out;
  const int expected = !has_kernel ? kNotFound : bad ? kInvalidArgument : kValid;
  std::function<Tensor(const Tensor&, const Tensor&)> op =
      which == 0 ? api::add : which == 1 ? api::subtract : api::multiply;
  if (!Run([&] { out = op(ToTensor(x), ToTensor(y)); }, expected)) {
    if (has_kernel && !bad) Fail("unreachable");
    return;
  }
  // Reference broadcast.
  const size_t r = std::max(xd.size(), yd.size());
  std::vector<int64_t> od(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t a = i + xd.size() >= r ? xd[i + xd.size() - r] : 1;
    const int64_t b = i + yd.size() >= r ? yd[i + yd.size() - r] : 1;
    od[i] = a == 1 ? b : a;
  }
  int64_t n = 1;
  for (int64_t d : od) n *= d;
  std::vector<LD> ref(n);
  auto index = [&](const std::vector<int64_t>& d, const std::vector<int64_t>& idx) {
    int64_t off = 0;
    for (size_t i = 0; i < d.size(); ++i) off = off * d[i] + (d[i] == 1 ? 0 : idx[i + r - d.size()]);
    return off;
  };
  std::vector<int64_t> idx(r, 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t rem = e;
    for (size_t i = r; i-- > 0;) {
      idx[i] = rem % od[i];
      rem /= od[i];
    }
    const LD a = x.v[index(xd, idx)], b = y.v[index(yd, idx)];
    LD v = which == 0 ? a + b : which == 1 ? a - b : a * b;
    if (!IsFloat(t)) {  // integers wrap
      const uint64_t ua = static_cast<uint64_t>(static_cast<int64_t>(a)), ub = static_cast<uint64_t>(static_cast<int64_t>(b));
      const uint64_t w = which == 0 ? ua + ub : which == 1 ? ua - ub : ua * ub;
      v = RoundTo(t, static_cast<LD>(static_cast<int64_t>(w)));
    }
    ref[e] = v;
  }
  Expect("out", FromTensor(out), ref, od, t, kUlpTol);
}

// sum / mean over random axes (duplicates and out-of-range ones are errors).
void FuzzReduce(Fdp& f, bool mean) {
  const DataType t = PickType(f);
  const Arr x = PickArr(f, PickDims(f, 3), t);
  const int rank = static_cast<int>(x.dims.size());
  const int r = std::max(rank, 1);
  std::vector<int64_t> axes;
  const int na = f.ConsumeIntegralInRange<int>(0, 3);
  for (int i = 0; i < na; ++i) axes.push_back(f.ConsumeIntegralInRange<int64_t>(-r - 1, r));
  const bool keepdim = f.ConsumeBool();
  DataType dt = DataType::UNDEFINED;
  if (!mean && f.ConsumeIntegralInRange<int>(0, 3) == 0) dt = PickType(f);
  g_case = std::string(mean ? "mean" : "sum") + " x" + Str(x.dims) + " " + phi::DataTypeToString(t) + " axes" +
           Str(axes) + " keepdim=" + std::to_string(keepdim) + " dtype=" + phi::DataTypeToString(dt);
  bool axes_ok = true;
  std::vector<bool> red(rank, axes.empty());
  for (int64_t a : axes) {
    if (a < -r || a >= r) {
      axes_ok = false;
    } else if (rank > 0) {
      red[a < 0 ? a + r : a] = true;
    }
  }
  Tensor out;
  const int expected = !HasCpuKernel(mean ? "mean" : "sum", t) ? kNotFound : !axes_ok ? kOutOfRange : kValid;
  if (!Run([&] {
        out = mean ? api::mean(ToTensor(x), phi::IntArray(axes), keepdim)
                   : api::sum(ToTensor(x), phi::IntArray(axes), dt, keepdim);
      }, expected)) {
    return;
  }
  std::vector<int64_t> od;
  for (int i = 0; i < rank; ++i) {
    if (!red[i]) {
      od.push_back(x.dims[i]);
    } else if (keepdim) {
      od.push_back(1);
    }
  }
  int64_t n = 1;
  for (int64_t d : od) n *= d;
  // Integer results (an integer x, or a float x cast to an integer dtype element by element)
  // accumulate exactly as 64-bit two's complement (wrapping), then narrow; float results sum
  // in long double.
  const DataType ot = FromTensor(out).dtype;
  const bool int_sum = !IsFloat(t) || !IsFloat(ot);
  std::vector<LD> ref(n, 0), mag(n, 0), cnt(n, 0);
  std::vector<uint64_t> iref(n, 0);
  std::vector<int64_t> idx(rank, 0);
  for (int64_t e = 0; e < x.numel(); ++e) {
    int64_t rem = e;
    for (int i = rank; i-- > 0;) {
      idx[i] = rem % x.dims[i];
      rem /= x.dims[i];
    }
    int64_t o = 0;
    for (int i = 0; i < rank; ++i) {
      if (!red[i]) o = o * x.dims[i] + idx[i];
    }
    const LD v = IsFloat(t) && !IsFloat(ot) ? RoundTo(ot, x.v[e]) : x.v[e];
    if (int_sum) {
      iref[o] += static_cast<uint64_t>(static_cast<int64_t>(v));
    } else {
      ref[o] += v;
    }
    mag[o] += std::fabs(x.v[e]);
    cnt[o] += 1;
  }
  for (int64_t o = 0; o < n; ++o) {
    if (int_sum) ref[o] = RoundTo(ot, static_cast<LD>(static_cast<int64_t>(iref[o])));
    if (mean) ref[o] = ref[o] / cnt[o];  // 0/0: NaN for an empty mean
    mag[o] = std::max<LD>(1, mag[o]);
  }
  Expect("out", FromTensor(out), ref, od, ot, kSpecTol, &mag);
}

void FuzzReshape(Fdp& f) {
  const DataType t = PickType(f);
  const Arr x = PickArr(f, PickDims(f, 3), t);
  std::vector<int64_t> shape;
  const int rank = f.ConsumeIntegralInRange<int>(0, 4);
  for (int i = 0; i < rank; ++i) shape.push_back(f.ConsumeIntegralInRange<int64_t>(-2, 6));
  g_case = "reshape x" + Str(x.dims) + " shape" + Str(shape);
  // Expected dims: 0 copies x's dim, one -1 is inferred; anything else must multiply out.
  bool ok = true;
  int minus = -1;
  int64_t known = 1;
  std::vector<int64_t> od(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == 0) {
      if (i >= x.dims.size()) ok = false;
      d = i < x.dims.size() ? x.dims[i] : 0;
    }
    if (d == -1) {
      if (minus >= 0) ok = false;
      minus = static_cast<int>(i);
    } else if (d < -1) {
      ok = false;
    } else {
      known *= d;
    }
    od[i] = d;
  }
  if (ok && minus >= 0) {
    if (known == 0 || x.numel() % known != 0) {
      ok = false;
    } else {
      od[minus] = x.numel() / known;
    }
  } else if (ok && known != x.numel()) {
    ok = false;
  }
  Tensor out;
  if (!Run([&] { out = api::reshape(ToTensor(x), phi::IntArray(shape)); }, ok ? kValid : kInvalidArgument)) return;
  Expect("out", FromTensor(out), x.v, od, t, Tol{0, 0, 0, 0, 0});
}

void FuzzCast(Fdp& f) {
  const DataType from = PickType(f), to = PickType(f);
  const Arr x = PickArr(f, PickDims(f, 3), from);
  g_case = "cast x" + Str(x.dims) + " " + phi::DataTypeToString(from) + " -> " + phi::DataTypeToString(to);
  Tensor out;
  Run([&] { out = api::cast(ToTensor(x), to); }, kValid);
  std::vector<LD> ref(x.v.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    const LD v = x.v[i];
    if (to == DataType::BOOL) {
      ref[i] = v != 0;
    } else if (!IsFloat(to) && IsFloat(from)) {
      // cast_kernel.h: truncation toward zero; NaN and values beyond int64 give INT64_MIN's
      // bits narrowed to the type.
      const bool in = v >= -9.223372036854775808e18L && v < 9.223372036854775808e18L;
      ref[i] = RoundTo(to, in ? std::trunc(v) : static_cast<LD>(std::numeric_limits<int64_t>::min()));
    } else if (!IsFloat(to)) {
      ref[i] = RoundTo(to, v);
    } else {
      ref[i] = v;
    }
  }
  // float64 -> 16-bit goes through float32 (double rounding): one ulp of the target.
  Expect("out", FromTensor(out), ref, x.dims, to, kUlpTol);
}

void FuzzFullLike(Fdp& f) {
  const DataType t = PickType(f), dt = f.ConsumeBool() ? DataType::UNDEFINED : PickType(f);
  const DataType ot = dt == DataType::UNDEFINED ? t : dt;
  const Arr x = PickArr(f, PickDims(f, 3), t);
  const bool as_int = f.ConsumeBool();
  const int64_t iv = f.ConsumeIntegral<int64_t>() >> f.ConsumeIntegralInRange<int>(0, 63);
  const LD dv = PickValue(f, DataType::FLOAT64) * (f.ConsumeBool() ? 1 : 1e20L);
  const phi::Scalar value = as_int ? phi::Scalar(iv) : phi::Scalar(static_cast<double>(dv));
  g_case = "full_like x" + Str(x.dims) + " -> " + phi::DataTypeToString(ot) + " value=" +
           (as_int ? std::to_string(iv) : std::to_string(static_cast<double>(dv)));
  // Fits: integers within the type's range (a float truncated toward zero, finite); floats
  // any value but a finite one that overflows to inf.
  const LD v = as_int ? static_cast<LD>(iv) : static_cast<LD>(static_cast<double>(dv));
  bool fits = true;
  LD expect = v;
  if (ot == DataType::BOOL) {
    expect = v != 0;
  } else if (!IsFloat(ot)) {
    LD lo = 0, hi = 0;
    PD_VISIT_ALL_TYPES(ot, "fuzz", [&] {
      lo = static_cast<LD>(std::numeric_limits<data_t>::lowest());
      hi = static_cast<LD>(std::numeric_limits<data_t>::max());
    });
    const LD tv = std::trunc(v);
    fits = std::isfinite(v) && tv >= lo && tv <= hi;
    expect = tv;
  } else {
    fits = !(std::isinf(RoundTo(ot, v)) && std::isfinite(v));
  }
  Tensor out;
  if (!Run([&] { out = api::full_like(ToTensor(x), value, dt); }, fits ? kValid : kInvalidArgument)) return;
  Expect("out", FromTensor(out), std::vector<LD>(x.v.size(), expect), x.dims, ot, kUlpTol);
}

// ---- right_flood, repeat_interleave, gla ---------------------------------------------------

// Exact results: the same value bit for bit where it is a number (the sign of a zero too),
// NaN where NaN (the payload is not compared).
void ExpectExact(const char* what, const Arr& got, const std::vector<LD>& ref, const std::vector<int64_t>& dims,
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
int PickAxis(Fdp& f, int rank, bool* valid) {
  const int r = std::max(rank, 1);
  int axis = f.ConsumeIntegralInRange<int>(-r - 2, r + 1);
  if (f.ConsumeIntegralInRange<int>(0, 31) == 0) {
    axis = f.ConsumeBool() ? std::numeric_limits<int>::max() : std::numeric_limits<int>::min();
  }
  *valid = axis >= -r && axis < r;
  return axis;
}

// right_flood and its grad: out[i] = x[t(i)], t(i) = the last non-hole at or before i (in scan
// order), -1 (and x[i] itself) where there is none; x_grad[j] = sum of out_grad over {i : t(i) = j}.
void FuzzRightFlood(Fdp& f, bool grad) {
  SetEngine(f);
  const DataType t = PickType(f, f.ConsumeIntegralInRange<int>(0, 7) == 0 ? false : f.ConsumeBool());
  Arr x = PickArr(f, PickDims(f, 4, grad ? 4000 : 6000), t);
  const int rank = static_cast<int>(x.dims.size());
  bool axis_ok;
  const int axis = PickAxis(f, rank, &axis_ok);
  const bool reverse = f.ConsumeBool();
  const bool return_index = f.ConsumeBool();
  const int hole_kind = f.ConsumeIntegralInRange<int>(0, 15);  // 0: a bad hole string
  const std::string hole = hole_kind == 0 ? (f.ConsumeBool() ? "NaN" : "") : hole_kind < 8 ? "zero" : "nan";
  // Holes sprinkled in at a drawn density: +0, -0 and NaN (the hole or data, by `hole`).
  const int density = f.ConsumeIntegralInRange<int>(0, 8);
  uint64_t s = f.ConsumeIntegral<uint64_t>() | 1;
  for (LD& v : x.v) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    if (static_cast<int>((s >> 60) & 7) < density) {
      const int k = static_cast<int>((s >> 20) % 3);
      v = RoundTo(t, k == 0 ? 0.0L : k == 1 ? -0.0L : kNaN);
    }
  }
  g_case = std::string(grad ? "right_flood_grad" : "right_flood") + " x" + Str(x.dims) + " " +
           phi::DataTypeToString(t) + " axis=" + std::to_string(axis) + " reverse=" + std::to_string(reverse) +
           " hole='" + hole + "' return_index=" + std::to_string(return_index);
  int expected = kValid;
  if (!HasCpuKernel("right_flood", t)) {
    expected = kNotFound;
  } else if (!axis_ok) {
    expected = kOutOfRange;
  } else if (hole != "zero" && hole != "nan") {
    expected = kInvalidArgument;
  } else if (hole == "nan" && !IsFloat(t)) {
    expected = kInvalidArgument;
  }
  std::tuple<Tensor, Tensor> res;
  if (!Run([&] { res = api::right_flood(ToTensor(x), axis, reverse, hole, return_index); }, expected)) return;
  const bool nan_hole = hole == "nan";
  auto is_hole = [&](LD v) { return nan_hole ? std::isnan(v) : (v == 0); };
  const Scan sc = ScanOf(x.dims, axis, false);
  std::vector<LD> ref(x.v.size()), idx(x.v.size());
  for (int64_t o = 0; o < sc.outer; ++o) {
    for (int64_t i = 0; i < sc.inner; ++i) {
      int64_t src = -1;
      for (int64_t k = 0; k < sc.len; ++k) {
        const int64_t pos = Step(sc, k, reverse);
        const int64_t e = sc.At(o, i, pos);
        if (!is_hole(x.v[e])) src = pos;
        ref[e] = src < 0 ? x.v[e] : x.v[sc.At(o, i, src)];
        idx[e] = static_cast<LD>(src);
      }
    }
  }
  ExpectExact("out", FromTensor(std::get<0>(res)), ref, x.dims, t);
  if (return_index) ExpectExact("index", FromTensor(std::get<1>(res)), idx, x.dims, DataType::INT64);
  if (!grad) return;
  const bool has_grad = HasCpuKernel("right_flood_grad", t);
  const Arr gout = PickArr(f, x.dims, t);
  Tensor xg;
  if (!Run([&] { xg = api::right_flood_grad(ToTensor(x), ToTensor(gout), axis, reverse, hole); },
           has_grad ? kValid : kNotFound)) {
    return;
  }
  std::vector<LD> gref(x.v.size(), 0), mag(x.v.size(), 0);
  for (int64_t o = 0; o < sc.outer; ++o) {
    for (int64_t i = 0; i < sc.inner; ++i) {
      for (int64_t p = 0; p < sc.len; ++p) {
        const int64_t src = static_cast<int64_t>(idx[sc.At(o, i, p)]);
        if (src < 0) continue;  // a leading hole: no gradient
        const int64_t e = sc.At(o, i, p), j = sc.At(o, i, src);
        gref[j] += gout.v[e];
        mag[j] += std::fabs(gout.v[e]);
      }
    }
  }
  for (LD& m : mag) m = std::max<LD>(1, m);
  Expect("x_grad", FromTensor(xg), gref, x.dims, t, kSumTol, &mag);
}

// repeat_interleave (an int count, or a tensor of counts: repeat_interleave_with_tensor_index)
// and their grads: out[o, i, k] = x[o, j(i), k], slice j repeated counts[j] times in order.
void FuzzRepeatInterleave(Fdp& f, bool grad) {
  SetEngine(f);
  const bool with_tensor = f.ConsumeBool();
  const DataType t = PickType(f, f.ConsumeIntegralInRange<int>(0, 7) == 0 ? false : f.ConsumeBool());
  const Arr x = PickArr(f, PickDims(f, 4, 2000), t);
  const int rank = static_cast<int>(x.dims.size());
  bool axis_ok;
  const int axis = PickAxis(f, rank, &axis_ok);
  std::vector<int64_t> xd = rank == 0 ? std::vector<int64_t>{1} : x.dims;  // a 0-D x acts as [1]
  const int ax = axis_ok ? (axis < 0 ? axis + static_cast<int>(xd.size()) : axis) : 0;
  const int64_t n = xd[ax];
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < ax; ++i) outer *= xd[i];
  for (size_t i = ax + 1; i < xd.size(); ++i) inner *= xd[i];
  // Counts: mostly 0..3, sometimes a negative one; a single count (0-D or [1]) broadcasts.
  std::vector<int64_t> counts;
  int expected = kValid;
  const char* op = with_tensor ? "repeat_interleave_with_tensor_index" : "repeat_interleave";
  Arr rep;
  int64_t output_size = -1;
  int int_repeats = 0;
  if (!with_tensor) {
    int_repeats = f.ConsumeIntegralInRange<int>(0, 15) == 0 ? f.ConsumeIntegralInRange<int>(-3, -1)
                                                            : f.ConsumeIntegralInRange<int>(0, 4);
    counts.assign(static_cast<size_t>(n), int_repeats);
    if (!HasCpuKernel(op, t)) {
      expected = kNotFound;
    } else if (!axis_ok) {
      expected = kOutOfRange;
    } else if (int_repeats < 0) {
      expected = kInvalidArgument;
    }
  } else {
    const int shape_kind = f.ConsumeIntegralInRange<int>(0, 15);  // 0: 0-D, 1: [1], 2: wrong length, 3: 2-D
    rep.dtype = f.ConsumeIntegralInRange<int>(0, 15) == 0 ? DataType::FLOAT32
                : f.ConsumeBool()                         ? DataType::INT32
                                                          : DataType::INT64;
    rep.dims = shape_kind == 0   ? std::vector<int64_t>{}
               : shape_kind == 1 ? std::vector<int64_t>{1}
               : shape_kind == 2 ? std::vector<int64_t>{n + f.ConsumeIntegralInRange<int64_t>(1, 3)}
               : shape_kind == 3 ? std::vector<int64_t>{1, n}
                                 : std::vector<int64_t>{n};
    const bool negative = f.ConsumeIntegralInRange<int>(0, 15) == 0;
    for (int64_t j = 0; j < rep.numel(); ++j) rep.v.push_back(f.ConsumeIntegralInRange<int>(0, 3));
    if (negative && !rep.v.empty()) rep.v[f.ConsumeIntegralInRange<size_t>(0, rep.v.size() - 1)] = -1;
    const int64_t nc = rep.numel();
    bool has_negative = false;
    for (LD v : rep.v) has_negative |= v < 0;
    for (int64_t j = 0; j < n; ++j) counts.push_back(nc == 1 ? static_cast<int64_t>(rep.v[0]) : j < nc ? static_cast<int64_t>(rep.v[j]) : 0);
    int64_t total = 0;
    for (int64_t c : counts) total += c;
    const int size_kind = f.ConsumeIntegralInRange<int>(0, 7);  // 1: the total, 2: wrong, 3: < -1
    output_size = size_kind == 1 ? total : size_kind == 2 ? total + 1 : size_kind == 3 ? -2 : -1;
    if (!HasCpuKernel(op, t)) {
      expected = kNotFound;
    } else if (!axis_ok) {
      expected = kOutOfRange;
    } else if (rep.dtype == DataType::FLOAT32) {
      expected = static_cast<int>(phi::ErrorCode::INVALID_TYPE);
    } else if (rep.dims.size() > 1 || (nc != n && nc != 1) || output_size < -1 || has_negative ||
               size_kind == 2) {
      expected = kInvalidArgument;
    }
  }
  g_case = std::string(op) + (grad ? " (grad)" : "") + " x" + Str(x.dims) + " " + phi::DataTypeToString(t) +
           " axis=" + std::to_string(axis) +
           (with_tensor ? " repeats" + Str(rep.dims) + " " + phi::DataTypeToString(rep.dtype) +
                              " output_size=" + std::to_string(output_size)
                        : " repeats=" + std::to_string(int_repeats));
  Tensor out;
  if (!Run([&] {
        out = with_tensor ? api::repeat_interleave_with_tensor_index(ToTensor(x), ToTensor(rep), axis, output_size)
                          : api::repeat_interleave(ToTensor(x), int_repeats, axis);
      }, expected)) {
    return;
  }
  int64_t M = 0;
  for (int64_t c : counts) M += c;
  std::vector<int64_t> src;  // the source slice of each output slice
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t c = 0; c < counts[j]; ++c) src.push_back(j);
  }
  std::vector<int64_t> od = xd;
  od[ax] = M;
  std::vector<LD> ref(static_cast<size_t>(outer * M * inner));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t k = 0; k < inner; ++k) ref[(o * M + i) * inner + k] = x.v[(o * n + src[i]) * inner + k];
    }
  }
  ExpectExact("out", FromTensor(out), ref, od, t);
  if (!grad) return;
  const char* gop = with_tensor ? "repeat_interleave_with_tensor_index_grad" : "repeat_interleave_grad";
  const Arr gout = PickArr(f, od, t);
  Tensor xg;
  if (!Run([&] {
        xg = with_tensor ? api::repeat_interleave_with_tensor_index_grad(ToTensor(x), ToTensor(rep), ToTensor(gout), axis)
                         : api::repeat_interleave_grad(ToTensor(x), ToTensor(gout), int_repeats, axis);
      }, HasCpuKernel(gop, t) ? kValid : kNotFound)) {
    return;
  }
  std::vector<LD> gref(x.v.size(), 0), mag(x.v.size(), 0);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t k = 0; k < inner; ++k) {
        const LD g = gout.v[(o * M + i) * inner + k];
        gref[(o * n + src[i]) * inner + k] += g;
        mag[(o * n + src[i]) * inner + k] += std::fabs(g);
      }
    }
  }
  for (LD& m : mag) m = std::max<LD>(1, m);
  Expect("x_grad", FromTensor(xg), gref, x.dims, t, kSumTol, &mag);
}

// SPEC §5: relative RMS error against the float64 recurrent reference, 4e-3 for the 16-bit
// types and 1e-5 for float32 (float64: 1e-12). An all-zero reference needs an all-zero result
// up to the dtype's smallest normal.
void ExpectRelRms(const char* what, const Arr& got, const std::vector<LD>& ref, const std::vector<LD>& mag, LD c,
                  const std::vector<int64_t>& dims, DataType dtype) {
  if (got.dims != dims) Fail(std::string(what) + ": dims " + Str(got.dims) + ", expected " + Str(dims));
  if (got.dtype != dtype) Fail(std::string(what) + ": dtype " + phi::DataTypeToString(got.dtype));
  const LD tol = dtype == DataType::FLOAT64 ? 1e-12L : dtype == DataType::FLOAT32 ? 1e-5L : 4e-3L;
  const LD tiny = dtype == DataType::FLOAT16 ? 6.1e-5L : std::numeric_limits<float>::min();
  if (got.v.size() != ref.size()) Fail(std::string(what) + ": element count");
  LD err = 0, norm = 0, msq = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    err += (got.v[i] - ref[i]) * (got.v[i] - ref[i]);
    norm += ref[i] * ref[i];
    msq += mag[i] * mag[i];
  }
  const LD n = std::max<LD>(1, static_cast<LD>(ref.size()));
  const LD rms_err = std::sqrt(err / n), rms_ref = std::sqrt(norm / n);
  if (!(rms_err <= tol * std::max(rms_ref, tiny) + c * std::sqrt(msq / n))) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s: relative RMS error %.6Lg (RMS error %.6Lg, reference RMS %.6Lg) > %.3Lg", what,
                  rms_err / std::max(rms_ref, tiny), rms_err, rms_ref, tol);
    Fail(buf);
  }
}

// gla: h_t = h_{t-1} * exp(gk_t)[:, None] + k_t (x) v_t, o_t = scale q_t h_t, per head; its grad by
// the recurrent form's backward. Small shapes (T <= 40, D <= 8): the reference is a plain loop.
void FuzzGla(Fdp& f, bool grad) {
  const DataType t = PickType(f, f.ConsumeIntegralInRange<int>(0, 15) != 0);
  const int64_t B = f.ConsumeIntegralInRange<int64_t>(0, 2), H = f.ConsumeIntegralInRange<int64_t>(0, 2);
  const int64_t T = f.ConsumeIntegralInRange<int64_t>(0, 40);
  const int64_t Dk = f.ConsumeIntegralInRange<int64_t>(0, 8), Dv = f.ConsumeIntegralInRange<int64_t>(0, 8);
  const bool head_first = f.ConsumeBool(), with_state = f.ConsumeBool(), final_out = f.ConsumeBool();
  const bool with_final_grad = f.ConsumeBool();
  const int bad = f.ConsumeIntegralInRange<int>(0, 15);  // 1: k's shape, 2: v's dtype, 3: state dtype, 4: q 3-D
  const int scale_kind = f.ConsumeIntegralInRange<int>(0, 2);
  const double scale = scale_kind == 0 ? (Dk > 0 ? 1.0 / std::sqrt(static_cast<double>(Dk)) : 1.0)
                       : scale_kind == 1 ? 1.0
                                         : f.ConsumeFloatingPointInRange<double>(0.0, 1.0);
  const LD decay = f.PickValueInArray({0.0L, 1.0L / 16, 1.0L, 4.0L});
  auto qk = [&](int64_t D) {
    return head_first ? std::vector<int64_t>{B, H, T, D} : std::vector<int64_t>{B, T, H, D};
  };
  // Values within [-1, 1] (zeros, -0 and subnormals kept; inf, NaN and huge ones folded back)
  // so that the 16-bit outputs and gradients stay finite; gk = -decay * |value| <= 0.
  auto draw = [&](const std::vector<int64_t>& dims, DataType dt, bool is_gk) {
    Arr a = PickArr(f, dims, dt);
    for (LD& v : a.v) {
      if (!std::isfinite(v) || std::fabs(v) > 4) v = std::signbit(v) ? -1 : 1;
      v = RoundTo(dt, is_gk ? -decay * std::fabs(v) : v / 4);
    }
    return a;
  };
  Arr q = draw(qk(Dk), t, false);
  if (bad == 4) q.dims = {B, H * T, Dk};
  const Arr k = draw(qk(Dk + (bad == 1 ? 1 : 0)), t, false);
  const DataType vt = bad == 2 ? (t == DataType::FLOAT32 ? DataType::FLOAT64 : DataType::FLOAT32) : t;
  const Arr v = draw(qk(Dv), vt, false);
  const Arr gk = draw(qk(Dk), t, true);
  const Arr h0 = draw({B, H, Dk, Dv}, bad == 3 ? DataType::FLOAT64 : DataType::FLOAT32, false);
  g_case = std::string(grad ? "gla_grad" : "gla") + " B=" + std::to_string(B) + " H=" + std::to_string(H) +
           " T=" + std::to_string(T) + " Dk=" + std::to_string(Dk) + " Dv=" + std::to_string(Dv) + " " +
           phi::DataTypeToString(t) + " head_first=" + std::to_string(head_first) + " state=" +
           std::to_string(with_state) + " final=" + std::to_string(final_out) + " scale=" + std::to_string(scale) +
           " decay=" + std::to_string(static_cast<double>(decay)) + " bad=" + std::to_string(bad);
  int expected = kValid;
  if (!HasCpuKernel("gla", t)) {
    expected = kNotFound;
  } else if (bad == 4 || bad == 1) {
    expected = kInvalidArgument;
  } else if (bad == 2 || (bad == 3 && with_state)) {
    expected = static_cast<int>(phi::ErrorCode::INVALID_TYPE);
  }
  paddle::optional<Tensor> state;
  if (with_state) state = ToTensor(h0);
  std::tuple<Tensor, Tensor> res;
  if (!Run([&] { res = api::gla(ToTensor(q), ToTensor(k), ToTensor(v), ToTensor(gk), state, scale, final_out, head_first); },
           expected)) {
    return;
  }
  auto row = [&](int64_t bh, int64_t s, int64_t D) {
    if (head_first) return (bh * T + s) * D;
    return (((bh / H) * T + s) * H + bh % H) * D;
  };
  const Arr dout = draw(qk(Dv), t, false);
  const Arr dfin = draw({B, H, Dk, Dv}, DataType::FLOAT32, false);
  struct GlaRef {
    std::vector<LD> o, fin, dq, dk, dv, dg, dh0;
  };
  // The recurrent form and its backward in long double; with `mag`, on the magnitudes of the
  // inputs (the size of the terms: what the kernel's rounding scales with where they cancel).
  auto reference = [&](bool mag) {
    auto val = [mag](const Arr& a) {
      std::vector<LD> r = a.v;
      if (mag) {
        for (LD& x : r) x = std::fabs(x);
      }
      return r;
    };
    const std::vector<LD> qv = val(q), kv = val(k), vv = val(v), h0v = val(h0), dov = val(dout), dfv = val(dfin);
    const int64_t S = Dk * Dv;
    // hs[bh][s] = h_s (s = 0..T; hs[.][0] the initial state).
    std::vector<LD> hs(static_cast<size_t>(B * H * (T + 1) * S), 0), o(static_cast<size_t>(B * H * T * Dv), 0);
    std::vector<LD> fin(static_cast<size_t>(B * H * S));
    auto H_ = [&](int64_t bh, int64_t s) { return hs.data() + (bh * (T + 1) + s) * S; };
    for (int64_t bh = 0; bh < B * H; ++bh) {
      LD* h = H_(bh, 0);
      for (int64_t e = 0; e < S; ++e) h[e] = with_state ? h0v[bh * S + e] : 0;
      for (int64_t s = 0; s < T; ++s) {
        const LD* hp = H_(bh, s);
        LD* hn = H_(bh, s + 1);
        for (int64_t i = 0; i < Dk; ++i) {
          const LD a = std::exp(gk.v[row(bh, s, Dk) + i]);
          for (int64_t j = 0; j < Dv; ++j) {
            hn[i * Dv + j] = hp[i * Dv + j] * a + kv[row(bh, s, Dk) + i] * vv[row(bh, s, Dv) + j];
          }
        }
        for (int64_t j = 0; j < Dv; ++j) {
          LD acc = 0;
          for (int64_t i = 0; i < Dk; ++i) acc += qv[row(bh, s, Dk) + i] * scale * hn[i * Dv + j];
          o[row(bh, s, Dv) + j] = acc;
        }
      }
      for (int64_t e = 0; e < S; ++e) fin[bh * S + e] = H_(bh, T)[e];
    }
    // Backward of the loop: dS (the gradient of h_s) from the end.
    std::vector<LD> dq(qv.size(), 0), dk(kv.size(), 0), dv(vv.size(), 0), dg(gk.v.size(), 0), dh0(fin.size(), 0);
    std::vector<LD> dS(static_cast<size_t>(S));
    for (int64_t bh = 0; bh < B * H; ++bh) {
      for (int64_t e = 0; e < S; ++e) dS[e] = with_final_grad ? dfv[bh * S + e] : 0;
      for (int64_t s = T - 1; s >= 0; --s) {
        const LD* hn = H_(bh, s + 1);
        const LD* hp = H_(bh, s);
        const int64_t rk = row(bh, s, Dk), rv = row(bh, s, Dv);
        for (int64_t i = 0; i < Dk; ++i) {
          LD acc = 0;
          for (int64_t j = 0; j < Dv; ++j) {
            dS[i * Dv + j] += scale * qv[rk + i] * dov[rv + j];
            acc += hn[i * Dv + j] * dov[rv + j];
          }
          dq[rk + i] = scale * acc;
        }
        for (int64_t i = 0; i < Dk; ++i) {
          const LD a = std::exp(gk.v[rk + i]);
          LD acc_k = 0, acc_g = 0;
          for (int64_t j = 0; j < Dv; ++j) {
            acc_k += dS[i * Dv + j] * vv[rv + j];
            acc_g += dS[i * Dv + j] * a * hp[i * Dv + j];
          }
          dk[rk + i] = acc_k;
          dg[rk + i] = acc_g;
        }
        for (int64_t j = 0; j < Dv; ++j) {
          LD acc = 0;
          for (int64_t i = 0; i < Dk; ++i) acc += dS[i * Dv + j] * kv[rk + i];
          dv[rv + j] = acc;
        }
        for (int64_t i = 0; i < Dk; ++i) {
          const LD a = std::exp(gk.v[rk + i]);
          for (int64_t j = 0; j < Dv; ++j) dS[i * Dv + j] *= a;
        }
      }
      for (int64_t e = 0; e < S; ++e) dh0[bh * S + e] = dS[e];
    }
    if (mag) {
      // gk_grad is computed (SPEC §5) as the reverse cumulative sum of q * q_grad - k * k_grad:
      // those terms' sizes are its rounding's scale (they cancel in strongly decayed channels).
      for (int64_t bh = 0; bh < B * H; ++bh) {
        for (int64_t i = 0; i < Dk; ++i) {
          LD acc = 0;
          for (int64_t s = T - 1; s >= 0; --s) {
            const int64_t e = row(bh, s, Dk) + i;
            acc += qv[e] * dq[e] + kv[e] * dk[e];
            dg[e] += acc;
          }
        }
      }
    }
    return GlaRef{o, fin, dq, dk, dv, dg, dh0};
  };
  const GlaRef ref = reference(false), mg = reference(true);
  // Beyond SPEC's relative RMS: the rounding of the accumulation type over the terms' sizes,
  // for results that cancel (a state near -k v, a gradient whose terms sum to ~0).
  const LD c = static_cast<LD>(T + Dk + Dv + 4) * (t == DataType::FLOAT64 ? Eps(DataType::FLOAT64) : Eps(DataType::FLOAT32));
  ExpectRelRms("o", FromTensor(std::get<0>(res)), ref.o, mg.o, c, qk(Dv), t);
  if (final_out) {
    ExpectRelRms("final_state", FromTensor(std::get<1>(res)), ref.fin, mg.fin, c, {B, H, Dk, Dv}, DataType::FLOAT32);
  }
  if (!grad) return;
  paddle::optional<Tensor> fgrad;
  if (with_final_grad) fgrad = ToTensor(dfin);
  std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> gr;
  Run([&] {
    gr = api::gla_grad(ToTensor(q), ToTensor(k), ToTensor(v), ToTensor(gk), state, ToTensor(dout), fgrad, scale, head_first);
  }, HasCpuKernel("gla_grad", t) ? kValid : kNotFound);
  // gk_t enters only through h_t (every later state depends on it through h_t), and dS at step
  // t is the whole gradient of h_t, so dgk_t = sum_j dS_t * exp(gk_t) * h_{t-1} is complete.
  ExpectRelRms("q_grad", FromTensor(std::get<0>(gr)), ref.dq, mg.dq, c, qk(Dk), t);
  ExpectRelRms("k_grad", FromTensor(std::get<1>(gr)), ref.dk, mg.dk, c, qk(Dk), t);
  ExpectRelRms("v_grad", FromTensor(std::get<2>(gr)), ref.dv, mg.dv, c, qk(Dv), t);
  ExpectRelRms("gk_grad", FromTensor(std::get<3>(gr)), ref.dg, mg.dg, c, qk(Dk), t);
  if (with_state) {
    ExpectRelRms("initial_state_grad", FromTensor(std::get<4>(gr)), ref.dh0, mg.dh0, c, {B, H, Dk, Dv}, DataType::FLOAT32);
  }
}

struct OpEntry {
  const char* name;
  std::function<void(Fdp&)> fuzz;
};

const std::vector<OpEntry>& Ops() {
  static const std::vector<OpEntry> ops = {
      {"logcumsumexp", [](Fdp& f) { FuzzLogcumsumexp(f, false); }},
      {"logcumsumexp_grad", [](Fdp& f) { FuzzLogcumsumexp(f, true); }},
      {"cumsum", [](Fdp& f) { FuzzCumsum(f, false); }},
      {"cumsum_grad", [](Fdp& f) { FuzzCumsum(f, true); }},
      {"pscan", [](Fdp& f) { FuzzPscan(f, false); }},
      {"pscan_grad", [](Fdp& f) { FuzzPscan(f, true); }},
      {"add", [](Fdp& f) { FuzzElementwise(f, 0); }},
      {"subtract", [](Fdp& f) { FuzzElementwise(f, 1); }},
      {"multiply", [](Fdp& f) { FuzzElementwise(f, 2); }},
      {"sum", [](Fdp& f) { FuzzReduce(f, false); }},
      {"mean", [](Fdp& f) { FuzzReduce(f, true); }},
      {"reshape", FuzzReshape},
      {"cast", FuzzCast},
      {"full_like", FuzzFullLike},
      {"right_flood", [](Fdp& f) { FuzzRightFlood(f, false); }},
      {"right_flood_grad", [](Fdp& f) { FuzzRightFlood(f, true); }},
      {"repeat_interleave", [](Fdp& f) { FuzzRepeatInterleave(f, false); }},
      {"repeat_interleave_grad", [](Fdp& f) { FuzzRepeatInterleave(f, true); }},
      {"gla", [](Fdp& f) { FuzzGla(f, false); }},
      {"gla_grad", [](Fdp& f) { FuzzGla(f, true); }},
  };
  return ops;
}

int g_only = -1;  // PADDLE_OPS_FUZZ_OP: fuzz this op alone

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* name = std::getenv("PADDLE_OPS_FUZZ_OP")) {
    for (size_t i = 0; i < Ops().size(); ++i) {
      if (Ops()[i].name == std::string(name)) g_only = static_cast<int>(i);
    }
    if (g_only < 0) {
      std::fprintf(stderr, "PADDLE_OPS_FUZZ_OP=%s: no such op; the ops are:", name);
      for (const OpEntry& e : Ops()) std::fprintf(stderr, " %s", e.name);
      std::fprintf(stderr, "\n");
      std::exit(2);
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider f(data, size);
  const int n = static_cast<int>(Ops().size());
  const int which = g_only >= 0 ? g_only : f.ConsumeIntegralInRange<int>(0, n - 1);
  g_case = Ops()[which].name;
  Ops()[which].fuzz(f);
  return 0;
}
