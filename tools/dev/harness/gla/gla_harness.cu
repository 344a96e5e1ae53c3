// Kernel harness of the sm_90a gla forward (kernels/gla/sm90/chunk_fwd_sm90.cuh): random
// inputs, a float64 recurrent reference on the GPU (itself checked against the host on a small
// case), poisoned outputs, rel. RMS of o and the final state, and the time of each variant
// against a device-to-device copy of the same bytes. Self-contained; built with one nvcc call:
//
//   tools/dev/harness/gla/build.sh            # -> build-harness/gla_harness
//   build-harness/gla_harness [--quick | --timed | --profile | --split | --split-quick | --varlen |
//                              --varlen-quick | --varlen-host]   # on an H100/H200 (--varlen-host: anywhere)
//
// -DGLA_HARNESS_BASELINE -I<dir>: <dir>/gla_fwd_baseline.cuh, a copy of an earlier
// chunk_fwd_sm90.cuh with its namespace renamed gla_sm90_old, timed beside the current kernel as
// the variants "old bv128" / "old bv64". --profile: the seed shape once per
// variant, untimed (for a profiler). --split: the sequence split (gla_sm90::LaunchFwdSplit: state-only
// pass, in-order combine, outputs per segment) alone: "split bv<BV> s<n>" segments of n chunks on
// short awkward cases, "split bv<BV>" the header's rule (FwdSplitSegChunks), "2 waves" S =
// floor(2 SMs / CTAs), timed beside the unsplit kernel on few-head shapes, and a sweep of segment
// lengths on B2 T16384 H16 D128; each split variant prints the segments it takes. --split-quick:
// its checks alone.
//
// Columns: ms (median of 10 batches of 5 calls after 3 warm-ups), floor (the copy), x floor, the rel. RMS of o
// and of the final state against the float64 reference, NaN/unwritten elements, check (rel.
// RMS <= 4e-3 and none unwritten).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/gla/sm90/chunk_fwd_sm90.cuh"
#include "tools/dev/harness/gla/gla_timing.cuh"
#ifdef GLA_HARNESS_BASELINE
#include "gla_fwd_baseline.cuh"
#endif

using bf16 = cutlass::bfloat16_t;
using fp16 = cutlass::half_t;

namespace {

struct Case {
  std::string name;
  int B, T, H, Dk, Dv;
  bool head_first;
  bool h0;          // with an initial state
  int gates;        // 0: logsigmoid(x)/16; 1: strong (logsigmoid(x)*4); 2: extreme (-inf, -1e30, -60 mixed in);
                    // 3: uniform in [-1, 0] (unittests/python/test_gla_op.py)
  float scale;      // 0: Dk^-0.5
  bool time;
};

// ---- the float64 recurrent reference: a block per (head, 64 columns of v), 4 threads per column,
// each holding 32 rows of the state in registers.
template <typename X>
__global__ void RefKernel(gla_sm90::FwdArgs a, double* o_ref, double* h_ref) {
  constexpr int kCols = 64, kRowsPer = 32;
  const int bh = blockIdx.y, b = bh / a.H, h = bh - b * a.H;
  const int c = threadIdx.x / 4, part = threadIdx.x % 4;
  const int j = blockIdx.x * kCols + c;
  __shared__ double sq[128], sk[128], seg[128], sv[kCols];
  const X *q = static_cast<const X*>(a.q), *k = static_cast<const X*>(a.k);
  const X *v = static_cast<const X*>(a.v), *g = static_cast<const X*>(a.g);
  double st[kRowsPer];
  for (int r = 0; r < kRowsPer; ++r) {
    const int i = part * kRowsPer + r;
    st[r] = (a.h0 && i < a.Dk && j < a.Dv) ? double(a.h0[(int64_t(bh) * a.Dk + i) * a.Dv + j]) : 0.0;
  }
  for (int t = 0; t < a.T; ++t) {
    const int64_t qrow = int64_t(b) * a.qk_sb + int64_t(h) * a.qk_sh + int64_t(t) * a.qk_st;
    const int64_t vrow = int64_t(b) * a.v_sb + int64_t(h) * a.v_sh + int64_t(t) * a.v_st;
    for (int i = threadIdx.x; i < 128; i += blockDim.x) {
      const bool in = i < a.Dk;
      sq[i] = in ? double(float(q[qrow + i])) : 0.0;
      sk[i] = in ? double(float(k[qrow + i])) : 0.0;
      seg[i] = in ? exp(double(float(g[qrow + i]))) : 1.0;
    }
    for (int cc = threadIdx.x; cc < kCols; cc += blockDim.x) {
      const int jj = blockIdx.x * kCols + cc;
      sv[cc] = jj < a.Dv ? double(float(v[vrow + jj])) : 0.0;
    }
    __syncthreads();
    const double vj = sv[c];
    double acc = 0.0;
#pragma unroll
    for (int r = 0; r < kRowsPer; ++r) {
      const int i = part * kRowsPer + r;
      st[r] = st[r] * seg[i] + sk[i] * vj;
      acc += sq[i] * st[r];
    }
    acc += __shfl_xor_sync(0xffffffffu, acc, 1);
    acc += __shfl_xor_sync(0xffffffffu, acc, 2);
    if (part == 0 && j < a.Dv) o_ref[vrow + j] = acc * double(a.scale);
    __syncthreads();
  }
  for (int r = 0; r < kRowsPer; ++r) {
    const int i = part * kRowsPer + r;
    if (i < a.Dk && j < a.Dv) h_ref[(int64_t(bh) * a.Dk + i) * a.Dv + j] = st[r];
  }
}

// sums[0] += (x - ref)^2, sums[1] += ref^2, sums[2] += count of non-finite x.
template <typename X>
__global__ void ErrKernel(const X* x, const double* ref, int64_t n, double* sums) {
  double e = 0, r = 0, bad = 0;
  for (int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; idx < n; idx += int64_t(gridDim.x) * blockDim.x) {
    const double xv = double(float(x[idx])), rv = ref[idx];
    if (!isfinite(xv)) {
      bad += 1;
    } else {
      e += (xv - rv) * (xv - rv);
    }
    r += rv * rv;
  }
  for (int o = 16; o > 0; o /= 2) {
    e += __shfl_xor_sync(0xffffffffu, e, o);
    r += __shfl_xor_sync(0xffffffffu, r, o);
    bad += __shfl_xor_sync(0xffffffffu, bad, o);
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&sums[0], e);
    atomicAdd(&sums[1], r);
    atomicAdd(&sums[2], bad);
  }
}

struct Err {
  double rel = 0;
  int64_t bad = 0;
};

template <typename X>
Err Compare(const X* x, const double* ref, int64_t n) {
  double* d = nullptr;
  CK(cudaMalloc(&d, 3 * sizeof(double)));
  CK(cudaMemset(d, 0, 3 * sizeof(double)));
  ErrKernel<X><<<1024, 256>>>(x, ref, n, d);
  CK(cudaGetLastError());
  double hs[3];
  CK(cudaMemcpy(hs, d, sizeof(hs), cudaMemcpyDeviceToHost));
  cudaFree(d);
  Err e;
  e.rel = hs[1] > 0 ? std::sqrt(hs[0] / hs[1]) : std::sqrt(hs[0]);
  e.bad = int64_t(hs[2]);
  return e;
}


// Host float64 recurrence of one head (checks the GPU reference).
template <typename X>
void HostRef(const gla_sm90::FwdArgs& a, const std::vector<X>& q, const std::vector<X>& k,
             const std::vector<X>& v, const std::vector<X>& g, const std::vector<float>& h0, int bh,
             std::vector<double>& o) {
  const int b = bh / a.H, h = bh % a.H;
  std::vector<double> S(size_t(a.Dk) * a.Dv, 0.0);
  if (!h0.empty())
    for (int i = 0; i < a.Dk * a.Dv; ++i) S[i] = h0[size_t(bh) * a.Dk * a.Dv + i];
  for (int t = 0; t < a.T; ++t) {
    const int64_t qr = int64_t(b) * a.qk_sb + int64_t(h) * a.qk_sh + int64_t(t) * a.qk_st;
    const int64_t vr = int64_t(b) * a.v_sb + int64_t(h) * a.v_sh + int64_t(t) * a.v_st;
    for (int i = 0; i < a.Dk; ++i) {
      const double eg = std::exp(double(float(g[qr + i]))), kk = float(k[qr + i]);
      for (int j = 0; j < a.Dv; ++j) S[size_t(i) * a.Dv + j] = S[size_t(i) * a.Dv + j] * eg + kk * double(float(v[vr + j]));
    }
    for (int j = 0; j < a.Dv; ++j) {
      double acc = 0;
      for (int i = 0; i < a.Dk; ++i) acc += double(float(q[qr + i])) * S[size_t(i) * a.Dv + j];
      o[vr + j] = acc * a.scale;
    }
  }
}

#ifdef GLA_HARNESS_BASELINE
// The baseline kernel on the same arguments (its FwdArgs has the same fields).
template <class E, int BV>
cudaError_t LaunchOld(const gla_sm90::FwdArgs& a, cudaStream_t stream) {
  gla_sm90_old::FwdArgs o;
  o.B = a.B, o.H = a.H, o.T = a.T, o.Dk = a.Dk, o.Dv = a.Dv;
  o.qk_st = a.qk_st, o.qk_sh = a.qk_sh, o.qk_sb = a.qk_sb, o.v_st = a.v_st, o.v_sh = a.v_sh, o.v_sb = a.v_sb;
  o.q = a.q, o.k = a.k, o.v = a.v, o.g = a.g, o.h0 = a.h0, o.o = a.o, o.ht = a.ht;
  o.scale = a.scale, o.force_other_mode = a.force_other_mode;
  return gla_sm90_old::LaunchFwd<E, 128, BV, 2>(o, stream);
}
#endif

// The sequence split (gla_sm90::LaunchFwdSplit): kSegChunks chunks per segment, 0 the header's
// rule (FwdSplitSegChunks: the least modelled time, at most a wave of CTAs on these shapes), -2
// about two waves of CTAs (S = floor(2 SMs / CTAs), at least 2: the CTAs fill two waves). Its
// float32 workspace is kept between calls (grown outside the timed calls: the check runs first).
int g_num_sms = 132;
float* g_split_ws = nullptr;
size_t g_split_ws_bytes = 0;
int SplitSegChunks(const gla_sm90::FwdArgs& a, int bv, int seg_chunks) {
  if (seg_chunks > 0) return seg_chunks;
  const int auto_chunks = gla_sm90::FwdSplitSegChunks(a, bv, g_num_sms);
  if (seg_chunks == -2) {
    const int NT = (a.T + gla_sm90::kC - 1) / gla_sm90::kC;
    const int64_t ctas = int64_t(a.B) * a.H * ((a.Dv + bv - 1) / bv);
    if (ctas >= g_num_sms) return NT;
    const int segs = int(std::min<int64_t>(NT, std::max<int64_t>(2, 2 * g_num_sms / ctas)));
    return (NT + segs - 1) / segs;
  }
  return auto_chunks;
}
template <class E, int BV, int kSegChunks>
cudaError_t LaunchSplit(const gla_sm90::FwdArgs& a, cudaStream_t stream) {
  const int seg_chunks = SplitSegChunks(a, BV, kSegChunks);
  const size_t need = gla_sm90::FwdSplitWorkspaceBytes(a, seg_chunks);
  if (need > g_split_ws_bytes) {
    if (g_split_ws) CK(cudaFree(g_split_ws));
    CK(cudaMalloc(&g_split_ws, need));
    g_split_ws_bytes = need;
  }
  return gla_sm90::LaunchFwdSplit<E, 128, BV, 2>(a, seg_chunks, g_split_ws, stream);
}

struct Variant {
  const char* name;
  cudaError_t (*launch)(const gla_sm90::FwdArgs&, cudaStream_t);
  int force_other;
  int split_bv = 0;      // split variants: BV and kSegChunks (printed with the segments they take)
  int split_chunks = 0;
};

// Random q, k, v ~ N(0, 1), gates of kind `gates` (Case::gates), h0 ~ N(0, 1) when ns > 0.
template <typename X>
void MakeInputs(std::mt19937_64& rng, int gates, std::vector<X>& q, std::vector<X>& k, std::vector<X>& v,
                std::vector<X>& g, std::vector<float>& h0, int64_t ns) {
  std::normal_distribution<float> nd(0.f, 1.f);
  std::uniform_real_distribution<float> ud(0.f, 1.f);
  for (auto& x : q) x = X(nd(rng));
  for (auto& x : k) x = X(nd(rng));
  for (auto& x : v) x = X(nd(rng));
  for (auto& x : g) {
    const float z = nd(rng);
    const float ls = -std::log1p(std::exp(-z));  // logsigmoid(z)
    float gv = gates == 1 ? ls * 4.f : gates == 3 ? -ud(rng) : ls / 16.f;
    if (gates == 2) {
      const float u = ud(rng);
      if (u < 0.01f) gv = -INFINITY;
      else if (u < 0.02f) gv = -1e30f;
      else if (u < 0.03f) gv = -60.f;
    }
    x = X(gv);
  }
  h0.resize(ns);
  for (auto& x : h0) x = nd(rng);
}

// A case's device buffers: the inputs uploaded (h0 when given), o and ht, and the float64
// references of o and ht; freed with the case.
template <typename X>
struct Buffers {
  X *q = nullptr, *k = nullptr, *v = nullptr, *g = nullptr, *out = nullptr;
  float *h0 = nullptr, *ht = nullptr;
  double *oref = nullptr, *href = nullptr;
  Buffers(const std::vector<X>& hq, const std::vector<X>& hk, const std::vector<X>& hv, const std::vector<X>& hg,
          const std::vector<float>& hh0, int64_t nv, int64_t ns) {
    const int64_t nqk = int64_t(hq.size());
    CK(cudaMalloc(&q, nqk * 2));
    CK(cudaMalloc(&k, nqk * 2));
    CK(cudaMalloc(&g, nqk * 2));
    CK(cudaMalloc(&v, nv * 2));
    CK(cudaMalloc(&out, nv * 2));
    CK(cudaMalloc(&ht, ns * 4));
    CK(cudaMalloc(&oref, nv * 8));
    CK(cudaMalloc(&href, ns * 8));
    CK(cudaMemcpy(q, hq.data(), nqk * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(k, hk.data(), nqk * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(g, hg.data(), nqk * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(v, hv.data(), nv * 2, cudaMemcpyHostToDevice));
    if (!hh0.empty()) {
      CK(cudaMalloc(&h0, ns * 4));
      CK(cudaMemcpy(h0, hh0.data(), ns * 4, cudaMemcpyHostToDevice));
    }
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  ~Buffers() {
    cudaFree(q), cudaFree(k), cudaFree(g), cudaFree(v), cudaFree(out), cudaFree(ht), cudaFree(oref), cudaFree(href);
    if (h0) cudaFree(h0);
  }
};

template <typename X>
void RunCase(const Case& c, const std::vector<Variant>& variants, bool check_host) {
  std::mt19937_64 rng(std::hash<std::string>()(c.name));
  const int64_t nqk = int64_t(c.B) * c.H * c.T * c.Dk, nv = int64_t(c.B) * c.H * c.T * c.Dv;
  const int64_t ns = int64_t(c.B) * c.H * c.Dk * c.Dv;
  std::vector<X> q(nqk), k(nqk), g(nqk), v(nv);
  std::vector<float> h0;
  MakeInputs(rng, c.gates, q, k, v, g, h0, c.h0 ? ns : 0);
  const Buffers<X> buf(q, k, v, g, h0, nv, ns);
  X *const dq = buf.q, *const dk = buf.k, *const dv = buf.v, *const dg = buf.g, *const dout = buf.out;
  float *const dh0 = buf.h0, *const dht = buf.ht;
  double *const oref = buf.oref, *const href = buf.href;
  gla_sm90::FwdArgs a;
  a.B = c.B, a.H = c.H, a.T = c.T, a.Dk = c.Dk, a.Dv = c.Dv;
  gla_sm90::RowStrides(c.head_first, c.T, c.H, c.Dk, &a.qk_st, &a.qk_sh, &a.qk_sb);
  gla_sm90::RowStrides(c.head_first, c.T, c.H, c.Dv, &a.v_st, &a.v_sh, &a.v_sb);
  a.q = dq, a.k = dk, a.v = dv, a.g = dg, a.h0 = dh0, a.o = dout, a.ht = dht;
  a.scale = c.scale > 0 ? c.scale : 1.f / std::sqrt(float(c.Dk));

  RefKernel<X><<<dim3((c.Dv + 63) / 64, c.B * c.H), 256>>>(a, oref, href);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  if (check_host) {  // the GPU reference against the host on every head
    std::vector<double> ho(nv, 0.0), go(nv);
    for (int bh = 0; bh < c.B * c.H; ++bh) HostRef(a, q, k, v, g, h0, bh, ho);
    CK(cudaMemcpy(go.data(), oref, nv * 8, cudaMemcpyDeviceToHost));
    double e = 0, r = 0;
    for (int64_t i = 0; i < nv; ++i) e += (go[i] - ho[i]) * (go[i] - ho[i]), r += ho[i] * ho[i];
    std::printf("reference check (%s): GPU float64 vs host float64 rel. RMS %.3g\n", c.name.c_str(), std::sqrt(e / r));
  }

  for (const Variant& var : variants) {
    if (var.split_bv > 0) {
      const int sc = SplitSegChunks(a, var.split_bv, var.split_chunks);
      std::printf("  (%s / %s: %d segments of %d chunks, %lld CTAs unsplit)\n", c.name.c_str(), var.name,
                  gla_sm90::FwdSplitSegments(a, sc), sc, (long long)c.B * c.H * ((c.Dv + var.split_bv - 1) / var.split_bv));
    }
  }
  const int64_t bytes = (3 * nqk + 2 * nv) * 2 + (c.h0 ? ns * 4 : 0) + ns * 4;
  const double floor_ms = c.time ? CopyMs(bytes) : 0.0;
  for (const Variant& var : variants) {
    a.force_other_mode = var.force_other;
    CK(cudaMemset(dout, 0xff, nv * 2));  // NaN
    CK(cudaMemset(dht, 0xff, ns * 4));
    cudaError_t err = var.launch(a, 0);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
      std::printf("| %-28s | %-18s | launch failed: %s |\n", c.name.c_str(), var.name, cudaGetErrorString(err));
      std::exit(3);
    }
    const Err eo = Compare(dout, oref, nv);
    const Err eh = Compare(dht, href, ns);
    double ms = 0;
    if (c.time) ms = TimeMs([&] { CK(var.launch(a, 0)); });
    const bool ok = eo.rel <= 4e-3 && eh.rel <= 4e-3 && eo.bad == 0 && eh.bad == 0;
    std::printf("| %-28s | %-18s | %8.4f | %7.4f | %6.2f | %9.3g | %9.3g | %6lld | %-4s |\n", c.name.c_str(), var.name,
                ms, floor_ms, floor_ms > 0 ? ms / floor_ms : 0.0, eo.rel, eh.rel, (long long)(eo.bad + eh.bad),
                ok ? "ok" : "FAIL");
    std::fflush(stdout);
  }
}

// ---- packed variable-length sequences (gla_sm90::LaunchFwdVarlen, --varlen) -------------------
struct VarlenCase {
  std::string name;
  std::vector<int> lens;  // sequence lengths, packed in this order along T
  int H, Dk, Dv;
  bool head_first;        // [1, H, T, D], else fla's [1, T, H, D]
  bool h0;
  int gates;              // as Case::gates
  bool time;
};

// A varlen variant: the one-launch kernel (order 0 or 1, int32 or int64 offsets), or the
// current approach, one launch of the plain kernel per sequence on the default stream ("per seq"),
// or round-robin on 8 side streams joined by events as the library's ForEachSequence ("8 streams";
// without its host read of the offsets).
struct VarlenVariant {
  const char* name;
  int bv;         // 64 or 128
  int order;      // FwdVarlenKernel's order; -1: a launch per sequence; -2: the same on 8 streams
  bool off64;     // int64 offsets
  int force_other;
};

// Side streams and the events that fork and join them (order -2).
constexpr int kSideStreams = 8;
cudaStream_t g_side[kSideStreams];
cudaEvent_t g_fork, g_join[kSideStreams];
void MakeSideStreams() {
  CK(cudaEventCreateWithFlags(&g_fork, cudaEventDisableTiming));
  for (int i = 0; i < kSideStreams; ++i) {
    CK(cudaStreamCreateWithFlags(&g_side[i], cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&g_join[i], cudaEventDisableTiming));
  }
}

template <class E, int BV>
cudaError_t LaunchVarlenVariant(const VarlenVariant& var, const gla_sm90::FwdArgs& a, const void* cu, int N,
                                const std::vector<int64_t>& offs) {
  if (var.order >= 0) return gla_sm90::LaunchFwdVarlenOnly<E, 128, BV, 2>(a, cu, var.off64, N, var.order, 0);
  const int64_t ns1 = int64_t(a.H) * a.Dk * a.Dv;
  const bool side = var.order == -2 && N > 1;
  const int used = std::min(N, kSideStreams);
  if (side) {
    CK(cudaEventRecord(g_fork, 0));
    for (int i = 0; i < used; ++i) CK(cudaStreamWaitEvent(g_side[i], g_fork, 0));
  }
  for (int n = 0; n < N; ++n) {
    const cudaStream_t st = side ? g_side[n % used] : cudaStream_t(0);
    const int64_t bos = offs[n], len = offs[n + 1] - offs[n];
    if (len == 0) {  // ht = h0 (or zeros), as the library's loop
      if (a.ht == nullptr) continue;
      const cudaError_t err = a.h0 ? cudaMemcpyAsync(a.ht + n * ns1, a.h0 + n * ns1, ns1 * 4, cudaMemcpyDeviceToDevice, st)
                                   : cudaMemsetAsync(a.ht + n * ns1, 0, ns1 * 4, st);
      if (err != cudaSuccess) return err;
      continue;
    }
    gla_sm90::FwdArgs s = a;
    s.T = int(len);
    s.q = static_cast<const E*>(a.q) + bos * a.qk_st;
    s.k = static_cast<const E*>(a.k) + bos * a.qk_st;
    s.g = static_cast<const E*>(a.g) + bos * a.qk_st;
    s.v = static_cast<const E*>(a.v) + bos * a.v_st;
    s.o = static_cast<E*>(a.o) + bos * a.v_st;
    s.h0 = a.h0 ? a.h0 + n * ns1 : nullptr;
    s.ht = a.ht ? a.ht + n * ns1 : nullptr;
    const cudaError_t err = gla_sm90::LaunchFwdOnly<E, 128, BV, 2>(s, st);
    if (err != cudaSuccess) return err;
  }
  if (side) {
    for (int i = 0; i < used; ++i) {
      CK(cudaEventRecord(g_join[i], g_side[i]));
      CK(cudaStreamWaitEvent(0, g_join[i], 0));
    }
  }
  return cudaSuccess;
}

// Host check of the slot order (VarlenRank): a permutation, lengths non-increasing along the
// slots, ties in index order; of the chunk arithmetic (NT chunks, rows_last rows in the last
// one, ending at eos), on random length sets with zeros and repeats; and of the 16-byte pieces
// the producer zeroes in v's tile (VarlenZeroPiecesHold).
bool VarlenHostCheck() {
  if (!gla_sm90::VarlenZeroPiecesHold<gla_sm90::FwdVarlenKernel<bf16, 128, 128, 2>>() ||
      !gla_sm90::VarlenZeroPiecesHold<gla_sm90::FwdVarlenKernel<bf16, 128, 64, 2>>() ||
      !gla_sm90::VarlenZeroPiecesHold<gla_sm90::FwdVarlenKernel<fp16, 128, 128, 2>>() ||
      !gla_sm90::VarlenZeroPiecesHold<gla_sm90::FwdVarlenKernel<fp16, 128, 64, 2>>()) {
    return false;
  }
  std::mt19937_64 rng(30);
  for (int trial = 0; trial < 2000; ++trial) {
    const int n = 1 + int(rng() % 64);
    std::vector<int> lens(n);
    for (auto& l : lens) l = (rng() % 4 == 0) ? int(rng() % 3) * 64 : int(rng() % 700);
    std::vector<int> slot(n, -1);
    for (int i = 0; i < n; ++i) {
      const int r = gla_sm90::VarlenRank(lens.data(), n, i);
      if (r < 0 || r >= n || slot[r] != -1) return false;
      slot[r] = i;
    }
    for (int r = 1; r < n; ++r) {
      const int a = slot[r - 1], b = slot[r];
      if (lens[a] < lens[b] || (lens[a] == lens[b] && a > b)) return false;
    }
    for (int i = 0; i < n; ++i) {
      const int len = lens[i], NT = (len + gla_sm90::kC - 1) / gla_sm90::kC;
      const int rows_last = len - (NT - 1) * gla_sm90::kC;
      if (len > 0 && (rows_last < 1 || rows_last > gla_sm90::kC || (NT - 1) * gla_sm90::kC + rows_last != len)) return false;
    }
  }
  return true;
}

// The shared-memory attribute of both kernels (the launches above are the Only forms: the
// timing holds the launches alone, as the library's calls once the attribute is set).
template <class E, int BV>
void AllowVarlenSmem() {
  constexpr auto kAttr = cudaFuncAttributeMaxDynamicSharedMemorySize;
  const int bytes = gla_sm90::FwdSmemBytes<E, 128, BV, 2>();
  CK(cudaFuncSetAttribute(gla_sm90::FwdKernelPtr<E, 128, BV, 2>(), kAttr, bytes));
  CK(cudaFuncSetAttribute(gla_sm90::FwdVarlenKernelPtr<E, 128, BV, 2>(), kAttr, bytes));
}

template <typename X>
void RunVarlen(const VarlenCase& c, const std::vector<VarlenVariant>& variants) {
  std::mt19937_64 rng(std::hash<std::string>()(c.name));
  const int N = int(c.lens.size());
  std::vector<int64_t> offs(N + 1, 0);
  for (int n = 0; n < N; ++n) offs[n + 1] = offs[n] + c.lens[n];
  const int T = int(offs[N]);
  const int64_t nqk = int64_t(c.H) * T * c.Dk, nv = int64_t(c.H) * T * c.Dv;
  const int64_t ns1 = int64_t(c.H) * c.Dk * c.Dv, ns = N * ns1;
  std::vector<X> q(nqk), k(nqk), g(nqk), v(nv);
  std::vector<float> h0;
  MakeInputs(rng, c.gates, q, k, v, g, h0, c.h0 ? ns : 0);
  std::vector<int32_t> offs32(offs.begin(), offs.end());
  const Buffers<X> buf(q, k, v, g, h0, nv, ns);
  X *const dq = buf.q, *const dk = buf.k, *const dv = buf.v, *const dg = buf.g, *const dout = buf.out;
  float *const dh0 = buf.h0, *const dht = buf.ht;
  double *const oref = buf.oref, *const href = buf.href;
  int32_t* dcu32;
  int64_t* dcu64;
  CK(cudaMalloc(&dcu32, (N + 1) * 4));
  CK(cudaMalloc(&dcu64, (N + 1) * 8));
  CK(cudaMemcpy(dcu32, offs32.data(), (N + 1) * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dcu64, offs.data(), (N + 1) * 8, cudaMemcpyHostToDevice));
  gla_sm90::FwdArgs a;
  a.B = 1, a.H = c.H, a.T = T, a.Dk = c.Dk, a.Dv = c.Dv;
  gla_sm90::RowStrides(c.head_first, T, c.H, c.Dk, &a.qk_st, &a.qk_sh, &a.qk_sb);
  gla_sm90::RowStrides(c.head_first, T, c.H, c.Dv, &a.v_st, &a.v_sh, &a.v_sb);
  a.q = dq, a.k = dk, a.v = dv, a.g = dg, a.h0 = dh0, a.o = dout, a.ht = dht;
  a.scale = 1.f / std::sqrt(float(c.Dk));
  if (!gla_sm90::FwdVarlenFits(a, 2, N)) {
    std::printf("| %-28s | does not fit the varlen kernel |\n", c.name.c_str());
    std::exit(3);
  }

  // The float64 reference per sequence: RefKernel on the sequence's rows as a B = 1 call.
  for (int n = 0; n < N; ++n) {
    gla_sm90::FwdArgs s = a;
    const int64_t bos = offs[n];
    s.T = c.lens[n];
    s.q = dq + bos * a.qk_st, s.k = dk + bos * a.qk_st, s.g = dg + bos * a.qk_st, s.v = dv + bos * a.v_st;
    s.h0 = dh0 ? dh0 + n * ns1 : nullptr;
    RefKernel<X><<<dim3((c.Dv + 63) / 64, c.H), 256>>>(s, oref + bos * a.v_st, href + n * ns1);
    CK(cudaGetLastError());
  }
  CK(cudaDeviceSynchronize());
  std::vector<double> ro(nv), rh(ns);
  CK(cudaMemcpy(ro.data(), oref, nv * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(rh.data(), href, ns * 8, cudaMemcpyDeviceToHost));

  const int64_t bytes = (3 * nqk + 2 * nv) * 2 + (c.h0 ? ns * 4 : 0) + ns * 4;
  const double floor_ms = c.time ? CopyMs(bytes) : 0.0;
  std::vector<X> go(nv), go2(nv);
  std::vector<float> gh(ns), gh2(ns);
  for (const VarlenVariant& var : variants) {
    a.force_other_mode = var.force_other;
    const void* cu = var.off64 ? static_cast<const void*>(dcu64) : static_cast<const void*>(dcu32);
    auto launch = [&]() {
      return var.bv == 64 ? LaunchVarlenVariant<X, 64>(var, a, cu, N, offs) : LaunchVarlenVariant<X, 128>(var, a, cu, N, offs);
    };
    for (int rep = 0; rep < 2; ++rep) {
      CK(cudaMemset(dout, 0xff, nv * 2));  // NaN
      CK(cudaMemset(dht, 0xff, ns * 4));
      cudaError_t err = launch();
      if (err == cudaSuccess) err = cudaDeviceSynchronize();
      if (err != cudaSuccess) {
        std::printf("| %-28s | %-18s | launch failed: %s |\n", c.name.c_str(), var.name, cudaGetErrorString(err));
        std::exit(3);
      }
      CK(cudaMemcpy(rep ? go2.data() : go.data(), dout, nv * 2, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(rep ? gh2.data() : gh.data(), dht, ns * 4, cudaMemcpyDeviceToHost));
    }
    const bool det = std::memcmp(go.data(), go2.data(), nv * 2) == 0 && std::memcmp(gh.data(), gh2.data(), ns * 4) == 0;
    // Per sequence: rel. RMS of o (its rows, every head) and of its final states; the worst.
    double worst_o = 0, worst_h = 0;
    int64_t bad = 0;
    for (int n = 0; n < N; ++n) {
      double eo = 0, r_o = 0, eh = 0, r_h = 0;
      for (int h = 0; h < c.H; ++h) {
        for (int64_t t = offs[n]; t < offs[n + 1]; ++t) {
          const int64_t row = h * a.v_sh + t * a.v_st;
          for (int j = 0; j < c.Dv; ++j) {
            const double x = double(float(go[row + j])), r = ro[row + j];
            if (!std::isfinite(x)) ++bad;
            else eo += (x - r) * (x - r);
            r_o += r * r;
          }
        }
      }
      for (int64_t i = n * ns1; i < (n + 1) * ns1; ++i) {
        const double x = gh[i], r = rh[i];
        if (!std::isfinite(x)) ++bad;
        else eh += (x - r) * (x - r);
        r_h += r * r;
      }
      worst_o = std::max(worst_o, r_o > 0 ? std::sqrt(eo / r_o) : std::sqrt(eo));
      worst_h = std::max(worst_h, r_h > 0 ? std::sqrt(eh / r_h) : std::sqrt(eh));
    }
    double ms = 0;
    if (c.time) ms = TimeMs([&] { CK(launch()); });
    const bool ok = worst_o <= 4e-3 && worst_h <= 4e-3 && bad == 0 && det;
    std::printf("| %-28s | %-18s | %8.4f | %7.4f | %6.2f | %9.3g | %9.3g | %6lld | %-3s | %-4s |\n", c.name.c_str(), var.name,
                ms, floor_ms, floor_ms > 0 ? ms / floor_ms : 0.0, worst_o, worst_h, (long long)bad, det ? "yes" : "NO",
                ok ? "ok" : "FAIL");
    std::fflush(stdout);
  }
  cudaFree(dcu32), cudaFree(dcu64);
}

// Non-finite v right after a sequence boundary: the rows of sequences 1, 3, 5, ... that a partial
// last chunk of the sequence before loads (up to 63, the sequence's own rows only) get inf, -inf
// and NaN; sequences 0, 2, 4, ... must keep their o rows and final states bitwise (against the
// same launch with those rows finite; the launches are deterministic, --varlen's det column).
template <typename X>
bool RunVarlenPoison(const char* name, const std::vector<int>& lens, int H, bool head_first, int gates,
                     const std::vector<VarlenVariant>& variants) {
  std::mt19937_64 rng(std::hash<std::string>()(name));
  const int N = int(lens.size()), Dk = 128, Dv = 128;
  std::vector<int64_t> offs(N + 1, 0);
  for (int n = 0; n < N; ++n) offs[n + 1] = offs[n] + lens[n];
  const int T = int(offs[N]);
  const int64_t nqk = int64_t(H) * T * Dk, nv = int64_t(H) * T * Dv, ns1 = int64_t(Dk) * Dv * H, ns = N * ns1;
  std::vector<X> q(nqk), k(nqk), g(nqk), v(nv);
  std::vector<float> h0;
  MakeInputs(rng, gates, q, k, v, g, h0, ns);
  const Buffers<X> buf(q, k, v, g, h0, nv, ns);
  int32_t* dcu32;
  CK(cudaMalloc(&dcu32, (N + 1) * 4));
  std::vector<int32_t> offs32(offs.begin(), offs.end());
  CK(cudaMemcpy(dcu32, offs32.data(), (N + 1) * 4, cudaMemcpyHostToDevice));
  gla_sm90::FwdArgs a;
  a.B = 1, a.H = H, a.T = T, a.Dk = Dk, a.Dv = Dv;
  gla_sm90::RowStrides(head_first, T, H, Dk, &a.qk_st, &a.qk_sh, &a.qk_sb);
  gla_sm90::RowStrides(head_first, T, H, Dv, &a.v_st, &a.v_sh, &a.v_sb);
  a.q = buf.q, a.k = buf.k, a.v = buf.v, a.g = buf.g, a.h0 = buf.h0, a.o = buf.out, a.ht = buf.ht;
  a.scale = 1.f / std::sqrt(float(Dk));
  // The poisoned copy of v.
  std::vector<X> pv = v;
  const float kBad[3] = {INFINITY, -INFINITY, NAN};
  int64_t poisoned = 0;
  for (int n = 1; n < N; n += 2) {
    const int tail = lens[n - 1] % gla_sm90::kC;  // rows of the previous sequence's partial chunk
    if (tail == 0) continue;
    const int rows = std::min(gla_sm90::kC - tail, lens[n]);
    for (int h = 0; h < H; ++h) {
      for (int t = 0; t < rows; ++t) {
        for (int j = 0; j < Dv; ++j) {
          pv[h * a.v_sh + (offs[n] + t) * a.v_st + j] = X(kBad[(t + j) % 3]);
          ++poisoned;
        }
      }
    }
  }
  bool all_ok = true;
  std::vector<X> go[2];
  std::vector<float> gh[2];
  for (const VarlenVariant& var : variants) {
    for (int rep = 0; rep < 2; ++rep) {
      CK(cudaMemcpy(buf.v, rep ? pv.data() : v.data(), nv * 2, cudaMemcpyHostToDevice));
      CK(cudaMemset(buf.out, 0xff, nv * 2));
      CK(cudaMemset(buf.ht, 0xff, ns * 4));
      const cudaError_t err = var.bv == 64 ? LaunchVarlenVariant<X, 64>(var, a, dcu32, N, offs)
                                           : LaunchVarlenVariant<X, 128>(var, a, dcu32, N, offs);
      CK(err);
      CK(cudaDeviceSynchronize());
      go[rep].resize(nv), gh[rep].resize(ns);
      CK(cudaMemcpy(go[rep].data(), buf.out, nv * 2, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(gh[rep].data(), buf.ht, ns * 4, cudaMemcpyDeviceToHost));
    }
    int64_t diff = 0, nonfinite = 0;
    for (int n = 0; n < N; n += 2) {
      for (int h = 0; h < H; ++h) {
        for (int64_t t = offs[n]; t < offs[n + 1]; ++t) {
          const int64_t row = h * a.v_sh + t * a.v_st;
          diff += std::memcmp(&go[0][row], &go[1][row], Dv * 2) != 0;
          for (int j = 0; j < Dv; ++j) nonfinite += !std::isfinite(float(go[1][row + j]));
        }
      }
      diff += std::memcmp(&gh[0][n * ns1], &gh[1][n * ns1], ns1 * 4) != 0;
      for (int64_t i = n * ns1; i < (n + 1) * ns1; ++i) nonfinite += !std::isfinite(gh[1][i]);
    }
    const bool ok = diff == 0 && nonfinite == 0 && poisoned > 0;
    all_ok = all_ok && ok;
    std::printf("| %-28s | %-18s | %lld v elements poisoned | %lld rows/states differ | %lld non-finite | %-4s |\n", name,
                var.name, (long long)poisoned, (long long)diff, (long long)nonfinite, ok ? "ok" : "FAIL");
    std::fflush(stdout);
  }
  cudaFree(dcu32);
  return all_ok;
}

// --varlen: the checks (every length of the brief around the chunk, 0 too, int32 and int64
// offsets, both layouts, h0, strong, extreme and U[-1, 0] gates, the element-wise mode forced,
// fp16), then bench_gla.py's varlen case timed: one launch (order 0 and 1, BV 64 and 128) beside
// a launch per sequence; --varlen-quick: the checks alone (for compute-sanitizer).
int RunVarlenCases(bool quick) {
  const bool host_ok = VarlenHostCheck();
  std::printf("varlen host check (slot order, chunk arithmetic): %s\n", host_ok ? "ok" : "FAIL");
  if (!host_ok) return 1;
  MakeSideStreams();
  AllowVarlenSmem<bf16, 64>();
  AllowVarlenSmem<bf16, 128>();
  AllowVarlenSmem<fp16, 64>();
  AllowVarlenSmem<fp16, 128>();
  std::printf("| %-28s | %-18s | %8s | %7s | %6s | %9s | %9s | %6s | %-3s | %-4s |\n", "case (worst sequence)", "variant",
              "ms", "floor", "xfloor", "o relrms", "ht relrms", "nan", "det", "chk");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  const std::vector<VarlenVariant> checks = {
      {"varlen bv64 i32", 64, 0, false, 0},   {"varlen bv64 i64", 64, 0, true, 0},
      {"varlen bv128 i32", 128, 0, false, 0}, {"varlen bv128 rank i64", 128, 1, true, 0},
      {"varlen bv64 rank i32", 64, 1, false, 0}, {"per seq bv128", 128, -1, false, 0},
      {"8 streams bv64", 64, -2, false, 0},
  };
  const std::vector<VarlenVariant> other = {
      {"varlen bv64 other", 64, 0, false, 1},
      {"varlen bv128 rank other", 128, 1, true, 1},
  };
  const std::vector<int> brief = {1, 63, 64, 65, 300, 4608};
  const std::vector<int> shuffled = {65, 4608, 1, 300, 64, 63};
  const std::vector<int> with_empty = {63, 0, 130, 0, 1, 64, 200};
  RunVarlen<bf16>({"lens 1..4608 bthd h0", brief, 4, 128, 128, false, true, 0, false}, checks);
  RunVarlen<bf16>({"lens shuffled bhtd h0", shuffled, 3, 128, 128, true, true, 0, false}, checks);
  RunVarlen<bf16>({"lens 1..4608 strong h0", brief, 2, 128, 128, false, true, 1, false}, checks);
  RunVarlen<bf16>({"lens 1..4608 -inf gates h0", brief, 2, 128, 128, false, true, 2, false}, checks);
  RunVarlen<bf16>({"lens 1..4608 -inf (other)", brief, 2, 128, 128, false, true, 2, false}, other);
  RunVarlen<bf16>({"lens U[-1,0] Dv256 bhtd", shuffled, 2, 128, 256, true, false, 3, false}, checks);
  RunVarlen<bf16>({"lens with 0s Dk96 Dv96 h0", with_empty, 3, 96, 96, false, true, 0, false}, checks);
  RunVarlen<bf16>({"lens with 0s Dk64 Dv64", with_empty, 2, 64, 64, true, false, 1, false}, checks);
  RunVarlen<fp16>({"fp16 lens 1..4608 h0", brief, 2, 128, 128, false, true, 0, false}, checks);
  // inf / NaN in v right after a boundary (sequences 1, 3, ...): 0, 2, ... unchanged bitwise.
  const std::vector<VarlenVariant> poison = {
      {"varlen bv64 i32", 64, 0, false, 0}, {"varlen bv128 i32", 128, 0, false, 0},
      {"varlen bv128 rank i32", 128, 1, false, 0}, {"varlen bv64 other", 64, 0, false, 1},
  };
  const std::vector<int> bounds = {1, 70, 63, 64, 65, 130, 64, 9, 300, 5, 127, 40};
  bool poison_ok = RunVarlenPoison<bf16>("inf/NaN v past eos bthd h0", bounds, 3, false, 0, poison);
  poison_ok = RunVarlenPoison<bf16>("inf/NaN v past eos bhtd", bounds, 2, true, 1, poison) && poison_ok;
  poison_ok = RunVarlenPoison<fp16>("fp16 inf/NaN v past eos", bounds, 2, false, 0, poison) && poison_ok;
  if (!poison_ok) return 1;
  if (quick) return 0;
  const std::vector<VarlenVariant> timed = {
      {"per seq bv64", 64, -1, false, 0},       {"per seq bv128", 128, -1, false, 0},
      {"8 streams bv64", 64, -2, false, 0},     {"8 streams bv128", 128, -2, false, 0},
      {"varlen bv64 i32", 64, 0, false, 0},     {"varlen bv64 i64", 64, 0, true, 0},
      {"varlen bv64 rank", 64, 1, false, 0},    {"varlen bv128 i32", 128, 0, false, 0},
      {"varlen bv128 rank", 128, 1, false, 0},
  };
  const std::vector<int> bench = {512, 4096, 1024, 3072, 256, 2048, 4608, 768};  // bench_gla.py's VARLEN
  const std::vector<int> sorted = {4608, 4096, 3072, 2048, 1024, 768, 512, 256};
  std::vector<int> many;  // 64 sequences of 30 .. 1024 tokens (mixed, 33745 in all)
  for (int n = 0; n < 64; ++n) many.push_back(64 + (n * 37 % 16) * 64 - (n % 3) * 17);
  RunVarlen<bf16>({"bench 8 seqs H16 D128", bench, 16, 128, 128, false, false, 0, true}, timed);
  RunVarlen<bf16>({"bench 8 seqs H16 D128 h0", bench, 16, 128, 128, false, true, 0, true}, timed);
  RunVarlen<bf16>({"sorted 8 seqs H16 D128", sorted, 16, 128, 128, false, false, 0, true}, timed);
  RunVarlen<bf16>({"64 seqs H16 D128", many, 16, 128, 128, false, false, 0, true}, timed);
  RunVarlen<bf16>({"bench 8 seqs H4 D128", bench, 4, 128, 128, false, false, 0, true}, timed);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // --quick: the awkward shapes alone; --timed: the timed shapes alone (variants compared in one run).
  bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  bool timed = argc > 1 && std::strcmp(argv[1], "--timed") == 0;
  const bool profile = argc > 1 && std::strcmp(argv[1], "--profile") == 0;
  // --split: the sequence split's cases alone (its checks on awkward shapes, then its timed
  // shapes); --split-quick: its checks alone (for compute-sanitizer).
  const bool split_quick = argc > 1 && std::strcmp(argv[1], "--split-quick") == 0;
  const bool split_only = split_quick || (argc > 1 && std::strcmp(argv[1], "--split") == 0);
  // --varlen-host: the varlen host check alone (no GPU needed).
  if (argc > 1 && std::strcmp(argv[1], "--varlen-host") == 0) {
    const bool ok = VarlenHostCheck();
    std::printf("varlen host check (slot order, chunk arithmetic): %s\n", ok ? "ok" : "FAIL");
    return ok ? 0 : 1;
  }
  // --varlen: packed sequences (cu_seqlens) alone; --varlen-quick: their checks alone.
  const bool varlen_quick = argc > 1 && std::strcmp(argv[1], "--varlen-quick") == 0;
  const bool varlen_only = varlen_quick || (argc > 1 && std::strcmp(argv[1], "--varlen") == 0);
  // The accumulators' store offsets (SwizzledTile) against CuTe's layouts, every thread.
  const bool offsets_hold = gla_sm90::FwdOffsetsHold<gla_sm90::FwdKernel<bf16, 128, 128, 2>>() && gla_sm90::FwdOffsetsHold<gla_sm90::FwdKernel<bf16, 128, 64, 2>>() &&
                            gla_sm90::FwdOffsetsHold<gla_sm90::FwdKernel<fp16, 128, 128, 2>>() && gla_sm90::FwdOffsetsHold<gla_sm90::FwdKernel<fp16, 128, 64, 2>>();
  std::printf("accumulator store offsets: %s\n", offsets_hold ? "ok" : "FAIL");
  if (!offsets_hold) return 1;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, %d SMs, cc %d.%d, smem/block optin %zu\n", prop.name, prop.multiProcessorCount, prop.major,
              prop.minor, size_t(prop.sharedMemPerBlockOptin));
  g_num_sms = prop.multiProcessorCount;
  using namespace gla_sm90;
  std::printf("smem bytes: bv128 %d, bv64 %d\n", FwdSmemBytes<bf16, 128, 128, 2>(),
              FwdSmemBytes<bf16, 128, 64, 2>());
  if (varlen_only) return RunVarlenCases(varlen_quick);
  std::vector<Variant> all = {
      {"bv128", &LaunchFwd<bf16, 128, 128, 2>, 0},
      {"bv64", &LaunchFwd<bf16, 128, 64, 2>, 0},
  };
#ifdef GLA_HARNESS_BASELINE
  all.push_back({"old bv128", &LaunchOld<bf16, 128>, 0});
  all.push_back({"old bv64", &LaunchOld<bf16, 64>, 0});
#endif
  if (profile) {
    RunCase<bf16>({"seed B32 T2048 H4 128/256", 32, 2048, 4, 128, 256, true, false, 0, 0.f, false}, all, false);
    return 0;
  }
  const std::vector<Variant> other = {
      {"bv128 other", &LaunchFwd<bf16, 128, 128, 2>, 1},
      {"bv64 other", &LaunchFwd<bf16, 128, 64, 2>, 1},
  };
  const std::vector<Variant> half = {
      {"fp16 bv128", &LaunchFwd<fp16, 128, 128, 2>, 0},
      {"fp16 bv64", &LaunchFwd<fp16, 128, 64, 2>, 0},
  };
  std::printf("| %-28s | %-18s | %8s | %7s | %6s | %9s | %9s | %6s | %-4s |\n", "case", "variant", "ms", "floor",
              "xfloor", "o relrms", "ht relrms", "nan", "chk");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  // Correctness on awkward shapes first (T not a multiple of 64, Dk < 128, Dv not a multiple of BV,
  // [B, T, H, D], an initial state, any scale, extreme gates), then the timed shapes.
  // The sequence split: segments of 1 to 3 chunks on short T (the last segment shorter, with a
  // partial chunk), every gate kind, an initial state, both modes, both layouts; then the timed
  // shapes with few heads, split (the rule's segments, and twice as many) beside unsplit.
  const std::vector<Variant> split_small = {
      {"bv128", &LaunchFwd<bf16, 128, 128, 2>, 0},
      {"split bv128 s1", &LaunchSplit<bf16, 128, 1>, 0, 128, 1},
      {"split bv128 s2", &LaunchSplit<bf16, 128, 2>, 0, 128, 2},
      {"split bv64 s3", &LaunchSplit<bf16, 64, 3>, 0, 64, 3},
      {"split bv64 s1", &LaunchSplit<bf16, 64, 1>, 0, 64, 1},
  };
  const std::vector<Variant> split_other = {
      {"split bv128 s1 other", &LaunchSplit<bf16, 128, 1>, 1, 128, 1},
      {"split bv64 s2 other", &LaunchSplit<bf16, 64, 2>, 1, 64, 2},
  };
  const std::vector<Variant> split_half = {
      {"fp16 bv128", &LaunchFwd<fp16, 128, 128, 2>, 0},
      {"fp16 split bv128 s2", &LaunchSplit<fp16, 128, 2>, 0, 128, 2},
      {"fp16 split bv64 s3", &LaunchSplit<fp16, 64, 3>, 0, 64, 3},
  };
  const std::vector<Variant> split_timed = {
      {"bv128", &LaunchFwd<bf16, 128, 128, 2>, 0},
      {"bv64", &LaunchFwd<bf16, 128, 64, 2>, 0},
      {"split bv128", &LaunchSplit<bf16, 128, 0>, 0, 128, 0},
      {"split bv64", &LaunchSplit<bf16, 64, 0>, 0, 64, 0},
      {"split bv128 2 waves", &LaunchSplit<bf16, 128, -2>, 0, 128, -2},
      {"split bv64 2 waves", &LaunchSplit<bf16, 64, -2>, 0, 64, -2},
  };
  // Segment lengths around the rule's on B2 T16384 H16 D128 (256 chunks; 64 CTAs at BV 64, 32 at
  // BV 128): S = 2, 4, 6, 8, 12, 16 (BV 64) and 4, 6, 8, 9, 12, 16, 24 (BV 128).
  const std::vector<Variant> split_sweep = {
      {"bv64", &LaunchFwd<bf16, 128, 64, 2>, 0},
      {"split bv64 s128", &LaunchSplit<bf16, 64, 128>, 0, 64, 128},
      {"split bv64 s64", &LaunchSplit<bf16, 64, 64>, 0, 64, 64},
      {"split bv64 s43", &LaunchSplit<bf16, 64, 43>, 0, 64, 43},
      {"split bv64 s32", &LaunchSplit<bf16, 64, 32>, 0, 64, 32},
      {"split bv64 s22", &LaunchSplit<bf16, 64, 22>, 0, 64, 22},
      {"split bv64 s16", &LaunchSplit<bf16, 64, 16>, 0, 64, 16},
      {"bv128", &LaunchFwd<bf16, 128, 128, 2>, 0},
      {"split bv128 s64", &LaunchSplit<bf16, 128, 64>, 0, 128, 64},
      {"split bv128 s43", &LaunchSplit<bf16, 128, 43>, 0, 128, 43},
      {"split bv128 s32", &LaunchSplit<bf16, 128, 32>, 0, 128, 32},
      {"split bv128 s29", &LaunchSplit<bf16, 128, 29>, 0, 128, 29},
      {"split bv128 s22", &LaunchSplit<bf16, 128, 22>, 0, 128, 22},
      {"split bv128 s16", &LaunchSplit<bf16, 128, 16>, 0, 128, 16},
      {"split bv128 s11", &LaunchSplit<bf16, 128, 11>, 0, 128, 11},
  };
  if (!timed) {
    RunCase<bf16>({"split odd T200 Dk96 Dv96 bthd h0", 2, 200, 3, 96, 96, false, true, 0, 0.3f, false}, split_small, false);
    RunCase<bf16>({"split odd (other mode)", 2, 200, 3, 96, 96, false, true, 0, 0.3f, false}, split_other, false);
    RunCase<bf16>({"split Dk64 T130 Dv64 h0", 2, 130, 2, 64, 64, true, true, 0, 0.f, false}, split_small, false);
    RunCase<bf16>({"split strong gates T320 h0", 1, 320, 2, 128, 128, true, true, 1, 0.f, false}, split_small, false);
    RunCase<bf16>({"split extreme gates T300 h0", 1, 300, 2, 128, 136, true, true, 2, 0.f, false}, split_small, false);
    RunCase<bf16>({"split extreme gates T300", 1, 300, 2, 128, 128, false, false, 2, 0.f, false}, split_other, false);
    RunCase<bf16>({"split gates U[-1,0] T200 Dv256", 1, 200, 2, 128, 256, true, true, 3, 0.f, false}, split_small, false);
    RunCase<fp16>({"split fp16 T260 bthd h0", 2, 260, 2, 128, 128, false, true, 0, 0.f, false}, split_half, false);
    RunCase<fp16>({"split fp16 gates U[-1,0] T200", 1, 200, 2, 128, 256, true, true, 3, 0.f, false}, split_half, false);
    RunCase<bf16>({"split B1 T4100 H2 h0 (rule)", 1, 4100, 2, 128, 128, true, true, 0, 0.f, false}, split_timed, false);
  }
  if (split_only) {
    if (!split_quick) {
      RunCase<bf16>({"B2 T16384 H16 D128", 2, 16384, 16, 128, 128, true, false, 0, 0.f, true}, split_timed, false);
      RunCase<bf16>({"B2 T16384 H16 D128 h0", 2, 16384, 16, 128, 128, true, true, 0, 0.f, true}, split_timed, false);
      RunCase<bf16>({"B2 T16384 H16 D128 sweep", 2, 16384, 16, 128, 128, true, false, 0, 0.f, true}, split_sweep, false);
      RunCase<bf16>({"B4 T2048 H16 D128", 4, 2048, 16, 128, 128, true, false, 0, 0.f, true}, split_timed, false);
      RunCase<bf16>({"B1 T32768 H8 D128", 1, 32768, 8, 128, 128, true, false, 0, 0.f, true}, split_timed, false);
    }
    return 0;
  }
  if (!timed) {
    RunCase<bf16>({"odd T200 Dk96 Dv96 bthd h0", 2, 200, 3, 96, 96, false, true, 0, 0.3f, false}, all, true);
    RunCase<bf16>({"odd (other mode)", 2, 200, 3, 96, 96, false, true, 0, 0.3f, false}, other, false);
    RunCase<bf16>({"Dk64 T130 Dv64 h0", 2, 130, 2, 64, 64, true, true, 0, 0.f, false}, all, true);
    RunCase<bf16>({"Dk32 T70 Dv40 bthd", 1, 70, 3, 32, 40, false, false, 0, 0.f, false}, all, true);
    RunCase<bf16>({"strong gates T320 bhtd", 1, 320, 2, 128, 128, true, true, 1, 0.f, false}, all, true);
    RunCase<bf16>({"extreme gates T300", 1, 300, 2, 128, 136, true, true, 2, 0.f, false}, all, true);
    RunCase<fp16>({"fp16 T260 bthd h0", 2, 260, 2, 128, 128, false, true, 0, 0.f, false}, half, true);
    RunCase<fp16>({"fp16 gates U[-1,0] T200", 1, 200, 2, 128, 256, true, true, 3, 0.f, false}, half, true);
    RunCase<bf16>({"bf16 gates U[-1,0] T200", 1, 200, 2, 128, 256, true, true, 3, 0.f, false}, all, true);
  }
  if (quick) return 0;
  RunCase<bf16>({"seed B32 T2048 H4 128/256", 32, 2048, 4, 128, 256, true, false, 0, 0.f, true}, all, false);
  RunCase<fp16>({"seed fp16", 32, 2048, 4, 128, 256, true, false, 0, 0.f, true}, {half[0]}, false);
  RunCase<bf16>({"seed (other mode)", 32, 2048, 4, 128, 256, true, false, 0, 0.f, true}, {other[0]}, false);
  RunCase<bf16>({"B4 T2048 H16 D128", 4, 2048, 16, 128, 128, true, false, 0, 0.f, true}, all, false);
  RunCase<bf16>({"B8 T1024 H8 D64", 8, 1024, 8, 64, 64, true, false, 0, 0.f, true}, all, false);
  RunCase<bf16>({"B2 T16384 H16 D128", 2, 16384, 16, 128, 128, true, false, 0, 0.f, true}, split_timed, false);
  return 0;
}
