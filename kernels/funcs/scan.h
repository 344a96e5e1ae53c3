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

}  // namespace funcs
}  // namespace phi
