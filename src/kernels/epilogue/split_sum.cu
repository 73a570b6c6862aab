// split_sum (split_sum.hpp).
#include "kernels/epilogue/split_sum.hpp"

#include <algorithm>

#include "kernels/epilogue/store.cuh"
#include "kernels/kernel.hpp"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kSplitSumThreads = 256;
constexpr int kMaxGroups = 32;

// Every element of C, after the blocks that wrote the sums; the sums through L2 (.cg), other
// SMs wrote them. A block takes kSplitSumThreads / groups elements, and `groups` threads share
// each one's ranges: thread g adds ranges g, g + groups, ... in order, then the first adds the
// groups' sums in group order. With many ranges (32 x 32 in 2048), one thread per element took
// 0.23 ms for what 32 groups add in a few microseconds. (A helper kernel: its name is outside
// the registry's naming rule.)
__global__ void __launch_bounds__(kSplitSumThreads) split_sum_kernel(const SplitSum s, int groups) {
  __shared__ float group_sums[kSplitSumThreads];
  wait_for_previous_kernel();
  if (s.skip_if != nullptr && *s.skip_if != 0) return;
  const int per_block = kSplitSumThreads / groups;
  const int slot = threadIdx.x % per_block, group = threadIdx.x / per_block;
  for (std::int64_t e0 = std::int64_t(blockIdx.x) * per_block; e0 < s.m * s.n;
       e0 += std::int64_t(gridDim.x) * per_block) {
    const std::int64_t e = e0 + slot;
    const bool inside = e < s.m * s.n;
    const std::int64_t i = inside ? e / s.n : 0, j = inside ? e % s.n : 0;
    float sum = 0.0f;
    if (inside) {
#pragma unroll 8
      for (std::int64_t split = group; split < s.splits; split += groups)
        sum += __ldcg(s.partial + (split * s.m + i) * s.ld + j);
    }
    if (groups > 1) {
      __syncthreads();  // the previous element's group sums are read
      group_sums[threadIdx.x] = sum;
      __syncthreads();
      if (group != 0) continue;
      for (int g = 1; g < groups; ++g) sum += group_sums[g * per_block + slot];
    }
    if (inside)
      store_c(s.col_major_c ? s.c + j * s.ldc + i : s.c + i * s.ldc + j, sum, s.alpha, s.beta);
  }
}

}  // namespace

cudaError_t split_sum(const SplitSum& s, const Device& device, cudaStream_t stream) {
  // `groups` threads per element (a power of two, at most kMaxGroups) where a thread would add
  // more than kMaxChain ranges: a thread's loads fly 8 at a time, and each batch waits for the
  // last. Measured on an H200: with 64 ranges per thread 128 x 128 x 65536 (128 ranges) took
  // 0.077 ms against 0.069 with 8; grouping the 8 ranges of a 256 x 256 product, which one
  // thread adds in one batch, cost 2.6 us of 15.
  constexpr std::int64_t kMaxChain = 8;
  int groups = 1;
  while (groups < kMaxGroups && s.splits > kMaxChain * groups) groups *= 2;
  const std::int64_t per_block = kSplitSumThreads / groups;
  const std::int64_t blocks =
      std::min<std::int64_t>(ceil_div(s.m * s.n, per_block), 8 * std::int64_t(device.sms));
  return launch_dependent_kernel(device.cc >= 90, split_sum_kernel, unsigned(blocks),
                                 kSplitSumThreads, 0, stream, s, groups);
}

}  // namespace sgemm::detail
