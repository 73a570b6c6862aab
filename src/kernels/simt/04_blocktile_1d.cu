// Rung 04 — 1D blocktiling: every thread computes TM = 8 results down a column of C.
//
// Seed 000, kernel 4. A block of 512 threads computes a 64 x 64 tile of C from 64 x 8 tiles of A
// and 8 x 64 tiles of B staged in shared memory. Thread t owns column t % 64 and the 8 rows
// 8 * (t / 64) .. + 7. In each k-step it reads one element of B into a register and reuses it for
// 8 FMAs, against 8 elements of A that the whole warp shares (one broadcast each). Shared loads per
// FMA drop from 2 (rung 03) to 9/8; rung 05 goes on to reuse the A values too.
#include "kernels/epilogue/store.cuh"
#include "kernels/operand.cuh"
#include "kernels/simt/tile_loader.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kBM = 64, kBN = 64, kBK = 8;
constexpr int kTM = 8;                              // results per thread, down a column
constexpr int kThreads = kBM * kBN / kTM;           // 512
static_assert(kThreads % kBN == 0 && kThreads / kBN * kTM == kBM);

template <bool AKMajor, bool BKMajor>
__global__ void __launch_bounds__(kThreads) simt_04_blocktile_1d_kernel(Canonical p) {
  __shared__ float sA[kBK * kBM];  // sA[kk * kBM + i] = A(m0 + i, k0 + kk)
  __shared__ float sB[kBK * kBN];  // sB[kk * kBN + j] = B(k0 + kk, n0 + j)

  const int tid = threadIdx.x;
  const int col = tid % kBN;          // consecutive threads: consecutive columns of C and sB
  const int row = tid / kBN * kTM;    // first of this thread's kTM rows
  const std::int64_t m0 = std::int64_t(blockIdx.y) * kBM, n0 = std::int64_t(blockIdx.x) * kBN;
  const int m_left = rows_inside(p.m - m0, kBM), n_left = rows_inside(p.n - n0, kBN);
  ScalarTileLoader<kBM, kBK, kThreads, AKMajor> a_tile(panel_origin<AKMajor>(p.a, p.lda, m0),
                                                       p.lda, m_left, tid);
  ScalarTileLoader<kBN, kBK, kThreads, BKMajor> b_tile(panel_origin<BKMajor>(p.b, p.ldb, n0),
                                                       p.ldb, n_left, tid);

  float acc[kTM] = {};
  for (std::int64_t k0 = 0; k0 < p.k; k0 += kBK) {
    const int k_left = rows_inside(p.k - k0, kBK);
    a_tile.stage(sA, k_left);
    b_tile.stage(sB, k_left);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      const float b = sB[kk * kBN + col];  // one load, reused kTM times
#pragma unroll
      for (int i = 0; i < kTM; ++i) acc[i] += sA[kk * kBM + row + i] * b;
    }
    __syncthreads();
    a_tile.advance();
    b_tile.advance();
  }

  if (col >= n_left) return;
#pragma unroll
  for (int i = 0; i < kTM; ++i)
    if (row + i < m_left) store_c(p.c + (m0 + row + i) * p.ldc + n0 + col, acc[i], p.alpha, p.beta);
}

std::string_view why_not(const Canonical& p, const Device&) {
  return needs_grid(ceil_div(p.n, kBN), ceil_div(p.m, kBM));
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  const dim3 grid(ceil_div(p.n, kBN), ceil_div(p.m, kBM));
  return with_majorness(p, [&]<bool AKMajor, bool BKMajor>() {
    return launch_kernel(simt_04_blocktile_1d_kernel<AKMajor, BKMajor>, grid, kThreads, 0, args.stream, p);
  });
}

}  // namespace

SGEMM_KERNEL_ENTRIES(simt_04_blocktile_1d) {
  static const KernelEntry entries[] = {{
      {"simt-04-blocktile-1d", Track::Simt, 4,
       "1D blocktiling: 8 results per thread down a column, one B load reused 8 times",
       Math::Fp32, "seed 000, kernel 4 (1D blocktiling)", "none"},
      why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail
