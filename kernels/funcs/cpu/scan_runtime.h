// Settings of the CPU scan engine that every scan shares: how many threads it uses, whether
// the SIMD fast paths run, and the chunk length that long rows are cut into.
//
// Threads: the count follows OMP_NUM_THREADS (omp_get_max_threads()) until
// SetCpuNumThreads(n > 0) pins it (paddle_ops.set_num_threads); SetCpuNumThreads(0) goes back
// to following OpenMP. In the child of a fork() it is 1 whatever was set (a pthread_atfork
// handler, registered when the library loads): GNU OpenMP's pool does not survive a fork, and
// every `omp parallel` region of the project takes its count from CpuNumThreads().
//
// Chunks: a row is cut into chunks of CpuScanChunk() steps, fixed by the length alone, never by
// the thread count. The value written at an element depends only on the elements of its own
// chunk and on the chunk's carry-in, and every carry is the same fold of per-chunk totals
// whichever thread computed them: so the output is bitwise the same for any thread count.
#pragma once

#include <cstdint>

namespace phi {
namespace funcs {

int CpuNumThreads();
void SetCpuNumThreads(int n);

// The SIMD fast paths (AVX2 + FMA, chosen at run time). Disabling them (tests do, to compare
// paths) makes every scan take the generic per-element path.
bool CpuScanSimdSupported();  // compiled in and supported by this CPU
bool CpuScanSimdEnabled();    // supported and not disabled
void SetCpuScanSimdEnabled(bool on);

// Steps per chunk (a multiple of 1024). Tests shrink it to reach chunk boundaries on small
// inputs; 0 restores the default.
int64_t CpuScanChunk();
void SetCpuScanChunkForTesting(int64_t steps);

}  // namespace funcs
}  // namespace phi
