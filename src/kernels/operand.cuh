// A matrix seen through two strides: how the rungs that read operands one float at a time
// address A and B in any layout.
#pragma once

#include <cstdint>

#include "kernels/kernel.hpp"

namespace sgemm::detail {

// A matrix seen through two strides: X(r, c) = ptr[r * row_stride + c * col_stride]. One of
// the strides is 1 and the other is the leading dimension, so one type covers every layout.
struct StridedOperand {
  const float* ptr;
  std::int64_t row_stride, col_stride;

  __device__ float operator()(std::int64_t r, std::int64_t col) const {
    return ptr[r * row_stride + col * col_stride];
  }
};

// A (m x k) and B (k x n) of a canonical problem.
SGEMM_HOST_DEVICE inline StridedOperand operand_a(const Canonical& p) {
  return p.a_k_major ? StridedOperand{p.a, p.lda, 1} : StridedOperand{p.a, 1, p.lda};
}
SGEMM_HOST_DEVICE inline StridedOperand operand_b(const Canonical& p) {
  return p.b_k_major ? StridedOperand{p.b, 1, p.ldb} : StridedOperand{p.b, p.ldb, 1};
}

// B^T (n x k) seen through the strides of B: B^T(j, p) = B(p, j).
SGEMM_HOST_DEVICE inline StridedOperand operand_bt(const Canonical& p) {
  const StridedOperand b = operand_b(p);
  return {b.ptr, b.col_stride, b.row_stride};
}

}  // namespace sgemm::detail
