// The explicit lowering of a convolution to a GEMM: the input patches as a matrix (im2col).
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/conv/conv.hpp"

namespace sgemm::detail {

// Whether the input itself is A (ConvProblem's GEMM view): 1 x 1 filters with stride 1 and no
// padding read pixel (n, p, q) at (n, p, q), so x is the N P Q x C matrix already.
bool conv_input_is_a(const ConvProblem& p);

// cols[row * ld + kk] = A(row, kk) for all groups' reductions side by side (kk < G R S C/G),
// zeros for the padding.
cudaError_t im2col(const ConvProblem& p, float* cols, std::int64_t ld, cudaStream_t stream);

}  // namespace sgemm::detail
