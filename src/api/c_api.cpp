// The extern "C" mirror of sgemm::gemm.
#include "sgemm/sgemm.h"

#include <string>

#include "sgemm/sgemm.hpp"

namespace {
thread_local std::string t_error_copy;  // keeps sgemm_last_error()'s pointer valid
}

extern "C" sgemm_status sgemm_gemm(sgemm_layout layout, sgemm_op op_a, sgemm_op op_b, int64_t m,
                                   int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                                   const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
                                   cudaStream_t stream, const char* kernel, sgemm_math math) {
  sgemm::Options options;
  options.kernel = kernel ? kernel : "auto";
  options.math = static_cast<sgemm::Math>(math);
  return static_cast<sgemm_status>(sgemm::gemm(
      static_cast<sgemm::Layout>(layout), static_cast<sgemm::Op>(op_a),
      static_cast<sgemm::Op>(op_b), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream, options));
}

extern "C" const char* sgemm_status_string(sgemm_status status) {
  return sgemm::to_string(static_cast<sgemm::Status>(status));
}

extern "C" const char* sgemm_last_error(void) {
  t_error_copy = std::string(sgemm::last_error());
  return t_error_copy.c_str();
}
