// Conv rung 04 — implicit GEMM on Hopper's wgmma: the precomputed offsets feeding a
// warp-specialized mbarrier ring (Tf32).
//
// What changes from rung 03:
// - The tensor cores run wgmma.mma_async m64nNk8 from shared memory, a warpgroup at a time, as
//   tensor-core rung 02 does: two consumer warpgroups own 64 output pixels each of a 128-pixel
//   block tile, N = 64, 128 or 256 output channels (the fewest that hold the group's).
// - A producer warpgroup fills the ring with cp.async rather than TMA: a k-tile is 32 channels
//   of one filter tap (C / G a multiple of 32), so each of the tile's 128 rows is 128 bytes of
//   one input pixel, or zeros in the padding, and the producer's threads place the 16-byte
//   chunks in the 128-byte swizzle wgmma reads (the layout TMA would write). The filters come
//   the same way, K-major as they lie.
// - Each producer thread waits for its own copies a few k-tiles behind, rounds those chunks to
//   TF32 in place (the tensor cores would otherwise drop the low 13 mantissa bits: 6.9e-4
//   relative error on ResNet-50's layers against cuDNN TF32's 2.6e-4), fences them over to the
//   async proxy and arrives on the stage's "full" barrier.
// - Persistent: one block per SM walks the tiles; the producer runs on into the block's next tile
//   while the consumers store the last one.
#include "kernels/arch/cp_async.cuh"
#include "kernels/arch/wgmma.cuh"
#include "kernels/conv/precomp.cuh"
#include "kernels/epilogue/store.cuh"
#include "kernels/pipeline/tma_ring.cuh"
#include "kernels/tensorcore/pack.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {

#ifdef SGEMM_HAS_SM90A
namespace {

constexpr int kBM = 128, kBK = kSwizzleRowFloats;
constexpr int kConsumers = 2, kWarpgroup = 128, kThreads = kWarpgroup * (1 + kConsumers);
constexpr int kChunks = kBK / 4;                      // 16-byte chunks per tile row
constexpr int kRowsPerPass = kWarpgroup / kChunks;    // tile rows one pass of the producer copies
constexpr int kALoads = kBM / kRowsPerPass;           // 8 rows of A per producer thread
static_assert(kBM == kConsumers * kWgmmaM);

template <int kBN>
struct Config {
  static constexpr int kATileBytes = kBM * kBK * 4, kBTileBytes = kBN * kBK * 4;
  static constexpr int kBLoads = kBN / kRowsPerPass;
  // 192 KB of stages at every N: the narrower tiles take a k-tile sooner, so more of them must
  // be in flight to cover the copies' latency. kLag: k-tiles whose copies may still be in flight
  // behind the one the producer publishes.
  static constexpr int kStages = 192 * 1024 / (kATileBytes + kBTileBytes), kLag = kStages - 2;
  using Ring = TmaRing<kStages, kATileBytes + kBTileBytes>;
};

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
// 128 * 136 + 256 * 184 = 64512, the 168 registers of 384 threads that the block starts with (a
// larger sum leaves setmaxnreg.inc waiting for registers that never come). Without the split
// N = 256 spilled (14 local loads): its consumers hold 128 accumulators, its producer 8 rows'
// offsets and 24 chunks to round.
constexpr int kProducerRegisters = 136, kConsumerRegisters = 184;
static_assert(kWarpgroup * (kProducerRegisters + kConsumers * kConsumerRegisters) <=
              kThreads * (65536 / kThreads / 8 * 8));

// Tile `tile` of the grid's walk: the group slowest, then output pixels, then channels (blocks
// that run together share their input rows).
struct ConvTile {
  std::int64_t m0, n0;
  int group;
};
__device__ __forceinline__ ConvTile conv_tile_at(const ConvProblem& p, std::int64_t tile,
                                                 int bn) {
  const std::int64_t tiles_n = ceil_div(p.gemm_n(), bn);
  const std::int64_t per_group = ceil_div(p.gemm_m(), kBM) * tiles_n;
  const std::int64_t in_group = tile % per_group;
  return {in_group / tiles_n * kBM, in_group % tiles_n * bn, int(tile / per_group)};
}

template <int kBN>
__device__ __forceinline__ void conv_wgmma_tiles(const PrecompArgs& args) {
  using Cfg = Config<kBN>;
  constexpr int kAccs = kBN / 2;  // accumulator floats per thread of a 64 x kBN tile
  constexpr int kStages = Cfg::kStages, kLag = Cfg::kLag;
  const ConvProblem& p = args.p;
  extern __shared__ std::uint8_t smem_raw[];
  const typename Cfg::Ring ring(smem_raw);
  auto a_tile = [&](int s) { return ring.stage(s); };
  auto b_tile = [&](int s) { return ring.stage(s) + Cfg::kATileBytes; };
  const std::int64_t tiles =
      ceil_div(p.gemm_m(), kBM) * ceil_div(p.gemm_n(), kBN) * p.shape.groups;
  const int num_k_tiles = int(p.gemm_k() / kBK);
  const int warpgroup = threadIdx.x / kWarpgroup;

  ring.init(kConsumers * 4, kWarpgroup);  // a stage is full once every producer thread arrives

  if (warpgroup == 0) {
    // Producer: thread t copies chunk t % 8 of tile rows t / 8 + 16 i, of A and of B. All of its
    // rows have the same row % 8, so the chunk's place in the swizzle is the same for each.
    setmaxnreg_dec<kProducerRegisters>();
    const int t = threadIdx.x, chunk = t % kChunks, first_row = t / kChunks;
    const int swizzled_chunk = (chunk ^ (first_row % 8)) << 4;
    const int cg = int(p.shape.c / p.shape.groups);
    // Stage s once this thread's copies into it have landed: its chunks rounded to TF32 in place,
    // made visible to the tensor cores (async proxy), and the thread's arrival on "full".
    auto publish = [&](int s) {
      auto round_chunk = [&](std::uint32_t at) {
        float4& v = *reinterpret_cast<float4*>(const_cast<std::uint8_t*>(ring.stages) +
                                               (at - ring.base));
        v = {to_tf32(v.x), to_tf32(v.y), to_tf32(v.z), to_tf32(v.w)};
      };
#pragma unroll
      for (int i = 0; i < kALoads; ++i)
        round_chunk(a_tile(s) + (first_row + i * kRowsPerPass) * 128 + swizzled_chunk);
#pragma unroll
      for (int i = 0; i < Cfg::kBLoads; ++i)
        round_chunk(b_tile(s) + (first_row + i * kRowsPerPass) * 128 + swizzled_chunk);
      fence_async_shared();
      mbar_arrive(ring.full(s));
    };
    int it = 0;  // k-tiles loaded so far, over all of this block's tiles
    for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
      const ConvTile at = conv_tile_at(p, tile, kBN);
      PrecompRow rows[kALoads];
#pragma unroll
      for (int i = 0; i < kALoads; ++i)
        rows[i] = PrecompRow(p, at.group, at.m0 + first_row + i * kRowsPerPass);
      // The thread's first filter at its chunk, and how many of its filters the group has.
      const std::int64_t first_filter = at.n0 + first_row;
      const float* w_first = p.w + (at.group * p.gemm_n() + first_filter) * p.gemm_k() + chunk * 4;
      const std::int64_t w_step = kRowsPerPass * p.gemm_k();
      const int filters = int(ceil_div(std::max<std::int64_t>(p.gemm_n() - first_filter, 0),
                                       kRowsPerPass));
      int tap = 0, c = 0;  // the k-tile's filter tap and first channel
      for (int kt = 0; kt < num_k_tiles; ++kt, ++it) {
        const int s = it % kStages;
        mbar_wait(ring.empty(s), ((it / kStages) & 1) ^ 1);
        const std::int64_t offset = args.taps.offset[tap] + c + chunk * 4;
        const int dh = args.taps.dh[tap], dw = args.taps.dw[tap];
#pragma unroll
        for (int i = 0; i < kALoads; ++i) {
          const bool in = rows[i].reads(p.shape, dh, dw);
          cp_async16(a_tile(s) + (first_row + i * kRowsPerPass) * 128 + swizzled_chunk,
                     in ? p.x + rows[i].base + offset : p.x, in ? 16 : 0);
        }
        const std::int64_t k0 = std::int64_t(kt) * kBK;
#pragma unroll
        for (int i = 0; i < Cfg::kBLoads; ++i)
          cp_async16(b_tile(s) + (first_row + i * kRowsPerPass) * 128 + swizzled_chunk,
                     i < filters ? w_first + i * w_step + k0 : p.w, i < filters ? 16 : 0);
        cp_async_commit();
        // The copies of k-tile it - kLag have landed (at most kLag later groups in flight).
        if (it >= kLag) {
          cp_async_wait<kLag>();
          publish((it - kLag) % kStages);
        }
        c += kBK;
        if (c == cg) c = 0, ++tap;
      }
    }
    cp_async_wait<0>();
    for (int j = std::max(it - kLag, 0); j < it; ++j) publish(j % kStages);
    return;
  }

  // Consumers: warpgroup c holds output pixels 64c .. 64c + 63 of the block tile.
  setmaxnreg_inc<kConsumerRegisters>();
  const int consumer = warpgroup - 1;
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  auto release = [&](int it) {
    if (lane == 0) mbar_arrive(ring.empty(it % kStages));
  };
  int it = 0;
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const ConvTile at = conv_tile_at(p, tile, kBN);
    float acc[kAccs] = {};
    for (int kt = 0; kt < num_k_tiles; ++kt, ++it) {
      const int s = it % kStages;
      mbar_wait(ring.full(s), (it / kStages) & 1);
      const std::uint64_t a_desc = smem_desc(a_tile(s) + consumer * kWgmmaM * 128);
      const std::uint64_t b_desc = smem_desc(b_tile(s));
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < kBK / kWgmmaK; ++ks)
        wgmma_tf32<kBN>(acc, a_desc + ks * kDescK8Step, b_desc + ks * kDescK8Step, 1);
      wgmma_commit();
      wgmma_wait<1>();  // k-tile kt - 1 is done: its stage is free
      if (kt > 0) release(it - 1);
    }
    wgmma_wait<0>();
    fence_operands(acc);
    if (num_k_tiles > 0) release(it - 1);

    // acc[4j + 2h + e] is output pixel 16 warp + lane / 4 + 8 h, channel 8j + 2 (lane % 4) + e of
    // the warpgroup's 64 x kBN tile.
    const std::int64_t n = p.gemm_n(), k_out = p.shape.k;
    float* const y = p.y + at.group * n;
    const bool paired = k_out % 2 == 0 && reinterpret_cast<std::uintptr_t>(y) % 8 == 0;
    const std::int64_t row_base = at.m0 + consumer * kWgmmaM + 16 * warp + lane / 4;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::int64_t row = row_base + 8 * h;
      if (row >= p.gemm_m()) continue;
#pragma unroll
      for (int j = 0; j < kBN / 8; ++j)
        store_c2(y + row * k_out, at.n0 + 8 * j + 2 * (lane % 4), n, acc[4 * j + 2 * h],
                 acc[4 * j + 2 * h + 1], p.alpha, p.beta, paired);
    }
  }
}

#endif  // sm_90a device code

template <int kBN>
__global__ void __launch_bounds__(kThreads, 1) conv_04_wgmma_tf32_kernel(const PrecompArgs args) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  conv_wgmma_tiles<kBN>(args);
#endif
}

std::string_view why_not(const ConvProblem& p, const Device& device) {
  if (std::string_view r = needs_sm90_tma(device); !r.empty()) return r;
  if ((p.shape.c / p.shape.groups) % kBK != 0)
    return "needs C / groups a multiple of 32 (a k-tile inside one filter tap)";
  // 16-byte copies: every pixel's channels and every filter start 16 bytes apart from x and w.
  if (!aligned16(p.x) || !aligned16(p.w)) return "needs x and w 16-byte aligned";
  if (p.gemm_k() / kBK >= (std::int64_t(1) << 31)) return "needs R S C / groups below 2^36";
  return precomp_why_not(p);
}

template <int kBN>
cudaError_t launch_tiles(const ConvProblem& p, const LaunchArgs& args) {
  constexpr int bytes = Config<kBN>::Ring::kSmemBytes;
  if (cudaError_t err = set_max_dynamic_smem(conv_04_wgmma_tf32_kernel<kBN>, bytes)) return err;
  const std::int64_t tiles =
      ceil_div(p.gemm_m(), kBM) * ceil_div(p.gemm_n(), kBN) * p.shape.groups;
  const unsigned blocks = unsigned(std::min<std::int64_t>(tiles, args.device.sms));
  return launch_kernel(conv_04_wgmma_tf32_kernel<kBN>, blocks, kThreads, bytes, args.stream,
                       precomp_args(p));
}

// N: the group's output channels up to 256. Every k-tile brings A, 16 KB, from L2 for kBN output
// channels, so a wider tile reads less per FLOP.
cudaError_t launch(const ConvProblem& p, const LaunchArgs& args) {
  if (p.gemm_n() <= 64) return launch_tiles<64>(p, args);
  return p.gemm_n() <= 128 ? launch_tiles<128>(p, args) : launch_tiles<256>(p, args);
}

}  // namespace
#endif  // SGEMM_HAS_SM90A

SGEMM_CONV_KERNEL_ENTRIES(conv_04_wgmma) {
#ifdef SGEMM_HAS_SM90A
  static const ConvKernelEntry entries[] = {
      {{"conv-04-wgmma-tf32", Track::Conv, 4,
        "implicit precomp GEMM on Hopper wgmma: a cp.async producer warpgroup places the "
        "per-tap tiles in the 128-byte swizzle of an mbarrier ring, two consumer warpgroups",
        Math::Tf32, "seed 001's extension on tensor-core rung 02",
        "compute capability 9.0 (sm_90a); C / groups a multiple of 32, x and w 16-byte aligned",
        Unit::Tf32Tensor},
       why_not, launch}};
  return entries;
#else
  return {};
#endif
}

}  // namespace sgemm::detail
