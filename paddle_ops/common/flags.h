// The run-time switches of paddle_ops, all in one table (flags.cc): each switch is named by its
// environment variable (PADDLE_OPS_*), which is read once, at the first use of any switch, and
// parsed strictly: a value that is not one of the accepted ones is an InvalidArgument error
// (ValueError in Python) naming the variable, the value given and the values accepted; an empty
// value is the same as an unset one. After that the switches change only through SetFlag
// (paddle.set_flags in Python), validated the same way. flags.cc is the one file of the
// repository that reads the environment.
//
// The typed accessors below are what the kernels call: a load of a parsed value, no string work,
// cheap enough for every launch.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace paddle_ops {
namespace flags {

// PADDLE_OPS_GPU_SCAN: the backend of the GPU scan kernels.
enum class GpuScan { kEngine, kThrust };
// PADDLE_OPS_GLA_GPU: the GPU path of gla: the recurrent form, or the chunked kernels (the sm_90a
// kernels where they take the call). The values are the indices of the table's choices.
enum class GlaGpu { kRecurrent = 0, kChunked = 1 };
// PADDLE_OPS_GLA_GPU_BWD: the GPU backward of gla under PADDLE_OPS_GLA_GPU=chunked: the chunked
// kernels' (kChunked), or, for the 16-bit inputs it takes on sm_90a, the backward of
// kernels/gla/sm90/chunk_bwd_sm90.cuh (kSm90).
enum class GlaGpuBwd { kChunked = 0, kSm90 = 1 };
// PADDLE_OPS_GLA_GPU_FWD: the launch plan of the sm_90a forward (kernels/gla/launch_gpu.cuh,
// RunSm90Forward): kAuto splits T into segments where the CTAs of one launch over the whole of T
// would leave most SMs idle, and runs a varlen call in one launch; kPlain runs one launch over T,
// per sequence of a varlen call (on side streams), as before both (for comparing them).
enum class GlaGpuFwd { kAuto = 0, kPlain = 1 };
// PADDLE_OPS_GLA_CPU: the CPU path of gla (kAuto: chosen by the sizes of the call).
enum class GlaCpu { kAuto, kChunked, kRecurrent };
// PADDLE_OPS_TORCH_OUTPUTS: who allocates the outputs of the torch integration's C++ kernels
// (runtime.h, PO_OUTPUTS_TORCH_FLAG); kAuto: torch on CUDA, ours on the CPU.
enum class TorchOutputs { kAuto, kTorch, kOurs };

GpuScan GpuScanBackend();
GlaGpu GlaGpuPath();
GlaGpuBwd GlaGpuBwdPath();
GlaGpuFwd GlaGpuFwdPlan();
GlaCpu GlaCpuPath();
// PADDLE_OPS_CPU_ISA: the best Highway target the run-time dispatched CPU kernels may use, by
// name ("auto": whatever the CPU has; kernels/funcs/simd/cpu_isa.cc reads the names).
const char* CpuIsaLimit();
int64_t CpuCacheMB();  // read at start only (SetFlag refuses to change it)
TorchOutputs TorchOutputsPolicy();
// PADDLE_OPS_GLA_GPU_SMEM_LIMIT: a testing aid: bytes of shared memory per block that gla's GPU
// kernel choices take as the device's limit where it is below it (0: the device's own limit).
int64_t GlaGpuSmemLimit();

enum class FlagKind { kChoice, kInteger };

// One row of the table. A choice flag stores the index of its value in `choices`; an integer
// flag stores the integer (0 <= value <= max_value).
struct FlagInfo {
  const char* name;  // the environment variable
  FlagKind kind;
  std::vector<const char*> choices;  // kChoice: the accepted values, in the order of the enum
  int64_t default_value;             // kChoice: an index into choices; kInteger: the value
  int64_t max_value;                 // kInteger: the largest accepted value
  bool start_only;                   // read from the environment at start, not changed after
  const char* doc;                   // one line, for get_flags' callers and the docs
};

// Every flag, in a fixed order.
const std::vector<FlagInfo>& FlagTable();

// The environment variables named PADDLE_OPS_* that the build, test and fuzz scripts read
// themselves (PADDLE_OPS_SKIP_HUGE, ...): known, not flags of the library, not validated here.
const std::vector<const char*>& ToolVariables();

// The stored form of `value` for `flag`, or an InvalidArgument error naming the flag, the value,
// where it came from (`source`: "the environment", "set_flags") and the accepted values.
int64_t ParseFlagValue(const FlagInfo& flag, const std::string& value, const char* source);
// The text form of a stored value (a choice's name, or the integer in decimal).
std::string FormatFlagValue(const FlagInfo& flag, int64_t value);
// "'engine' (default), 'thrust'" or "an integer from 0 to N (default D)".
std::string AcceptedValues(const FlagInfo& flag);

// Reads the environment if that has not happened yet (every accessor does this too); throws the
// error of the first bad PADDLE_OPS_* value, again on every call until the variable is fixed.
void LoadFlags();
// PADDLE_OPS_* variables of the environment that are neither flags nor ToolVariables (a typo,
// most likely; the Python package warns about them at import).
std::vector<std::string> UnknownEnvironmentVariables();

// The current value of flag `name` (InvalidArgument naming the known flags for an unknown name).
int64_t GetFlagValue(const std::string& name);
std::string GetFlag(const std::string& name);  // the same in text form
// Every flag with its current value, in table order, in text form.
std::vector<std::pair<std::string, std::string>> GetFlags();
// Sets flags from text values: all are validated before any is set. A start_only flag may only
// be "set" to the value it has.
void SetFlags(const std::vector<std::pair<std::string, std::string>>& values);
void SetFlag(const std::string& name, const std::string& value);

}  // namespace flags
}  // namespace paddle_ops
