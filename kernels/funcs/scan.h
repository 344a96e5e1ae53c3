// The scan engine's one entry, declared for both devices so that a kernel body written once
// (kernels/impl/<op>_kernel_impl.h, a template on the device context) compiles in a .cc and
// in a .cu alike:
//
//   funcs::Scan(dev_ctx, layout, exclusive, reverse, op)
//
// runs the scan op `op` (scan_functors.h: State, Identity, Combine, Load(ScanPos),
// Store(ScanPos, State)) along the middle index of the [outer, length, inner] view `layout`.
// The CPU definition comes from kernels/funcs/cpu/scan_cpu.h, the GPU one from
// kernels/funcs/gpu/scan_dispatch.cuh: the registration file of each device includes its own
// (with the op's fast paths, kernels/cpu/*_fast.h or kernels/gpu/*_tiles.cuh).
#pragma once

#include "kernels/funcs/scan_layout.h"

namespace phi {

class CPUContext;
class GPUContext;

namespace funcs {

template <typename Op>
void Scan(const CPUContext& ctx, const ScanLayout& l, bool exclusive, bool reverse, const Op& op);

template <typename Op>
void Scan(const GPUContext& ctx, const ScanLayout& l, bool exclusive, bool reverse, const Op& op);

// Internal (the sequence-parallel scans, docs/seqpar.md): the same scan with a carry-in per line,
// init[line] (line = outer index * inner + column; outer * inner states in the context's memory,
// null for none), combined before the line's first step in scan order (its last element for
// reverse; an exclusive scan stores it first). Every strategy takes it (kernels/funcs/gpu/
// scan_launch.cuh: short and staged rows go to the single pass; the CPU's SIMD kernels of
// logcumsumexp and cumsum and its generic path alike).
template <typename Op>
void ScanFrom(const CPUContext& ctx, const ScanLayout& l, bool exclusive, bool reverse, const Op& op,
              const typename Op::State* init);
template <typename Op>
void ScanFrom(const GPUContext& ctx, const ScanLayout& l, bool exclusive, bool reverse, const Op& op,
              const typename Op::State* init);

// Internal: each line's total, the combination of all its steps in a fixed order (a reduction:
// each element read once), into totals[line] (outer * inner states in the context's memory).
template <typename Op>
void ScanTotals(const CPUContext& ctx, const ScanLayout& l, bool reverse, const Op& op, typename Op::State* totals);
template <typename Op>
void ScanTotals(const GPUContext& ctx, const ScanLayout& l, bool reverse, const Op& op, typename Op::State* totals);

}  // namespace funcs
}  // namespace phi
