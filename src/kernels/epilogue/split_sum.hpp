// The second half of a split over k: blocks that each summed one range of k wrote their partial
// results to a workspace, and split_sum adds them, in an order fixed by the call's shape, into C
// (rungs 14 and tc-05, and `auto`'s split of a call into a batch of k ranges). A fixed order
// keeps the result independent of which block finished first. A kernel of its own: with the last
// block of each column set adding its ranges instead, that block's sum ran as a tail after every
// other block (docs/experiments.md).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "runtime/device.hpp"

namespace sgemm::detail {

struct SplitSum {
  const float* partial;  // splits x m x ld, element (i, j) of range s at (s * m + i) * ld + j
  std::int64_t ld;
  std::int64_t splits;
  std::int64_t m, n;
  float* c;
  std::int64_t ldc;
  bool col_major_c;  // C(i, j) at c[j * ldc + i] (a call its kernel computed transposed)
  float alpha, beta;
  const int* skip_if;  // null, or nothing is stored while *skip_if != 0 (3xTF32's fallback runs)
};

// C = alpha (the ranges' partial sums) + beta C, C read only when beta != 0. One kernel on
// `stream`. Each element's ranges are added in range order, or, beyond 8 ranges, by up to 32
// threads each adding every 32nd range in order, and then their sums in order.
cudaError_t split_sum(const SplitSum& s, const Device& device, cudaStream_t stream);

}  // namespace sgemm::detail
