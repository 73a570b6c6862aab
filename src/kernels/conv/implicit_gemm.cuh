// The tile loop the implicit-GEMM conv rungs share: a 64 x 64 tile of one group's output
// (64 output pixels x 64 output channels) per block, the reduction in steps of 16 through shared
// memory, 256 threads of 4 x 4 results each. A rung supplies the loader of A, the input patch
// (ConvProblem's A): where its address arithmetic lives is what tells the rungs apart.
#pragma once

#include "kernels/conv/conv.hpp"
#include "kernels/epilogue/store.cuh"

namespace sgemm::detail {

inline constexpr int kConvTile = 64, kConvBK = 16, kConvThreads = 256, kConvSide = 16;
// Each thread loads 4 elements of each operand per k-step: column e % 16, rows e / 16 for
// e = tid + 256 i, so that consecutive threads walk the reduction, which is contiguous in both
// x (c) and w (r, s, c).
inline constexpr int kConvLoads = kConvTile * kConvBK / kConvThreads;

// Loader requirements: ALoader(source, group, row0, tid) sets up the thread's 4 rows from the
// rung's kernel argument `source`; load(k0, v) writes A(row0 + tid / 16 + 16 i, k0 + tid % 16)
// into v[i], 0 outside the input, the matrix or the reduction. load is called with
// k0 = 0, 16, 32, ... in order.
template <class ALoader, class Source>
__device__ void conv_tile(const ConvProblem& p, const Source& source) {
  __shared__ float sA[kConvBK][kConvTile + 4];  // sA[kk][i] = A(row0 + i, k0 + kk)
  __shared__ float sB[kConvBK][kConvTile + 4];  // sB[kk][j] = B(k0 + kk, col0 + j)
  const std::int64_t m = p.gemm_m(), n = p.gemm_n(), k = p.gemm_k();
  const std::int64_t tiles_n = (n + kConvTile - 1) / kConvTile;
  const std::int64_t row0 = std::int64_t(blockIdx.x) / tiles_n * kConvTile;
  const std::int64_t col0 = std::int64_t(blockIdx.x) % tiles_n * kConvTile;
  const int group = blockIdx.y, tid = threadIdx.x, tx = tid % kConvSide, ty = tid / kConvSide;
  const int load_k = tid % kConvBK, load_row = tid / kConvBK;

  ALoader a_loader(source, group, row0, tid);
  // B(kk, j) = w[(g K/G + j) * k + kk]: this thread's 4 filter rows.
  const float* w_rows[kConvLoads];
  bool w_in[kConvLoads];
#pragma unroll
  for (int i = 0; i < kConvLoads; ++i) {
    const std::int64_t j = col0 + load_row + i * (kConvThreads / kConvBK);
    w_in[i] = j < n;
    w_rows[i] = p.w + (group * n + (w_in[i] ? j : 0)) * k;
  }

  float acc[4][4] = {};
  for (std::int64_t k0 = 0; k0 < k; k0 += kConvBK) {
    float a[kConvLoads];
    a_loader.load(k0, a);
    const bool k_in = k0 + load_k < k;
#pragma unroll
    for (int i = 0; i < kConvLoads; ++i) {
      const int r = load_row + i * (kConvThreads / kConvBK);
      sA[load_k][r] = a[i];
      sB[load_k][r] = w_in[i] && k_in ? w_rows[i][k0 + load_k] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kConvBK; ++kk) {
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          acc[i][j] = fmaf(sA[kk][ty + i * kConvSide], sB[kk][tx + j * kConvSide], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const std::int64_t row = row0 + ty + i * kConvSide;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const std::int64_t col = col0 + tx + j * kConvSide;
      if (row < m && col < n)
        store_c(p.y + row * p.shape.k + group * n + col, acc[i][j], p.alpha, p.beta);
    }
  }
}

// The grid of conv_tile: x the tiles of one group, y the groups.
inline dim3 conv_tile_grid(const ConvProblem& p) {
  return dim3(unsigned(ceil_div(p.gemm_m(), kConvTile) * ceil_div(p.gemm_n(), kConvTile)),
              unsigned(p.shape.groups));
}
inline std::string_view conv_tile_why_not(const ConvProblem& p) {
  return needs_grid(ceil_div(p.gemm_m(), kConvTile) * ceil_div(p.gemm_n(), kConvTile),
                    p.shape.groups);
}

}  // namespace sgemm::detail
