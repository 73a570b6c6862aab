// The FP32 kernel of last resort (fp32_any.cuh).
#include "kernels/fallback/fp32_any.cuh"

#include <algorithm>
#include <cstdint>

#include "kernels/epilogue/store.cuh"
#include "kernels/operand.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kFbTile = 64, kFbK = 16, kFbThreads = 256, kFbSide = 16;
// Blocks per SM when a flag decides: a grid of one block per tile (16384 at 8192³) took 15 us
// just to start and leave on an H200; a few per SM leave in a fraction of that.
constexpr int kFbBlocksPerSm = 4;
constexpr std::int64_t kFbMaxBlocks = std::int64_t(1) << 20;

__global__ void __launch_bounds__(kFbThreads)
    fallback_01_any_kernel(const Canonical call, const int* flag) {
  if (flag != nullptr && *flag == 0) return;
  __shared__ float sA[kFbK][kFbTile];  // sA[kk][r] = A(row0 + r, k0 + kk)
  __shared__ float sB[kFbK][kFbTile];  // sB[kk][c] = B(k0 + kk, col0 + c)

  const int tid = threadIdx.x, tx = tid % kFbSide, ty = tid / kFbSide;
  const bool a_k_contiguous = call.a_k_major, b_k_contiguous = call.b_k_major;
  const std::int64_t tiles_n = (call.n + kFbTile - 1) / kFbTile;
  const std::int64_t tiles = tiles_n * ((call.m + kFbTile - 1) / kFbTile);

  for (std::int64_t tile = blockIdx.x; tile < tiles * call.batch; tile += gridDim.x) {
    const Canonical p = call.matrix(tile / tiles);
    const StridedOperand a = operand_a(p), b = operand_b(p);
    const std::int64_t row0 = tile % tiles / tiles_n * kFbTile, col0 = tile % tiles_n * kFbTile;
    float acc[4][4] = {};
    for (std::int64_t k0 = 0; k0 < p.k; k0 += kFbK) {
#pragma unroll
      for (int i = 0; i < kFbK * kFbTile / kFbThreads; ++i) {
        // Consecutive threads follow the contiguous dimension of each operand.
        const int e = tid + i * kFbThreads;
        const int a_r = a_k_contiguous ? e / kFbK : e % kFbTile;
        const int a_k = a_k_contiguous ? e % kFbK : e / kFbTile;
        sA[a_k][a_r] = (row0 + a_r < p.m && k0 + a_k < p.k) ? a(row0 + a_r, k0 + a_k) : 0.0f;
        const int b_c = b_k_contiguous ? e / kFbK : e % kFbTile;
        const int b_k = b_k_contiguous ? e % kFbK : e / kFbTile;
        sB[b_k][b_c] = (k0 + b_k < p.k && col0 + b_c < p.n) ? b(k0 + b_k, col0 + b_c) : 0.0f;
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kFbK; ++kk) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
#pragma unroll
          for (int j = 0; j < 4; ++j)
            acc[i][j] = fmaf(sA[kk][ty + i * kFbSide], sB[kk][tx + j * kFbSide], acc[i][j]);
        }
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const std::int64_t row = row0 + ty + i * kFbSide;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const std::int64_t col = col0 + tx + j * kFbSide;
        if (row < p.m && col < p.n) store_c(p.c + row * p.ldc + col, acc[i][j], p.alpha, p.beta);
      }
    }
  }
}

}  // namespace

cudaError_t fp32_any(const Canonical& p, const int* flag, const Device& device,
                     cudaStream_t stream) {
  const std::int64_t tiles = ceil_div(p.n, kFbTile) * ceil_div(p.m, kFbTile) * p.batch;
  const std::int64_t cap =
      flag != nullptr ? kFbBlocksPerSm * std::int64_t(std::max(device.sms, 1)) : kFbMaxBlocks;
  const unsigned blocks = unsigned(std::min(tiles, cap));
  return launch_kernel(fallback_01_any_kernel, blocks, kFbThreads, 0, stream, p, flag);
}

}  // namespace sgemm::detail
