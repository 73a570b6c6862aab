// Rung 06 — vectorized access: float4 loads from global memory, A transposed into shared memory,
// LDS.128 reads of the thread's 8 values of A and B, float4 stores of C.
//
// Seed 000, kernel 6. The tiling is rung 05's (128 x 128 x 8 block tile, 256 threads, 8 x 8
// results per thread); what changes is the width of every memory instruction: one 16-byte chunk
// of A and one of B per thread and K-tile instead of four floats each, LDS.128 reads, float4 C.
// The block tile itself is in 06_vectorized.cuh, generic in the shared-memory layout so that
// rung 07 can change the layout alone.
//
// Shared memory holds both tiles K-outer, sA[kk][i] and sB[kk][j]: the plain layout of the seed,
// rows of 128 floats. A K-major A (or B) is transposed on its way in. This layout has bank
// conflicts (the transposed stores, the stride of the B reads): rung 07 measures and removes them.
//
// Every shape still works: a chunk that sticks out of the matrix (over the K edge, or over the
// M/N edge of an M/N-major operand) is read element by element with zeros past the edge, and
// the float4 store of C falls back to scalar stores at the right edge. Requires needs_vec4.
#include "kernels/simt/06_vectorized.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

template <bool AKMajor, bool BKMajor>
__global__ void __launch_bounds__(kThreads, kBlocksPerSM) simt_06_vectorized_kernel(Canonical p) {
  vectorized_block_tile<KOuterLayout<kBM>, KOuterLayout<kBN>, AKMajor, BKMajor>(p);
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  return with_majorness(p, [&]<bool AKMajor, bool BKMajor>() {
    return launch_kernel(simt_06_vectorized_kernel<AKMajor, BKMajor>, vectorized_grid(p), kThreads, 0, args.stream, p);
  });
}

}  // namespace

SGEMM_KERNEL_ENTRIES(simt_06_vectorized) {
  static const KernelEntry entries[] = {{
      {"simt-06-vectorized", Track::Simt, 6,
       "vectorized: float4 global loads, A transposed into shared memory, LDS.128, float4 C",
       Math::Fp32, "seed 000, kernel 6 (vectorize SMEM and GMEM accesses)", kVec4Requirement},
      vectorized_why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail
