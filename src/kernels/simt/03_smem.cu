// Rung 03 — shared-memory blocking: a block stages 32 x 32 tiles of A and B in shared memory.
//
// Seed 000, kernel 3. Each element of A and B is now read from global memory once per block
// instead of once per thread: a 32 x 32 block reuses each staged value 32 times. The inner loop
// still issues two shared loads per FMA, which is what rungs 04 and 05 attack.
//
// Every shape: tiles that hang over the edge of A or B are filled with zeros (a zero pair adds
// nothing), and only in-range elements of C are written. The loading threads follow the
// contiguous dimension of each operand, so either storage order loads coalesced; the +1 column
// keeps the transposed stores of an M-major A free of bank conflicts.
#include "kernels/epilogue/store.cuh"
#include "kernels/operand.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kTile = 32;

// 1024 threads a block: left alone, ptxas takes 39 registers and only one block fits in an SM's
// 64K registers (half occupancy, measured 4.8 TFLOPS on an H200). Capping at 32 registers fits
// two blocks, which this latency-bound kernel needs.
__global__ void __launch_bounds__(kTile * kTile, 2) simt_03_smem_kernel(Canonical p, StridedOperand a, StridedOperand b) {
  __shared__ float sA[kTile][kTile + 1];  // sA[r][kk] = A(row0 + r, k0 + kk)
  __shared__ float sB[kTile][kTile + 1];  // sB[kk][c] = B(k0 + kk, col0 + c)

  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row0 = std::int64_t(blockIdx.y) * kTile;
  const std::int64_t col0 = std::int64_t(blockIdx.x) * kTile;
  // Which element each thread stages: consecutive tx read consecutive addresses.
  const int a_r = p.a_k_major ? ty : tx, a_k = p.a_k_major ? tx : ty;
  const int b_k = p.b_k_major ? tx : ty, b_c = p.b_k_major ? ty : tx;

  float acc = 0.0f;
  for (std::int64_t k0 = 0; k0 < p.k; k0 += kTile) {
    sA[a_r][a_k] = (row0 + a_r < p.m && k0 + a_k < p.k) ? a(row0 + a_r, k0 + a_k) : 0.0f;
    sB[b_k][b_c] = (k0 + b_k < p.k && col0 + b_c < p.n) ? b(k0 + b_k, col0 + b_c) : 0.0f;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk) acc += sA[ty][kk] * sB[kk][tx];
    __syncthreads();
  }
  const std::int64_t row = row0 + ty, col = col0 + tx;
  if (row < p.m && col < p.n) store_c(p.c + row * p.ldc + col, acc, p.alpha, p.beta);
}

std::string_view why_not(const Canonical& p, const Device&) {
  return needs_grid(ceil_div(p.n, kTile), ceil_div(p.m, kTile));
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  const dim3 grid(ceil_div(p.n, kTile), ceil_div(p.m, kTile));
  return launch_kernel(simt_03_smem_kernel, grid, dim3(kTile, kTile), 0, args.stream, p, operand_a(p), operand_b(p));
}

}  // namespace

SGEMM_KERNEL_ENTRIES(simt_03_smem) {
  static const KernelEntry entries[] = {{
      {"simt-03-smem", Track::Simt, 3, "shared-memory blocking: 32 x 32 tiles staged per block",
       Math::Fp32, "seed 000, kernel 3 (shared memory cache-blocking)", "none"},
      why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail
