// Rung 15 — batches of small matrices: one launch, a tile of C sized to the matrix.
//
// A strided batch of small products (attention heads, per-sample projections, many 16 x 16 or
// 64 x 64 blocks) gives rung 10 a 128 x 128 tile per matrix whatever its size: a 16 x 16 product
// fills 1/64 of it, and a 64 x 64 one a quarter. This rung takes the tile from the matrix: 16, 32
// or 64 rows and columns, so that a block's threads compute C and not padding, and runs every
// tile of every matrix of the batch as one grid (block b: matrix b / tiles, tile b % tiles).
// 256 threads, each 1, 2 x 2 or 4 x 4 results of the tile, interleaved 16 apart so that a
// warp's shared reads are broadcasts or consecutive; k in steps of 32, the operands staged
// through shared memory with loads that follow each one's contiguous dimension (any layout,
// leading dimension and alignment: no float4 accesses).
#include <algorithm>

#include "kernels/epilogue/store.cuh"
#include "kernels/operand.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kThreads = 256, kSide = 16, kBK = 32;

template <int kTile>
__global__ void __launch_bounds__(kThreads) simt_15_batched_small_kernel(const Canonical call) {
  constexpr int kPer = kTile / kSide;  // results per thread along each dimension
  __shared__ float sA[kBK][kTile + 1];  // sA[kk][r] = A(row0 + r, k0 + kk)
  __shared__ float sB[kBK][kTile + 1];  // sB[kk][c] = B(k0 + kk, col0 + c)

  const std::int64_t tiles_n = ceil_div(call.n, kTile);
  const std::int64_t tiles = tiles_n * ceil_div(call.m, kTile);
  const std::int64_t block = blockIdx.x;
  const Canonical p = call.matrix(block / tiles);
  const StridedOperand a = operand_a(p), b = operand_b(p);
  const std::int64_t row0 = block % tiles / tiles_n * kTile, col0 = block % tiles_n * kTile;
  const int tid = threadIdx.x, tx = tid % kSide, ty = tid / kSide;

  float acc[kPer][kPer] = {};
  for (std::int64_t k0 = 0; k0 < p.k; k0 += kBK) {
    // Consecutive threads follow the contiguous dimension of each operand.
    for (int e = tid; e < kBK * kTile; e += kThreads) {
      const int a_r = p.a_k_major ? e / kBK : e % kTile, a_k = p.a_k_major ? e % kBK : e / kTile;
      sA[a_k][a_r] = (row0 + a_r < p.m && k0 + a_k < p.k) ? a(row0 + a_r, k0 + a_k) : 0.0f;
      const int b_c = p.b_k_major ? e / kBK : e % kTile, b_k = p.b_k_major ? e % kBK : e / kTile;
      sB[b_k][b_c] = (k0 + b_k < p.k && col0 + b_c < p.n) ? b(k0 + b_k, col0 + b_c) : 0.0f;
    }
    __syncthreads();
#pragma unroll 8
    for (int kk = 0; kk < kBK; ++kk) {
#pragma unroll
      for (int i = 0; i < kPer; ++i)
#pragma unroll
        for (int j = 0; j < kPer; ++j)
          acc[i][j] = fmaf(sA[kk][ty + i * kSide], sB[kk][tx + j * kSide], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
    const std::int64_t row = row0 + ty + i * kSide;
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const std::int64_t col = col0 + tx + j * kSide;
      if (row < p.m && col < p.n)
        store_c(p.c + row * p.ldc + col, acc[i][j], p.alpha, p.beta);
    }
  }
}

// The smallest tile that covers the matrix, up to 64.
int tile_for(const Canonical& p) {
  const std::int64_t side = std::max(p.m, p.n);
  return side <= 16 ? 16 : side <= 32 ? 32 : 64;
}

std::string_view why_not(const Canonical& p, const Device&) {
  const std::int64_t tile = tile_for(p);
  return needs_grid(ceil_div(p.m, tile) * ceil_div(p.n, tile) * p.batch, 1);
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  const int tile = tile_for(p);
  const unsigned blocks = unsigned(ceil_div(p.m, tile) * ceil_div(p.n, tile) * p.batch);
  const auto kernel = tile == 16   ? simt_15_batched_small_kernel<16>
                      : tile == 32 ? simt_15_batched_small_kernel<32>
                                   : simt_15_batched_small_kernel<64>;
  return launch_kernel(kernel, blocks, kThreads, 0, args.stream, p);
}

}  // namespace

SGEMM_KERNEL_ENTRIES(simt_15_batched_small) {
  static const KernelEntry entries[] = {{
      {"simt-15-batched-small", Track::Simt, 15,
       "batches of small matrices: 16, 32 or 64-wide tiles as the matrix needs, the whole batch "
       "in one grid",
       Math::Fp32, "the library's own (strided-batched calls)", "none"},
      why_not, launch, nullptr, /*accepts_run_if=*/false, /*needs_handoff=*/false,
      /*batched=*/true}};
  return entries;
}

}  // namespace sgemm::detail
