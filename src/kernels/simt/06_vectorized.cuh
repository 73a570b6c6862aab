// Rung 06's block tile, generic in the shared-memory layout: rung 06 runs it with the plain
// layout, rung 07 with a conflict-free one, so that the two differ in nothing else.
//
// 128 x 128 x 8 block tile, 256 threads, 8 x 8 results per thread (rows row..row+7, columns
// col..col+7 of the tile). Every memory instruction is 16 bytes wide:
//  - global -> shared: each thread moves one float4 chunk of A and one of B per K-tile
//    (Vec4TileLoader); a K-major operand is transposed on its way in, since the float4 runs along
//    K in global memory but along M (or N) in the K-outer tile;
//  - shared -> registers: the thread's 8 values of A (and of B) in step kk are 32 contiguous
//    bytes of sA[kk][.] (sB[kk][.]): two LDS.128 each, 4 loads for 64 FMAs;
//  - registers -> C: float4 stores (store_c4), scalar at the right edge of C.
#pragma once

#include "kernels/epilogue/store.cuh"
#include "kernels/simt/tile_loader.cuh"

namespace sgemm::detail {
namespace {

constexpr int kBM = 128, kBN = 128, kBK = 8;
constexpr int kTM = 8, kTN = 8;
constexpr int kThreads = kBM / kTM * (kBN / kTN);  // 256: a 16 x 16 grid of thread tiles
// Two blocks per SM, so one computes while the other waits at a barrier: that holds only at
// 128 registers or fewer (65536 / (2 x 256)), so the launch bound says it and ptxas keeps to it.
constexpr int kBlocksPerSM = 2;

__device__ __forceinline__ float4 lds128(const float* s) {
  return *reinterpret_cast<const float4*>(s);
}

// A(m0 + i, k0 + kk) is staged at sA[LayoutA::offset(kk, i)], B(k0 + kk, n0 + j) at
// sB[LayoutB::offset(kk, j)]. Layouts keep runs of 4 aligned columns contiguous.
template <class LayoutA, class LayoutB, bool AKMajor, bool BKMajor>
__device__ __forceinline__ void vectorized_block_tile(const Canonical& p) {
  __shared__ alignas(16) float sA[kBK * LayoutA::kStride];
  __shared__ alignas(16) float sB[kBK * LayoutB::kStride];

  const int tid = threadIdx.x;
  const int row = tid / (kBN / kTN) * kTM;  // this thread's tile: rows row.., columns col..
  const int col = tid % (kBN / kTN) * kTN;
  const std::int64_t m0 = std::int64_t(blockIdx.y) * kBM, n0 = std::int64_t(blockIdx.x) * kBN;
  const int m_left = rows_inside(p.m - m0, kBM), n_left = rows_inside(p.n - n0, kBN);
  Vec4TileLoader<kBM, kBK, kThreads, AKMajor> a_tile(panel_origin<AKMajor>(p.a, p.lda, m0),
                                                     p.lda, m_left, tid);
  Vec4TileLoader<kBN, kBK, kThreads, BKMajor> b_tile(panel_origin<BKMajor>(p.b, p.ldb, n0),
                                                     p.ldb, n_left, tid);

  float acc[kTM][kTN] = {};
  for (std::int64_t k0 = 0; k0 < p.k; k0 += kBK) {
    const int k_left = rows_inside(p.k - k0, kBK);
    a_tile.load(k_left);
    b_tile.load(k_left);
    a_tile.template store<LayoutA>(sA);
    b_tile.template store<LayoutB>(sB);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      const float4 a0 = lds128(sA + LayoutA::offset(kk, row));
      const float4 a1 = lds128(sA + LayoutA::offset(kk, row + 4));
      const float4 b0 = lds128(sB + LayoutB::offset(kk, col));
      const float4 b1 = lds128(sB + LayoutB::offset(kk, col + 4));
      const float a[kTM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[kTN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
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
    float* c_row = p.c + (m0 + row + i) * p.ldc;
#pragma unroll
    for (int j = 0; j < kTN; j += 4)
      store_c4(c_row, n0 + col + j, p.n,
               {acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]}, p.alpha, p.beta);
  }
}

std::string_view vectorized_why_not(const Canonical& p, const Device&) {
  if (auto reason = needs_vec4(p); !reason.empty()) return reason;
  return needs_grid(ceil_div(p.n, kBN), ceil_div(p.m, kBM));
}

inline dim3 vectorized_grid(const Canonical& p) {
  return dim3(ceil_div(p.n, kBN), ceil_div(p.m, kBM));
}

}  // namespace
}  // namespace sgemm::detail
