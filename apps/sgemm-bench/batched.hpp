// `sgemm-bench --batched`: gemm_strided_batched's `auto` in each math against
// cublasGemmStridedBatchedEx in the same math, on batches of the kinds attention layers and
// grouped products make.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli.hpp"
#include "sgemm/sgemm.hpp"

namespace sgemm::bench {

struct BatchedCall {
  Op op_a, op_b;  // row-major, tight leading dimensions, matrices one after another
  std::int64_t batch, m, n, k;
  bool shared_b = false;  // stride_b = 0: one B for every product (a weight)
};

std::vector<BatchedCall> batched_calls();  // host-only, so that CI can check what it covers
std::string describe(const BatchedCall& call);

struct DeviceFacts;
// Times auto against cuBLAS in alternating pairs for every call and selected math, checks every
// result against float64, prints per call and the geometric mean per math, writes --csv.
// Returns 1 when a result fails verification.
int run_batched_suite(const BenchOptions& options, const DeviceFacts& facts);

}  // namespace sgemm::bench
