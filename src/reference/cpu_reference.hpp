// The CPU reference: C = alpha * op(A) * op(B) + beta * C with float64 accumulation, blocked
// for the caches and spread over threads. For small shapes (tests), and for the bench's
// "cpu" column (the seed's `./main M N K` prints a CPU time).
#pragma once

#include <vector>

#include "reference/harness.hpp"

namespace sgemm::ref {

// a, b, c0 are host copies laid out as the case says (leading dimensions included).
// Returns C in the same layout (ld = case ldc; padding elements are 0).
std::vector<double> cpu_gemm(const GemmCase& c, const float* a, const float* b, const float* c0,
                             unsigned threads = 0);  // 0: std::thread::hardware_concurrency()

}  // namespace sgemm::ref
