// The per-target loop of the C++ tests of the Highway kernels (test_scan_cumsum.cc,
// test_scan_logcumsumexp.cc; also cross-built for aarch64 by tools/dev/test_arm.sh): each target
// that PADDLE_OPS_CPU_ISA names on this architecture (the aliases left out) that the CPU runs is
// forced in turn, the others reported skipped; the scan chunk is shrunk to 1024 steps (chunk
// boundaries and the three-phase split on small inputs), and the flag, the chunk and the thread
// count are restored afterwards.
#pragma once

#include <iostream>
#include <string>
#include <vector>

#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/funcs/simd/cpu_isa.h"
#include "paddle_ops/common/flags.h"

namespace paddle_ops_test {

inline std::vector<std::string> HwyTargets() {
  std::vector<std::string> t;
  for (const auto& f : paddle_ops::flags::FlagTable()) {
    if (std::string(f.name) != "PADDLE_OPS_CPU_ISA") continue;
    for (const char* c : f.choices) {
      const std::string name = c;
      if (name != "auto" && name != "avx512" && name != "baseline") t.push_back(name);
    }
  }
  return t;
}

template <typename Check>
void ForEachHwyTarget(Check check) {
  phi::funcs::SetCpuScanChunkForTesting(1024);
  const int threads = phi::funcs::CpuNumThreads();
  for (const std::string& t : HwyTargets()) {
    paddle_ops::flags::SetFlag("PADDLE_OPS_CPU_ISA", t);
    if (phi::funcs::simd::CpuTargetName(phi::funcs::simd::CpuTargetInUse()) != t) {
      std::cout << "[  SKIPPED ] target " << t << ": this CPU lacks it\n";
      continue;
    }
    check(t);
  }
  paddle_ops::flags::SetFlag("PADDLE_OPS_CPU_ISA", "auto");
  phi::funcs::SetCpuScanChunkForTesting(0);
  phi::funcs::SetCpuNumThreads(threads);
}

}  // namespace paddle_ops_test
