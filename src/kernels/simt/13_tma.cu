// Rung 13 — the Hopper pipeline: TMA fills a ring of shared-memory stages, a producer warp and
// two consumer warpgroups split the work, and a persistent grid walks the tiles in L2-friendly
// order.
//
// What changes from rung 12 (the pipeline itself is in 13_tma.cuh, shared with rung 14):
// - No thread copies anything: per k-tile one thread issues two TMA loads, which complete on the
//   stage's "full" mbarrier; edges are zero-filled by the copy engine.
// - Warp specialization: a producer warpgroup (one thread issues the loads; setmaxnreg.dec gives
//   its registers away) and two consumer warpgroups (setmaxnreg.inc to 232) that release a stage
//   through its "empty" mbarrier. No __syncthreads in the main loop.
// - A 16 x 8 thread tile (128 accumulators), paid for with the producer's registers.
// - A persistent grid: one CTA per SM takes tiles blockIdx.x, blockIdx.x + gridDim.x, ... and its
//   producer runs into the next tile while the consumers write the last one out.
#include "kernels/simt/13_tma.cuh"

namespace sgemm::detail {

#ifdef SGEMM_HAS_SM90A
namespace {

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Whole tiles, round-robin over the CTAs.
struct PersistentTiles {
  std::int64_t num_tiles, next_tile;
  int k_tiles;

  __device__ PersistentTiles(std::int64_t tiles, int k) : num_tiles(tiles), next_tile(blockIdx.x), k_tiles(k) {}

  __device__ bool next(WorkItem& w) {
    if (next_tile >= num_tiles) return false;
    w = {next_tile, 0, k_tiles};
    next_tile += gridDim.x;
    return true;
  }

  template <class Store>
  __device__ void finish(const WorkItem&, float (&acc)[kTM][kTN], const Store& store) const {
    store(acc);
  }
};
#endif  // sm_90a device code

template <bool AKMajor, bool BKMajor>
__global__ void __launch_bounds__(kThreads, 1)
    simt_13_tma_kernel(const Canonical p, const __grid_constant__ CUtensorMap tmap_a,
                       const __grid_constant__ CUtensorMap tmap_b, const TileOrder order,
                       const bool c_vec4) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const PersistentTiles schedule(order.tiles_m * order.tiles_n, int((p.k + kBK - 1) / kBK));
  tma_gemm<AKMajor, BKMajor>(p, tmap_a, tmap_b, order, c_vec4, schedule);
#endif
}

template <bool AKMajor, bool BKMajor>
cudaError_t launch_as(const Canonical& p, cudaStream_t stream) {
  PipelineArgs args;
  if (!make_pipeline_args<AKMajor, BKMajor>(p, args)) return cudaErrorInvalidValue;
  const auto kernel = simt_13_tma_kernel<AKMajor, BKMajor>;
  const int sms = device_sm_count();
  if (sms == 0) return cudaErrorNoDevice;
  if (cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             kSmemBytes);
      err != cudaSuccess)
    return err;
  const std::int64_t ctas = std::min<std::int64_t>(args.order.tiles_m * args.order.tiles_n, sms);
  kernel<<<unsigned(ctas), kThreads, kSmemBytes, stream>>>(p, args.tmap_a, args.tmap_b,
                                                           args.order, args.c_vec4);
  return cudaGetLastError();
}

cudaError_t launch(const Canonical& p, cudaStream_t stream) {
  return with_majorness(
      p, [&]<bool AKMajor, bool BKMajor>() { return launch_as<AKMajor, BKMajor>(p, stream); });
}

}  // namespace
#endif  // SGEMM_HAS_SM90A

SGEMM_KERNEL_ENTRIES(simt_13_tma) {
#ifdef SGEMM_HAS_SM90A
  static const KernelEntry entries[] = {{
      {"simt-13-tma", Track::Simt, 13,
       "Hopper pipeline: TMA ring, producer/consumer warpgroups, 16 x 8 per thread, persistent",
       Math::Fp32, "beyond the seeds: Hopper TMA, mbarrier, setmaxnreg (seed 001's ideas taken on)",
       "compute capability 9.0 (sm_90a); A, B 16-byte aligned; lda, ldb multiples of 4"},
      why_not, launch, 20, auto_suits}};
  return entries;
#else
  return {};
#endif
}

}  // namespace sgemm::detail
