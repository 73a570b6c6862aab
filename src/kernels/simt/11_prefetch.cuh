// The block tile of rungs 11 and 12: what they compute, and how. They differ in how k-tiles
// reach shared memory (rung 11 stages the next one through registers, rung 12 keeps several in
// flight with cp.async); this header holds the rest, which they share verbatim.
//
// A block of 256 threads computes a 128 x 128 tile of C, each thread 8 x 8 results as 2 x 2
// sub-tiles of 4 x 4, so every fragment read is one LDS.128. Shared memory holds each operand
// K-outer, s[kk][o] (see tile_loader.cuh).
//
// Threads: warps 4 x 2 (m x n), a warp's lanes 4 x 8, so a warp's fragment loads read 4 (A) and
// 8 (B) adjacent 16-byte chunks of one shared-memory row: no bank conflicts. Shared memory returns
// 128 bytes per cycle, so an LDS.128 costs 4 cycles, and 2 when lanes n and n^1, or n and n^2,
// all read the same address. The lanes are interleaved for that: lane bit 0 and bit 4 pick the
// row, bits 1-3 the column, so lanes n and n^1 share B's chunk and n and n^2 share A's. The
// stores of C are float4: a warp writes four full 128-byte rows.
#pragma once

#include <cstdint>

#include "kernels/epilogue/store.cuh"
#include "kernels/simt/tile_loader.cuh"

namespace sgemm::detail {
namespace {

constexpr int kBM = 128, kBN = 128, kBK = 8;
constexpr int kThreads = 256;     // 16 x 16 threads, each an 8 x 8 tile of C
constexpr int kSub = 64;          // offset of the second 4 x 4 sub-tile, in rows and in columns
constexpr int kStride = kBM + 4;  // 4 mod 8 floats: a warp's transposed 4-byte writes of a
                                  // K-major operand hit 32 different banks
static_assert(kBM == kBN, "sA and sB share one layout");
using Layout = KOuterLayout<kStride>;

// This thread's rows tm * 4 + {0..3} and kSub + tm * 4 + {0..3} of the block tile, and its
// columns tn * 4 + ..: warps 4 x 2, a warp's lanes 4 x 8, interleaved (see the top of the file).
__device__ __forceinline__ int thread_tm(int tid) {
  const int warp = tid / 32, lane = tid % 32;
  return warp / 2 * 4 + (lane & 1) + lane / 16 * 2;
}
__device__ __forceinline__ int thread_tn(int tid) {
  const int warp = tid / 32, lane = tid % 32;
  return warp % 2 * 8 + lane / 2 % 8;
}

// The 8 values of this thread's rows (or columns) at step kk: t * 4 + {0..3} and kSub + t * 4 +
// {0..3}, two LDS.128.
__device__ __forceinline__ void load_fragment(float (&f)[8], const float* s, int kk, int t) {
  const float4 lo = *reinterpret_cast<const float4*>(s + Layout::offset(kk, t * 4));
  const float4 hi = *reinterpret_cast<const float4*>(s + Layout::offset(kk, kSub + t * 4));
  f[0] = lo.x, f[1] = lo.y, f[2] = lo.z, f[3] = lo.w;
  f[4] = hi.x, f[5] = hi.y, f[6] = hi.z, f[7] = hi.w;
}

__device__ __forceinline__ void outer_product(float (&acc)[8][8], const float (&a)[8],
                                              const float (&b)[8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
}

// C = alpha * acc + beta * C for this thread's elements inside C, as float4 where it can.
// m_left, n_left: rows and columns of C inside the block tile at (m0, n0).
__device__ __forceinline__ void store_tile(const Canonical& p, const float (&acc)[8][8],
                                           std::int64_t m0, std::int64_t n0, int m_left,
                                           int n_left, int tm, int tn) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = i / 4 * kSub + tm * 4 + i % 4;
    if (row >= m_left) continue;
    float* c_row = p.c + (m0 + row) * p.ldc + n0;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float4 v = {acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]};
      store_c4(c_row, h * kSub + tn * 4, n_left, v, p.alpha, p.beta);
    }
  }
}

}  // namespace
}  // namespace sgemm::detail
