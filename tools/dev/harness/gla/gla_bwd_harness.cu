// Kernel harness of the sm_90a gla backward (kernels/gla/sm90/chunk_bwd_sm90.cuh): random
// inputs, the float64 recurrent backward on the host (bwd_ref.h) for a few heads of each case,
// poisoned outputs, rel. RMS of dq, dk, dv, dgk, dh0, two runs compared bitwise, and the time of
// the backward and of the sm_90a forward + backward against a device-to-device copy of the
// backward's bytes (its memory floor). Built by build.sh (target bwd) with one nvcc call.
//
// Columns: bwd ms, fwd+bwd ms (median of 10 batches of 5 calls), floor (copy of the backward's
// bytes: q, k, gk, v, do read, dq, dk, dgk, dv written), x floor, rel. RMS of each gradient on
// the checked heads, NaN/unwritten elements, det (two runs bitwise equal), check (every rel. RMS
// <= 4e-3, none unwritten, det); under each timed case the three kernels timed alone (state
// pass, dh pass, chunk kernel). Builds: -DGLA_BWD_F32_STATES (float32 states),
// -DGLA_BWD_SPLIT_STATES (bfloat16 states scaled and split hi/lo in the chunk kernel).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernels/gla/sm90/chunk_bwd_sm90.cuh"
#include "kernels/gla/sm90/chunk_fwd_sm90.cuh"
#include "tools/dev/harness/gla/bwd_ref.h"
#include "tools/dev/harness/gla/gla_timing.cuh"
#include "tools/dev/harness/harness.cuh"

namespace {

using gla_sm90_bwd::BwdArgs;

struct Case {
  std::string name;
  int B, T, H, Dk, Dv;
  bool head_first, h0, dfinal;
  int gates;       // 0: logsigmoid/16; 1: x4 (strong); 2: extreme (-inf, -1e30, -60 mixed in); 3: U[-1, 0]
  bool g32;        // gk float32 (else the 16-bit type)
  bool other;      // every chunk in the element-wise mode
  bool time;
};

template <class X>
X FromF(float x) {
  return X(x);
}
template <>
__nv_bfloat16 FromF<__nv_bfloat16>(float x) {
  return __float2bfloat16(x);
}
template <>
__half FromF<__half>(float x) {
  return __float2half(x);
}


template <class E, class G>
cudaError_t LaunchFor(const BwdArgs& a, cudaStream_t st, int parts = 7) {
  using namespace gla_sm90_bwd;
  if (a.Dk <= 64 && a.Dv <= 64) return LaunchBwd<E, G, 64, 64>(a, st, parts);
  if (a.Dv <= 128) return LaunchBwd<E, G, 128, 128>(a, st, parts);
  return LaunchBwd<E, G, 128, 256>(a, st, parts);
}

inline int64_t BwdStateElemsOf(const BwdArgs& a) { return gla_sm90_bwd::BwdStateElems(a); }

// Frees a call's device buffers (inputs, outputs, work space).
void FreeCall(const BwdArgs& a) {
  for (const void* p : {a.q, a.k, a.v, a.dout, a.g, static_cast<const void*>(a.h0), static_cast<const void*>(a.dfinal)})
    if (p) cudaFree(const_cast<void*>(p));
  for (void* p : {a.dq, a.dk, a.dv, a.dg, static_cast<void*>(a.dh0), static_cast<void*>(a.work)})
    if (p) cudaFree(p);
}

template <class T>
T* Upload(const std::vector<T>& h) {
  T* d = nullptr;
  CK(cudaMalloc(&d, std::max<size_t>(h.size(), 1) * sizeof(T)));
  if (!h.empty()) CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

// Fast random numbers for the large cases: normals from a table of 2^20, indexed by an LCG.
struct Rng {
  uint64_t s;
  const std::vector<float>& table() {
    static std::vector<float> t = [] {
      std::mt19937_64 r(12345);
      std::normal_distribution<float> nd(0.f, 1.f);
      std::vector<float> v(1 << 20);
      for (auto& x : v) x = nd(r);
      return v;
    }();
    return t;
  }
  uint64_t Next() { return s = s * 6364136223846793005ull + 1442695040888963407ull; }
  float Normal() { return table()[(Next() >> 40) & ((1u << 20) - 1)]; }
  float Uniform() { return float((Next() >> 40) & 0xffffff) / float(1 << 24); }
};

template <class E, class G>
bool RunCase(const Case& c) {
  Rng rng{std::hash<std::string>()(c.name)};
  const int BH = c.B * c.H;
  const int64_t nqk = int64_t(BH) * c.T * c.Dk, nv = int64_t(BH) * c.T * c.Dv, ns = int64_t(BH) * c.Dk * c.Dv;
  auto in = gla_ref::RandomInputs<E, G>(
      nqk, nv, ns, c.gates, 0.01f, c.h0, c.dfinal, [&] { return rng.Normal(); }, [&] { return rng.Uniform(); },
      [](float x) { return FromF<E>(x); }, [](float x) { return FromF<G>(x); });
  auto &q = in.q, &k = in.k, &v = in.v, &dout = in.dout;
  auto& g = in.g;
  auto &h0 = in.h0, &dfinal = in.dfinal;
  BwdArgs a;
  a.B = c.B, a.H = c.H, a.T = c.T, a.Dk = c.Dk, a.Dv = c.Dv;
  gla_sm90::RowStrides(c.head_first, c.T, c.H, c.Dk, &a.qk_st, &a.qk_sh, &a.qk_sb);
  gla_sm90::RowStrides(c.head_first, c.T, c.H, c.Dv, &a.v_st, &a.v_sh, &a.v_sb);
  a.scale = 1.f / std::sqrt(float(c.Dk));
  a.force_other_mode = c.other;
  E *dq_, *dk_, *dv_;
  G* dg_;
  a.q = Upload(q), a.k = Upload(k), a.v = Upload(v), a.dout = Upload(dout), a.g = Upload(g);
  float* dh0_ = nullptr;
  if (c.h0) {
    a.h0 = Upload(h0);
    CK(cudaMalloc(&dh0_, ns * 4));
  }
  if (c.dfinal) a.dfinal = Upload(dfinal);
  CK(cudaMalloc(&dq_, nqk * sizeof(E)));
  CK(cudaMalloc(&dk_, nqk * sizeof(E)));
  CK(cudaMalloc(&dv_, nv * sizeof(E)));
  CK(cudaMalloc(&dg_, nqk * sizeof(G)));
  CK(cudaMalloc(&a.work, gla_sm90_bwd::BwdWorkBytes<E>(a)));
  a.dq = dq_, a.dk = dk_, a.dv = dv_, a.dg = dg_, a.dh0 = dh0_;

  auto poison = [&] {
    CK(cudaMemset(dq_, 0xff, nqk * sizeof(E)));
    CK(cudaMemset(dk_, 0xff, nqk * sizeof(E)));
    CK(cudaMemset(dv_, 0xff, nv * sizeof(E)));
    CK(cudaMemset(dg_, 0xff, nqk * sizeof(G)));
    if (dh0_) CK(cudaMemset(dh0_, 0xff, ns * 4));
  };
  auto run = [&] {
    cudaError_t err = LaunchFor<E, G>(a, 0);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
      std::printf("| %-34s | launch failed: %s |\n", c.name.c_str(), cudaGetErrorString(err));
      std::exit(3);
    }
  };
  poison();
  run();
  auto gq = harness::Download(dq_, nqk), gk = harness::Download(dk_, nqk), gv = harness::Download(dv_, nv);
  auto gg = harness::Download(dg_, nqk);
  std::vector<float> gh0;
  if (dh0_) gh0 = harness::Download(dh0_, ns);
  poison();
  run();
  bool det = harness::Download(dq_, nqk) == gq && harness::Download(dk_, nqk) == gk && harness::Download(dv_, nv) == gv;
  {
    auto g2 = harness::Download(dg_, nqk);
    det = det && std::memcmp(g2.data(), gg.data(), nqk * sizeof(G)) == 0;
    if (dh0_) det = det && harness::Download(dh0_, ns) == gh0;
  }

  // The float64 reference on the first and the last head (every head when there are few).
  std::vector<int> heads;
  if (BH <= 4 && !c.time) {
    for (int i = 0; i < BH; ++i) heads.push_back(i);
  } else {
    heads = {0, BH - 1};
  }
  gla_ref::Err e[5];
  const gla_ref::HostCall<E, G> hc{c.H, c.T, c.Dk, c.Dv, a.qk_st, a.qk_sh, a.qk_sb, a.v_st, a.v_sh, a.v_sb,
                                   q.data(), k.data(), v.data(), dout.data(), g.data(),
                                   c.h0 ? h0.data() : nullptr, c.dfinal ? dfinal.data() : nullptr, a.scale,
                                   gq.data(), gk.data(), gv.data(), gg.data(), c.h0 ? gh0.data() : nullptr};
  for (int bh : heads) gla_ref::AddHeadErrors(hc, bh, e);
  long long bad = 0;
  bool ok = det;
  for (auto& x : e) bad += x.bad, ok = ok && x.Rel() <= 4e-3;
  ok = ok && bad == 0;

  double ms = 0, ms_fb = 0, floor_ms = 0, ms_part[3] = {0, 0, 0};
  if (c.time) {
    for (int part = 0; part < 3; ++part) ms_part[part] = TimeMs([&] { CK((LaunchFor<E, G>(a, 0, 1 << part))); });
    const int64_t bytes = (3 * nqk + 2 * nv) * int64_t(sizeof(E)) + (int64_t(sizeof(G)) - 2) * nqk * 2 +
                          (3 * nqk + nv) * int64_t(sizeof(E));
    floor_ms = CopyMs(bytes);
    ms = TimeMs([&] { CK((LaunchFor<E, G>(a, 0))); });
    if (std::is_same<G, E>::value) {  // the sm_90a forward (16-bit gk) + this backward
      using CE = std::conditional_t<std::is_same<E, __half>::value, cutlass::half_t, cutlass::bfloat16_t>;
      gla_sm90::FwdArgs f;
      f.B = c.B, f.H = c.H, f.T = c.T, f.Dk = c.Dk, f.Dv = c.Dv;
      f.qk_st = a.qk_st, f.qk_sh = a.qk_sh, f.qk_sb = a.qk_sb, f.v_st = a.v_st, f.v_sh = a.v_sh, f.v_sb = a.v_sb;
      f.q = a.q, f.k = a.k, f.v = a.v, f.g = a.g, f.h0 = a.h0, f.scale = a.scale;
      E* o = nullptr;
      CK(cudaMalloc(&o, nv * sizeof(E)));
      f.o = o;
      ms_fb = TimeMs([&] {
        CK((gla_sm90::LaunchFwd<CE, 128, 128, 2>(f, 0)));
        CK((LaunchFor<E, G>(a, 0)));
      });
      cudaFree(o);
    }
  }
  std::printf("| %-34s | %8.4f | %8.4f | %7.4f | %6.2f | %8.3g | %8.3g | %8.3g | %8.3g | %8.3g | %4lld | %-3s | %-4s |\n",
              c.name.c_str(), ms, ms_fb, floor_ms, floor_ms > 0 ? ms / floor_ms : 0.0, e[0].Rel(), e[1].Rel(),
              e[2].Rel(), e[3].Rel(), e[4].Rel(), bad, det ? "yes" : "NO", ok ? "ok" : "FAIL");
  if (c.time)
    std::printf("|   kernels: state %.4f ms, dh %.4f ms, chunk %.4f ms |\n", ms_part[0], ms_part[1], ms_part[2]);
  std::fflush(stdout);
  FreeCall(a);
  return ok;
}

// ---- --states: the state kernels' tile shapes side by side (bfloat16) ----------------------------
// Each variant (the library's launch, or one StateKernel tile of DK rows and BV columns) runs both
// state passes, then the library's chunk kernel on its states: the gradients against the float64
// reference of the checked heads (computed once per case), unwritten elements (outputs
// poisoned), and on the timed cases the ms of each pass and the GB/s of its minimal traffic
// (states written, x, gates, y read once).
struct StateVariant {
  const char* name;
  cudaError_t (*launch)(const BwdArgs&, int parts);
};
template <int DK, int BV>
cudaError_t LaunchStateVariant(const BwdArgs& a, int parts) {
  using namespace gla_sm90_bwd;
  using S = StateKernel<__nv_bfloat16, __nv_bfloat16, DK, BV>;
  cudaError_t err = cudaFuncSetAttribute(BwdStateKernel<S, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, S::kSmemBytes);
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute(BwdStateKernel<S, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, S::kSmemBytes);
  if (err != cudaSuccess) return err;
  if (parts & 1) BwdStateKernel<S, false><<<unsigned(S::Blocks(a)), kStateThreads, S::kSmemBytes>>>(a);
  if (parts & 2) BwdStateKernel<S, true><<<unsigned(S::Blocks(a)), kStateThreads, S::kSmemBytes>>>(a);
  return cudaGetLastError();
}

cudaError_t LaunchStateLibrary(const BwdArgs& a, int parts) { return LaunchFor<__nv_bfloat16, __nv_bfloat16>(a, 0, parts); }

bool StateVariants(const Case& c) {
  using bf = __nv_bfloat16;
  static const StateVariant kVariants[] = {
      {"library", LaunchStateLibrary},                   {"DK128 BV64", LaunchStateVariant<128, 64>},
      {"DK128 BV32", LaunchStateVariant<128, 32>},       {"DK64 BV128", LaunchStateVariant<64, 128>},
      {"DK64 BV64", LaunchStateVariant<64, 64>},         {"DK64 BV32", LaunchStateVariant<64, 32>},
  };
  Rng rng{std::hash<std::string>()(c.name)};
  const int BH = c.B * c.H;
  const int64_t nqk = int64_t(BH) * c.T * c.Dk, nv = int64_t(BH) * c.T * c.Dv, ns = int64_t(BH) * c.Dk * c.Dv;
  auto in = gla_ref::RandomInputs<bf, bf>(
      nqk, nv, ns, c.gates, 0.01f, c.h0, c.dfinal, [&] { return rng.Normal(); }, [&] { return rng.Uniform(); },
      [](float x) { return FromF<bf>(x); }, [](float x) { return FromF<bf>(x); });
  BwdArgs a;
  a.B = c.B, a.H = c.H, a.T = c.T, a.Dk = c.Dk, a.Dv = c.Dv;
  gla_sm90::RowStrides(c.head_first, c.T, c.H, c.Dk, &a.qk_st, &a.qk_sh, &a.qk_sb);
  gla_sm90::RowStrides(c.head_first, c.T, c.H, c.Dv, &a.v_st, &a.v_sh, &a.v_sb);
  a.scale = 1.f / std::sqrt(float(c.Dk));
  a.q = Upload(in.q), a.k = Upload(in.k), a.v = Upload(in.v), a.dout = Upload(in.dout), a.g = Upload(in.g);
  if (c.h0) a.h0 = Upload(in.h0);
  if (c.dfinal) a.dfinal = Upload(in.dfinal);
  bf *dq_, *dk_, *dv_, *dg_;
  float* dh0_ = nullptr;
  if (c.h0) CK(cudaMalloc(&dh0_, ns * 4));
  CK(cudaMalloc(&dq_, nqk * 2));
  CK(cudaMalloc(&dk_, nqk * 2));
  CK(cudaMalloc(&dv_, nv * 2));
  CK(cudaMalloc(&dg_, nqk * 2));
  CK(cudaMalloc(&a.work, gla_sm90_bwd::BwdWorkBytes<bf>(a)));
  a.dq = dq_, a.dk = dk_, a.dv = dv_, a.dg = dg_, a.dh0 = dh0_;
  std::vector<int> heads;
  if (BH <= 4) {
    for (int i = 0; i < BH; ++i) heads.push_back(i);
  } else {
    heads = {0, BH - 1};
  }
  std::vector<bf> gq(nqk), gk(nqk), gv(nv), gg(nqk);
  std::vector<float> gh0(c.h0 ? ns : 0);
  const gla_ref::HostCall<bf, bf> hc{c.H, c.T, c.Dk, c.Dv, a.qk_st, a.qk_sh, a.qk_sb, a.v_st, a.v_sh, a.v_sb,
                                     in.q.data(), in.k.data(), in.v.data(), in.dout.data(), in.g.data(),
                                     c.h0 ? in.h0.data() : nullptr, c.dfinal ? in.dfinal.data() : nullptr, a.scale,
                                     gq.data(), gk.data(), gv.data(), gg.data(), c.h0 ? gh0.data() : nullptr};
  std::vector<gla_ref::Grads> refs(heads.size());
  {
    std::vector<std::thread> th;
    for (size_t x = 0; x < heads.size(); ++x) th.emplace_back([&, x] { refs[x] = gla_ref::HeadReference(hc, heads[x]); });
    for (auto& t : th) t.join();
  }
  const int64_t pass_bytes = BwdStateElemsOf(a) * 2 + nqk * 2 * 2 + nv * 2;
  std::printf("\n%s: state variants (the chunk kernel as built; pass bytes %.3f GB)\n", c.name.c_str(), pass_bytes * 1e-9);
  std::printf("| %-20s | %8s | %7s | %8s | %7s | %8s | %8s | %8s | %8s | %8s | %4s | %-4s |\n", "variant", "state ms", "GB/s",
              "dh ms", "GB/s", "dq", "dk", "dv", "dgk", "dh0", "nan", "chk");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  bool all = true;
  for (const StateVariant& var : kVariants) {
    CK(cudaMemset(a.work, 0xff, gla_sm90_bwd::BwdWorkBytes<bf>(a)));
    CK(cudaMemset(dq_, 0xff, nqk * 2));
    CK(cudaMemset(dk_, 0xff, nqk * 2));
    CK(cudaMemset(dv_, 0xff, nv * 2));
    CK(cudaMemset(dg_, 0xff, nqk * 2));
    if (dh0_) CK(cudaMemset(dh0_, 0xff, ns * 4));
    CK(var.launch(a, 3));
    CK((LaunchFor<bf, bf>(a, 0, 4)));
    CK(cudaDeviceSynchronize());
    harness::DownloadTo(gq, dq_);
    harness::DownloadTo(gk, dk_);
    harness::DownloadTo(gv, dv_);
    harness::DownloadTo(gg, dg_);
    if (dh0_) harness::DownloadTo(gh0, dh0_);
    gla_ref::Err e[5];
    for (size_t x = 0; x < heads.size(); ++x) gla_ref::AddHeadErrors(hc, heads[x], refs[x], e);
    long long bad = 0;
    bool ok = true;
    for (auto& x : e) bad += x.bad, ok = ok && x.Rel() <= 4e-3;
    ok = ok && bad == 0;
    all = all && ok;
    double ms1 = 0, ms2 = 0;
    if (c.time) {
      ms1 = TimeMs([&] { CK(var.launch(a, 1)); });
      ms2 = TimeMs([&] { CK(var.launch(a, 2)); });
    }
    std::printf("| %-20s | %8.4f | %7.0f | %8.4f | %7.0f | %8.3g | %8.3g | %8.3g | %8.3g | %8.3g | %4lld | %-4s |\n", var.name,
                ms1, ms1 > 0 ? pass_bytes / ms1 * 1e-6 : 0.0, ms2, ms2 > 0 ? pass_bytes / ms2 * 1e-6 : 0.0, e[0].Rel(),
                e[1].Rel(), e[2].Rel(), e[3].Rel(), e[4].Rel(), bad, ok ? "ok" : "FAIL");
    std::fflush(stdout);
  }
  FreeCall(a);
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--states") == 0) {
    bool ok = true;
    ok &= StateVariants({"strong gates T320 h0 dfinal", 1, 320, 2, 128, 128, true, true, true, 1, false, false, false});
    ok &= StateVariants({"extreme gates T300 Dv136", 1, 300, 2, 128, 136, true, true, true, 2, false, false, false});
    ok &= StateVariants({"bthd T200 Dv256 h0 dfinal", 2, 200, 3, 128, 256, false, true, true, 0, false, false, false});
    ok &= StateVariants({"seed B32 T2048 H4 128/256", 32, 2048, 4, 128, 256, true, false, false, 0, false, false, true});
    ok &= StateVariants({"B4 T2048 H16 D128", 4, 2048, 16, 128, 128, true, false, false, 0, false, false, true});
    ok &= StateVariants({"B8 T1024 H8 D64", 8, 1024, 8, 64, 64, true, false, false, 0, false, false, true});
    std::printf(ok ? "all ok\n" : "SOME FAILED\n");
    return ok ? 0 : 1;
  }
  // --quick: the awkward shapes alone; --seed: the seed shape in bfloat16 alone (for a profiler);
  // --states: the state kernels' tile shapes side by side (above).
  // --timed: the timed shapes alone (a variant beside a full table in one device call).
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const bool timed = argc > 1 && std::strcmp(argv[1], "--timed") == 0;
  const bool seed = argc > 1 && std::strcmp(argv[1], "--seed") == 0;
  if (seed) {
    const bool ok = RunCase<__nv_bfloat16, __nv_bfloat16>(
        {"seed B32 T2048 H4 128/256", 32, 2048, 4, 128, 256, true, false, false, 0, false, false, true});
    return ok ? 0 : 1;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
#ifdef GLA_BWD_F32_STATES
  std::printf("states in the work space: float32\n");
#else
  std::printf("states in the work space: the inputs' 16-bit type\n");
#endif
  std::printf("device %s, %d SMs, cc %d.%d; smem bytes: 128/256 %d, 128/128 %d, 64/64 %d\n", prop.name,
              prop.multiProcessorCount, prop.major, prop.minor,
              gla_sm90_bwd::BwdKernel<__nv_bfloat16, __nv_bfloat16, 128, 256>::kSmemBytes,
              gla_sm90_bwd::BwdKernel<__nv_bfloat16, __nv_bfloat16, 128, 128>::kSmemBytes,
              gla_sm90_bwd::BwdKernel<__nv_bfloat16, __nv_bfloat16, 64, 64>::kSmemBytes);
  std::printf("| %-34s | %8s | %8s | %7s | %6s | %8s | %8s | %8s | %8s | %8s | %4s | %-3s | %-4s |\n", "case", "bwd ms",
              "fwd+bwd", "floor", "xfloor", "dq", "dk", "dv", "dgk", "dh0", "nan", "det", "chk");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  using bf = __nv_bfloat16;
  using hf = __half;
  bool ok = true;
  // Awkward shapes first (T not a multiple of the chunk, Dk != Dv, [B, T, H, D], states, gates
  // -inf / -1e30, the element-wise mode, float32 gk), then the timed shapes.
  if (!timed) {
    ok &= RunCase<bf, bf>({"T200 Dk96 Dv96 bthd h0 dfinal", 2, 200, 3, 96, 96, false, true, true, 0, false, false, false});
    ok &= RunCase<bf, bf>({"T200 (other mode)", 2, 200, 3, 96, 96, false, true, true, 0, false, true, false});
    ok &= RunCase<bf, bf>({"Dk64 T130 Dv64 h0", 2, 130, 2, 64, 64, true, true, false, 0, false, false, false});
    ok &= RunCase<bf, bf>({"Dk32 T70 Dv40 bthd dfinal", 1, 70, 3, 32, 40, false, false, true, 0, false, false, false});
    ok &= RunCase<bf, bf>({"strong gates T320 h0 dfinal", 1, 320, 2, 128, 128, true, true, true, 1, false, false, false});
    ok &= RunCase<bf, bf>({"extreme gates T300 Dv136", 1, 300, 2, 128, 136, true, true, true, 2, false, false, false});
    ok &= RunCase<bf, float>({"gk float32, extreme, Dv256", 1, 260, 2, 128, 256, true, true, true, 2, true, false, false});
    ok &= RunCase<hf, hf>({"fp16 T260 bthd h0 dfinal", 2, 260, 2, 128, 128, false, true, true, 0, false, false, false});
    ok &= RunCase<hf, hf>({"fp16 U[-1,0] T200 Dv256", 1, 200, 2, 128, 256, true, true, true, 3, false, false, false});
    ok &= RunCase<bf, bf>({"bf16 U[-1,0] T200 Dv256", 1, 200, 2, 128, 256, true, true, true, 3, false, false, false});
  }
  if (!quick) {
    ok &= RunCase<bf, bf>({"seed B32 T2048 H4 128/256", 32, 2048, 4, 128, 256, true, false, false, 0, false, false, true});
    ok &= RunCase<bf, float>({"seed, gk float32", 32, 2048, 4, 128, 256, true, false, false, 0, true, false, true});
    ok &= RunCase<hf, hf>({"seed fp16", 32, 2048, 4, 128, 256, true, false, false, 0, false, false, true});
    ok &= RunCase<bf, bf>({"B4 T2048 H16 D128", 4, 2048, 16, 128, 128, true, false, false, 0, false, false, true});
    ok &= RunCase<bf, bf>({"B8 T1024 H8 D64", 8, 1024, 8, 64, 64, true, false, false, 0, false, false, true});
  }
  std::printf(ok ? "all ok\n" : "SOME FAILED\n");
  return ok ? 0 : 1;
}
