// Rung 05 — 2D blocktiling: every thread computes an 8 x 8 tile of C as a sum of outer products.
//
// Seed 000 kernel 5, seed 002. A block of 256 threads computes a 128 x 128 tile of C from
// 128 x 8 tiles of A and 8 x 128 tiles of B. In each k-step a thread loads a column of 8 values of
// A and a row of 8 values of B into registers and does their outer product: 64 FMAs for 16 shared
// loads, where rung 04 needed 9 loads for 8 FMAs. The 8 x 8 accumulators stay in registers.
#include "kernels/epilogue/store.cuh"
#include "kernels/operand.cuh"
#include "kernels/simt/tile_loader.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kBM = 128, kBN = 128, kBK = 8;
constexpr int kTM = 8, kTN = 8;                    // the thread tile
constexpr int kThreads = kBM / kTM * (kBN / kTN);  // 256: a 16 x 16 grid of thread tiles

template <bool AKMajor, bool BKMajor>
__global__ void __launch_bounds__(kThreads) simt_05_blocktile_2d_kernel(Canonical p) {
  __shared__ float sA[kBK * kBM];  // sA[kk * kBM + i] = A(m0 + i, k0 + kk)
  __shared__ float sB[kBK * kBN];  // sB[kk * kBN + j] = B(k0 + kk, n0 + j)

  const int tid = threadIdx.x;
  const int row = tid / (kBN / kTN) * kTM;  // this thread's tile: rows row.., columns col..
  const int col = tid % (kBN / kTN) * kTN;
  const std::int64_t m0 = std::int64_t(blockIdx.y) * kBM, n0 = std::int64_t(blockIdx.x) * kBN;
  const int m_left = rows_inside(p.m - m0, kBM), n_left = rows_inside(p.n - n0, kBN);
  ScalarTileLoader<kBM, kBK, kThreads, AKMajor> a_tile(panel_origin<AKMajor>(p.a, p.lda, m0),
                                                       p.lda, m_left, tid);
  ScalarTileLoader<kBN, kBK, kThreads, BKMajor> b_tile(panel_origin<BKMajor>(p.b, p.ldb, n0),
                                                       p.ldb, n_left, tid);

  float acc[kTM][kTN] = {};
  float a[kTM], b[kTN];
  for (std::int64_t k0 = 0; k0 < p.k; k0 += kBK) {
    const int k_left = rows_inside(p.k - k0, kBK);
    a_tile.stage(sA, k_left);
    b_tile.stage(sB, k_left);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
#pragma unroll
      for (int i = 0; i < kTM; ++i) a[i] = sA[kk * kBM + row + i];
#pragma unroll
      for (int j = 0; j < kTN; ++j) b[j] = sB[kk * kBN + col + j];
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
    a_tile.advance();
    b_tile.advance();
  }

#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    if (row + i >= m_left) break;
    float* c_row = p.c + (m0 + row + i) * p.ldc + n0;
#pragma unroll
    for (int j = 0; j < kTN; ++j)
      if (col + j < n_left) store_c(c_row + col + j, acc[i][j], p.alpha, p.beta);
  }
}

std::string_view why_not(const Canonical& p, const Device&) {
  return needs_grid(ceil_div(p.n, kBN), ceil_div(p.m, kBM));
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  const dim3 grid(ceil_div(p.n, kBN), ceil_div(p.m, kBM));
  return with_majorness(p, [&]<bool AKMajor, bool BKMajor>() {
    return launch_kernel(simt_05_blocktile_2d_kernel<AKMajor, BKMajor>, grid, kThreads, 0, args.stream, p);
  });
}

}  // namespace

SGEMM_KERNEL_ENTRIES(simt_05_blocktile_2d) {
  static const KernelEntry entries[] = {{
      {"simt-05-blocktile-2d", Track::Simt, 5,
       "2D blocktiling: an 8 x 8 outer product per thread and k-step, in registers",
       Math::Fp32, "seed 000, kernel 5 (2D blocktiling); seed 002", "none"},
      why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail
