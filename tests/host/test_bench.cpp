// The bench's host-side pieces: the suite's coverage, the roofline arithmetic, the new flags.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "batched.hpp"
#include "cli.hpp"
#include "conv.hpp"
#include "roofline.hpp"
#include "suite.hpp"

namespace sgemm::bench {
namespace {

// The suite covers what the design asks of it: at least 60 calls, squares 256..16384, the seed's
// K = 1024, small M from 1 to 64 in the LLM range, skinny, long k, odd sizes and leading
// dimensions, all four op combinations in both layouts, and tiny calls.
TEST(Suite, CoversTheCallsRealProgramsMake) {
  const std::vector<SuiteCall> calls = suite_calls();
  EXPECT_GE(calls.size(), 60u);
  std::set<std::string> groups;
  std::set<std::int64_t> small_m;
  std::set<std::tuple<Layout, Op, Op>> layouts;
  bool unaligned = false, padded = false;
  for (const SuiteCall& c : calls) {
    groups.insert(c.group);
    if (c.group == "small-m") small_m.insert(c.m);
    layouts.insert({c.layout, c.op_a, c.op_b});
    unaligned |= c.unaligned;
    padded |= c.pad > 0;
  }
  for (const char* g : {"squares", "k1024", "small-m", "skinny", "long-k", "odd", "layouts", "linear", "tiny"})
    EXPECT_TRUE(groups.contains(g)) << g;
  EXPECT_EQ(small_m, (std::set<std::int64_t>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(layouts.size(), 8u);
  EXPECT_TRUE(unaligned && padded);
}

TEST(BatchedSuite, ManySmallAndLargeBatches) {
  const std::vector<BatchedCall> calls = batched_calls();
  EXPECT_GE(calls.size(), 8u);
  int many_small = 0, large = 0, shared = 0;
  for (const BatchedCall& c : calls) {
    many_small += c.batch >= 256 && c.m * c.n <= 128 * 128;
    large += c.m >= 1024 && c.n >= 1024;
    shared += c.shared_b;
  }
  EXPECT_GE(many_small, 3);
  EXPECT_GE(large, 2);
  EXPECT_GE(shared, 1);
  EXPECT_EQ(parse_cli({"--batched", "--pairs", "5"}).batched, true);
}

// ResNet-50's convolutions at batch 32 and 64: the same 15 to 25 distinct layers at each batch
// (the 7x7 stem, 1x1 and 3x3 layers, the strided 3x3s and projections), every one a valid shape
// whose output is the network's (112x112 after the stem, 7x7 in res5).
TEST(ConvSuite, ResNet50AtTwoBatchSizes) {
  const std::vector<ConvLayer> layers = conv_suite_calls();
  std::map<std::int64_t, std::set<std::string>> names_by_batch;
  std::set<std::int64_t> filter_sizes;
  int strided_3x3 = 0, strided_1x1 = 0;
  for (const ConvLayer& l : layers) {
    const Conv2dShape& s = l.shape;
    EXPECT_TRUE(names_by_batch[s.n].insert(l.name).second) << "repeated " << l.name;
    EXPECT_EQ(s.r, s.s) << l.name;
    filter_sizes.insert(s.r);
    EXPECT_EQ(s.pad_h, s.r / 2) << l.name;
    EXPECT_EQ(s.groups, 1) << l.name;
    EXPECT_GE(s.p(), 7) << l.name;
    EXPECT_EQ(s.p(), s.q()) << l.name;
    EXPECT_EQ(s.h / s.stride_h, s.p()) << l.name;  // "same" padding: stride 2 halves the size
    strided_3x3 += s.r == 3 && s.stride_h == 2;
    strided_1x1 += s.r == 1 && s.stride_h == 2;
    if (l.name.starts_with("stem")) {
      EXPECT_EQ(s.c, 3);
      EXPECT_EQ(s.p(), 112);
    }
    if (l.name.starts_with("res5")) {
      EXPECT_EQ(s.p(), 7) << l.name;
    }
  }
  EXPECT_EQ(names_by_batch.size(), 2u);
  EXPECT_EQ(names_by_batch[32], names_by_batch[64]);
  EXPECT_GE(names_by_batch[32].size(), 15u);
  EXPECT_LE(names_by_batch[32].size(), 25u);
  EXPECT_EQ(layers.size(), 2 * names_by_batch[32].size());
  EXPECT_EQ(filter_sizes, (std::set<std::int64_t>{1, 3, 7}));
  EXPECT_EQ(strided_3x3, 2 * 3);  // res3, res4, res5
  EXPECT_EQ(strided_1x1, 2 * 3);  // their projections
  EXPECT_EQ(parse_cli({"--conv-suite"}).conv_suite, true);
}

TEST(ConvSuite, FlopsAndDescription) {
  Conv2dShape s;
  s.n = 32, s.h = s.w = 56, s.c = 64, s.k = 128, s.r = s.s = 3, s.pad_h = s.pad_w = 1;
  s.stride_h = s.stride_w = 2;
  EXPECT_EQ(conv_flops(s), 2.0 * 32 * 28 * 28 * 128 * 64 * 3 * 3);
  EXPECT_EQ(describe(s), "32x56x56x64 k128 3x3 p1 s2");
  s.groups = 4, s.dilation_h = 2, s.dilation_w = 2, s.pad_w = 2;
  EXPECT_EQ(conv_flops(s), 2.0 * 32 * s.p() * s.q() * 128 * (64 / 4) * 3 * 3);
  EXPECT_EQ(describe(s), "32x56x56x64 k128 3x3 p1,2 s2 d2 g4");
}

TEST(Roofline, HopperPeaksAndBounds) {
  // An H100 SXM at 1980 MHz: 132 SMs, HBM3 at 2619 MHz on a 5120-bit bus.
  const Peaks p = hopper_peaks(132, 1980, 2619, 5120);
  EXPECT_NEAR(p.fp32_core, 66.9, 0.1);
  EXPECT_NEAR(p.tf32_tensor, 535.3, 0.1);
  EXPECT_NEAR(p.fp16_tensor, 1070.6, 0.2);
  EXPECT_NEAR(p.memory_tbs, 3.35, 0.01);
  const Roofline square = roofline(p, Unit::Fp32Core, 4096, 4096, 4096, false);
  EXPECT_NEAR(square.intensity, 2.0 * 4096 / (4 * 3), 1e-9);  // 2n^3 / (4 * 3n^2)
  EXPECT_TRUE(square.compute_bound);
  EXPECT_NEAR(square.bound_ms, 2.0 * 4096 * 4096 * 4096 / 66.9e12 * 1e3, 0.01);
  const Roofline decode = roofline(p, Unit::Fp32Core, 1, 11008, 4096, false);
  EXPECT_FALSE(decode.compute_bound);  // half a FLOP per byte
  EXPECT_NEAR(decode.bound_ms, 4.0 * 11008 * 4096 / 3.35e12 * 1e3, 0.001);
  EXPECT_GT(roofline(p, Unit::Fp32Core, 64, 64, 64, true).bytes,
            roofline(p, Unit::Fp32Core, 64, 64, 64, false).bytes);  // beta != 0 reads C
}

TEST(Cli, SuiteExplainAndPairs) {
  const BenchOptions o = parse_cli({"--suite", "--pairs", "9", "--explain"});
  EXPECT_TRUE(o.suite);
  EXPECT_TRUE(o.explain);
  EXPECT_EQ(o.pairs, 9);
  EXPECT_THROW(parse_cli({"--pairs", "2"}), CliError);
  EXPECT_EQ(parse_cli({"--explain", "--batch", "512"}).batch, 512);
  EXPECT_THROW(parse_cli({"--explain", "--batch", "0"}), CliError);
}

}  // namespace
}  // namespace sgemm::bench
