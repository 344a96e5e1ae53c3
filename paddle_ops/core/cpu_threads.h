// The CPU thread count that every OpenMP parallel region of the kernels uses (the scan engine,
// broadcasting and reductions, gla, repeat_interleave): it follows OMP_NUM_THREADS
// (omp_get_max_threads()) until SetCpuNumThreads(n > 0) pins it (paddle_ops.set_num_threads);
// SetCpuNumThreads(0) goes back to following OpenMP.
//
// Bounded by CpuMaxThreads(): the larger of kCpuThreadsBound and the CPUs OpenMP sees. A larger
// count is refused by SetCpuNumThreads (InvalidArgument, ValueError in Python) and by
// CheckOmpNumThreads (OMP_NUM_THREADS; paddle_ops checks it at import), and never reaches
// OpenMP: a following count above the bound is used as the bound. (Asked for 100000 threads,
// GNU OpenMP's next parallel region crashed; for 2**31 - 1 it aborted the process allocating
// 481 GB.)
//
// In the child of a fork() it is 1 whatever was set: GNU OpenMP's thread pool does not survive a
// fork (the child's first parallel region of more than one thread waits for ever on the parent's
// pool threads, which the child does not have), so a pthread_atfork handler, registered when the
// library loads, makes a forked child run every region on one thread, as PyTorch's CPU ops do.
#pragma once

namespace phi {

constexpr int kCpuThreadsBound = 1024;

int CpuNumThreads();
int CpuMaxThreads();
void SetCpuNumThreads(int n);
void CheckOmpNumThreads();

}  // namespace phi
