// C = beta * C, the whole of gemm() when alpha == 0 or k == 0 (A and B are not read), for
// every matrix of a batch.
#include "api/scale_c.hpp"

#include <algorithm>

#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

__global__ void scale_c_kernel(float* c, std::int64_t m, std::int64_t n, std::int64_t ldc,
                               std::int64_t batch, std::int64_t stride_c, float beta) {
  const std::int64_t total = m * n * batch;
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t idx = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
       idx += step) {
    const std::int64_t within = idx % (m * n);
    float* e = c + idx / (m * n) * stride_c + within / n * ldc + within % n;
    *e = beta == 0.0f ? 0.0f : beta * *e;  // beta == 0: C is not read
  }
}

}  // namespace

cudaError_t scale_c(float* c, std::int64_t m, std::int64_t n, std::int64_t ldc,
                    std::int64_t batch, std::int64_t stride_c, float beta, cudaStream_t stream) {
  const std::int64_t total = m * n * batch;
  const int threads = 256;
  const std::int64_t blocks = std::min<std::int64_t>((total + threads - 1) / threads, 65536);
  return launch_kernel(scale_c_kernel, unsigned(blocks), threads, 0, stream, c, m, n, ldc, batch,
                       stride_c, beta);
}

}  // namespace sgemm::detail
