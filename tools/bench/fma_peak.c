/* The core's float32 FMA peak, measured: 12 independent chains of vector FMAs (enough to cover
 * the FMA latency times the number of FMA pipes of current x86 cores; 12 + 2 operands fit the 16
 * AVX2 registers), timed by the thread's CPU
 * clock so that time the scheduler gives to other jobs does not count. Built and run by
 * bench_gla_cpu.py:  cc -O2 -mavx2 -mfma fma_peak.c  (add -mavx512f -DWIDE=16 for 512-bit).
 * Prints GFLOP/s (2 per FMA lane). */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#define CHAINS 12

#if WIDE == 16
typedef __m512 vec;
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define ADD _mm512_add_ps
#define STORE _mm512_storeu_ps
#define LANES 16
#else
typedef __m256 vec;
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define ADD _mm256_add_ps
#define STORE _mm256_storeu_ps
#define LANES 8
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void) {
  const long iters = 20000000;
  vec a = SET1(0.999999f), b = SET1(1e-7f);
  vec c[CHAINS];
  for (int j = 0; j < CHAINS; ++j) c[j] = SET1((float)j);
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const double t0 = now();
    for (long i = 0; i < iters; ++i) {
#pragma GCC unroll 16
      for (int j = 0; j < CHAINS; ++j) c[j] = FMA(c[j], a, b);
    }
    const double dt = now() - t0;
    const double gflops = 2.0 * LANES * CHAINS * iters / dt * 1e-9;
    if (gflops > best) best = gflops;
  }
  vec s = c[0];
  for (int j = 1; j < CHAINS; ++j) s = ADD(s, c[j]);
  float out[LANES];
  STORE(out, s);
  printf("%.2f %g\n", best, (double)out[0]);
  return 0;
}
