#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace sgemm::detail {

// C = beta * C for `batch` row-major m x n matrices, stride_c apart; writes zeros without
// reading C when beta == 0.
cudaError_t scale_c(float* c, std::int64_t m, std::int64_t n, std::int64_t ldc,
                    std::int64_t batch, std::int64_t stride_c, float beta, cudaStream_t stream);

}  // namespace sgemm::detail
