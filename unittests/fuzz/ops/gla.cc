// Fuzzing gla and gla_grad.
#include "paddle_ops/common/flags.h"
#include "unittests/fuzz/fuzz_util.h"

namespace {

using namespace paddle_ops_fuzz;  // NOLINT: the fuzzer's shared vocabulary

// docs/spec.md §5: relative RMS error against the float64 recurrent reference, 4e-3 for the 16-bit
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
  Arr gk = draw(qk(Dk), t, true);
  // Gates at the edge of what the spec allows (§5): -inf (a channel that forgets completely), huge
  // finite ones (-1e30; -inf in float16), one past the chunked form's floor, one whose exp
  // underflows float, each at about 1 in 8 gates of a case that has them.
  const bool extreme = f.ConsumeIntegralInRange<int>(0, 3) == 0;
  if (extreme) {
    for (LD& g : gk.v) {
      if (f.ConsumeIntegralInRange<int>(0, 7) == 0) g = RoundTo(t, f.PickValueInArray({-kInf, -1e30L, -3e4L, -200.0L}));
    }
  }
  // The CPU path (PADDLE_OPS_GLA_CPU): auto picks the recurrent form at these sizes; the chunked
  // form takes any size when forced.
  const char* path = f.PickValueInArray({"auto", "chunked", "recurrent"});
  paddle_ops::flags::SetFlag("PADDLE_OPS_GLA_CPU", path);
  const Arr h0 = draw({B, H, Dk, Dv}, bad == 3 ? DataType::FLOAT64 : DataType::FLOAT32, false);
  g_case = std::string(grad ? "gla_grad" : "gla") + " B=" + std::to_string(B) + " H=" + std::to_string(H) +
           " T=" + std::to_string(T) + " Dk=" + std::to_string(Dk) + " Dv=" + std::to_string(Dv) + " " +
           phi::DataTypeToString(t) + " head_first=" + std::to_string(head_first) + " state=" +
           std::to_string(with_state) + " final=" + std::to_string(final_out) + " scale=" + std::to_string(scale) +
           " decay=" + std::to_string(static_cast<double>(decay)) + " extreme=" + std::to_string(extreme) +
           " path=" + path + " bad=" + std::to_string(bad);
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
  if (!Run([&] { res = api::gla(ToTensor(q), ToTensor(k), ToTensor(v), ToTensor(gk), state, paddle::none, scale, final_out, head_first); },
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
  // float32 on both CPU forms is held to the spec's bound in gk_grad like every other output: the
  // recurrent form (auto takes it at these sizes: Dk < 128) keeps its state and the reverse sum of
  // gk's gradient in float64, the chunked form sums that gradient within each chunk from the state
  // before it (chunk_cpu.cc). The other dtypes round the reverse sum in their accumulation type.
  const bool reverse_sum_rounding = t != DataType::FLOAT32;
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
    if (mag && reverse_sum_rounding) {
      // gk_grad is computed (docs/spec.md §5) as the reverse cumulative sum of q * q_grad - k * k_grad:
      // those terms' sizes are its rounding's scale (they cancel in strongly decayed channels), except
      // on the CPU's recurrent form in float32, which takes that sum in float64 (below).
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
  // Beyond the spec's relative RMS: the rounding of the accumulation type over the terms' sizes,
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
    gr = api::gla_grad(ToTensor(q), ToTensor(k), ToTensor(v), ToTensor(gk), state, paddle::none, ToTensor(dout), fgrad, scale, head_first);
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

}  // namespace

REGISTER_FUZZ_OP(gla, [](paddle_ops_fuzz::Fdp& f) { FuzzGla(f, false); });
REGISTER_FUZZ_OP(gla_grad, [](paddle_ops_fuzz::Fdp& f) { FuzzGla(f, true); });
