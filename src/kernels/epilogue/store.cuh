// Storing results into C: C = alpha * acc + beta * C, with C read only when beta != 0 (so that
// NaN or garbage in C cannot leak in), one float at a time or as float4 (the vectorized
// CUDA-core rungs 06-10) or float2 (tensor-core rungs 03 and 04).
#pragma once

#include <cstdint>

namespace sgemm::detail {

// One element.
__device__ __forceinline__ void store_c(float* c, float acc, float alpha, float beta) {
  *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c;
}

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

// C(row, col + j) = alpha * acc_j + beta * C(row, col + j) for the j < 2 with col + j < n.
// c_row = &C(row, 0), col even. One 8-byte access when both columns are inside C and `paired`
// (C and ldc keep every even column 8-byte aligned), otherwise scalar accesses.
__device__ __forceinline__ void store_c2(float* c_row, std::int64_t col, std::int64_t n,
                                         float acc0, float acc1, float alpha, float beta,
                                         bool paired) {
  float* c = c_row + col;
  if (paired && col + 2 <= n) {
    float2 out = {alpha * acc0, alpha * acc1};
    if (beta != 0.0f) {
      const float2 old = *reinterpret_cast<const float2*>(c);
      out = {out.x + beta * old.x, out.y + beta * old.y};
    }
    *reinterpret_cast<float2*>(c) = out;
  } else {
    if (col < n) store_c(c, acc0, alpha, beta);
    if (col + 1 < n) store_c(c + 1, acc1, alpha, beta);
  }
}

}  // namespace sgemm::detail
