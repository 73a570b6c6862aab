// Rung 07 — bank-conflict-free shared memory: rung 06 with a padded, swizzled tile layout.
//
// Shared memory has 32 banks of 4 bytes; a warp's access takes one pass ("wavefront") per
// distinct 4-byte word a bank must deliver, and a 16-byte access is served a quarter-warp
// (8 threads, 128 bytes) at a time. Rung 06 loses passes in two places:
//
//  1. The transposed stores of a K-major operand. A warp holds 16 rows x 2 float4 chunks along K;
//     each of its four STS.32 writes column o of rows kk and kk + 4. With the row stride 128
//     (0 mod 32) both rows map o to the same bank: 2-way conflict, 2 wavefronts per store.
//     Fix: pad each row to 132 floats. Rows 4 apart then start 16 banks apart and the 32 stores
//     of the warp hit 32 different banks.
//  2. The LDS.128 reads of B. Thread t reads sB[kk][8 (t % 16) ..]: a quarter-warp reads 8 chunks
//     32 bytes apart, which cover only half of the banks, twice: 2 wavefronts where 1 would do.
//     Fix: a swizzle. Flipping bit 2 of the column index where bit 5 is set swaps the two halves of
//     every 32-byte pair in alternate 128-byte blocks; the 8 chunks of a quarter-warp now fall on
//     8 different groups of 4 banks. A float4 stays contiguous (bits 0-1 are untouched), a thread
//     still reads its 8 values as two LDS.128, and the loads of A (one row per quarter-warp, a
//     broadcast) and the straight STS.128 of an M/N-major operand (8 chunks of one 128-byte block
//     per quarter-warp, permuted among themselves) stay conflict-free.
//
// Nothing else changes: this is rung 06's block tile (06_vectorized.cuh) run with this layout.
#include "kernels/simt/06_vectorized.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

// Tile row kk starts at kk * Stride (Stride = 4 mod 8: fix 1); within a row, column o is stored at
// o ^ ((o >> 3) & 4), bit 5 of o flipping bit 2 (fix 2).
template <int Stride>
struct SwizzledLayout {
  static_assert(Stride % 8 == 4, "rows 4 k-steps apart must start 16 banks apart");
  static constexpr int kStride = Stride;
  __device__ static int offset(int kk, int o) { return kk * Stride + (o ^ ((o >> 3) & 4)); }
};

template <bool AKMajor, bool BKMajor>
__global__ void __launch_bounds__(kThreads, kBlocksPerSM) simt_07_conflict_free_kernel(Canonical p) {
  vectorized_block_tile<SwizzledLayout<kBM + 4>, SwizzledLayout<kBN + 4>, AKMajor, BKMajor>(p);
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  return with_majorness(p, [&]<bool AKMajor, bool BKMajor>() {
    return launch_kernel(simt_07_conflict_free_kernel<AKMajor, BKMajor>, vectorized_grid(p), kThreads, 0, args.stream, p);
  });
}

}  // namespace

SGEMM_KERNEL_ENTRIES(simt_07_conflict_free) {
  static const KernelEntry entries[] = {{
      {"simt-07-conflict-free", Track::Simt, 7,
       "bank-conflict-free shared memory: rung 06 with padded rows and a swizzled column order",
       Math::Fp32, "seed 000, kernel 6 + padding/swizzle (bank conflicts)", kVec4Requirement},
      vectorized_why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail
