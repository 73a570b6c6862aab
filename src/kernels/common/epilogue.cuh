// The float4 epilogue of the vectorized CUDA-core rungs (06-10).
#pragma once

#include <cstdint>

#include "kernels/common/operand.cuh"

namespace sgemm::detail {

// C(row, col + j) = alpha * acc[j] + beta * C(row, col + j) for the j < 4 with col + j < n.
// c_row = &C(row, 0), col % 4 == 0. When all four columns are inside C this is one 16-byte
// access (needs_vec4 keeps C and ldc 16-byte aligned); at the right edge of C it falls back to
// scalar stores, so nothing past column n - 1 is touched. C is read only when beta != 0.
__device__ __forceinline__ void store_c4(float* c_row, std::int64_t col, std::int64_t n,
                                         float4 acc, float alpha, float beta) {
  float* c = c_row + col;
  if (col + 4 <= n) {
    float4 out = {alpha * acc.x, alpha * acc.y, alpha * acc.z, alpha * acc.w};
    if (beta != 0.0f) {
      const float4 old = *reinterpret_cast<const float4*>(c);
      out = {out.x + beta * old.x, out.y + beta * old.y, out.z + beta * old.z,
             out.w + beta * old.w};
    }
    *reinterpret_cast<float4*>(c) = out;
  } else {
    const float v[4] = {acc.x, acc.y, acc.z, acc.w};
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (col + j < n) store_c(c + j, v[j], alpha, beta);
  }
}

}  // namespace sgemm::detail
