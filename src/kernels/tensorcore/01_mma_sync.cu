// Tensor-core rung 01 — mma.sync m16n8k8 TF32 fed by a cp.async pipeline, in two maths:
// Tf32 (one product on operands rounded to TF32) and Fp32Tf32x3 (each operand split into
// big + small TF32 parts, three products, FP32 accuracy).
//
// The operands come from the packing pass (tensorcore/pack.cuh): K-major, padded to whole
// tiles, TF32-rounded, so this file is only the tile loop. A 128 x 128 block tile, 8 warps of
// 64 x 32, k-tiles of 16 in a 4-stage cp.async ring. Shared tiles keep the packed K-major rows
// (16 floats = four 16-byte chunks per row) with the chunk index XOR-ed by bits 1-2 of the row,
// which makes both the cp.async writes and the ldmatrix reads conflict-free.
//
// ldmatrix on 32-bit data: each 8 x 8 b16 matrix is 8 rows x 4 floats and lane l receives the
// float at (row l/4, col l%4) — exactly one register of an m16n8k8 TF32 fragment, so one x4
// load gives a whole A fragment (16 x 8) or the B fragments (8 x 8) of two n8 tiles.
//
// 3xTF32: per 16-deep k-tile, every small*big and big*small product first, then big*big in a
// second pass over the tile's shared memory, into a fresh accumulator that starts at zero and
// is added to the running FP32 sum afterwards (staged accumulation: the tensor core's
// accumulator adds truncate, so the long sum is kept in correctly rounded FP32 adds, and the
// cross terms' small sum keeps its low bits).
#include <cstdint>

#include "kernels/arch/cp_async.cuh"
#include "kernels/arch/mma_sync.cuh"
#include "kernels/epilogue/store.cuh"
#include "kernels/operand.cuh"
#include "kernels/pipeline/tile_order.cuh"
#include "kernels/tensorcore/pack.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kBM = 128, kBN = 128, kBK = 16, kStages = 4;
constexpr int kWarpsM = 2, kWarpsN = 4, kThreads = 32 * kWarpsM * kWarpsN;
constexpr int kWarpM = kBM / kWarpsM, kWarpN = kBN / kWarpsN;  // 64 x 32
constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 8;
constexpr int kFragsM = kWarpM / kMmaM, kFragsN = kWarpN / kMmaN;  // 4 x 4
constexpr int kTileFloats = kBM * kBK;  // one operand part of one stage (kBM == kBN)
constexpr int kChunksPerRow = kBK / 4;  // 16-byte chunks
constexpr std::int64_t kMaxTf32x3K = 4096;  // 3xTF32's longest k (why_not)
static_assert(kBM == kBN && kBM % kPackTileMN == 0 && kPackTileK % kBK == 0 && kBK == kK16Floats);

constexpr int parts(Tf32Mode mode) { return mode == Tf32Mode::Tf32x3 ? 2 : 1; }
constexpr int smem_bytes(Tf32Mode mode) {
  return kStages * 2 * parts(mode) * kTileFloats * int(sizeof(float));
}

template <Tf32Mode kMode>
__device__ __forceinline__ void mma_sync_tiles(const Canonical& call, const Tf32Operands& ops) {
  constexpr int kParts = parts(kMode);
  if (tile_kernel_idle(ops)) return;  // gated off, or the FP32 fallback computes this call
  // Matrix blockIdx.y of a batch: its C, and its packed operands.
  const Canonical p = call.matrix(blockIdx.y);
  extern __shared__ float smem[];  // stage s: A parts, then B parts, kTileFloats each

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;
  std::int64_t tile_m, tile_n;
  grouped_tile(blockIdx.x, ops.mp / kBM, ops.np / kBN, tile_m, tile_n);
  const float* gA = ops.a + blockIdx.y * ops.a_matrix_floats + tile_m * kBM * ops.kp;
  const float* gB = ops.b + blockIdx.y * ops.b_matrix_floats + tile_n * kBN * ops.kp;
  // part q of either at + q * mp * kp (np * kp)
  const std::int64_t num_k_tiles = ops.kp / kBK;
  const std::uint32_t smem_base = smem_address(smem);
  constexpr int kStageFloats = 2 * kParts * kTileFloats;

  // Each thread copies two 16-byte chunks of every operand part of a stage.
  auto load_stage = [&](std::int64_t k_tile, int stage) {
#pragma unroll
    for (int q = 0; q < kParts; ++q) {
#pragma unroll
      for (int i = 0; i < kTileFloats / 4 / kThreads; ++i) {
        const int idx = tid + i * kThreads, row = idx / kChunksPerRow, chunk = idx % kChunksPerRow;
        const std::int64_t src = std::int64_t(row) * ops.kp + k_tile * kBK + chunk * 4;
        const int dst = stage * kStageFloats + swizzled_k16(row, chunk);
        cp_async16(smem_base + 4 * (dst + q * kTileFloats), gA + q * ops.mp * ops.kp + src);
        cp_async16(smem_base + 4 * (dst + (kParts + q) * kTileFloats),
                   gB + q * ops.np * ops.kp + src);
      }
    }
  };

  float acc[kFragsM][kFragsN][4] = {};
  // Prologue: stages 0 .. kStages-2 in flight. One commit per slot even when there is no tile,
  // so "group i holds k-tile i" stays true for the wait below.
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < num_k_tiles) load_stage(s, s);
    cp_async_commit();
  }

  // ldmatrix lane roles (see the file comment): for A, lanes 8i..8i+7 address rows
  // (i & 1) * 8 + 0..7 of an m16 tile at chunk (i >> 1); for B, rows (i >> 1) * 8 + 0..7 of an
  // n16 pair at chunk (i & 1).
  const int lm_row = lane % 8, lm_mat = lane / 8;
  const int a_row = warp_m * kWarpM + (lm_mat & 1) * 8 + lm_row, a_chunk = lm_mat >> 1;
  const int b_row = warp_n * kWarpN + (lm_mat >> 1) * 8 + lm_row, b_chunk = lm_mat & 1;

  // 3xTF32: the products of one k-tile only, cross terms first (their small sum keeps its low
  // bits through the tensor cores' truncating adds), then big*big; added to the running FP32 sum
  // and cleared after each k-tile. Measured on an H200: with the three products interleaved per
  // fragment and 32-deep flushes, 16 x 1536 x 64 (NT) had 2.4e-7 relative error against cuBLAS
  // SGEMM's 8.7e-8, and 16 x 1536 x 16384 4.7e-7 against 4.2e-7.
  float fresh[kFragsM][kFragsN][4] = {};
  for (std::int64_t kt = 0; kt < num_k_tiles; ++kt) {
    cp_async_wait<kStages - 2>();  // this thread's copies of k-tile kt have landed
    __syncthreads();               // everyone's have, and everyone is done with k-tile kt-1
    const std::int64_t next = kt + kStages - 1;
    if (next < num_k_tiles) load_stage(next, int(next % kStages));
    cp_async_commit();

    const std::uint32_t sA = smem_base + 4 * int(kt % kStages) * kStageFloats;
    const std::uint32_t sB = sA + 4 * kParts * kTileFloats;
    // The fragments of k8 step ks, parts [0, parts): ldmatrix straight from the swizzled tiles.
    const auto load_fragments = [&](int ks, int parts, std::uint32_t (&a_frag)[kParts][kFragsM][4],
                                    std::uint32_t (&b_frag)[kParts][kFragsN][2]) {
#pragma unroll
      for (int q = 0; q < kParts; ++q) {
        if (q >= parts) break;
#pragma unroll
        for (int mi = 0; mi < kFragsM; ++mi)
          ldmatrix_x4(a_frag[q][mi],
                      sA + 4 * (q * kTileFloats +
                                swizzled_k16(a_row + mi * kMmaM, 2 * ks + a_chunk)));
#pragma unroll
        for (int nj = 0; nj < kFragsN; nj += 2) {
          std::uint32_t r[4];
          ldmatrix_x4(r, sB + 4 * (q * kTileFloats +
                                   swizzled_k16(b_row + nj * kMmaN, 2 * ks + b_chunk)));
          b_frag[q][nj][0] = r[0];
          b_frag[q][nj][1] = r[1];
          b_frag[q][nj + 1][0] = r[2];
          b_frag[q][nj + 1][1] = r[3];
        }
      }
    };
    std::uint32_t a_frag[kParts][kFragsM][4], b_frag[kParts][kFragsN][2];
    if constexpr (kMode == Tf32Mode::Tf32x3) {
      // The k-tile's cross terms first, then a second pass over shared memory for big*big.
#pragma unroll
      for (int ks = 0; ks < kBK / kMmaK; ++ks) {
        load_fragments(ks, kParts, a_frag, b_frag);
#pragma unroll
        for (int mi = 0; mi < kFragsM; ++mi)
#pragma unroll
          for (int nj = 0; nj < kFragsN; ++nj) {
            mma_tf32(fresh[mi][nj], a_frag[1][mi], b_frag[0][nj][0], b_frag[0][nj][1]);
            mma_tf32(fresh[mi][nj], a_frag[0][mi], b_frag[1][nj][0], b_frag[1][nj][1]);
          }
      }
    }
    float (&big_sum)[kFragsM][kFragsN][4] = kMode == Tf32Mode::Tf32x3 ? fresh : acc;
#pragma unroll
    for (int ks = 0; ks < kBK / kMmaK; ++ks) {
      load_fragments(ks, 1, a_frag, b_frag);
#pragma unroll
      for (int mi = 0; mi < kFragsM; ++mi)
#pragma unroll
        for (int nj = 0; nj < kFragsN; ++nj)
          mma_tf32(big_sum[mi][nj], a_frag[0][mi], b_frag[0][nj][0], b_frag[0][nj][1]);
    }
    if constexpr (kMode == Tf32Mode::Tf32x3) {
#pragma unroll
      for (int mi = 0; mi < kFragsM; ++mi)
#pragma unroll
        for (int nj = 0; nj < kFragsN; ++nj)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            acc[mi][nj][e] += fresh[mi][nj][e];
            fresh[mi][nj][e] = 0.0f;
          }
    }
  }
  cp_async_wait<0>();  // no copy may be in flight when the block exits

  // Accumulator fragment of an m16n8 tile: elements 0,1 at (lane/4, 2*(lane%4) + 0,1),
  // elements 2,3 eight rows below.
  const std::int64_t row_base = tile_m * kBM + warp_m * kWarpM + lane / 4;
  const std::int64_t col_base = tile_n * kBN + warp_n * kWarpN + 2 * (lane % 4);
#pragma unroll
  for (int mi = 0; mi < kFragsM; ++mi) {
#pragma unroll
    for (int nj = 0; nj < kFragsN; ++nj) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const std::int64_t row = row_base + mi * kMmaM + (e / 2) * 8;
        const std::int64_t col = col_base + nj * kMmaN + e % 2;
        if (row < p.m && col < p.n)
          store_c(p.c + row * p.ldc + col, acc[mi][nj][e], p.alpha, p.beta);
      }
    }
  }
}

__global__ void __launch_bounds__(kThreads, 1)
    tc_01_mma_sync_tf32x3_kernel(const Canonical p, const Tf32Operands ops) {
  mma_sync_tiles<Tf32Mode::Tf32x3>(p, ops);
}
__global__ void __launch_bounds__(kThreads, 1)
    tc_01_mma_sync_tf32_kernel(const Canonical p, const Tf32Operands ops) {
  mma_sync_tiles<Tf32Mode::Tf32>(p, ops);
}

template <Tf32Mode kMode>
cudaError_t launch_tiles(const Canonical& p, const Tf32Operands& ops, const LaunchArgs& args) {
  constexpr auto kernel =
      kMode == Tf32Mode::Tf32x3 ? tc_01_mma_sync_tf32x3_kernel : tc_01_mma_sync_tf32_kernel;
  constexpr int bytes = smem_bytes(kMode);
  if (cudaError_t err = set_max_dynamic_smem(kernel, bytes)) return err;
  const std::int64_t tiles = (ops.mp / kBM) * (ops.np / kBN);
  return launch_kernel(kernel, dim3(unsigned(tiles), unsigned(p.batch)), kThreads, bytes,
                       args.stream, p, ops);
}

template <Tf32Mode kMode>
std::string_view why_not(const Canonical& p, const Device& device) {
  if (device.cc < 80) return "needs compute capability 8.0 or newer (TF32 mma.sync)";
  if (std::string_view r = tf32_why_not(p); !r.empty()) return r;
  // One FP32 add per k-tile into the running sum: measured on an H200, 512 x 384 x 16384 had
  // 5.8e-7 relative error against cuBLAS SGEMM's 5.0e-7 (4096: 3.0e-7 against 4.1e-7).
  if (kMode == Tf32Mode::Tf32x3 && p.k > kMaxTf32x3K)
    return "3xTF32 with k above 4096: its sum of 16-deep k-tiles loses accuracy to cuBLAS SGEMM";
  return needs_grid(ceil_div(p.m, kBM) * ceil_div(p.n, kBN), p.batch);
}

template <Tf32Mode kMode>
std::size_t workspace_bytes(const Canonical& p, const Device&, const KernelEntry*) {
  return tf32_workspace_bytes(p, kMode, {}, 0);
}

template <Tf32Mode kMode>
cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  return tf32_gemm(p, kMode, launch_tiles<kMode>, args);
}

}  // namespace

SGEMM_KERNEL_ENTRIES(tensorcore_01_mma_sync) {
  static const KernelEntry entries[] = {
      {{"tc-01-mma-sync-tf32x3", Track::TensorCore, 1,
        "mma.sync m16n8k8 TF32, cp.async pipeline, 3xTF32 split with staged accumulation",
        Math::Fp32Tf32x3, "CUTLASS 3xTF32 (tensor-core track, rung 01)", "none", Unit::Tf32Tensor},
       why_not<Tf32Mode::Tf32x3>, launch<Tf32Mode::Tf32x3>, workspace_bytes<Tf32Mode::Tf32x3>,
       /*accepts_run_if=*/true, /*needs_handoff=*/false, /*batched=*/true},
      {{"tc-01-mma-sync-tf32", Track::TensorCore, 1,
        "mma.sync m16n8k8 TF32, cp.async pipeline, operands rounded to TF32", Math::Tf32,
        "tensor-core track, rung 01", "none", Unit::Tf32Tensor},
       why_not<Tf32Mode::Tf32>, launch<Tf32Mode::Tf32>, workspace_bytes<Tf32Mode::Tf32>,
       /*accepts_run_if=*/true, /*needs_handoff=*/false, /*batched=*/true},
  };
  return entries;
}

}  // namespace sgemm::detail
