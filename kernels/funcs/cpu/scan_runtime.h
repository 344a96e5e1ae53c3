// Settings of the CPU scan engine that every scan shares: how many threads it uses, whether
// the SIMD fast paths run, and the chunk length that long rows are cut into.
//
// Threads: CpuNumThreads / SetCpuNumThreads of paddle_ops/core/cpu_threads.h (one count for
// every parallel region of the kernels, 1 in a forked child).
//
// Chunks: a row is cut into chunks of CpuScanChunk() steps, fixed by the length alone, never by
// the thread count. The value written at an element depends only on the elements of its own
// chunk and on the chunk's carry-in, and every carry is the same fold of per-chunk totals
// whichever thread computed them: so the output is bitwise the same for any thread count.
#pragma once

#include <cstdint>

#include "paddle_ops/core/cpu_threads.h"

namespace phi {
namespace funcs {

using ::phi::CpuNumThreads;
using ::phi::SetCpuNumThreads;

// The SIMD fast paths (Highway kernels compiled for every target, chosen at run time by
// kernels/funcs/simd/cpu_isa.h; the flag PADDLE_OPS_CPU_ISA caps the choice). Disabling them
// (C++ tests do, to compare paths; Python tests set PADDLE_OPS_CPU_ISA=baseline) makes every scan
// take the generic per-element path.
bool CpuScanSimdSupported();  // this CPU has a vector target (anything but Highway's fallback)
bool CpuScanSimdEnabled();    // supported, not disabled, and PADDLE_OPS_CPU_ISA allows a vector target
void SetCpuScanSimdEnabled(bool on);
// Not disabled by SetCpuScanSimdEnabled (the kernels then run on whichever vector target is in use).
bool CpuScanSimdSwitchedOn();

// Steps per chunk (a multiple of 1024). Tests shrink it to reach chunk boundaries on small
// inputs; 0 restores the default.
int64_t CpuScanChunk();
void SetCpuScanChunkForTesting(int64_t steps);

}  // namespace funcs
}  // namespace phi
