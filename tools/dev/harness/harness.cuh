// The kernel harness's shared driver pieces (tools/dev/harness/README.md): cases and the
// benchmark's shapes, device buffers, random inputs, poisoned outputs, two runs compared bit for
// bit, timing against a device-to-device copy of the same bytes in the same run, and a result
// table. A harness is one .cu file and this header, built with one
// nvcc call (tools/dev/harness/build.sh) and run on a GPU as a binary, so that a kernel variant
// is checked and timed in seconds without building the library.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#define HARNESS_CHECK(expr)                                                                              \
  do {                                                                                                   \
    cudaError_t e_ = (expr);                                                                             \
    if (e_ != cudaSuccess) {                                                                             \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #expr); \
      std::exit(2);                                                                                      \
    }                                                                                                    \
  } while (0)

namespace harness {

// Device-to-host copies of n elements of T from any device pointer (a DeviceBuffer's, a
// library's scratch, a kernel's output): into a new vector, or into `h` (its h.size() elements,
// its storage kept: for host code that holds h.data()).
template <typename T>
std::vector<T> Download(const T* p, int64_t n) {
  std::vector<T> h(n);
  HARNESS_CHECK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
template <typename T>
void DownloadTo(std::vector<T>& h, const T* p) {
  HARNESS_CHECK(cudaMemcpy(h.data(), p, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
}

// A device buffer of n elements of T.
template <typename T>
struct DeviceBuffer {
  T* p = nullptr;
  int64_t n = 0;
  explicit DeviceBuffer(int64_t count) : n(count) { HARNESS_CHECK(cudaMalloc(&p, std::max<int64_t>(n, 1) * sizeof(T))); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void Upload(const std::vector<T>& h) { HARNESS_CHECK(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice)); }
  std::vector<T> Download() const { return harness::Download(p, n); }
  void Poison() { HARNESS_CHECK(cudaMemset(p, 0xff, n * sizeof(T))); }  // NaN for floats, -1 for ints
  int64_t Bytes() const { return n * int64_t{sizeof(T)}; }
};

// An [outer, length, inner] case (the scan runs along length), named in the result table.
struct Shape {
  const char* name;
  int64_t outer, length, inner;
  int64_t numel() const { return outer * length * inner; }
};

// The five benchmark shapes of tools/bench/bench_gpu.py.
inline const Shape kBenchShapes[] = {
    {"1-D 2^26", 1, int64_t{1} << 26, 1},
    {"[4096, 16384] last", 4096, 16384, 1},
    {"[16384, 4096] axis 0", 1, 16384, 4096},
    {"[2^20, 64] last", int64_t{1} << 20, 64, 1},
    {"[32, 4, 2048, 128] axis 2", 128, 2048, 128},
};

template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Scratch for the launch layers (a `scratch(bytes)` callable), cached as the library's
// allocator caches: Begin() before each launch hands the same blocks out again in order, so a
// timed launch pays no cudaMalloc (the library's stream-ordered pool does not either).
struct Scratch {
  std::vector<std::pair<void*, int64_t>> blocks;
  size_t next = 0;
  void Begin() { next = 0; }
  void* operator()(int64_t bytes) {
    bytes = std::max<int64_t>(bytes, 1);
    if (next < blocks.size() && blocks[next].second >= bytes) return blocks[next++].first;
    void* p = nullptr;
    HARNESS_CHECK(cudaMalloc(&p, bytes));
    if (next < blocks.size()) {
      HARNESS_CHECK(cudaFree(blocks[next].first));
      blocks[next] = {p, bytes};
    } else {
      blocks.push_back({p, bytes});
    }
    ++next;
    return p;
  }
  void Release() {
    HARNESS_CHECK(cudaDeviceSynchronize());
    for (auto& b : blocks) cudaFree(b.first);
    blocks.clear();
    next = 0;
  }
  ~Scratch() { Release(); }
};

// Runs launch() twice into the poisoned `out` (the scratch released after each): the first
// run's result, and in *same whether the second gave the same bits.
template <typename T, typename Launch>
std::vector<T> TwoRuns(DeviceBuffer<T>& out, Scratch& scratch, cudaStream_t stream, Launch&& launch, bool* same) {
  std::vector<T> first;
  for (int run = 0; run < 2; ++run) {
    out.Poison();
    launch();
    HARNESS_CHECK(cudaStreamSynchronize(stream));
    scratch.Release();
    if (run == 0) first = out.Download();
  }
  *same = SameBits(first, out.Download());
  return first;
}

// Median milliseconds of `fn` (which queues work on `stream`) over `repeat` runs after `warmup`.
template <typename Fn>
double TimeMs(cudaStream_t stream, Fn&& fn, int warmup = 3, int repeat = 15) {
  cudaEvent_t a, b;
  HARNESS_CHECK(cudaEventCreate(&a));
  HARNESS_CHECK(cudaEventCreate(&b));
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) {
    HARNESS_CHECK(cudaEventRecord(a, stream));
    fn();
    HARNESS_CHECK(cudaEventRecord(b, stream));
    HARNESS_CHECK(cudaEventSynchronize(b));
    float ms = 0.f;
    HARNESS_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  HARNESS_CHECK(cudaGetLastError());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// A device-to-device copy of `bytes` (read + write): the memory floor a one-pass kernel that
// reads its input once and writes its output once is measured against.
inline double CopyMs(cudaStream_t stream, int64_t bytes) {
  char *src = nullptr, *dst = nullptr;
  HARNESS_CHECK(cudaMalloc(&src, bytes));
  HARNESS_CHECK(cudaMalloc(&dst, bytes));
  HARNESS_CHECK(cudaMemset(src, 1, bytes));
  const double ms = TimeMs(stream, [&] { HARNESS_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream)); });
  cudaFree(src);
  cudaFree(dst);
  return ms;
}

// Host references, line by line in scan order, the lines in parallel (OpenMP): fn(at, worst) for
// each line of an [outer, length, inner] tensor, with at(k) the flat offset of step k, updating
// that line's own `worst` (from 0); returns the largest (NaN counts as infinite).
template <typename Fn>
double ForEachLine(int64_t outer, int64_t length, int64_t inner, bool reverse, Fn&& fn) {
  double all = 0;
  const int64_t lines = outer * inner;
#pragma omp parallel for schedule(dynamic, 16) reduction(max : all)
  for (int64_t ln = 0; ln < lines; ++ln) {
    const int64_t base = ln / inner * length * inner + ln % inner;
    double worst = 0;
    fn([&](int64_t k) { return base + (reverse ? length - 1 - k : k) * inner; }, worst);
    if (!(worst <= all)) all = worst != worst ? INFINITY : worst;
  }
  return all;
}

// The run's header (the device, and the compile-time variant where -DHARNESS_VARIANT names one)
// and a stream for its launches.
inline cudaStream_t Start() {
  cudaDeviceProp prop;
  HARNESS_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
#ifdef HARNESS_VARIANT
  std::printf("variant: %s\n", HARNESS_VARIANT);
#endif
  cudaStream_t stream;
  HARNESS_CHECK(cudaStreamCreate(&stream));
  return stream;
}

// Whether a case runs under --only filters: no filter, or its name holds one of them.
inline bool Selected(const std::vector<std::string>& only, const std::string& name) {
  if (only.empty()) return true;
  for (const auto& o : only) {
    if (name.find(o) != std::string::npos) return true;
  }
  return false;
}

inline std::mt19937_64& Rng() {
  static std::mt19937_64 g(20261128);
  return g;
}

// One result line: case, variant, ms, ratio to the copy, the error measure and whether every
// check passed.
inline void Row(const std::string& name, const std::string& variant, double ms, double copy_ms, double err,
                bool ok) {
  std::printf("| %-34s | %-14s | %9.4f | %7.3f | %6.2f | %9.3g | %-4s |\n", name.c_str(), variant.c_str(), ms,
              copy_ms, ms / copy_ms, err, ok ? "ok" : "FAIL");
  std::fflush(stdout);
}
inline void Header() {
  std::printf("| %-34s | %-14s | %9s | %7s | %6s | %9s | %-4s |\n", "case", "variant", "ms", "copy ms", "x copy",
              "max err", "chk");
  std::printf("|---|---|---|---|---|---|---|\n");
}

}  // namespace harness
