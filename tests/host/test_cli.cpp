// sgemm-bench's command line.
#include <gtest/gtest.h>

#include "cli.hpp"

namespace sgemm::bench {
namespace {

BenchOptions parse(std::vector<std::string> args) { return parse_cli(args); }

TEST(Cli, DefaultsTo4096CubedEverythingRowMajorNN) {
  const BenchOptions o = parse({});
  ASSERT_EQ(o.shapes.size(), 1u);
  EXPECT_EQ(o.shapes[0], (Shape{4096, 4096, 4096}));
  EXPECT_TRUE(o.kernels.empty());
  EXPECT_EQ(o.layout, Layout::RowMajor);
  ASSERT_EQ(o.ops.size(), 1u);
  EXPECT_EQ(o.ops[0], std::pair(Op::N, Op::N));
  EXPECT_GE(o.reps, 10);
  EXPECT_EQ(o.alpha, 1.0f);
  EXPECT_EQ(o.beta, 0.0f);
}

TEST(Cli, SeedStyleMNK) {
  const BenchOptions o = parse({"2048", "1024", "512"});
  ASSERT_EQ(o.shapes.size(), 1u);
  EXPECT_EQ(o.shapes[0], (Shape{2048, 1024, 512}));
}

TEST(Cli, Flags) {
  const BenchOptions o = parse({"--kernels", "simt-*,cute-02-fast", "--layout", "col", "--ops", "NT,TT",
                                "--alpha", "-0.5", "--beta", "0.75", "--reps", "12", "--warmup", "0",
                                "--csv", "x.csv", "--json", "x.json", "--cpu", "--cublas-tf32",
                                "--math", "tf32x3", "--device", "1", "--budget", "5", "--warmup-ms", "1500",
                                "--cooldown-ms", "1000"});
  EXPECT_EQ(o.kernels, (std::vector<std::string>{"simt-*", "cute-02-fast"}));
  EXPECT_EQ(o.layout, Layout::ColMajor);
  EXPECT_EQ(o.ops, (std::vector<std::pair<Op, Op>>{{Op::N, Op::T}, {Op::T, Op::T}}));
  EXPECT_EQ(o.alpha, -0.5f);
  EXPECT_EQ(o.beta, 0.75f);
  EXPECT_EQ(o.reps, 12);
  EXPECT_EQ(o.warmup, 0);
  EXPECT_EQ(o.csv_path, "x.csv");
  EXPECT_EQ(o.json_path, "x.json");
  EXPECT_TRUE(o.cpu);
  EXPECT_TRUE(o.cublas_tf32);
  EXPECT_EQ(o.math, Math::Fp32Tf32x3);
  EXPECT_EQ(o.device, 1);
  EXPECT_EQ(o.budget_s, 5.0);
  EXPECT_EQ(o.warmup_ms, 1500.0);
  EXPECT_EQ(parse({}).warmup_ms, 0.0);
  EXPECT_EQ(o.cooldown_ms, 1000.0);
  EXPECT_EQ(parse({}).cooldown_ms, 0.0);
  EXPECT_TRUE(parse({"--values", "normal"}).normal_values);
  EXPECT_FALSE(parse({"--values", "uniform"}).normal_values);
  EXPECT_FALSE(parse({}).normal_values);
}

TEST(Cli, Sweeps) {
  EXPECT_EQ(named_sweep("square").size(), 5u);
  EXPECT_EQ(named_sweep("k1024").front(), (Shape{2048, 2048, 1024}));
  EXPECT_EQ(named_sweep("odd").front(), (Shape{4095, 4097, 4093}));
  EXPECT_EQ(named_sweep("llm").back(), (Shape{8192, 11008, 4096}));
  EXPECT_EQ(named_sweep("all").size(), 5u + 4 + 1 + 3 + 4);
  EXPECT_EQ(parse({"--shapes", "1x2x3,4x5x6"}).shapes, (std::vector<Shape>{{1, 2, 3}, {4, 5, 6}}));
}

TEST(Cli, Selection) {
  BenchOptions o = parse({"--kernels", "simt-1*,tc-02-wgmma-tf32"});
  EXPECT_TRUE(kernel_selected(o, "simt-10-warptile"));
  EXPECT_FALSE(kernel_selected(o, "simt-01-naive"));
  EXPECT_TRUE(kernel_selected(o, "tc-02-wgmma-tf32"));
  EXPECT_FALSE(kernel_selected(o, "tc-02-wgmma-tf32x3"));
  EXPECT_TRUE(kernel_selected(parse({}), "anything"));
}

TEST(Cli, ConvSuiteAndConvShapes) {
  EXPECT_TRUE(parse({"--conv-suite"}).conv_suite);
  EXPECT_FALSE(parse({}).conv_suite);
  EXPECT_TRUE(parse({}).convs.empty());
  const BenchOptions o = parse({"--conv", "32,56,56,64,128,3,3,1,2,1", "--conv",
                                "8,28,28,64,32,3,3,2,1,2,4", "--math", "tf32", "--pairs", "5",
                                "--csv", "conv.csv", "--kernels", "conv-*"});
  ASSERT_EQ(o.convs.size(), 2u);
  const Conv2dShape& a = o.convs[0];
  EXPECT_EQ(a.n, 32);
  EXPECT_EQ(a.h, 56);
  EXPECT_EQ(a.w, 56);
  EXPECT_EQ(a.c, 64);
  EXPECT_EQ(a.k, 128);
  EXPECT_EQ(a.r, 3);
  EXPECT_EQ(a.s, 3);
  EXPECT_EQ(a.pad_h, 1);
  EXPECT_EQ(a.pad_w, 1);
  EXPECT_EQ(a.stride_h, 2);
  EXPECT_EQ(a.stride_w, 2);
  EXPECT_EQ(a.dilation_h, 1);
  EXPECT_EQ(a.dilation_w, 1);
  EXPECT_EQ(a.groups, 1);
  const Conv2dShape& b = o.convs[1];
  EXPECT_EQ(b.pad_h, 2);
  EXPECT_EQ(b.pad_w, 2);
  EXPECT_EQ(b.dilation_h, 2);
  EXPECT_EQ(b.dilation_w, 2);
  EXPECT_EQ(b.groups, 4);
  EXPECT_EQ(o.math, Math::Tf32);
  EXPECT_EQ(o.pairs, 5);
  EXPECT_EQ(o.csv_path, "conv.csv");
  EXPECT_TRUE(kernel_selected(o, "conv-02-precomp"));
  EXPECT_EQ(parse({"--conv", "1,7,7,2048,512,1,1,0,1,1"}).convs[0].pad_h, 0);
}

TEST(Cli, ListHelpTuneNeedNoShape) {
  EXPECT_TRUE(parse({"--list"}).list);
  EXPECT_TRUE(parse({"-h"}).help);
  EXPECT_TRUE(parse({"--tune"}).tune);
}

// Bad arguments: one clear message each (main prints it with the usage and exits 2).
TEST(Cli, Errors) {
  auto error_of = [](std::vector<std::string> args) {
    try {
      parse_cli(args);
    } catch (const CliError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of({"--bogus"}), "unknown option '--bogus'");
  EXPECT_EQ(error_of({"1", "2"}), "expected M N K (three sizes), got 2 positional argument(s)");
  EXPECT_EQ(error_of({"0", "2", "3"}), "M must be >= 1, got 0");
  EXPECT_EQ(error_of({"-5", "2", "3"}), "M must be >= 1, got -5");
  EXPECT_EQ(error_of({"4k", "2", "3"}), "M: '4k' is not a valid number");
  EXPECT_EQ(error_of({"--reps", "3"}), "--reps must be >= 10 (the median of at least 10 timed runs)");
  EXPECT_EQ(error_of({"--reps"}), "--reps needs a value");
  EXPECT_EQ(error_of({"--layout", "diag"}), "--layout: 'diag' is not row or col");
  EXPECT_EQ(error_of({"--ops", "NX"}), "--ops: 'NX' is not one of NN, NT, TN, TT");
  EXPECT_EQ(error_of({"--math", "fp16"}), "--math: 'fp16' is not fp32, tf32x3 or tf32");
  EXPECT_EQ(error_of({"--sweep", "cubes"}), "--sweep: unknown sweep 'cubes' (square, k1024, odd, skinny, llm, all)");
  EXPECT_EQ(error_of({"--shapes", "1x2"}), "--shapes: '1x2' is not MxNxK");
  EXPECT_EQ(error_of({"1", "2", "3", "--sweep", "odd"}), "M N K and --shapes/--sweep are exclusive");
  EXPECT_EQ(error_of({"--alpha", "one"}), "--alpha: 'one' is not a valid number");
  EXPECT_EQ(error_of({"--warmup-ms", "-1"}), "--warmup-ms must be finite and >= 0");
  EXPECT_EQ(error_of({"--warmup-ms", "inf"}), "--warmup-ms must be finite and >= 0");
  EXPECT_EQ(error_of({"--warmup-ms", "5000", "--budget", "5"}), "--warmup-ms must be shorter than --budget");
  EXPECT_EQ(error_of({"--cooldown-ms", "-1"}), "--cooldown-ms must be between 0 and 60000");
  EXPECT_EQ(error_of({"--values", "gauss"}), "--values must be uniform or normal");
  EXPECT_EQ(error_of({"--conv"}), "--conv needs a value");
  EXPECT_EQ(error_of({"--conv", "32,56,56,64,64,3,3,1,1"}),
            "--conv: '32,56,56,64,64,3,3,1,1' is not N,H,W,C,K,R,S,pad,stride,dilation[,groups]");
  EXPECT_EQ(error_of({"--conv", "0,56,56,64,64,3,3,1,1,1"}), "--conv N must be >= 1, got 0");
  EXPECT_EQ(error_of({"--conv", "32,56,56,64,64,3,3,-1,1,1"}), "--conv pad must be >= 0, got -1");
  EXPECT_EQ(error_of({"--conv", "32,56,56,64,64,3,3,1,0,1"}), "--conv stride must be >= 1, got 0");
  EXPECT_EQ(error_of({"--conv", "32,56,56,64,64,3,3,1,1,x"}), "--conv dilation: 'x' is not a valid number");
  EXPECT_EQ(error_of({"--conv", "32,56,56,64,96,3,3,1,1,1,64"}),
            "--conv: '32,56,56,64,96,3,3,1,1,1,64': groups must divide C and K");
  EXPECT_EQ(error_of({"--conv", "1,2,2,8,8,5,5,0,1,1"}),
            "--conv: '1,2,2,8,8,5,5,0,1,1' has an empty output (the filter is larger than the padded input)");
}

}  // namespace
}  // namespace sgemm::bench
