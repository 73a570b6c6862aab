// split_sum (split_sum.hpp).
#include "kernels/epilogue/split_sum.hpp"

#include <algorithm>

#include "kernels/epilogue/store.cuh"
#include "kernels/kernel.hpp"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kSplitSumThreads = 256;

// Every element of C, after the blocks that wrote the sums; the sums through L2 (.cg), other
// SMs wrote them. (A helper kernel: its name is outside the registry's naming rule.)
__global__ void __launch_bounds__(kSplitSumThreads) split_sum_kernel(const SplitSum s) {
  if (s.skip_if != nullptr && *s.skip_if != 0) return;
  for (std::int64_t e = std::int64_t(blockIdx.x) * kSplitSumThreads + threadIdx.x; e < s.m * s.n;
       e += std::int64_t(gridDim.x) * kSplitSumThreads) {
    const std::int64_t i = e / s.n, j = e % s.n;
    float sum = 0.0f;
    for (std::int64_t split = 0; split < s.splits; ++split)
      sum += __ldcg(s.partial + (split * s.m + i) * s.ld + j);
    store_c(s.col_major_c ? s.c + j * s.ldc + i : s.c + i * s.ldc + j, sum, s.alpha, s.beta);
  }
}

}  // namespace

cudaError_t split_sum(const SplitSum& s, const Device& device, cudaStream_t stream) {
  const std::int64_t blocks = std::min<std::int64_t>(ceil_div(s.m * s.n, kSplitSumThreads),
                                                     8 * std::int64_t(device.sms));
  return launch_kernel(split_sum_kernel, unsigned(blocks), kSplitSumThreads, 0, stream, s);
}

}  // namespace sgemm::detail
