// The gla harnesses' shared pieces (gla_harness.cu, gla_bwd_harness.cu): a CUDA error check
// that ends the run, and timing.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(expr)                                                                                          \
  do {                                                                                                    \
    cudaError_t e_ = (expr);                                                                              \
    if (e_ != cudaSuccess) {                                                                              \
      std::printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #expr);    \
      std::exit(2);                                                                                       \
    }                                                                                                     \
  } while (0)

// Median milliseconds per call of `fn` over `repeat` batches of `batch` back-to-back calls (the
// host's work per call, e.g. the TMA descriptors, overlaps the previous call's kernel).
template <typename Fn>
double TimeMs(Fn&& fn, int warmup = 3, int repeat = 10, int batch = 5) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < warmup; ++i) fn();
  CK(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) {
    CK(cudaEventRecord(a));
    for (int j = 0; j < batch; ++j) fn();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms / batch);
  }
  CK(cudaGetLastError());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// A device-to-device copy that moves `bytes_moved` bytes (half read, half written): the floor.
inline double CopyMs(int64_t bytes_moved) {
  const int64_t n = bytes_moved / 2;
  char *s = nullptr, *d = nullptr;
  CK(cudaMalloc(&s, n));
  CK(cudaMalloc(&d, n));
  CK(cudaMemset(s, 1, n));
  const double ms = TimeMs([&] { CK(cudaMemcpyAsync(d, s, n, cudaMemcpyDeviceToDevice)); });
  cudaFree(s);
  cudaFree(d);
  return ms;
}
