// The flags module (paddle_ops/common/flags.h): the table, the strict parser, SetFlag / GetFlags
// and the typed accessors. (The reading of the environment is tested from Python, in fresh
// interpreters: unittests/python/test_flags.py.)
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "paddle_ops/common/enforce.h"
#include "paddle_ops/common/flags.h"
#include "paddle_ops/core/cpu_threads.h"

namespace fl = paddle_ops::flags;

namespace {

// The message of the InvalidArgument error fn throws ("" and a failure when it throws none).
template <typename Fn>
std::string InvalidArgumentOf(Fn&& fn) {
  try {
    fn();
  } catch (const phi::EnforceNotMet& e) {
    EXPECT_EQ(e.code(), phi::ErrorCode::INVALID_ARGUMENT) << e.what();
    return e.message();
  }
  ADD_FAILURE() << "no error thrown";
  return "";
}

const fl::FlagInfo& Row(const std::string& name) {
  for (const auto& f : fl::FlagTable())
    if (name == f.name) return f;
  throw std::runtime_error("no flag " + name);
}

// Restores every flag the test changed.
class FlagsTest : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = fl::GetFlags(); }
  void TearDown() override {
    for (const auto& [name, value] : saved_)
      if (!Row(name).start_only) fl::SetFlag(name, value);
  }
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST(FlagTableTest, EveryFlagIsNamedDocumentedAndHasAValidDefault) {
  const auto& table = fl::FlagTable();
  ASSERT_EQ(table.size(), 10u);
  for (const auto& f : table) {
    EXPECT_EQ(std::string(f.name).rfind("PADDLE_OPS_", 0), 0u) << f.name;
    EXPECT_GT(std::string(f.doc).size(), 20u) << f.name;
    if (f.kind == fl::FlagKind::kChoice) {
      ASSERT_GE(f.default_value, 0);
      ASSERT_LT(f.default_value, static_cast<int64_t>(f.choices.size())) << f.name;
    } else {
      EXPECT_TRUE(f.choices.empty());
      EXPECT_GE(f.default_value, 0);
      EXPECT_LE(f.default_value, f.max_value);
    }
    // The default parses back to itself.
    EXPECT_EQ(fl::ParseFlagValue(f, fl::FormatFlagValue(f, f.default_value), "test"), f.default_value);
  }
  EXPECT_EQ(fl::FormatFlagValue(Row("PADDLE_OPS_GPU_SCAN"), Row("PADDLE_OPS_GPU_SCAN").default_value), "engine");
  EXPECT_EQ(fl::FormatFlagValue(Row("PADDLE_OPS_GLA_GPU"), Row("PADDLE_OPS_GLA_GPU").default_value), "chunked");
  // The sm_90a backward is the default since the H200 ran the GPU suite on it (issue 30).
  EXPECT_EQ(fl::FormatFlagValue(Row("PADDLE_OPS_GLA_GPU_BWD"), Row("PADDLE_OPS_GLA_GPU_BWD").default_value),
            "sm90");
  EXPECT_EQ(fl::FormatFlagValue(Row("PADDLE_OPS_GLA_GPU_FWD"), Row("PADDLE_OPS_GLA_GPU_FWD").default_value),
            "auto");
  EXPECT_EQ(fl::FormatFlagValue(Row("PADDLE_OPS_GLA_CPU"), Row("PADDLE_OPS_GLA_CPU").default_value), "auto");
  EXPECT_EQ(fl::FormatFlagValue(Row("PADDLE_OPS_CPU_ISA"), Row("PADDLE_OPS_CPU_ISA").default_value), "auto");
  EXPECT_EQ(fl::FormatFlagValue(Row("PADDLE_OPS_TORCH_OUTPUTS"), Row("PADDLE_OPS_TORCH_OUTPUTS").default_value),
            "auto");
  EXPECT_EQ(fl::FormatFlagValue(Row("PADDLE_OPS_QUIET"), Row("PADDLE_OPS_QUIET").default_value), "0");
  EXPECT_TRUE(Row("PADDLE_OPS_CPU_CACHE_MB").start_only);
  // gla's testing aid: 0 (the device's own shared memory per block) unless set.
  EXPECT_EQ(fl::FormatFlagValue(Row("PADDLE_OPS_GLA_GPU_SMEM_LIMIT"), Row("PADDLE_OPS_GLA_GPU_SMEM_LIMIT").default_value),
            "0");
  EXPECT_FALSE(Row("PADDLE_OPS_GLA_GPU_SMEM_LIMIT").start_only);
}

// PADDLE_OPS_GLA_GPU_SMEM_LIMIT reaches its accessor at run time, and only integers are accepted.
TEST(FlagGlaSmemLimit, SetAtRunTime) {
  const std::string before = fl::GetFlag("PADDLE_OPS_GLA_GPU_SMEM_LIMIT");
  fl::SetFlag("PADDLE_OPS_GLA_GPU_SMEM_LIMIT", "101376");
  EXPECT_EQ(fl::GlaGpuSmemLimit(), 101376);
  EXPECT_THROW(fl::SetFlag("PADDLE_OPS_GLA_GPU_SMEM_LIMIT", "99KB"), std::exception);
  EXPECT_EQ(fl::GlaGpuSmemLimit(), 101376);
  fl::SetFlag("PADDLE_OPS_GLA_GPU_SMEM_LIMIT", before);
  EXPECT_EQ(fl::GetFlag("PADDLE_OPS_GLA_GPU_SMEM_LIMIT"), before);
}

TEST(FlagParserTest, ChoicesAreExact) {
  const auto& f = Row("PADDLE_OPS_GLA_GPU");
  EXPECT_EQ(fl::ParseFlagValue(f, "recurrent", "test"), static_cast<int64_t>(fl::GlaGpu::kRecurrent));
  EXPECT_EQ(fl::ParseFlagValue(f, "chunked", "test"), static_cast<int64_t>(fl::GlaGpu::kChunked));
  // chunked_v1 (the first generation of the chunked kernels, removed) is an unknown value now.
  for (const char* bad : {"", "Chunked", "chunked ", " chunked", "fast", "1", "2", "chunked_v1"}) {
    const std::string msg = InvalidArgumentOf([&] { fl::ParseFlagValue(f, bad, "the environment"); });
    EXPECT_NE(msg.find("PADDLE_OPS_GLA_GPU='" + std::string(bad) + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("from the environment"), std::string::npos) << msg;
    EXPECT_NE(msg.find("accepted values: 'recurrent', 'chunked' (default)"), std::string::npos) << msg;
  }
}

TEST(FlagParserTest, GlaGpuBackwardChoices) {
  const auto& f = Row("PADDLE_OPS_GLA_GPU_BWD");
  EXPECT_EQ(fl::ParseFlagValue(f, "chunked", "test"), static_cast<int64_t>(fl::GlaGpuBwd::kChunked));
  EXPECT_EQ(fl::ParseFlagValue(f, "sm90", "test"), static_cast<int64_t>(fl::GlaGpuBwd::kSm90));
  for (const char* bad : {"SM90", "sm90a", "sm_90a", "recurrent", "1"}) {
    const std::string msg = InvalidArgumentOf([&] { fl::ParseFlagValue(f, bad, "set_flags"); });
    EXPECT_NE(msg.find("PADDLE_OPS_GLA_GPU_BWD='" + std::string(bad) + "' (from set_flags)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'chunked', 'sm90' (default)"), std::string::npos) << msg;
  }
}

TEST(FlagParserTest, IntegersAreNonNegativeDecimalsInRange) {
  const auto& f = Row("PADDLE_OPS_CPU_CACHE_MB");
  EXPECT_EQ(fl::ParseFlagValue(f, "0", "test"), 0);
  EXPECT_EQ(fl::ParseFlagValue(f, "64", "test"), 64);
  EXPECT_EQ(fl::ParseFlagValue(f, "007", "test"), 7);
  EXPECT_EQ(fl::ParseFlagValue(f, std::to_string(f.max_value), "test"), f.max_value);
  EXPECT_EQ(fl::ParseFlagValue(f, "000000000000000000000064", "test"), 64);  // leading zeros, any length
  for (const std::string& bad : std::vector<std::string>{"-1", "abc", "", "+5", "5 ", " 5", "5MB", "1e3", "0x10",
                                                         "3.5", std::to_string(f.max_value + 1),
                                                         "99999999999999999999999",
                                                         // 19 digits above 2**63 - 1: wrapped to a negative (issue 32)
                                                         "9999999999999999999", "9223372036854775808",
                                                         "18446744073709551616", "0000000000000000000001073741825"}) {
    const std::string msg = InvalidArgumentOf([&] { fl::ParseFlagValue(f, bad, "set_flags"); });
    EXPECT_NE(msg.find("PADDLE_OPS_CPU_CACHE_MB='" + bad + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("an integer from 0 to"), std::string::npos) << msg;
  }
}

TEST_F(FlagsTest, SetFlagChangesTheAccessorAndGetFlags) {
  fl::SetFlag("PADDLE_OPS_GPU_SCAN", "thrust");
  EXPECT_EQ(fl::GpuScanBackend(), fl::GpuScan::kThrust);
  EXPECT_EQ(fl::GetFlag("PADDLE_OPS_GPU_SCAN"), "thrust");
  fl::SetFlag("PADDLE_OPS_GPU_SCAN", "engine");
  EXPECT_EQ(fl::GpuScanBackend(), fl::GpuScan::kEngine);
  fl::SetFlag("PADDLE_OPS_GLA_CPU", "recurrent");
  EXPECT_EQ(fl::GlaCpuPath(), fl::GlaCpu::kRecurrent);
  fl::SetFlag("PADDLE_OPS_GLA_GPU", "recurrent");
  EXPECT_EQ(fl::GlaGpuPath(), fl::GlaGpu::kRecurrent);
  fl::SetFlag("PADDLE_OPS_GLA_GPU_BWD", "chunked");
  EXPECT_EQ(fl::GlaGpuBwdPath(), fl::GlaGpuBwd::kChunked);
  fl::SetFlag("PADDLE_OPS_GLA_GPU_FWD", "plain");
  EXPECT_EQ(fl::GlaGpuFwdPlan(), fl::GlaGpuFwd::kPlain);
  const auto all = fl::GetFlags();
  ASSERT_EQ(all.size(), fl::FlagTable().size());
  EXPECT_EQ(all[1], std::make_pair(std::string("PADDLE_OPS_GLA_GPU"), std::string("recurrent")));
  EXPECT_EQ(all[2], std::make_pair(std::string("PADDLE_OPS_GLA_GPU_BWD"), std::string("chunked")));
  EXPECT_EQ(all[3], std::make_pair(std::string("PADDLE_OPS_GLA_GPU_FWD"), std::string("plain")));
  EXPECT_EQ(all[4], std::make_pair(std::string("PADDLE_OPS_GLA_CPU"), std::string("recurrent")));
  fl::SetFlag("PADDLE_OPS_GLA_GPU_FWD", "auto");
  EXPECT_EQ(fl::GlaGpuFwdPlan(), fl::GlaGpuFwd::kAuto);
  fl::SetFlag("PADDLE_OPS_GLA_GPU_BWD", "sm90");
  EXPECT_EQ(fl::GlaGpuBwdPath(), fl::GlaGpuBwd::kSm90);
  fl::SetFlag("PADDLE_OPS_GLA_GPU", "chunked");
  EXPECT_EQ(fl::GlaGpuPath(), fl::GlaGpu::kChunked);
  EXPECT_EQ(fl::GetFlag("PADDLE_OPS_GLA_GPU"), "chunked");
}

// The removed value chunked_v1 is refused by set_flags with the flag's error, and the flag keeps
// its value.
TEST_F(FlagsTest, RemovedGlaGpuValueIsRejected) {
  fl::SetFlag("PADDLE_OPS_GLA_GPU", "recurrent");
  const std::string msg = InvalidArgumentOf([] { fl::SetFlag("PADDLE_OPS_GLA_GPU", "chunked_v1"); });
  EXPECT_NE(msg.find("PADDLE_OPS_GLA_GPU='chunked_v1' (from set_flags) is not accepted; accepted values: "
                     "'recurrent', 'chunked' (default)"),
            std::string::npos)
      << msg;
  EXPECT_EQ(fl::GlaGpuPath(), fl::GlaGpu::kRecurrent);
  EXPECT_EQ(fl::GetFlag("PADDLE_OPS_GLA_GPU"), "recurrent");
}

TEST_F(FlagsTest, SetFlagsValidatesEveryEntryBeforeSettingAny) {
  const std::string before = fl::GetFlag("PADDLE_OPS_GLA_CPU");
  const std::string other = before == "chunked" ? "recurrent" : "chunked";
  const std::string msg =
      InvalidArgumentOf([&] { fl::SetFlags({{"PADDLE_OPS_GLA_CPU", other}, {"PADDLE_OPS_GPU_SCAN", "fast"}}); });
  EXPECT_NE(msg.find("PADDLE_OPS_GPU_SCAN='fast' (from set_flags)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'engine' (default), 'thrust'"), std::string::npos) << msg;
  EXPECT_EQ(fl::GetFlag("PADDLE_OPS_GLA_CPU"), before);
}

TEST_F(FlagsTest, UnknownNamesAreRejectedNamingTheKnownOnes) {
  for (auto fn : {+[] { fl::SetFlag("PADDLE_OPS_GLA_GPUU", "chunked"); }, +[] { fl::GetFlagValue("GPU_SCAN"); }}) {
    const std::string msg = InvalidArgumentOf(fn);
    EXPECT_NE(msg.find("unknown flag"), std::string::npos) << msg;
    for (const auto& f : fl::FlagTable()) EXPECT_NE(msg.find(f.name), std::string::npos) << msg;
  }
}

TEST_F(FlagsTest, TheCacheLimitIsReadAtStartOnly) {
  const std::string now = fl::GetFlag("PADDLE_OPS_CPU_CACHE_MB");
  EXPECT_EQ(std::to_string(fl::CpuCacheMB()), now);
  fl::SetFlag("PADDLE_OPS_CPU_CACHE_MB", now);  // its own value: accepted, nothing changes
  const std::string msg = InvalidArgumentOf([&] { fl::SetFlag("PADDLE_OPS_CPU_CACHE_MB", now + "1"); });
  EXPECT_NE(msg.find("PADDLE_OPS_CPU_CACHE_MB is read from the environment once"), std::string::npos) << msg;
  EXPECT_EQ(fl::GetFlag("PADDLE_OPS_CPU_CACHE_MB"), now);
}

TEST(FlagTableTest, ToolVariablesAreNotFlags) {
  for (const char* t : fl::ToolVariables()) {
    EXPECT_EQ(std::string(t).rfind("PADDLE_OPS_", 0), 0u);
    for (const auto& f : fl::FlagTable()) EXPECT_NE(std::string(t), f.name);
  }
}

}  // namespace

// The CPU thread bound (paddle_ops/core/cpu_threads.h): a count above it is refused, the refusal
// changes nothing, and the count in use never exceeds it.
TEST(CpuThreadsTest, CountsAboveTheBoundAreRefused) {
  const int bound = phi::CpuMaxThreads();
  EXPECT_GE(bound, phi::kCpuThreadsBound);
  const int before = phi::CpuNumThreads();
  for (int n : {bound + 1, 100000, 2147483647}) {
    const std::string msg = InvalidArgumentOf([&] { phi::SetCpuNumThreads(n); });
    EXPECT_NE(msg.find("'n' = " + std::to_string(n) + " is above the bound of " + std::to_string(bound)),
              std::string::npos)
        << msg;
    EXPECT_EQ(phi::CpuNumThreads(), before);
  }
  phi::SetCpuNumThreads(bound);
  EXPECT_EQ(phi::CpuNumThreads(), bound);
  phi::SetCpuNumThreads(0);
  EXPECT_LE(phi::CpuNumThreads(), bound);
  phi::CheckOmpNumThreads();  // the test's own OMP_NUM_THREADS is within the bound
}
