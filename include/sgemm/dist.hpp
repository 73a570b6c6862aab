// One GEMM across the GPUs of an NCCL communicator (library sgemm::sgemm_dist, built where NCCL
// is found). One process or thread per GPU; each rank calls dist::gemm with its own blocks.
#pragma once

#include <nccl.h>

#include <cstdint>

#include "sgemm/sgemm.hpp"

namespace sgemm::dist {

// C = alpha * A * B + beta * C, row-major, A m x k, B k x n, C m x n, over the P ranks of `comm`
// (one GPU each), in the 1D decomposition:
// - rank r holds m_local whole rows of A (m_local x k, leading dimension lda >= k) and the same
//   rows of C (m_local x n, ldc >= n): the ranks' row blocks in rank order make up A and C;
// - rank r holds k_local rows of B (k_local x n, ldb >= n): the ranks' blocks in rank order make
//   up B, and k is the sum of the k_local.
// The ranks' blocks of B are broadcast in turn, each while the previous one multiplies (on a
// stream of the call's own, ordered after `stream` and before its end by events), and every rank
// accumulates C_r = alpha * sum_j A_r[:, block j's rows] * B_j + beta * C_r with sgemm::gemm in
// options' math on `stream`.
//
// Every rank passes the same n, alpha, beta and options.math. Before any product the ranks
// exchange their arguments (an all-gather on `stream`, then a wait for it on the host, so this
// call synchronizes `stream` once and cannot be captured into a CUDA graph): a rank whose
// arguments are invalid, or ranks that disagree, make every rank return InvalidValue with the
// same message, having written nothing. A CUDA or NCCL failure after that aborts the
// communicator (ncclCommAbort), so that no rank waits forever on the others, and returns
// CudaError; the communicator is then unusable. last_error() gives the message.
Status gemm(ncclComm_t comm, std::int64_t m_local, std::int64_t n, std::int64_t k_local,
            float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
            float beta, float* c, std::int64_t ldc, cudaStream_t stream,
            const Options& options = {});

}  // namespace sgemm::dist
