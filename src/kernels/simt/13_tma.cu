// Rung 13 — the Hopper pipeline: TMA fills a ring of shared-memory stages, a producer warp and
// two consumer warpgroups split the work, and a persistent grid walks the tiles in L2-friendly
// order.
//
// What changes from rung 12:
// - No thread copies anything. Per k-tile one thread issues two TMA loads (cp.async.bulk.tensor):
//   the copy engine reads a 2-D box of A and one of B, fills zeros wherever the box hangs past the
//   matrix (every edge is free), and counts the bytes into the stage's "full" mbarrier.
// - Warp specialization. Warpgroup 0 produces: one thread issues the loads, and the warpgroup gives
//   its registers back (setmaxnreg.dec). Warpgroups 1 and 2 consume (setmaxnreg.inc to 232): a warp
//   waits on a stage's full barrier, multiplies, and arrives on the stage's "empty" barrier, which
//   the producer waits on before it refills the stage. No __syncthreads in the main loop: a warp
//   waits only when its data is not there yet, and never for a slower warp.
// - A bigger thread tile: 16 x 8 results (128 accumulators) take 24 LDS.128 per 512 FFMAs, where
//   rungs 11-12 needed 32; the registers for it are the producer's.
// - Four block tiles of the same work (tma_tiles.hpp): the 8 consumer warps' 64 x 64 parts of C
//   as 2 x 4 (128 x 256), 4 x 2, 1 x 8 (64 x 512, for at most 64 rows) or 8 x 1 (512 x 64, for
//   at most 64 columns); a call runs on the one that pads C least. TMA boxes hold at most 256
//   rows, so an operand's tile of 512 arrives as two panels of 256.
// - A persistent grid: one CTA per SM loops over tiles, and the producer runs into the next tile
//   while the consumers write the last one out. Tiles are numbered kGroupM tile-rows at a time, so
//   that the CTAs working at the same time share panels of A and B in L2.
// - The last round as a second kernel (stream-K for the tail, pipeline/tail_split.cuh): with T
//   tiles on G CTAs, the R = T mod G tiles of the last round (4096³: 512 tiles on 132 SMs, the
//   fourth round 116/132 full) are cut along k over all SMs by a tail kernel, the same template
//   with kTail set. Where that leaves a tile's sums in many slots (few tiles, long k), a third
//   kernel adds them over all SMs.
//
// TMA cannot transpose. An operand stored along m (or n) lands as s[k][m] and is read as in rungs
// 11-12. A K-major one lands as s[m][k], rows of kBK = 8 floats (32 bytes), and is read along k:
// one LDS.128 gives one row's values at 4 consecutive k. So the inner loop works a quad of 4
// k-steps at a time: a thread holds B's 4 x 8 values of the quad in registers and streams its 16
// rows of A through, 4 rows x 4 k (4 LDS.128, either layout) at a time, each followed by 128 FFMAs.
//
// Shared-memory reads: an LDS.128 returns 512 bytes to a warp, 4 cycles at 128 bytes per cycle,
// or 2 when lanes n and n^1 (or n and n^2) all read the same address; lanes are interleaved so
// that every read here qualifies (rung 11 explains). Each half-warp then needs its 8 distinct
// 16-byte chunks in different bank groups. A thread's rows of A are tm + 4i: a half-warp reads 2
// rows of one 128-byte line. Its columns of a K-major B are tn + 8j: 8 rows of 32 bytes, two lines
// at the same offsets, which would take 2 wavefronts. TMA's 32-byte swizzle (bit 4 of the shared
// address, which half of a row, XOR bit 7, which line of a pair) swaps the halves in every other
// line, so the 8 chunks land in 8 different bank groups. With these strides the swizzle term is a
// compile-time constant (A) or fixed per thread (B).
//
// The pipeline itself (producer, consumers, tail kernels) is kernels/simt/tma_pipeline.cuh, which
// the convolution rung conv-05-tma-im2col runs too; this file is its feed of A and B tiles.
#include "kernels/simt/tile_loader.cuh"
#include "kernels/simt/tma_pipeline.cuh"

#ifdef SGEMM_HAS_SM90A
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#endif

namespace sgemm::detail {

#ifdef SGEMM_HAS_SM90A
namespace {

using namespace simt_tma;

// Device code for sm_90a only: in a multi-architecture build the other targets get an empty
// kernel, which is never launched (why_not asks for compute capability 9.0).
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
// The pipeline's feed (tma_pipeline.cuh): per k-tile one box of A and one of B, in panels of at
// most kMaxBoxRows rows.
template <class Tile, bool AKMajor, bool BKMajor>
struct TileFeed {
  const CUtensorMap& a;
  const CUtensorMap& b;

  __device__ void prefetch() const {
    prefetch_tensor_map(a);
    prefetch_tensor_map(b);
  }
  __device__ void load(std::uint32_t sA, std::uint32_t sB, std::uint32_t full, int m0, int n0,
                       int kt) const {
    const int k0 = kt * kBK;
    // The tensor maps' innermost dimension is the contiguous one: k for a K-major operand.
#pragma unroll
    for (int r = 0; r < Tile::kBM; r += Tile::kPanelA)
      tma_load(sA + r * kBK * 4, a, AKMajor ? k0 : m0 + r, AKMajor ? m0 + r : k0, full);
#pragma unroll
    for (int c = 0; c < Tile::kBN; c += Tile::kPanelB)
      tma_load(sB + c * kBK * 4, b, BKMajor ? k0 : n0 + c, BKMajor ? n0 + c : k0, full);
  }
};
#endif  // sm_90a device code

// kTail = false: the whole tiles; true: the tail's pieces.
template <class Tile, bool AKMajor, bool BKMajor, bool kTail>
__global__ void __launch_bounds__(kThreads, 1)
    simt_13_tma_kernel(const Canonical p, const __grid_constant__ CUtensorMap tmap_a,
                       const __grid_constant__ CUtensorMap tmap_b, const TileOrder order,
                       const bool c_vec4, const TailSplit tail) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  run_pipeline<Tile, AKMajor, BKMajor, kTail>(p, TileFeed<Tile, AKMajor, BKMajor>{tmap_a, tmap_b},
                                              order, c_vec4, tail);
#endif
}

// --- host side ---------------------------------------------------------------------------------

// Operand X (rows x k: A, or B^T) as a 2-D tensor whose innermost dimension is the contiguous one,
// read in boxes of kBK k-steps x box_rows rows. A K-major box has 32-byte rows and is swizzled
// (see the top of the file); an MN-major one lands as it is. Zeros past the tensor's edges.
bool make_tensor_map(CUtensorMap* map, const float* x, std::int64_t rows, std::int64_t k,
                     std::int64_t ld, bool k_major, int box_rows) {
  const cuuint64_t dims[2] = {cuuint64_t(k_major ? k : rows), cuuint64_t(k_major ? rows : k)};
  const cuuint64_t strides[1] = {cuuint64_t(ld) * 4};
  const cuuint32_t box[2] = {cuuint32_t(k_major ? kBK : box_rows),
                             cuuint32_t(k_major ? box_rows : kBK)};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode_tiled()(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(x), dims,
                        strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        k_major ? CU_TENSOR_MAP_SWIZZLE_32B : CU_TENSOR_MAP_SWIZZLE_NONE,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

std::string_view why_not(const Canonical& p, const Device& device) {
  if (const auto reason = needs_sm90_tma(device); !reason.empty()) return reason;
  if (!aligned16(p.a) || !aligned16(p.b)) return "needs A and B 16-byte aligned (TMA)";
  if (p.lda % 4 || p.ldb % 4)
    return "needs lda and ldb multiples of 4 (TMA row strides are multiples of 16 bytes)";
  // With C's rows stored one float at a time (C not 16-byte aligned, or ldc % 4 != 0) the kernel
  // returned wrong sums, differently from run to run, on a column-major NN 3328 x 2559 x 1152
  // call with ldc = 3331 (H200); with float4 stores of C the same call is right. Until that race
  // is found, such calls go to the other kernels.
  if (!aligned16(p.c) || p.ldc % 4)
    return "needs C 16-byte aligned and ldc a multiple of 4 (float4 stores of C)";
  if (std::max({p.m, p.n, p.k}) > INT_MAX) return "needs m, n, k < 2^31 (TMA coordinates)";
  if (const auto reason = needs_tma_strides(std::max(p.lda, p.ldb)); !reason.empty())
    return reason;
  return {};
}

std::size_t workspace_bytes(const Canonical& p, const Device& device, const KernelEntry*) {
  return pipeline_workspace_bytes(p, device);
}

std::string configuration(const Canonical& p, const Device& device) {
  return pipeline_configuration(p, device);
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  return with_block_tile(p, [&]<class Tile>() {
    return with_majorness(p, [&]<bool AKMajor, bool BKMajor>() {
      CUtensorMap tmap_a, tmap_b;
      if (!make_tensor_map(&tmap_a, p.a, p.m, p.k, p.lda, AKMajor, Tile::kPanelA) ||
          !make_tensor_map(&tmap_b, p.b, p.n, p.k, p.ldb, BKMajor, Tile::kPanelB))
        return cudaErrorInvalidValue;
      return launch_pipeline<Tile, AKMajor, BKMajor>(
          p, args, simt_13_tma_kernel<Tile, AKMajor, BKMajor, false>,
          simt_13_tma_kernel<Tile, AKMajor, BKMajor, true>,
          [&](auto kernel, unsigned ctas, const TileOrder& order, bool c_vec4,
              const TailSplit& split) {
            return launch_kernel(kernel, ctas, kThreads, Tile::Ring::kSmemBytes, args.stream, p,
                                 tmap_a, tmap_b, order, c_vec4, split);
          });
    });
  });
}

}  // namespace
#endif  // SGEMM_HAS_SM90A

SGEMM_KERNEL_ENTRIES(simt_13_tma) {
#ifdef SGEMM_HAS_SM90A
  static const KernelEntry entries[] = {{
      {"simt-13-tma", Track::Simt, 13,
       "Hopper pipeline: TMA ring, producer/consumer warpgroups, 16 x 8 per thread, persistent; "
       "block tiles of 128 x 256, 256 x 128, 64 x 512 or 512 x 64",
       Math::Fp32, "beyond the seeds: Hopper TMA, mbarrier, setmaxnreg (seed 001's ideas taken on)",
       "compute capability 9.0 (sm_90a); A, B, C 16-byte aligned; lda, ldb, ldc multiples of 4"},
      why_not, launch, workspace_bytes, /*accepts_run_if=*/false, /*needs_handoff=*/false,
      /*batched=*/false, configuration}};
  return entries;
#else
  return {};
#endif
}

}  // namespace sgemm::detail

