// Fuzzing pscan and pscan_grad.
#include "unittests/fuzz/fuzz_util.h"

namespace {

using namespace paddle_ops_fuzz;  // NOLINT: the fuzzer's shared vocabulary

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

}  // namespace

REGISTER_FUZZ_OP(pscan, [](paddle_ops_fuzz::Fdp& f) { FuzzPscan(f, false); });
REGISTER_FUZZ_OP(pscan_grad, [](paddle_ops_fuzz::Fdp& f) { FuzzPscan(f, true); });
