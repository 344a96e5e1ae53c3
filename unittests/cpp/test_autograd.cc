// The eager autograd engine under stress (issue 17 items 3, 5, 9): a chain of 200,000 grad
// nodes is freed and backpropagated in constant stack, backward passes on several threads
// lose no accumulation, and Grad's no_grad_vars cuts the gradient.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "paddle_ops/autograd/backward.h"
#include "paddle_ops/core/allocator.h"
#include "paddle_ops_gen/dygraph_functions.h"

namespace paddle_ops {
namespace {

const phi::Place kCpu(phi::AllocationType::CPU);

Tensor Float64(const std::vector<double>& values, bool requires_grad) {
  auto d = std::make_shared<phi::DenseTensor>(phi::DataType::FLOAT64,
                                              phi::make_ddim({static_cast<int64_t>(values.size())}));
  auto* p = static_cast<double*>(d->AllocateFrom(phi::GetAllocator(kCpu), phi::DataType::FLOAT64, kCpu));
  for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  Tensor t(d);
  t.set_stop_gradient(!requires_grad);
  return t;
}

std::vector<double> Values(const Tensor& t) {
  const auto* p = t.dense().data<double>();
  return std::vector<double>(p, p + t.numel());
}

std::vector<double> GradOf(const Tensor& leaf) {
  return Values(Tensor(std::shared_ptr<phi::DenseTensor>(leaf.autograd_meta()->grad)));
}

constexpr int kChain = 200000;

// y = x * w^n: built and freed, then backpropagated (twice, the first keeping the graph) and
// freed. Exits 0 when the gradients are right.
void LongChainChild() {
  Tensor x = Float64({3.0}, true);
  Tensor w = Float64({1.0}, true);
  {
    Tensor y = x;
    for (int i = 0; i < kChain; ++i) y = multiply_ad_func(y, y);  // each node holds the last twice
  }
  Tensor y = x;
  for (int i = 0; i < kChain; ++i) y = multiply_ad_func(y, w);
  Backward({y}, {}, /*retain_graph=*/true);
  Backward({y}, {}, /*retain_graph=*/false);
  bool ok = GradOf(x) == std::vector<double>{2.0} && GradOf(w) == std::vector<double>{6.0 * kChain};
  y = Tensor();  // frees the chain
  std::exit(ok ? 0 : 3);
}

// In a child process: a stack overflow would end the whole test binary.
TEST(AutogradTrust, LongChainFreedAndBackpropagatedInConstantStack) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(LongChainChild(), ::testing::ExitedWithCode(0), "");
}

TEST(AutogradTrust, ThreadsAccumulateIntoOneLeafExactly) {
  constexpr int kThreads = 8, kRounds = 200;
  std::vector<double> init(1 << 16);
  for (size_t i = 0; i < init.size(); ++i) init[i] = static_cast<double>(i % 7);
  Tensor x = Float64(init, true);
  Tensor two = Float64(std::vector<double>(init.size(), 2.0), false);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r) Backward({multiply_ad_func(x, two)}, {}, false);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(GradOf(x), std::vector<double>(init.size(), 2.0 * kThreads * kRounds));
}

TEST(AutogradTrust, GradNoGradVarsCutsThePath) {
  // out = a * b with a = x * x, b = x * c: d out/dx = 2x * b + a * c = 3 c x^2; with b cut,
  // 2 x b = 2 c x^2.
  Tensor x = Float64({2.0, -1.0}, true), c = Float64({5.0, 3.0}, false);
  Tensor a = multiply_ad_func(x, x), b = multiply_ad_func(x, c);
  Tensor out = multiply_ad_func(a, b);
  auto full = Grad({out}, {x}, {}, true, false);
  auto cut = Grad({out}, {x}, {}, true, false, {b});
  ASSERT_TRUE(full[0] && cut[0]);
  EXPECT_EQ(Values(*full[0]), (std::vector<double>{60.0, 9.0}));
  EXPECT_EQ(Values(*cut[0]), (std::vector<double>{40.0, 6.0}));
  auto none = Grad({out}, {x}, {}, false, true, {a, b});
  EXPECT_FALSE(none[0]);
}

}  // namespace
}  // namespace paddle_ops
