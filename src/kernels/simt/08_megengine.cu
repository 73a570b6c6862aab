// Rung 08 — the MegEngine thread layout: 8 x 8 results per thread as 2 x 2 sub-tiles of 4 x 4,
// every shared-memory read a conflict-free LDS.128, and a budget of 128 registers per thread.
//
// Seed 001. A 128 x 128 block tile, 256 threads as a 16 x 16 grid, K-tiles of 16. Thread
// (ty, tx) owns rows 4 ty.. and 64 + 4 ty.., columns 4 tx.. and 64 + 4 tx.. (08_megengine.cuh
// explains why this layout reads shared memory without conflicts and without rung 07's swizzle).
//
// The resource budget, per SM of an H100 (65536 registers, up to 64 warps, 228 KB shared memory):
//  - registers: 64 accumulators + 16 operands of the current k-step + addresses and counters.
//    __launch_bounds__(256, 2) caps a thread at 65536 / (2 * 256) = 128 registers, so two blocks
//    (16 warps, 4 per scheduler) are resident at once: while one block waits at __syncthreads()
//    or on its global loads, the other one computes.
//  - shared memory: 16 x 132 floats for A and for B, 16.5 KB per block: not the limit.
//  - arithmetic intensity: per k-step a thread issues 4 LDS.128 for 64 FFMA; per K-tile a
//    block loads 2 x 128 x 16 floats for 128 x 128 x 16 FMAs (64 FMAs per float loaded).
// More registers per thread (one block per SM) would leave nobody to compute during a barrier;
// fewer (three blocks) would not hold the 8 x 8 tile.
#include "kernels/simt/08_megengine.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kBM = 128, kBN = 128, kBK = 16, kTM = 8, kTN = 8;
constexpr int kThreads = MegEngineTile<kBM, kBN, kBK, kTM, kTN>::kThreads;  // 256
constexpr int kBlocksPerSM = 2;

template <bool AKMajor, bool BKMajor>
__global__ void __launch_bounds__(kThreads, kBlocksPerSM) simt_08_megengine_kernel(Canonical p) {
  megengine_block_tile<kBM, kBN, kBK, kTM, kTN, AKMajor, BKMajor>(p);
}

std::string_view why_not(const Canonical& p, const Device&) {
  if (auto reason = needs_vec4(p); !reason.empty()) return reason;
  return needs_grid(ceil_div(p.n, kBN), ceil_div(p.m, kBM));
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  const dim3 grid(ceil_div(p.n, kBN), ceil_div(p.m, kBM));
  return with_majorness(p, [&]<bool AKMajor, bool BKMajor>() {
    return launch_kernel(simt_08_megengine_kernel<AKMajor, BKMajor>, grid, kThreads, 0, args.stream, p);
  });
}

}  // namespace

SGEMM_KERNEL_ENTRIES(simt_08_megengine) {
  static const KernelEntry entries[] = {{
      {"simt-08-megengine", Track::Simt, 8,
       "MegEngine layout: 2 x 2 sub-tiles of 4 x 4 per thread, conflict-free LDS.128, 128 regs",
       Math::Fp32, "seed 001 (MegEngine: thread layout, register and occupancy budget)",
       kVec4Requirement},
      why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail
