// CuTe rung 01 — the tiled shared-memory GEMM of seed 004, written with CuTe.
//
// CuTe's convention (the seed's): A is M x K, B is held as N x K, C is M x N, and a Tensor is a
// pointer plus a layout (shape : stride). Our row-major C and every storage order of A and B are
// just strides, so one kernel with runtime strides covers every layout and op:
//   C (m x n): (ldc, 1)     A (m x k): (lda, 1) if K-major else (1, lda)
//   B (n x k): (ldb, 1) if K-major else (1, ldb)
// A block computes a 64 x 64 tile of C in k-tiles of 16 (the seed's slice-k): local_tile cuts
// the block's tiles out of the matrices, local_partition hands each thread its share, once with
// a layout of threads for copying (global -> shared) and once with another for computing
// (shared -> FMA), and each k-tile is `copy` then `gemm`. Unlike the seed it handles every
// shape: identity tensors carry each element's (row, col) through the same partitioning, so
// loads past the edge become zeros and stores past the edge are skipped.
#include <cstdint>

#include <cute/tensor.hpp>

#include "kernels/epilogue/store.cuh"
#include "kernels/operand.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

using namespace cute;
using cute::Layout;  // not sgemm::Layout

constexpr int kBM = 64, kBN = 64, kBK = 16;  // the block's tile of C, and its k-tile
constexpr int kTM = 8, kTN = 8;              // each thread's share of the C tile
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);

__global__ void __launch_bounds__(kThreads) cute_01_tiled_kernel(Canonical p) {
  const int M = int(p.m), N = int(p.n), K = int(p.k);
  // Full matrices. The strides are runtime values (64-bit: row * ld can exceed 2^31).
  Tensor mA = make_tensor(make_gmem_ptr(p.a), make_shape(M, K),
                          make_stride(p.a_k_major ? p.lda : 1, p.a_k_major ? 1 : p.lda));
  Tensor mB = make_tensor(make_gmem_ptr(p.b), make_shape(N, K),
                          make_stride(p.b_k_major ? p.ldb : 1, p.b_k_major ? 1 : p.ldb));
  Tensor mC = make_tensor(make_gmem_ptr(p.c), make_shape(M, N), make_stride(p.ldc, Int<1>{}));
  // The same shapes holding each element's own coordinate: what the predicates compare.
  Tensor mcA = make_identity_tensor(shape(mA));  // mcA(i, k) = (i, k)
  Tensor mcB = make_identity_tensor(shape(mB));
  Tensor mcC = make_identity_tensor(shape(mC));

  // This block's tiles; `_` keeps every k-tile of A and B as a third mode.
  auto tile_a = make_tile(Int<kBM>{}, Int<kBK>{});
  auto tile_b = make_tile(Int<kBN>{}, Int<kBK>{});
  auto tile_c = make_tile(Int<kBM>{}, Int<kBN>{});
  Tensor gA = local_tile(mA, tile_a, make_coord(blockIdx.y, _));               // (BM,BK,k)
  Tensor gB = local_tile(mB, tile_b, make_coord(blockIdx.x, _));               // (BN,BK,k)
  Tensor gC = local_tile(mC, tile_c, make_coord(blockIdx.y, blockIdx.x));      // (BM,BN)
  Tensor cA = local_tile(mcA, tile_a, make_coord(blockIdx.y, _));              // (BM,BK,k)
  Tensor cB = local_tile(mcB, tile_b, make_coord(blockIdx.x, _));              // (BN,BK,k)
  Tensor cC = local_tile(mcC, tile_c, make_coord(blockIdx.y, blockIdx.x));     // (BM,BN)

  // Shared tiles, M-major (N-major for B) as in the seed.
  __shared__ float smem_a[kBM * kBK];
  __shared__ float smem_b[kBN * kBK];
  Tensor sA = make_tensor(make_smem_ptr(smem_a), make_layout(make_shape(Int<kBM>{}, Int<kBK>{})));
  Tensor sB = make_tensor(make_smem_ptr(smem_b), make_layout(make_shape(Int<kBN>{}, Int<kBK>{})));

  // Copying: the seed's layout of threads, one thread per row of the tile (64 x 1). Consecutive
  // threads touch consecutive rows, which is coalesced when the operand is M-major (N-major)
  // and strided when it is K-major; cute/02 specializes the copy on majorness instead.
  auto tA = make_layout(make_shape(Int<kThreads>{}, Int<1>{}));
  auto tB = make_layout(make_shape(Int<kThreads>{}, Int<1>{}));
  Tensor tAgA = local_partition(gA, tA, threadIdx.x);  // (1,BK,k)
  Tensor tAcA = local_partition(cA, tA, threadIdx.x);  // (1,BK,k)
  Tensor tAsA = local_partition(sA, tA, threadIdx.x);  // (1,BK)
  Tensor tBgB = local_partition(gB, tB, threadIdx.x);
  Tensor tBcB = local_partition(cB, tB, threadIdx.x);
  Tensor tBsB = local_partition(sB, tB, threadIdx.x);

  // Computing: an 8 x 8 grid of threads over the C tile, N fastest so that neighbouring threads
  // store neighbouring elements of our row-major C (the seed's C is column-major, so it runs M
  // fastest). local_partition deals rows out round-robin: thread (tm, tn) owns rows tm + 8i and
  // columns tn + 8j. Step<_1, X> partitions by the M mode of tC only, Step<X, _1> by N only.
  auto tC = make_layout(make_shape(Int<kBM / kTM>{}, Int<kBN / kTN>{}), LayoutRight{});
  Tensor tCsA = local_partition(sA, tC, threadIdx.x, Step<_1, X>{});   // (TM,BK)
  Tensor tCsB = local_partition(sB, tC, threadIdx.x, Step<X, _1>{});   // (TN,BK)
  Tensor tCgC = local_partition(gC, tC, threadIdx.x, Step<_1, _1>{});  // (TM,TN)
  Tensor tCcC = local_partition(cC, tC, threadIdx.x, Step<_1, _1>{});  // (TM,TN)
  Tensor tCrC = make_tensor_like(tCgC);                                // (TM,TN) registers
  clear(tCrC);

  // Predicates: an element is loaded only if its coordinate lies inside the matrix.
  Tensor tApA = lazy::transform(tAcA, [&](auto c) { return elem_less(c, shape(mA)); });
  Tensor tBpB = lazy::transform(tBcB, [&](auto c) { return elem_less(c, shape(mB)); });

  const int k_tiles = size<2>(gA);
  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    // copy: what lies outside the matrix (past M, N or K) stays zero. Past K both A and B are
    // zero, so no Inf * 0 can reach the sum.
    clear(tAsA);
    clear(tBsB);
    copy_if(tApA(_, _, k_tile), tAgA(_, _, k_tile), tAsA);
    copy_if(tBpB(_, _, k_tile), tBgB(_, _, k_tile), tBsB);
    __syncthreads();

    // gemm: tCrC(m, n) += tCsA(m, k) * tCsB(n, k), summed over the k-tile.
    cute::gemm(tCsA, tCsB, tCrC);
    __syncthreads();
  }

  // C = alpha * acc + beta * C for the elements inside the matrix.
  CUTE_UNROLL
  for (int i = 0; i < size(tCrC); ++i)
    if (elem_less(tCcC(i), shape(mC))) store_c(&tCgC(i), tCrC(i), p.alpha, p.beta);
}

std::string_view why_not(const Canonical& p, const Device&) {
  // Tile coordinates are 32-bit; the margin keeps the rounding up to whole tiles in range.
  constexpr std::int64_t kMaxDim = std::int64_t(1) << 30;
  if (p.m >= kMaxDim || p.n >= kMaxDim || p.k >= kMaxDim) return "needs m, n, k < 2^30";
  return needs_grid(ceil_div(p.n, kBN), ceil_div(p.m, kBM));
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  const dim3 grid(ceil_div(p.n, kBN), ceil_div(p.m, kBM));
  return launch_kernel(cute_01_tiled_kernel, grid, kThreads, 0, args.stream, p);
}

}  // namespace

SGEMM_KERNEL_ENTRIES(cute_01_tiled) {
  static const KernelEntry entries[] = {{
      {"cute-01-tiled", Track::Cute, 1,
       "CuTe tiled GEMM: local_tile / local_partition, copy then gemm per k-tile",
       Math::Fp32, "seed 004 (CuTe naive tile GEMM)", "m, n, k < 2^30"},
      why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail
