// Runs the sm_90a gla backward's kernels (kernels/gla/sm90/chunk_bwd_sm90.cuh, compiled as host
// code with GLA_BWD_HOST_EMULATION) on the CPU: each block as its threads with real barriers,
// __shfl_xor_sync and the warp's mma.sync m16n8k16 emulated from the 32 lanes' fragments in the
// PTX layout, so the kernels' indexing, fragment mapping, barriers and modes are checked without
// a GPU, against the float64 recurrent backward (bwd_ref.h) on small shapes (rel. RMS <= 4e-3).
//
//   g++ -O1 -std=c++20 -pthread -I. -I/usr/local/cuda/include \
//       -o build-harness/gla_bwd_emulation tools/dev/harness/gla/bwd_emulation.cc
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "tools/dev/harness/gla/bwd_ref.h"

namespace emu {
constexpr int kThreads = 256;
thread_local uint3 t_idx, b_idx;
std::unique_ptr<std::barrier<>> block_bar;
std::unique_ptr<std::barrier<>> warp_bar[kThreads / 32];
std::atomic<int> and_count{0};
int and_result = 0;
uint32_t xa[kThreads / 32][32][4], xb[kThreads / 32][32][2];
float xf[kThreads / 32][32];
bool is_half = false;

inline void Sync() { block_bar->arrive_and_wait(); }
inline int SyncAnd(int v) {
  if (!v) and_count.fetch_add(1);
  block_bar->arrive_and_wait();
  const int r = and_count.load() == 0;
  block_bar->arrive_and_wait();
  if (t_idx.x == 0) and_count.store(0);
  block_bar->arrive_and_wait();
  return r;
}
template <class T>  // a 32-bit value (float or a word)
inline T Shfl(T x, int o) {
  static_assert(sizeof(T) == 4, "32-bit shuffles");
  const int w = t_idx.x / 32, l = t_idx.x % 32;
  std::memcpy(&xf[w][l], &x, 4);
  warp_bar[w]->arrive_and_wait();
  T r;
  std::memcpy(&r, &xf[w][l ^ o], 4);
  warp_bar[w]->arrive_and_wait();
  return r;
}
inline float Half16(uint32_t bits) {
  const uint16_t u = uint16_t(bits);
  if (is_half) {
    __half h;
    std::memcpy(&h, &u, 2);
    return __half2float(h);
  }
  __nv_bfloat16 b;
  std::memcpy(&b, &u, 2);
  return __bfloat162float(b);
}
}  // namespace emu

// The warp's m16n8k16 product from every lane's fragments (the PTX layout).
inline void EmuMma16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  const int w = emu::t_idx.x / 32, l = emu::t_idx.x % 32;
  for (int r = 0; r < 4; ++r) emu::xa[w][l][r] = a[r];
  emu::xb[w][l][0] = b0, emu::xb[w][l][1] = b1;
  emu::warp_bar[w]->arrive_and_wait();
  float A[16][16], B[16][8];
  for (int L = 0; L < 32; ++L) {
    const int g = L / 4, c = L % 4;
    for (int h = 0; h < 2; ++h) {
      A[g][2 * c + h] = emu::Half16(emu::xa[w][L][0] >> (16 * h));
      A[g + 8][2 * c + h] = emu::Half16(emu::xa[w][L][1] >> (16 * h));
      A[g][2 * c + 8 + h] = emu::Half16(emu::xa[w][L][2] >> (16 * h));
      A[g + 8][2 * c + 8 + h] = emu::Half16(emu::xa[w][L][3] >> (16 * h));
      B[2 * c + h][g] = emu::Half16(emu::xb[w][L][0] >> (16 * h));
      B[2 * c + 8 + h][g] = emu::Half16(emu::xb[w][L][1] >> (16 * h));
    }
  }
  emu::warp_bar[w]->arrive_and_wait();
  const int g = l / 4, c = l % 4;
  for (int e = 0; e < 4; ++e) {
    const int row = g + 8 * (e >> 1), col = 2 * c + (e & 1);
    float acc = d[e];
    for (int k = 0; k < 16; ++k) acc += A[row][k] * B[k][col];
    d[e] = acc;
  }
}

// ldmatrix .x4 (.trans): lanes 8q .. 8q + 7 give matrix q's rows (16-byte aligned).
inline void EmuLdmatrix(uint32_t (&r)[4], const void* row, bool trans) {
  static const void* xp[emu::kThreads / 32][32];
  const int w = emu::t_idx.x / 32, l = emu::t_idx.x % 32;
  if (reinterpret_cast<uintptr_t>(row) & 15) {
    std::printf("ldmatrix: misaligned row address (thread %u)\n", emu::t_idx.x);
    std::abort();
  }
  xp[w][l] = row;
  emu::warp_bar[w]->arrive_and_wait();
  for (int q = 0; q < 4; ++q) {
    auto at = [&](int rr, int cc) { return uint32_t(static_cast<const uint16_t*>(xp[w][8 * q + rr])[cc]); };
    r[q] = trans ? at(2 * (l % 4), l / 4) | (at(2 * (l % 4) + 1, l / 4) << 16)
                 : at(l / 4, 2 * (l % 4)) | (at(l / 4, 2 * (l % 4) + 1) << 16);
  }
  emu::warp_bar[w]->arrive_and_wait();
}

#undef __global__
#define __global__
#undef __launch_bounds__
#define __launch_bounds__(...)
#undef __shared__
#define __shared__
#define threadIdx emu::t_idx
#define blockIdx emu::b_idx
#define __syncthreads() emu::Sync()
#define __syncthreads_and(x) emu::SyncAnd(x)
#define __shfl_xor_sync(mask, x, o) emu::Shfl(x, o)
#define __expf(x) expf(x)
#define __stcs(p, v) (*(p) = (v))
#define __threadfence_block() std::atomic_thread_fence(std::memory_order_seq_cst)
inline float EmuUintAsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
#define __uint_as_float(u) EmuUintAsFloat(u)

namespace gla_sm90_bwd {
alignas(16) unsigned char smem_raw[240 * 1024];
}
#define GLA_BWD_HOST_EMULATION 1
#include "kernels/gla/sm90/chunk_bwd_sm90.cuh"

namespace {

using gla_sm90_bwd::BwdArgs;

// Runs kern over `blocks` blocks of `threads` threads, one block after the other.
template <class Kern>
void RunGrid(Kern kern, const BwdArgs& a, int64_t blocks, int threads) {
  for (int64_t blk = 0; blk < blocks; ++blk) {
    emu::block_bar = std::make_unique<std::barrier<>>(threads);
    for (auto& w : emu::warp_bar) w = std::make_unique<std::barrier<>>(32);
    std::vector<std::thread> th;
    for (int t = 0; t < threads; ++t)
      th.emplace_back([&, t] {
        emu::t_idx = make_uint3(t, 0, 0);
        emu::b_idx = make_uint3(unsigned(blk), 0, 0);
        kern(a);
      });
    for (auto& x : th) x.join();
  }
}

template <class E, class G, int DK, int DV>
void Launch(const BwdArgs& a) {
  using namespace gla_sm90_bwd;
  using K = BwdKernel<E, G, DK, DV>;
  using ST = StateTiles<E, G, DV>;
  using W = typename ST::W;
  using M = typename ST::M;
  using N = typename ST::N;
  emu::is_half = std::is_same<E, __half>::value;
  const int64_t heads = int64_t(a.B) * a.H;
  if (a.H % 2 == 0) {  // every tile shape (the GPU picks by the grid's size)
    RunGrid(BwdStateKernel<W, false>, a, W::Blocks(a), kStateThreads);
    RunGrid(BwdStateKernel<N, true>, a, N::Blocks(a), kStateThreads);
  } else if (a.B % 2 == 0) {
    RunGrid(BwdStateKernel<M, false>, a, M::Blocks(a), kStateThreads);
    RunGrid(BwdStateKernel<M, true>, a, M::Blocks(a), kStateThreads);
  } else {
    RunGrid(BwdStateKernel<N, false>, a, N::Blocks(a), kStateThreads);
    RunGrid(BwdStateKernel<W, true>, a, W::Blocks(a), kStateThreads);
  }
  RunGrid(BwdChunkKernel<K>, a, heads * BwdChunks(a), kThreads);
}

template <class X>
X FromF(float x) {
  if constexpr (std::is_same<X, __nv_bfloat16>::value) return __float2bfloat16(x);
  else if constexpr (std::is_same<X, __half>::value) return __float2half(x);
  else return x;
}

struct Case {
  const char* name;
  int B, T, H, Dk, Dv;
  bool head_first, h0, dfinal;
  int gates;  // 0 logsigmoid/16, 1 x4, 2 extreme, 3 U[-1,0]
  bool other;
};

template <class E, class G, int DK, int DV>
bool RunCase(const Case& c) {
  std::mt19937_64 rng(std::hash<std::string>()(c.name));
  std::normal_distribution<float> nd(0.f, 1.f);
  std::uniform_real_distribution<float> ud(0.f, 1.f);
  const int BH = c.B * c.H;
  const int64_t nqk = int64_t(BH) * c.T * c.Dk, nv = int64_t(BH) * c.T * c.Dv, ns = int64_t(BH) * c.Dk * c.Dv;
  auto in = gla_ref::RandomInputs<E, G>(
      nqk, nv, ns, c.gates, 0.02f, c.h0, c.dfinal, [&] { return nd(rng); }, [&] { return ud(rng); },
      [](float x) { return FromF<E>(x); }, [](float x) { return FromF<G>(x); });
  auto &q = in.q, &k = in.k, &v = in.v, &dout = in.dout;
  auto& g = in.g;
  auto &h0 = in.h0, &dfinal = in.dfinal;
  std::vector<E> dq(nqk), dk(nqk), dv(nv);
  std::vector<G> dg(nqk);
  std::vector<float> dh0(ns, NAN);
  std::memset(dq.data(), 0xff, nqk * sizeof(E)), std::memset(dk.data(), 0xff, nqk * sizeof(E));
  std::memset(dv.data(), 0xff, nv * sizeof(E)), std::memset(dg.data(), 0xff, nqk * sizeof(G));
  BwdArgs a;
  a.B = c.B, a.H = c.H, a.T = c.T, a.Dk = c.Dk, a.Dv = c.Dv;
  auto strides = [&](int D, int64_t* st, int64_t* sh, int64_t* sb) {
    if (c.head_first) *st = D, *sh = int64_t(c.T) * D, *sb = int64_t(c.H) * c.T * D;
    else *st = int64_t(c.H) * D, *sh = D, *sb = int64_t(c.T) * c.H * D;
  };
  strides(c.Dk, &a.qk_st, &a.qk_sh, &a.qk_sb);
  strides(c.Dv, &a.v_st, &a.v_sh, &a.v_sb);
  a.q = q.data(), a.k = k.data(), a.v = v.data(), a.g = g.data(), a.dout = dout.data();
  a.h0 = c.h0 ? h0.data() : nullptr, a.dfinal = c.dfinal ? dfinal.data() : nullptr;
  a.dq = dq.data(), a.dk = dk.data(), a.dv = dv.data(), a.dg = dg.data(), a.dh0 = c.h0 ? dh0.data() : nullptr;
  // The work space exactly as large as BwdWorkBytes (an overrun shows under -fsanitize=address).
  const int64_t work_floats = gla_sm90_bwd::BwdWorkBytes<E>(a) / 4;
  std::unique_ptr<float[]> work(new float[work_floats]);
  std::fill(work.get(), work.get() + work_floats, NAN);
  a.work = work.get();
  a.scale = 1.f / std::sqrt(float(c.Dk));
  a.force_other_mode = c.other;
  Launch<E, G, DK, DV>(a);

  gla_ref::Err err[5];
  const gla_ref::HostCall<E, G> hc{c.H, c.T, c.Dk, c.Dv, a.qk_st, a.qk_sh, a.qk_sb, a.v_st, a.v_sh, a.v_sb,
                                   q.data(), k.data(), v.data(), dout.data(), g.data(),
                                   c.h0 ? h0.data() : nullptr, c.dfinal ? dfinal.data() : nullptr, a.scale,
                                   dq.data(), dk.data(), dv.data(), dg.data(), c.h0 ? dh0.data() : nullptr};
  for (int bh = 0; bh < BH; ++bh) gla_ref::AddHeadErrors(hc, bh, err);
  bool ok = true;
  long long bad = 0;
  for (auto& e : err) ok = ok && e.Rel() <= 4e-3, bad += e.bad;
  ok = ok && bad == 0;
  std::printf("| %-30s | %9.3g | %9.3g | %9.3g | %9.3g | %9.3g | %4lld | %s |\n", c.name, err[0].Rel(), err[1].Rel(),
              err[2].Rel(), err[3].Rel(), err[4].Rel(), bad, ok ? "ok" : "FAIL");
  std::fflush(stdout);
  return ok;
}

}  // namespace

int main() {
  using bf = __nv_bfloat16;
  using hf = __half;
  std::printf("| %-30s | %9s | %9s | %9s | %9s | %9s | %4s | chk |\n|---|---|---|---|---|---|---|---|\n", "case", "dq",
              "dk", "dv", "dgk", "dh0", "nan");
  bool ok = true;
  ok &= RunCase<bf, bf, 64, 64>({"64/64 T70 Dk32 Dv40 bthd", 1, 70, 2, 32, 40, false, true, true, 0, false});
  ok &= RunCase<bf, bf, 64, 64>({"64/64 T70 other mode", 1, 70, 1, 64, 64, true, true, true, 0, true});
  ok &= RunCase<bf, bf, 64, 64>({"64/64 extreme gates T90", 1, 90, 1, 64, 64, true, true, true, 2, false});
  ok &= RunCase<bf, float, 64, 64>({"64/64 gk f32 strong T64", 1, 64, 1, 64, 48, true, false, true, 1, false});
  ok &= RunCase<hf, hf, 64, 64>({"64/64 fp16 U[-1,0] T40", 1, 40, 1, 64, 64, true, true, false, 3, false});
  ok &= RunCase<bf, bf, 128, 128>({"128/128 T100 Dk96 Dv96 h0 dfinal", 1, 100, 1, 96, 96, true, true, true, 0, false});
  ok &= RunCase<bf, bf, 128, 256>({"128/256 T70 Dk128 Dv256 bthd", 1, 70, 1, 128, 256, false, true, true, 0, false});
  ok &= RunCase<bf, bf, 128, 256>({"128/256 extreme, dfinal only", 1, 75, 1, 128, 136, true, false, true, 2, false});
  ok &= RunCase<bf, float, 128, 128>({"128/128 gk f32 other, B2 H2 T20", 2, 20, 2, 64, 128, false, true, true, 3, true});
  ok &= RunCase<hf, hf, 128, 256>({"128/256 fp16 T45 h0", 1, 45, 1, 128, 256, true, true, false, 0, false});
  ok &= RunCase<bf, bf, 128, 256>({"128/256 B2 Dk96 Dv136 extreme", 2, 70, 1, 96, 136, false, true, true, 2, false});
  ok &= RunCase<hf, hf, 128, 256>({"128/256 fp16 B2 T40 h0 dfinal", 2, 40, 1, 128, 256, true, true, true, 0, false});
  std::printf(ok ? "all ok\n" : "SOME FAILED\n");
  return ok ? 0 : 1;
}
