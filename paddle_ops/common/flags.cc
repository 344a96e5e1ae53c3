// The table of run-time switches and their one reading of the environment (flags.h).
#include "paddle_ops/common/flags.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "paddle_ops/common/enforce.h"

extern char** environ;

namespace paddle_ops {
namespace flags {
namespace {

// The CPU allocator's cache is off under AddressSanitizer, so that it sees every free (a use
// after free); the variable still wins.
#if defined(__SANITIZE_ADDRESS__)
constexpr int64_t kCpuCacheDefaultMB = 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr int64_t kCpuCacheDefaultMB = 0;
#else
constexpr int64_t kCpuCacheDefaultMB = 2048;
#endif
#else
constexpr int64_t kCpuCacheDefaultMB = 2048;
#endif

// Rows of FlagTable(), in its order.
enum Row {
  kGpuScanRow, kGlaGpuRow, kGlaGpuBwdRow, kGlaGpuFwdRow, kGlaCpuRow, kCpuCacheRow, kCpuIsaRow,
  kTorchOutputsRow, kQuietRow, kGlaGpuSmemRow, kNumRows
};

const char kSourceEnv[] = "the environment";

// The values, parsed once from the environment at the first use (a function-local static: its
// construction is thread-safe; if it throws, the next use tries again and throws again).
struct Values {
  std::atomic<int64_t> v[kNumRows];
  Values() {
    const auto& table = FlagTable();
    for (int i = 0; i < kNumRows; ++i) {
      const char* env = std::getenv(table[i].name);
      v[i].store(env != nullptr && *env != '\0' ? ParseFlagValue(table[i], env, kSourceEnv)
                                                : table[i].default_value,
                 std::memory_order_relaxed);
    }
  }
};

Values& TheValues() {
  static Values values;
  return values;
}

int64_t Load(Row row) { return TheValues().v[row].load(std::memory_order_relaxed); }

int FindRow(const std::string& name) {
  const auto& table = FlagTable();
  for (size_t i = 0; i < table.size(); ++i)
    if (name == table[i].name) return static_cast<int>(i);
  std::string known;
  for (const auto& f : table) known += (known.empty() ? "" : ", ") + std::string(f.name);
  PADDLE_THROW(phi::errors::InvalidArgument("unknown flag '%s'; the flags are: %s", name, known));
}

bool IsKnownVariable(const std::string& name) {
  for (const auto& f : FlagTable())
    if (name == f.name) return true;
  for (const char* t : ToolVariables())
    if (name == t) return true;
  return false;
}

}  // namespace

// PADDLE_OPS_CPU_ISA's values: this architecture's Highway targets, best first, the fallback
// emu128, and the old x86 names (kernels/funcs/simd/cpu_isa.cc maps them to targets).
#if defined(__x86_64__) || defined(_M_X64)
#define PADDLE_OPS_CPU_ISA_CHOICES "auto", "avx3", "avx2", "sse4", "ssse3", "emu128", "avx512", "baseline"
#elif defined(__aarch64__)
#define PADDLE_OPS_CPU_ISA_CHOICES "auto", "sve2", "sve", "neon", "emu128", "baseline"
#else
#define PADDLE_OPS_CPU_ISA_CHOICES "auto", "emu128", "baseline"
#endif

const std::vector<FlagInfo>& FlagTable() {
  static const std::vector<FlagInfo> table = {
      {"PADDLE_OPS_GPU_SCAN", FlagKind::kChoice, {"engine", "thrust"}, 0, 0, false,
       "backend of the GPU scan kernels: the deterministic scan engine, or thrust's reference "
       "scans (whose float rounding may change from run to run)"},
      {"PADDLE_OPS_GLA_GPU", FlagKind::kChoice, {"recurrent", "chunked"}, 1, 0, false,
       "GPU path of gla: chunked (the chunked kernels; the sm_90a kernels where they take the call), "
       "or recurrent (one thread per head, slow: the reference)"},
      {"PADDLE_OPS_GLA_GPU_BWD", FlagKind::kChoice, {"chunked", "sm90"}, 1, 0, false,
       "GPU backward of gla under PADDLE_OPS_GLA_GPU=chunked: chunked (the chunked kernels), or "
       "sm90 (the sm_90a backward for 16-bit q, k, v, gk where the call fits it, the chunked "
       "kernels elsewhere; the default)"},
      {"PADDLE_OPS_GLA_GPU_FWD", FlagKind::kChoice, {"auto", "plain"}, 0, 0, false,
       "launch plan of the sm_90a gla forward: auto (T split into segments, a state-only pass, an "
       "in-order combine and the outputs per segment, where one CTA per head and Dv tile would "
       "leave most SMs idle, and a varlen call in one launch; the default), or plain (one CTA per "
       "head and Dv tile over T, the sequences of a varlen call one by one on side streams)"},
      {"PADDLE_OPS_GLA_CPU", FlagKind::kChoice, {"auto", "chunked", "recurrent"}, 0, 0, false,
       "CPU path of gla: auto (chunked for T >= 32 and Dk >= 128, else recurrent), or force "
       "chunked or recurrent (float64 always runs recurrent)"},
      {"PADDLE_OPS_CPU_CACHE_MB", FlagKind::kInteger, {}, kCpuCacheDefaultMB, int64_t{1} << 30, true,
       "megabytes of freed CPU blocks (1 MiB and more) the CPU allocator keeps for reuse; 0 "
       "turns the cache off; read at start only"},
      {"PADDLE_OPS_CPU_ISA", FlagKind::kChoice, {PADDLE_OPS_CPU_ISA_CHOICES}, 0, 0, false,
       "best Highway target of the run-time dispatched CPU kernels (the scan engine, fp16/bf16 "
       "conversions, gla's chunked form): auto (what the CPU has), or a cap for comparing the "
       "paths; avx512 and baseline are the old names of avx3 and emu128"},
      {"PADDLE_OPS_TORCH_OUTPUTS", FlagKind::kChoice, {"auto", "torch", "ours"}, 0, 0, false,
       "who allocates the outputs of paddle_ops.integrations.torch's C++ kernels: auto (torch's "
       "allocator on CUDA, ours on the CPU), torch, or ours (adopted by torch without a copy)"},
      {"PADDLE_OPS_QUIET", FlagKind::kChoice, {"0", "1"}, 0, 0, false,
       "1: an integration's first import builds its extension without printing the line that says "
       "what it builds, about how long it takes and where it is cached"},
      {"PADDLE_OPS_GLA_GPU_SMEM_LIMIT", FlagKind::kInteger, {}, 0, int64_t{1} << 30, false,
       "a testing aid: bytes of shared memory per block that gla's GPU kernels take as the device's "
       "limit where it is below it (101376 runs an sm_90 device's chunked kernels as sm_86/sm_89 "
       "run them, without the sm_90a kernels); 0: the device's own limit"},
  };
  return table;
}

const std::vector<const char*>& ToolVariables() {
  static const std::vector<const char*> tools = {
      "PADDLE_OPS_FUZZ_BIN", "PADDLE_OPS_FUZZ_SECONDS", "PADDLE_OPS_SANITIZE_QUICK", "PADDLE_OPS_SKIP_HUGE",
      "PADDLE_OPS_CHECK_TRACEBACK",  // python -m paddle_ops: print a failed check's traceback
      "PADDLE_OPS_EXTENSION_DIR",    // integrations/paddle/_build.py: where the extension is built
      "PADDLE_OPS_REQUIRE_PADDLE",   // tools/test.sh: the real-Paddle tests fail rather than skip
      "PADDLE_OPS_TORCH_CPP",        // integrations/torch: C++ kernels (1), Python kernels (0), or C++ when built
  };
  return tools;
}

std::string AcceptedValues(const FlagInfo& flag) {
  if (flag.kind == FlagKind::kInteger) {
    return phi::Sprintf("an integer from 0 to %d (default %d)", flag.max_value, flag.default_value);
  }
  std::string s;
  for (size_t i = 0; i < flag.choices.size(); ++i) {
    s += (i ? ", '" : "'") + std::string(flag.choices[i]) + "'";
    if (static_cast<int64_t>(i) == flag.default_value) s += " (default)";
  }
  return s;
}

int64_t ParseFlagValue(const FlagInfo& flag, const std::string& value, const char* source) {
  if (flag.kind == FlagKind::kChoice) {
    for (size_t i = 0; i < flag.choices.size(); ++i)
      if (value == flag.choices[i]) return static_cast<int64_t>(i);
  } else if (!value.empty()) {
    // Decimal digits only, and never past max_value: each step checks before it multiplies, so
    // nothing overflows (a 19-digit value above 2**63 - 1 used to wrap to a negative number,
    // which made the CPU cache unbounded).
    int64_t n = 0;
    bool ok = true;
    for (char c : value) {
      const int digit = c - '0';
      if (c < '0' || c > '9' || n > (flag.max_value - digit) / 10) {
        ok = false;
        break;
      }
      n = n * 10 + digit;
    }
    if (ok) return n;
  }
  PADDLE_THROW(phi::errors::InvalidArgument("%s='%s' (from %s) is not accepted; accepted values: %s",
                                            flag.name, value, source, AcceptedValues(flag)));
}

std::string FormatFlagValue(const FlagInfo& flag, int64_t value) {
  if (flag.kind == FlagKind::kChoice) return flag.choices.at(static_cast<size_t>(value));
  return std::to_string(value);
}

void LoadFlags() { TheValues(); }

std::vector<std::string> UnknownEnvironmentVariables() {
  std::vector<std::string> unknown;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const char* eq = std::strchr(*e, '=');
    const std::string name = eq ? std::string(*e, eq - *e) : std::string(*e);
    if (name.compare(0, 11, "PADDLE_OPS_") == 0 && !IsKnownVariable(name)) unknown.push_back(name);
  }
  return unknown;
}

int64_t GetFlagValue(const std::string& name) { return Load(static_cast<Row>(FindRow(name))); }

std::string GetFlag(const std::string& name) {
  const int row = FindRow(name);
  return FormatFlagValue(FlagTable()[row], Load(Row(row)));
}

std::vector<std::pair<std::string, std::string>> GetFlags() {
  std::vector<std::pair<std::string, std::string>> out;
  const auto& table = FlagTable();
  for (int i = 0; i < kNumRows; ++i) out.emplace_back(table[i].name, FormatFlagValue(table[i], Load(Row(i))));
  return out;
}

void SetFlags(const std::vector<std::pair<std::string, std::string>>& values) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  const auto& table = FlagTable();
  std::vector<std::pair<int, int64_t>> parsed;
  for (const auto& [name, text] : values) {
    const int row = FindRow(name);
    const int64_t v = ParseFlagValue(table[row], text, "set_flags");
    const int64_t now = Load(Row(row));
    PADDLE_ENFORCE(!table[row].start_only || v == now,
                   phi::errors::InvalidArgument(
                       "%s is read from the environment once, at start, and cannot be changed at run time "
                       "(it is %s); set the environment variable before the library is loaded",
                       name, FormatFlagValue(table[row], now)));
    parsed.emplace_back(row, v);
  }
  for (const auto& [row, v] : parsed) TheValues().v[row].store(v, std::memory_order_relaxed);
}

void SetFlag(const std::string& name, const std::string& value) { SetFlags({{name, value}}); }

GpuScan GpuScanBackend() { return static_cast<GpuScan>(Load(kGpuScanRow)); }
GlaGpu GlaGpuPath() {
  static_assert(static_cast<int>(GlaGpu::kRecurrent) == 0 && static_cast<int>(GlaGpu::kChunked) == 1,
                "the enum follows the table's choices");
  return static_cast<GlaGpu>(Load(kGlaGpuRow));
}
GlaGpuBwd GlaGpuBwdPath() { return static_cast<GlaGpuBwd>(Load(kGlaGpuBwdRow)); }
GlaGpuFwd GlaGpuFwdPlan() { return static_cast<GlaGpuFwd>(Load(kGlaGpuFwdRow)); }
GlaCpu GlaCpuPath() { return static_cast<GlaCpu>(Load(kGlaCpuRow)); }
const char* CpuIsaLimit() { return FlagTable()[kCpuIsaRow].choices.at(static_cast<size_t>(Load(kCpuIsaRow))); }
int64_t CpuCacheMB() { return Load(kCpuCacheRow); }
TorchOutputs TorchOutputsPolicy() { return static_cast<TorchOutputs>(Load(kTorchOutputsRow)); }
int64_t GlaGpuSmemLimit() { return Load(kGlaGpuSmemRow); }

}  // namespace flags
}  // namespace paddle_ops
