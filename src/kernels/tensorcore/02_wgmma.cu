// Tensor-core rung 02 — Hopper wgmma fed by TMA through an mbarrier ring, warp-specialized,
// in two maths: Fp32Tf32x3 (big + small TF32 parts, three products, FP32 accuracy) and Tf32.
//
// What changes from rung 01:
// - The tensor cores are driven a warpgroup (128 threads) at a time: wgmma.mma_async
//   m64nNk8 reads both operands straight from shared memory through 64-bit descriptors and
//   runs asynchronously, so no thread spends registers or issue slots on fragments.
// - Loads are one TMA instruction per tile, issued by one thread of a producer warpgroup.
//   Each stage of the ring has a "full" mbarrier (the TMA unit counts the bytes in) and an
//   "empty" mbarrier (each consumer warp arrives when its wgmmas are done reading).
// - Two consumer warpgroups own 64 rows each of a 128 x BN block tile.
//
// TF32 wgmma takes only K-major operands from shared memory; the packing pass stores A and
// B^T K-major, so every layout is one case here. In Tf32 mode an operand that is K-major in
// the user's memory already (and 16-byte aligned) is not packed: TMA reads it in place and
// fills zeros past m, n and k. The tiles are 32 floats (128 bytes) deep
// and TMA writes them with the 128-byte swizzle (16-byte chunk index XOR row % 8 within each
// 8-row, 1024-byte atom), the layout the descriptor's swizzle mode 1 describes: SBO = 1024
// bytes between 8-row groups, LBO unused (the whole K extent of one wgmma sits in one 128-byte
// row), and the k8 step inside the atom is a +32-byte start address.
//
// Tensor maps of packed data are FLOAT32, not TFLOAT32: the packed data is already rounded,
// and a TFLOAT32 load would round the small parts of the 3xTF32 split a second time.
//
// Fp32Tf32x3: BN = 128. A k-tile's 12 wgmmas (4 k8 steps x small*big, big*small, big*big) go
// into two fresh accumulators, one for the cross terms and one for big*big (the first wgmma of
// each with scale-d = 0), which are then added to the FP32 running sum. The tensor core's
// accumulator adds truncate; this way they only ever sum one k-tile, never mix the small
// terms with big*big, and the long sum is correctly rounded FP32 adds. Three sets of 64
// accumulators need more than the 168 registers 384 threads get, so the producer warpgroup
// gives registers back (setmaxnreg.dec to 40) and the consumers take them (setmaxnreg.inc to
// 232).
// Tf32: BN = 256 (128 accumulators), one wgmma per k8 step, one k-tile of wgmmas kept in
// flight while the next stage's barrier is awaited.
// A strided batch runs in one grid (y: the matrix): its matrices are packed one after another,
// so one tensor map covers them all, each matrix's parts at consecutive part coordinates.
#include <cstdint>

#include "kernels/arch/wgmma.cuh"
#include "kernels/epilogue/store.cuh"
#include "kernels/operand.cuh"
#include "kernels/pipeline/tile_order.cuh"
#include "kernels/pipeline/tma_ring.cuh"
#include "kernels/tensorcore/pack.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {

#ifdef SGEMM_HAS_SM90A
namespace {

constexpr int kBM = 128, kBK = kSwizzleRowFloats;
constexpr int kConsumers = 2, kWarpgroup = 128, kThreads = kWarpgroup * (1 + kConsumers);
static_assert(kBM == kConsumers * kWgmmaM && kBM % kPackTileMN == 0 && kPackTileK == kBK);

template <Tf32Mode kMode>
struct Config {
  static constexpr int kParts = kMode == Tf32Mode::Tf32x3 ? 2 : 1;
  static constexpr int kBN = kMode == Tf32Mode::Tf32x3 ? 128 : 256;
  static constexpr int kStages = kMode == Tf32Mode::Tf32x3 ? 3 : 4;
  static constexpr int kATileBytes = kBM * kBK * 4, kBTileBytes = kBN * kBK * 4;
  static constexpr int kStageBytes = kParts * (kATileBytes + kBTileBytes);
  using Ring = TmaRing<kStages, kStageBytes>;
};

// Device code for sm_90a only: in a multi-architecture build the other targets get empty
// kernels, which are never launched (why_not asks for compute capability 9.0).
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
// Register budget per thread after setmaxnreg: 128 * 40 + 256 * 232 = 64512 of the SM's 65536,
// exactly what 384 threads at the launch-bounds limit of 168 hold to begin with.
constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;

// --- the kernel --------------------------------------------------------------------------------

template <Tf32Mode kMode>
__device__ __forceinline__ void wgmma_tiles(const Canonical& call, const CUtensorMap& tmap_a,
                                            const CUtensorMap& tmap_b, const Tf32Operands& ops) {
  using Cfg = Config<kMode>;
  constexpr int kParts = Cfg::kParts, kBN = Cfg::kBN, kStages = Cfg::kStages;
  constexpr int kAccs = kBN / 2;  // accumulator floats per thread of an m64 x kBN tile
  if (tile_kernel_idle(ops)) return;  // gated off, or the FP32 fallback computes this call
  // Matrix blockIdx.y of a batch: its C, and its packed parts at part coordinates y * kParts + q.
  const Canonical p = call.matrix(blockIdx.y);
  const int first_part = int(blockIdx.y) * kParts;
  extern __shared__ std::uint8_t smem_raw[];
  const typename Cfg::Ring ring(smem_raw);
  auto a_tile = [&](int stage, int part) { return ring.stage(stage) + part * Cfg::kATileBytes; };
  auto b_tile = [&](int stage, int part) {
    return ring.stage(stage) + kParts * Cfg::kATileBytes + part * Cfg::kBTileBytes;
  };

  std::int64_t tile_m, tile_n;
  grouped_tile(blockIdx.x, ops.mp / kBM, (ops.np + kBN - 1) / kBN, tile_m, tile_n);
  const int num_k_tiles = int(ops.kp / kBK);
  const int warpgroup = threadIdx.x / kWarpgroup;

  ring.init(kConsumers * 4);  // one arrival per consumer warp empties a stage

  if (warpgroup == 0) {
    // Producer: one thread keeps the ring full. Stage s is refilled once both consumer
    // warpgroups have released its previous contents. The warpgroup hands most of its
    // registers to the consumers.
    setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) {
      const int row_a = int(tile_m * kBM), row_b = int(tile_n * kBN);
      for (int kt = 0; kt < num_k_tiles; ++kt) {
        const int s = kt % kStages, round = kt / kStages;
        mbar_wait(ring.empty(s), (round & 1) ^ 1);
        mbar_arrive_expect_tx(ring.full(s), Cfg::kStageBytes);
        for (int q = 0; q < kParts; ++q) {
          tma_load(a_tile(s, q), tmap_a, kt * kBK, row_a, first_part + q, ring.full(s));
          tma_load(b_tile(s, q), tmap_b, kt * kBK, row_b, first_part + q, ring.full(s));
        }
      }
    }
    return;
  }

  // Consumers: warpgroup c computes rows 64c .. 64c+63 of the block tile.
  setmaxnreg_inc<kConsumerRegisters>();
  const int consumer = warpgroup - 1;
  const int lane = threadIdx.x % 32, warp_in_group = (threadIdx.x / 32) % 4;
  const std::uint32_t a_rows = consumer * kWgmmaM * kBK * 4;  // 8 KB: a whole number of atoms
  float acc[kAccs] = {};

  if constexpr (kMode == Tf32Mode::Tf32x3) {
    // This k-tile's products, in two fresh accumulators: the small cross terms, and big*big.
    float cross[kAccs] = {}, big[kAccs] = {};
    for (int kt = 0; kt < num_k_tiles; ++kt) {
      const int s = kt % kStages;
      mbar_wait(ring.full(s), (kt / kStages) & 1);
      const std::uint64_t a_big = smem_desc(a_tile(s, 0) + a_rows);
      const std::uint64_t a_small = smem_desc(a_tile(s, 1) + a_rows);
      const std::uint64_t b_big = smem_desc(b_tile(s, 0)), b_small = smem_desc(b_tile(s, 1));
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < kBK / kWgmmaK; ++ks) {
        const int step = ks * kDescK8Step;
        wgmma_tf32<kBN>(cross, a_small + step, b_big + step, ks > 0);
        wgmma_tf32<kBN>(cross, a_big + step, b_small + step, 1);
        wgmma_tf32<kBN>(big, a_big + step, b_big + step, ks > 0);
      }
      wgmma_commit();
      wgmma_wait<0>();
      fence_operands(cross);
      fence_operands(big);
      if (lane == 0) mbar_arrive(ring.empty(s));  // this warp no longer reads stage s
#pragma unroll
      for (int i = 0; i < kAccs; ++i) acc[i] += big[i] + cross[i];
    }
  } else {
    for (int kt = 0; kt < num_k_tiles; ++kt) {
      const int s = kt % kStages;
      mbar_wait(ring.full(s), (kt / kStages) & 1);
      const std::uint64_t a_desc = smem_desc(a_tile(s, 0) + a_rows);
      const std::uint64_t b_desc = smem_desc(b_tile(s, 0));
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < kBK / kWgmmaK; ++ks) {
        const int step = ks * kDescK8Step;
        wgmma_tf32<kBN>(acc, a_desc + step, b_desc + step, 1);
      }
      wgmma_commit();
      // Keep this k-tile in flight; the previous one is done, so its stage can be refilled.
      wgmma_wait<1>();
      if (kt > 0 && lane == 0) mbar_arrive(ring.empty((kt - 1) % kStages));
    }
    wgmma_wait<0>();
    fence_operands(acc);
  }

  // Epilogue: C = alpha * acc + beta * C on the in-range elements, C read only when beta != 0.
  const std::int64_t row_base = tile_m * kBM + consumer * kWgmmaM + warp_in_group * 16 + lane / 4;
  const std::int64_t col_base = tile_n * kBN + 2 * (lane % 4);
#pragma unroll
  for (int i = 0; i < kAccs; ++i) {
    const std::int64_t row = row_base + ((i / 2) % 2) * 8;
    const std::int64_t col = col_base + (i / 4) * 8 + i % 2;
    if (row < p.m && col < p.n) store_c(p.c + row * p.ldc + col, acc[i], p.alpha, p.beta);
  }
}
#endif  // sm_90a device code

__global__ void __launch_bounds__(kThreads, 1)
    tc_02_wgmma_tf32x3_kernel(const Canonical p, const __grid_constant__ CUtensorMap tmap_a,
                              const __grid_constant__ CUtensorMap tmap_b, const Tf32Operands ops) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  wgmma_tiles<Tf32Mode::Tf32x3>(p, tmap_a, tmap_b, ops);
#endif
}
__global__ void __launch_bounds__(kThreads, 1)
    tc_02_wgmma_tf32_kernel(const Canonical p, const __grid_constant__ CUtensorMap tmap_a,
                            const __grid_constant__ CUtensorMap tmap_b, const Tf32Operands ops) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  wgmma_tiles<Tf32Mode::Tf32>(p, tmap_a, tmap_b, ops);
#endif
}

// --- host side ---------------------------------------------------------------------------------

template <Tf32Mode kMode>
cudaError_t launch_tiles(const Canonical& p, const Tf32Operands& ops, const LaunchArgs& args) {
  using Cfg = Config<kMode>;
  constexpr auto kernel =
      kMode == Tf32Mode::Tf32x3 ? tc_02_wgmma_tf32x3_kernel : tc_02_wgmma_tf32_kernel;
  CUtensorMap tmap_a, tmap_b;
  const bool made =
      (ops.a_direct ? make_k_major_map(&tmap_a, ops.a, 1, p.m, p.k, p.lda, kBM, true)
                    : make_k_major_map(&tmap_a, ops.a, Cfg::kParts * p.batch, ops.mp, ops.kp,
                                      ops.kp, kBM, false)) &&
      (ops.b_direct ? make_k_major_map(&tmap_b, ops.b, 1, p.n, p.k, p.ldb, Cfg::kBN, true)
                    : make_k_major_map(&tmap_b, ops.b, Cfg::kParts * p.batch, ops.np, ops.kp,
                                      ops.kp, Cfg::kBN, false));
  if (!made) return cudaErrorInvalidValue;
  if (cudaError_t err = set_max_dynamic_smem(kernel, Cfg::Ring::kSmemBytes)) return err;
  const std::int64_t tiles = (ops.mp / kBM) * ceil_div(ops.np, Cfg::kBN);
  return launch_kernel(kernel, dim3(unsigned(tiles), unsigned(p.batch)), kThreads,
                       Cfg::Ring::kSmemBytes, args.stream, p, tmap_a, tmap_b, ops);
}

// Tf32: K-major operands go to TMA untouched, only the others are packed.
constexpr Tf32Direct kDirect{.k_major = true};

template <Tf32Mode kMode>
std::string_view why_not(const Canonical& p, const Device& device) {
  if (std::string_view r = needs_sm90_tma(device); !r.empty()) return r;
  if (std::string_view r = tf32_why_not(p); !r.empty()) return r;
  return needs_grid(ceil_div(p.m, kBM) * ceil_div(p.n, Config<kMode>::kBN), p.batch);
}

template <Tf32Mode kMode>
std::size_t workspace_bytes(const Canonical& p, const Device&, const KernelEntry*) {
  return tf32_workspace_bytes(p, kMode, kDirect, 0);
}

template <Tf32Mode kMode>
cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  return tf32_gemm(p, kMode, launch_tiles<kMode>, args, kDirect);
}

}  // namespace
#endif  // SGEMM_HAS_SM90A

SGEMM_KERNEL_ENTRIES(tensorcore_02_wgmma) {
#ifdef SGEMM_HAS_SM90A
  static const KernelEntry entries[] = {
      {{"tc-02-wgmma-tf32x3", Track::TensorCore, 2,
        "Hopper wgmma + TMA, warp-specialized; 3xTF32 split with staged accumulation",
        Math::Fp32Tf32x3, "tensor-core track, rung 02", "compute capability 9.0 (sm_90a)", Unit::Tf32Tensor},
       why_not<Tf32Mode::Tf32x3>, launch<Tf32Mode::Tf32x3>, workspace_bytes<Tf32Mode::Tf32x3>,
       /*accepts_run_if=*/true, /*needs_handoff=*/false, /*batched=*/true},
      {{"tc-02-wgmma-tf32", Track::TensorCore, 2,
        "Hopper wgmma + TMA, warp-specialized; operands rounded to TF32", Math::Tf32,
        "tensor-core track, rung 02", "compute capability 9.0 (sm_90a)", Unit::Tf32Tensor},
       why_not<Tf32Mode::Tf32>, launch<Tf32Mode::Tf32>, workspace_bytes<Tf32Mode::Tf32>,
       /*accepts_run_if=*/true, /*needs_handoff=*/false, /*batched=*/true},
  };
  return entries;
#else
  return {};
#endif
}

}  // namespace sgemm::detail
