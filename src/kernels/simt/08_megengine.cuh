// The MegEngine block tile, generic in its sizes: rung 08 runs the article's configuration,
// rung 09 a family of them chosen by measurement.
//
// A BM x BN block tile is shared by a (BM/TM) x (BN/TN) grid of threads. Thread (ty, tx) computes
// TM x TN results as (TM/4) x (TN/4) sub-tiles of 4 x 4, spread across the block tile:
//
//   sub-tile (im, in) = rows    im * (BM / (TM/4)) + 4 ty + 0..3
//                       columns in * (BN / (TN/4)) + 4 tx + 0..3
//
// (for 128 x 128 and 8 x 8: rows 4 ty.. and 64 + 4 ty.., columns 4 tx.. and 64 + 4 tx..).
// In step kk a thread therefore reads TM/4 float4 of sA[kk][.] and TN/4 float4 of sB[kk][.], and
// at every such LDS.128 the threads of a quarter-warp (8 consecutive tx, one ty) read 8 adjacent
// chunks of B (128 contiguous bytes: all 32 banks, once) and one chunk of A (a broadcast). No
// read conflicts, with no skew in the layout: the thread layout does the work that rung 07's
// swizzle did. Consecutive tx also store adjacent float4 of C, so the stores of C coalesce.
//
// The rows of the tiles are padded to BM + 4 and BN + 4 floats (4 mod 8), which keeps the
// transposed stores of a K-major operand conflict-free as in rung 07.
#pragma once

#include "kernels/epilogue/store.cuh"
#include "kernels/simt/tile_loader.cuh"

namespace sgemm::detail {
namespace {

template <int BM, int BN, int BK, int TM, int TN>
struct MegEngineTile {
  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4 x 4 sub-tiles");
  static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles tile the block tile");
  static constexpr int kThreadsM = BM / TM, kThreadsN = BN / TN;
  static constexpr int kThreads = kThreadsM * kThreadsN;
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, one block");
  static_assert(kThreadsN % 8 == 0, "a quarter-warp reads 8 adjacent chunks of one row of sB");
  static constexpr int kSubM = TM / 4, kSubN = TN / 4;        // 4 x 4 sub-tiles per thread
  static constexpr int kStrideM = 4 * kThreadsM, kStrideN = 4 * kThreadsN;  // between sub-tiles
  using LayoutA = KOuterLayout<BM + 4>;  // A(m0 + i, k0 + kk) at sA[kk * (BM + 4) + i]
  using LayoutB = KOuterLayout<BN + 4>;  // B(k0 + kk, n0 + j) at sB[kk * (BN + 4) + j]
  static constexpr int kSmemBytes = BK * (LayoutA::kStride + LayoutB::kStride) * 4;
  static_assert(kSmemBytes <= 48 * 1024, "static shared memory");
  // Vec4TileLoader's own static_asserts check that the threads divide both tiles into chunks.
};

template <int BM, int BN, int BK, int TM, int TN, bool AKMajor, bool BKMajor>
__device__ __forceinline__ void megengine_block_tile(const Canonical& p) {
  using Tile = MegEngineTile<BM, BN, BK, TM, TN>;
  using LayoutA = typename Tile::LayoutA;
  using LayoutB = typename Tile::LayoutB;
  __shared__ alignas(16) float sA[BK * LayoutA::kStride];
  __shared__ alignas(16) float sB[BK * LayoutB::kStride];

  const int tid = threadIdx.x;
  const int ty = tid / Tile::kThreadsN, tx = tid % Tile::kThreadsN;
  const std::int64_t m0 = std::int64_t(blockIdx.y) * BM, n0 = std::int64_t(blockIdx.x) * BN;
  const int m_left = rows_inside(p.m - m0, BM), n_left = rows_inside(p.n - n0, BN);
  Vec4TileLoader<BM, BK, Tile::kThreads, AKMajor> a_tile(panel_origin<AKMajor>(p.a, p.lda, m0),
                                                         p.lda, m_left, tid);
  Vec4TileLoader<BN, BK, Tile::kThreads, BKMajor> b_tile(panel_origin<BKMajor>(p.b, p.ldb, n0),
                                                         p.ldb, n_left, tid);

  float acc[TM][TN] = {};
  for (std::int64_t k0 = 0; k0 < p.k; k0 += BK) {
    const int k_left = rows_inside(p.k - k0, BK);
    a_tile.load(k_left);
    b_tile.load(k_left);
    a_tile.template store<LayoutA>(sA);
    b_tile.template store<LayoutB>(sB);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int im = 0; im < Tile::kSubM; ++im) {
        const float4 v = *reinterpret_cast<const float4*>(
            sA + LayoutA::offset(kk, im * Tile::kStrideM + 4 * ty));
        a[4 * im] = v.x, a[4 * im + 1] = v.y, a[4 * im + 2] = v.z, a[4 * im + 3] = v.w;
      }
#pragma unroll
      for (int in = 0; in < Tile::kSubN; ++in) {
        const float4 v = *reinterpret_cast<const float4*>(
            sB + LayoutB::offset(kk, in * Tile::kStrideN + 4 * tx));
        b[4 * in] = v.x, b[4 * in + 1] = v.y, b[4 * in + 2] = v.z, b[4 * in + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
    a_tile.advance();
    b_tile.advance();
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = i / 4 * Tile::kStrideM + 4 * ty + i % 4;
    if (row >= m_left) continue;
    float* c_row = p.c + (m0 + row) * p.ldc;
#pragma unroll
    for (int in = 0; in < Tile::kSubN; ++in) {
      const float* v = &acc[i][4 * in];
      store_c4(c_row, n0 + in * Tile::kStrideN + 4 * tx, p.n, {v[0], v[1], v[2], v[3]}, p.alpha,
               p.beta);
    }
  }
}

}  // namespace
}  // namespace sgemm::detail
