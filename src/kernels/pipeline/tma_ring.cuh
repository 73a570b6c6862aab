// The ring of shared-memory stages that a TMA producer fills and consumer warps drain, with a
// "full" and an "empty" mbarrier per stage: the pipeline of the TMA-fed rungs (CUDA-core 13,
// tensor-core 02 to 04) and of conv rung 04, whose producer fills it by cp.async.
#pragma once

#ifdef SGEMM_HAS_SM90A
#include <cstdint>

#include "kernels/arch/hopper.cuh"

namespace sgemm::detail {

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)

// kStages buffers of kStageBytes each in dynamic shared memory, aligned by hand to 1024 bytes
// (what the 128-byte swizzle needs), then a "full" mbarrier per stage (the producer's
// arrive.expect_tx, completed by the TMA unit's bytes) and an "empty" one (one arrival per
// consumer warp that has finished reading the stage).
template <int kStages, int kStageBytes>
struct TmaRing {
  static constexpr int kBarrierOffset = kStages * kStageBytes;
  static constexpr int kSmemBytes = kBarrierOffset + 2 * kStages * 8 + 1024;  // + alignment slack

  std::uint32_t base;          // shared address of stage 0, for TMA, wgmma and the barriers
  const std::uint8_t* stages;  // stage 0 as a pointer, for ordinary shared-memory loads

  __device__ explicit TmaRing(const std::uint8_t* smem_raw)
      : base((smem_address(smem_raw) + 1023) & ~1023u),
        stages(smem_raw + (1024 - smem_address(smem_raw) % 1024) % 1024) {}
  __device__ std::uint32_t stage(int s) const { return base + s * kStageBytes; }
  __device__ std::uint32_t full(int s) const { return base + kBarrierOffset + 8 * s; }
  __device__ std::uint32_t empty(int s) const { return base + kBarrierOffset + 8 * (kStages + s); }
  // Thread 0 initializes the barriers; the whole block then syncs. A stage fills with
  // `producer_arrivals` arrivals (and the bytes they announce): the one TMA thread's, or one per
  // thread of a cp.async producer.
  __device__ void init(int consumer_warps, int producer_arrivals = 1) const {
    if (threadIdx.x == 0) {
      for (int s = 0; s < kStages; ++s) {
        mbar_init(full(s), producer_arrivals);
        mbar_init(empty(s), consumer_warps);
      }
      fence_barrier_init();
    }
    __syncthreads();
  }
};

#endif  // sm_90a device code

}  // namespace sgemm::detail
#endif  // SGEMM_HAS_SM90A
