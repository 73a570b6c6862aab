// The extern "C" mirror of sgemm::gemm, sgemm::gemm_strided_batched and sgemm::conv2d.
#include "sgemm/sgemm.h"

#include <string>

#include "api/gemm.hpp"
#include "sgemm/sgemm.hpp"

namespace {
thread_local std::string t_error_copy;  // keeps sgemm_last_error()'s pointer valid

sgemm::Options options_of(const char* kernel, sgemm_math math) {
  sgemm::Options options;
  options.kernel = kernel ? kernel : "auto";
  options.math = static_cast<sgemm::Math>(math);
  return options;
}
}  // namespace

extern "C" sgemm_status sgemm_gemm(sgemm_layout layout, sgemm_op op_a, sgemm_op op_b, int64_t m,
                                   int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                                   const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
                                   cudaStream_t stream, const char* kernel, sgemm_math math) {
  return static_cast<sgemm_status>(sgemm::gemm(
      static_cast<sgemm::Layout>(layout), static_cast<sgemm::Op>(op_a),
      static_cast<sgemm::Op>(op_b), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream,
      options_of(kernel, math)));
}

extern "C" sgemm_status sgemm_gemm_strided_batched(
    sgemm_layout layout, sgemm_op op_a, sgemm_op op_b, int64_t m, int64_t n, int64_t k,
    float alpha, const float* a, int64_t lda, int64_t stride_a, const float* b, int64_t ldb,
    int64_t stride_b, float beta, float* c, int64_t ldc, int64_t stride_c, int64_t batch,
    cudaStream_t stream, const char* kernel, sgemm_math math) {
  return static_cast<sgemm_status>(sgemm::gemm_strided_batched(
      static_cast<sgemm::Layout>(layout), static_cast<sgemm::Op>(op_a),
      static_cast<sgemm::Op>(op_b), m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c,
      ldc, stride_c, batch, stream, options_of(kernel, math)));
}

extern "C" sgemm_status sgemm_conv2d(const sgemm_conv2d_shape* shape, float alpha, const float* x,
                                     const float* w, float beta, float* y, cudaStream_t stream,
                                     const char* kernel, sgemm_math math) {
  if (shape == nullptr)
    return static_cast<sgemm_status>(
        sgemm::detail::fail(sgemm::Status::InvalidValue, "shape is null"));
  const sgemm::Conv2dShape s{shape->n,     shape->h,          shape->w,          shape->c,
                             shape->k,     shape->r,          shape->s,          shape->pad_h,
                             shape->pad_w, shape->stride_h,   shape->stride_w,   shape->dilation_h,
                             shape->dilation_w, shape->groups};
  return static_cast<sgemm_status>(
      sgemm::conv2d(s, alpha, x, w, beta, y, stream, options_of(kernel, math)));
}

extern "C" const char* sgemm_status_string(sgemm_status status) {
  return sgemm::to_string(static_cast<sgemm::Status>(status));
}

extern "C" const char* sgemm_last_error(void) {
  t_error_copy = std::string(sgemm::last_error());
  return t_error_copy.c_str();
}
