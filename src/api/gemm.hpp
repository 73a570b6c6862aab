// gemm()'s decisions, exposed so that host tests can check them without a GPU.
#pragma once

#include <string>

#include "kernels/kernel.hpp"

namespace sgemm::detail {

// Checks every argument as reference BLAS does; on failure returns the message naming it.
Status validate(Layout layout, Op op_a, Op op_b, std::int64_t m, std::int64_t n, std::int64_t k,
                float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                float beta, const float* c, std::int64_t ldc, const Options& options,
                std::string* message);

// Checks the batch arguments of gemm_strided_batched (the others as validate does): batch and
// strides >= 0, and C's matrices apart (each ends before the next starts, or they interleave
// within ldc), for a call with something to write.
Status validate_batch(Layout layout, std::int64_t m, std::int64_t n, std::int64_t ldc,
                      std::int64_t stride_a, std::int64_t stride_b, std::int64_t stride_c,
                      std::int64_t batch, std::string* message);

// Records `message` as the thread's last error (last_error()) and returns `status`.
Status fail(Status status, std::string message);
// A CUDA error as the status it maps to, with `what` and the error's name as the message.
Status from_cuda(cudaError_t err, std::string_view what);
bool valid_math(Math math);  // one of the Math values

// Chooses the kernel for a product (Options::kernel or auto in Options::math) and enqueues it on
// `stream`, `device` current, its scratch from Options::workspace or the device's pool: what
// gemm() does once the call is checked and has something to multiply.
Status enqueue_product(const Canonical& p, const Device& device, cudaStream_t stream,
                       const Options& options);

// What a valid call has to do (reference BLAS's quick returns).
enum class Work {
  None,      // m == 0 or n == 0, or (alpha == 0 or k == 0) and beta == 1
  ScaleC,    // alpha == 0 or k == 0: C = beta * C, A and B not read
  Multiply,  // the product proper
};
Work plan(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, float beta);

}  // namespace sgemm::detail
