// `sgemm-bench --conv-suite` and `--conv SPEC`: conv2d's `auto` in each math against cuDNN's
// fastest forward algorithm in the same math, on ResNet-50's convolutions or on given shapes.
#pragma once

#include <string>
#include <vector>

#include "cli.hpp"
#include "sgemm/sgemm.hpp"

namespace sgemm::bench {

struct ConvLayer {
  std::string name;  // stage and role, e.g. "res3.3x3s2"; "custom" for --conv
  Conv2dShape shape;
};

// ResNet-50's distinct convolutions (torchvision's v1.5 layout, NHWC) at batch 32, then 64.
// Host-only, so that CI can check what it covers.
std::vector<ConvLayer> conv_suite_calls();
// "32x56x56x64 k64 3x3", then pad, stride, dilation and groups where they are not 0 or 1.
std::string describe(const Conv2dShape& shape);
// 2 N P Q K (C / groups) R S: the products of the direct definition, counted for every contender.
double conv_flops(const Conv2dShape& shape);

struct DeviceFacts;
// Times auto (and the conv kernels --kernels names) against cuDNN in alternating pairs for every
// layer and selected math, checks both results against float64, prints per layer and the
// geometric mean and worst ratio per math, writes --csv. Returns 1 when one of our results fails
// verification or a call fails.
int run_conv_suite(const BenchOptions& options, const DeviceFacts& facts);

}  // namespace sgemm::bench
