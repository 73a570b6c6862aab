// The second half of a split over k: blocks that each summed one range of k wrote their partial
// results to a workspace, and this kernel adds them, in range order, into C (rungs 14 and tc-05).
// A fixed order keeps the result independent of which block finished first. A kernel of its own:
// with the last block of each column set adding its ranges instead, that block's sum ran as a
// tail after every other block (docs/experiments.md).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "kernels/epilogue/store.cuh"
#include "kernels/kernel.hpp"
#include "runtime/launch.hpp"

namespace sgemm::detail {

struct SplitSum {
  const float* partial;  // splits x m x n, element (i, j) of range s at (s * m + i) * n + j
  int splits;
  std::int64_t m, n;
  float* c;
  std::int64_t ldc;
  bool col_major_c;  // C(i, j) at c[j * ldc + i] (a call its kernel computed transposed)
  float alpha, beta;
  const int* skip_if;  // null, or nothing is stored while *skip_if != 0 (3xTF32's fallback runs)
};

namespace {

constexpr int kSplitSumThreads = 256;

// C(i, j) = alpha (the ranges' partial sums of element (i, j), added in range order) + beta C.
// Through L2 (.cg): other SMs wrote the sums.
__device__ __forceinline__ void sum_element(const SplitSum& s, std::int64_t i, std::int64_t j) {
  const std::int64_t total = s.m * s.n, e = i * s.n + j;
  float sum = 0.0f;
  for (int split = 0; split < s.splits; ++split) sum += __ldcg(s.partial + split * total + e);
  store_c(s.col_major_c ? s.c + j * s.ldc + i : s.c + i * s.ldc + j, sum, s.alpha, s.beta);
}

// Every element of C, after the blocks that wrote the sums. (A helper kernel: its name is
// outside the registry's naming rule.)
__global__ void __launch_bounds__(kSplitSumThreads) split_sum_kernel(const SplitSum s) {
  if (s.skip_if != nullptr && *s.skip_if != 0) return;
  for (std::int64_t e = std::int64_t(blockIdx.x) * kSplitSumThreads + threadIdx.x; e < s.m * s.n;
       e += std::int64_t(gridDim.x) * kSplitSumThreads)
    sum_element(s, e / s.n, e % s.n);
}

inline cudaError_t split_sum(const SplitSum& s, const Device& device, cudaStream_t stream) {
  const std::int64_t blocks = std::min<std::int64_t>(ceil_div(s.m * s.n, kSplitSumThreads),
                                                     8 * std::int64_t(device.sms));
  return launch_kernel(split_sum_kernel, unsigned(blocks), kSplitSumThreads, 0, stream, s);
}

}  // namespace

}  // namespace sgemm::detail
