// libFuzzer target over the C++ API (paddle_ops::experimental, the generated shims: kernel
// lookup, InferMeta, CPU kernel). Each input picks one op of the table (or the op named by
// --op=NAME), random shapes (0-D and zero-size included), axes, attributes, dtypes and values
// (+-inf, NaN, huge, tiny, subnormal, -0, extreme integers), runs it, and checks:
//   - a valid call succeeds and matches a slow, independent reference (long double loops,
//     written from the op's definition) within the dtype's tolerance; NaN where the reference
//     is NaN, the same infinity where it is infinite;
//   - an invalid call (axis out of range, bad shape, unsupported dtype, ...) throws
//     phi::EnforceNotMet with the expected error code, and nothing else escapes.
// Any mismatch aborts with a message naming the op and the case. The CPU scan engine's chunk
// is shrunk to 1024 steps and its SIMD path and thread count vary, so small inputs reach the
// three-phase long-row paths.
//
// Layout: fuzz_util.h (drawing cases, tensors, checks, scan references, the op table), one
// file per op under ops/ (its Fuzz function and REGISTER_FUZZ_OP lines), and this main.
// Adding an op: a file unittests/fuzz/ops/<op>.cc with a REGISTER_FUZZ_OP(<op>, ...) line and a
// seed corpus folder unittests/fuzz/corpus/<op>; CMake registers the CTest test fuzz_<op>.
//
// Run: build with -DPADDLE_OPS_FUZZ=ON (clang), then tools/dev/fuzz.sh [seconds per op] [op...];
// one op by hand: build-san/paddle_ops_fuzz --op=<op> [libFuzzer flags] [corpus dirs or files]
// (libFuzzer ignores arguments that start with "--"; --list-ops prints the table).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "unittests/fuzz/fuzz_util.h"

namespace {

int g_only = -1;  // --op=NAME: fuzz this op alone

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  using paddle_ops_fuzz::OpEntry;
  std::vector<OpEntry>& ops = paddle_ops_fuzz::OpTable();
  // The registration order across files is unspecified; the table is sorted by name.
  std::sort(ops.begin(), ops.end(), [](const OpEntry& a, const OpEntry& b) { return a.name < b.name; });
  for (int i = 1; i < *argc; ++i) {
    const char* arg = (*argv)[i];
    if (std::strcmp(arg, "--list-ops") == 0) {
      for (const OpEntry& e : ops) std::printf("%s\n", e.name.c_str());
      std::exit(0);
    }
    if (std::strncmp(arg, "--op=", 5) != 0) continue;
    const std::string name = arg + 5;
    g_only = -1;
    for (size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].name == name) g_only = static_cast<int>(k);
    }
    if (g_only < 0) {
      std::fprintf(stderr, "--op=%s: no such op; the ops are:", name.c_str());
      for (const OpEntry& e : ops) std::fprintf(stderr, " %s", e.name.c_str());
      std::fprintf(stderr, "\n");
      std::exit(2);
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<paddle_ops_fuzz::OpEntry>& ops = paddle_ops_fuzz::OpTable();
  FuzzedDataProvider f(data, size);
  const int n = static_cast<int>(ops.size());
  const int which = g_only >= 0 ? g_only : f.ConsumeIntegralInRange<int>(0, n - 1);
  paddle_ops_fuzz::g_case = ops[which].name;
  ops[which].fuzz(f);
  return 0;
}
