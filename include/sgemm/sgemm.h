/* sgemm: the plain C mirror of sgemm::gemm (include/sgemm/sgemm.hpp), for other languages. */
#ifndef SGEMM_SGEMM_H
#define SGEMM_SGEMM_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { SGEMM_ROW_MAJOR = 0, SGEMM_COL_MAJOR = 1 } sgemm_layout;
typedef enum { SGEMM_OP_N = 0, SGEMM_OP_T = 1 } sgemm_op;
typedef enum { SGEMM_MATH_FP32 = 0, SGEMM_MATH_FP32_TF32X3 = 1, SGEMM_MATH_TF32 = 2 } sgemm_math;
typedef enum {
  SGEMM_SUCCESS = 0,
  SGEMM_INVALID_VALUE = 1,
  SGEMM_NOT_SUPPORTED = 2,
  SGEMM_NO_DEVICE = 3,
  SGEMM_CUDA_ERROR = 4,
  SGEMM_OUT_OF_MEMORY = 5
} sgemm_status;

/* kernel: a registry slug, or NULL / "auto" to let the library choose. */
sgemm_status sgemm_gemm(sgemm_layout layout, sgemm_op op_a, sgemm_op op_b, int64_t m, int64_t n,
                        int64_t k, float alpha, const float* a, int64_t lda, const float* b,
                        int64_t ldb, float beta, float* c, int64_t ldc, cudaStream_t stream,
                        const char* kernel, sgemm_math math);

/* The mirror of sgemm::gemm_strided_batched: batch products, matrix i of X at x + i * stride_x. */
sgemm_status sgemm_gemm_strided_batched(sgemm_layout layout, sgemm_op op_a, sgemm_op op_b,
                                        int64_t m, int64_t n, int64_t k, float alpha,
                                        const float* a, int64_t lda, int64_t stride_a,
                                        const float* b, int64_t ldb, int64_t stride_b, float beta,
                                        float* c, int64_t ldc, int64_t stride_c, int64_t batch,
                                        cudaStream_t stream, const char* kernel, sgemm_math math);

/* The mirror of sgemm::conv2d (see sgemm.hpp for the tensors' layouts). */
typedef struct {
  int64_t n, h, w, c, k, r, s;
  int64_t pad_h, pad_w, stride_h, stride_w, dilation_h, dilation_w, groups;
} sgemm_conv2d_shape;
sgemm_status sgemm_conv2d(const sgemm_conv2d_shape* shape, float alpha, const float* x,
                          const float* w, float beta, float* y, cudaStream_t stream,
                          const char* kernel, sgemm_math math);

const char* sgemm_status_string(sgemm_status status);
/* Thread-local detail for the last non-success status; valid until the next call on this thread. */
const char* sgemm_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* SGEMM_SGEMM_H */
