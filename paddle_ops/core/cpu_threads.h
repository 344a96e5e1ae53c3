// The CPU thread count that every OpenMP parallel region of the kernels uses (the scan engine,
// broadcasting and reductions, gla, repeat_interleave): it follows OMP_NUM_THREADS
// (omp_get_max_threads()) until SetCpuNumThreads(n > 0) pins it (paddle_ops.set_num_threads);
// SetCpuNumThreads(0) goes back to following OpenMP.
//
// In the child of a fork() it is 1 whatever was set: GNU OpenMP's thread pool does not survive a
// fork (the child's first parallel region of more than one thread waits for ever on the parent's
// pool threads, which the child does not have), so a pthread_atfork handler, registered when the
// library loads, makes a forked child run every region on one thread, as PyTorch's CPU ops do.
#pragma once

namespace phi {

int CpuNumThreads();
void SetCpuNumThreads(int n);

}  // namespace phi
