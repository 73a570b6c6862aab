#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace sgemm::detail {

// C = beta * C for a row-major m x n C; writes zeros without reading C when beta == 0.
cudaError_t scale_c(float* c, std::int64_t m, std::int64_t n, std::int64_t ldc, float beta,
                    cudaStream_t stream);

}  // namespace sgemm::detail
