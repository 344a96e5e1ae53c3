// pscan's kernel harness: the library's launch layer with pscan's tiles (kernels/gpu/pscan_tiles.cuh)
// against the engine's generic tiles on the same op, on the shapes of tools/bench/bench_pscan.py
// (the seed's a [4, T] with x [4, T, 4096], and [8 * 1536, T] rows) and a few awkward ones.
// Every case: gates U(0.999, 1) (per row of D when the gate is [N, T]), x U(-1, 1), outputs
// poisoned, two runs compared bitwise, the number of outputs whose bits differ from the generic
// tiles' ("!= gen": 0 expected on columns, whose tiles keep the generic order; rows' vector
// tiles combine in their own order), a float64 host recurrence (max |out - ref| / (4e-6 S),
// S = max(1, the recurrence on |a| and |x|), the library's float32 measure; ok <= 1), and the
// time against a copy of the bytes
// pscan moves (x and a read, out written; bench_pscan's floor).
// Build: HARNESS_NVCC_FLAGS='-DPO_PSCAN_...' bash tools/dev/harness/build.sh pscan;
// run: build-harness/pscan_harness [--quick] [--no-check] [--only S]
#include "tools/dev/harness/harness.cuh"

#define PADDLE_ENFORCE_GPU_SUCCESS(expr) HARNESS_CHECK(expr)

#include <cmath>

#include "kernels/funcs/gpu/scan_launch.cuh"
#include "kernels/gpu/pscan_tiles.cuh"
#include "paddle_ops/common/common.cc"  // FastDivMod's error type (one nvcc call, no library)

using phi::funcs::ScanLayout;
using Op = phi::funcs::PscanOp<float, float>;
struct GenericPscanOp : Op {};  // the engine's generic tiles

struct Case {
  const char* name;
  int64_t N, T, D;
  bool per_row, reverse;
};

int main(int argc, char** argv) {
  bool quick = false, check = true;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    if (!std::strcmp(argv[i], "--no-check")) check = false;
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only.push_back(argv[++i]);
  }
  cudaStream_t stream = harness::Start();
  const Case cases[] = {
      {"[3, 1001, 5] per row rev", 3, 1001, 5, true, true},
      {"[2, 3000, 7] per element", 2, 3000, 7, false, false},
      {"[1, 70001, 33] per row", 1, 70001, 33, true, false},
      {"seed [4, 8192, 4096]", 4, 8192, 4096, true, false},
      {"[12288, 1024, 1] rows", 12288, 1024, 1, false, false},
      {"[12288, 8192, 1] rows", 12288, 8192, 1, false, false},
  };
  harness::Header();
  for (const Case& c : cases) {
    const bool big = c.N * c.T * c.D > (int64_t{1} << 26);
    if ((quick && big) || !harness::Selected(only, c.name)) continue;
    const int64_t n = c.N * c.T * c.D, na = c.per_row ? c.N * c.T : n;
    std::vector<float> ha(na), hx(n);
    std::uniform_real_distribution<float> gate(0.999f, 1.f), val(-1.f, 1.f);
    for (auto& v : ha) v = gate(harness::Rng());
    for (auto& v : hx) v = val(harness::Rng());
    harness::DeviceBuffer<float> a(na), x(n), out(n), gen(n);
    a.Upload(ha);
    x.Upload(hx);
    const ScanLayout l{c.N, c.T, c.D};
    auto make = [&](auto op, float* o) {
      op.a = a.p;
      op.x = x.p;
      op.initial_state = nullptr;
      op.out = o;
      op.index = phi::funcs::PscanIndex(l, c.per_row);
      return op;
    };
    const Op fast = make(Op{}, out.p);
    const GenericPscanOp generic = make(GenericPscanOp{}, gen.p);
    harness::Scratch scratch;
    auto run_fast = [&] { scratch.Begin(); phi::funcs::ScanGpuLaunch(stream, scratch, l, false, c.reverse, fast); };
    auto run_gen = [&] { scratch.Begin(); phi::funcs::ScanGpuLaunch(stream, scratch, l, false, c.reverse, generic); };
    std::vector<float> first;
    bool same = true;
    for (int r = 0; r < 2; ++r) {
      out.Poison();
      run_fast();
      HARNESS_CHECK(cudaStreamSynchronize(stream));
      if (r == 0) first = out.Download(); else same = std::memcmp(first.data(), out.Download().data(), n * 4) == 0;
    }
    gen.Poison();
    run_gen();
    HARNESS_CHECK(cudaStreamSynchronize(stream));
    const std::vector<float> hg = gen.Download();
    int64_t differ = 0;
    for (int64_t i = 0; i < n; ++i) differ += std::memcmp(&first[i], &hg[i], 4) != 0;
    double err = NAN;
    if (check) {
      err = 0;
#pragma omp parallel for reduction(max : err)
      for (int64_t line = 0; line < c.N * c.D; ++line) {
        const int64_t o = line / c.D, d = line % c.D;
        double h = 0, m = 0, worst = 0;
        for (int64_t k = 0; k < c.T; ++k) {
          const int64_t t = c.reverse ? c.T - 1 - k : k;
          const int64_t off = (o * c.T + t) * c.D + d;
          const double gt = k == 0 ? 0.0 : ha[c.per_row ? o * c.T + t : off];
          h = gt * h + hx[off];
          m = std::fabs(gt) * m + std::fabs(hx[off]);
          const double e = std::fabs(first[off] - h) / (4e-6 * std::max(1.0, m));
          if (!(e <= worst)) worst = e != e ? INFINITY : e;
        }
        err = std::max(err, worst);
      }
    }
    const double copy = harness::CopyMs(stream, (2 * n + na) * 4 / 2);
    std::string v = std::string("fast != gen ") + std::to_string(differ);
    if (!same) v += " NONDET";
    const bool rows = c.D == 1;  // the row tiles' own order: not compared with the generic tiles
    harness::Row(c.name, v, harness::TimeMs(stream, run_fast), copy, err,
                 same && (rows || differ == 0) && (!check || err <= 1));
    harness::Row(c.name, "generic", harness::TimeMs(stream, run_gen), copy, NAN, true);
    scratch.Release();
  }
  return 0;
}
