// Rung 01 — naive: one thread per element of C, every operand read straight from global memory.
//
// Seed 000, kernel 1. Thread (x, y) of a 32 x 32 block computes C(row, col) with row taken from
// threadIdx.x. Consecutive threads of a warp therefore walk down a column of C: their reads of A
// and their writes of C are 4*lda and 4*ldc bytes apart, so each warp-wide access costs 32
// separate memory transactions. That is the waste rung 02 removes.
#include "kernels/epilogue/store.cuh"
#include "kernels/operand.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kBlock = 32;

__global__ void simt_01_naive_kernel(Canonical p, StridedOperand a, StridedOperand b) {
  const std::int64_t row = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  const std::int64_t col = std::int64_t(blockIdx.y) * kBlock + threadIdx.y;
  if (row >= p.m || col >= p.n) return;
  float acc = 0.0f;
  for (std::int64_t i = 0; i < p.k; ++i) acc += a(row, i) * b(i, col);
  store_c(p.c + row * p.ldc + col, acc, p.alpha, p.beta);
}

std::string_view why_not(const Canonical& p, const Device&) {
  return needs_grid(ceil_div(p.m, kBlock), ceil_div(p.n, kBlock));
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  const dim3 grid(ceil_div(p.m, kBlock), ceil_div(p.n, kBlock));
  return launch_kernel(simt_01_naive_kernel, grid, dim3(kBlock, kBlock), 0, args.stream, p, operand_a(p), operand_b(p));
}

}  // namespace

SGEMM_KERNEL_ENTRIES(simt_01_naive) {
  static const KernelEntry entries[] = {{
      {"simt-01-naive", Track::Simt, 1, "naive: one thread per element, threads walk down C",
       Math::Fp32, "seed 000, kernel 1 (naive)", "none"},
      why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail
