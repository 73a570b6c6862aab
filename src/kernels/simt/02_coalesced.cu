// Rung 02 — global-memory coalescing: the same arithmetic as rung 01, threads remapped.
//
// Seed 000, kernel 2. threadIdx.x now runs along a row of C, so the 32 threads of a warp read
// 32 consecutive floats of B (one 128-byte transaction instead of 32), share one element of A
// (a broadcast) and write 32 consecutive floats of C. Nothing else changes.
#include "kernels/epilogue/store.cuh"
#include "kernels/operand.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kBlock = 32;

__global__ void simt_02_coalesced_kernel(Canonical p, StridedOperand a, StridedOperand b) {
  const std::int64_t row = std::int64_t(blockIdx.y) * kBlock + threadIdx.y;
  const std::int64_t col = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  if (row >= p.m || col >= p.n) return;
  float acc = 0.0f;
  for (std::int64_t i = 0; i < p.k; ++i) acc += a(row, i) * b(i, col);
  store_c(p.c + row * p.ldc + col, acc, p.alpha, p.beta);
}

std::string_view why_not(const Canonical& p, const Device&) {
  return needs_grid(ceil_div(p.n, kBlock), ceil_div(p.m, kBlock));
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  const dim3 grid(ceil_div(p.n, kBlock), ceil_div(p.m, kBlock));
  return launch_kernel(simt_02_coalesced_kernel, grid, dim3(kBlock, kBlock), 0, args.stream, p, operand_a(p), operand_b(p));
}

}  // namespace

SGEMM_KERNEL_ENTRIES(simt_02_coalesced) {
  static const KernelEntry entries[] = {{
      {"simt-02-coalesced", Track::Simt, 2, "coalescing: a warp runs along a row of C",
       Math::Fp32, "seed 000, kernel 2 (global memory coalescing)", "none"},
      why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail
