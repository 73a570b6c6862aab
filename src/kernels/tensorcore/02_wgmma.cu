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
#include <cstdint>

#include "kernels/common/hopper.cuh"
#include "kernels/common/operand.cuh"
#include "kernels/common/tf32_pack.cuh"

namespace sgemm::detail {

#ifdef SGEMM_HAS_SM90A
namespace {

constexpr int kBM = 128, kBK = 32;  // kBK floats = 128 bytes: one swizzle row
constexpr int kConsumers = 2, kWarpgroup = 128, kThreads = kWarpgroup * (1 + kConsumers);
constexpr int kWgmmaM = 64;
static_assert(kBM == kConsumers * kWgmmaM && kBM % kPackTileMN == 0 && kPackTileK == kBK);

template <Tf32Mode kMode>
struct Config {
  static constexpr int kParts = kMode == Tf32Mode::Tf32x3 ? 2 : 1;
  static constexpr int kBN = kMode == Tf32Mode::Tf32x3 ? 128 : 256;
  static constexpr int kStages = kMode == Tf32Mode::Tf32x3 ? 3 : 4;
  static constexpr int kATileBytes = kBM * kBK * 4, kBTileBytes = kBN * kBK * 4;
  static constexpr int kStageBytes = kParts * (kATileBytes + kBTileBytes);
  static constexpr int kBarrierOffset = kStages * kStageBytes;
  // + the full and empty barriers, + slack to align the tiles to 1024 bytes by hand.
  static constexpr int kSmemBytes = kBarrierOffset + 2 * kStages * 8 + 1024;
};

// Device code for sm_90a only: in a multi-architecture build the other targets get empty
// kernels, which are never launched (why_not asks for compute capability 9.0).
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
constexpr int kWgmmaK = 8;
// Register budget per thread after setmaxnreg: 128 * 40 + 256 * 232 = 64512 of the SM's 65536,
// exactly what 384 threads at the launch-bounds limit of 168 hold to begin with.
constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;

// --- wgmma in PTX ----------------------------------------------------------------------------

// Matrix descriptor of a K-major, 128-byte-swizzled tile starting at shared address `addr`:
// bits 0-13 start address >> 4, 16-29 leading byte offset >> 4 (unused here, 1 by
// convention), 32-45 stride byte offset >> 4 (1024: the next 8-row group), 62-63 swizzle
// mode (1 = 128 bytes). Base offset (bits 49-51) is 0 because every tile is 1024-aligned.
__device__ __forceinline__ std::uint64_t smem_desc(std::uint32_t addr) {
  return std::uint64_t((addr & 0x3FFFF) >> 4) | (std::uint64_t(1) << 16) |
         (std::uint64_t(1024 >> 4) << 32) | (std::uint64_t(1) << 62);
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}
// Tells the compiler the wgmma writes these registers behind its back: no read of them may
// move above the preceding wgmma_wait.
template <int kN>
__device__ __forceinline__ void fence_operands(float (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

#define SGEMM_D4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define SGEMM_D16(i) SGEMM_D4(i), SGEMM_D4(i + 4), SGEMM_D4(i + 8), SGEMM_D4(i + 12)
#define SGEMM_D64(i) SGEMM_D16(i), SGEMM_D16(i + 16), SGEMM_D16(i + 32), SGEMM_D16(i + 48)

// d (+)= A * B for a 64 x N x 8 TF32 tile; scale_d == 0 overwrites d instead of adding.
// Thread t of warp w in the warpgroup holds d[4j + {0,1}] at row 16w + t/4, columns
// 8j + 2(t%4) + {0,1}, and d[4j + {2,3}] eight rows below.
template <int kN>
__device__ __forceinline__ void wgmma_tf32(float (&d)[kN / 2], std::uint64_t desc_a,
                                           std::uint64_t desc_b, int scale_d) {
  if constexpr (kN == 128) {
    asm volatile(
        "{ .reg .pred p;\n"
        "setp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "
        "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, "
        "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "
        "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, p, 1, 1; }"
        : SGEMM_D64(0)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  } else {
    static_assert(kN == 256);
    asm volatile(
        "{ .reg .pred p;\n"
        "setp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "
        "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, "
        "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "
        "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, "
        "%66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, "
        "%82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, "
        "%98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, "
        "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, "
        "%124, %125, %126, %127}, "
        "%128, %129, p, 1, 1; }"
        : SGEMM_D64(0), SGEMM_D64(64)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  }
}

#undef SGEMM_D64
#undef SGEMM_D16
#undef SGEMM_D4

// --- the kernel --------------------------------------------------------------------------------

template <Tf32Mode kMode>
__device__ __forceinline__ void wgmma_tiles(const Canonical& p, const CUtensorMap& tmap_a,
                                            const CUtensorMap& tmap_b, const Tf32Operands& ops) {
  using Cfg = Config<kMode>;
  constexpr int kParts = Cfg::kParts, kBN = Cfg::kBN, kStages = Cfg::kStages;
  constexpr int kAccs = kBN / 2;  // accumulator floats per thread of an m64 x kBN tile
  if constexpr (kMode == Tf32Mode::Tf32x3) {
    if (*ops.nonfinite != 0) return;  // the FP32 fallback computes this call
  }
  extern __shared__ std::uint8_t smem_raw[];
  // 128-byte swizzle atoms are 1024 bytes and must start 1024-aligned.
  const std::uint32_t smem = (smem_address(smem_raw) + 1023) & ~1023u;
  auto a_tile = [&](int stage, int part) {
    return smem + stage * Cfg::kStageBytes + part * Cfg::kATileBytes;
  };
  auto b_tile = [&](int stage, int part) {
    return smem + stage * Cfg::kStageBytes + kParts * Cfg::kATileBytes + part * Cfg::kBTileBytes;
  };
  auto full = [&](int stage) { return smem + Cfg::kBarrierOffset + 8 * stage; };
  auto empty = [&](int stage) { return smem + Cfg::kBarrierOffset + 8 * (kStages + stage); };

  std::int64_t tile_m, tile_n;
  grouped_tile(blockIdx.x, ops.mp / kBM, (ops.np + kBN - 1) / kBN, tile_m, tile_n);
  const int num_k_tiles = int(ops.kp / kBK);
  const int warpgroup = threadIdx.x / kWarpgroup;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(full(s), 1);                // the producer's arrive.expect_tx
      mbar_init(empty(s), kConsumers * 4);  // one arrive per consumer warp
    }
    fence_barrier_init();
  }
  __syncthreads();

  if (warpgroup == 0) {
    // Producer: one thread keeps the ring full. Stage s is refilled once both consumer
    // warpgroups have released its previous contents. The warpgroup hands most of its
    // registers to the consumers.
    setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) {
      const int row_a = int(tile_m * kBM), row_b = int(tile_n * kBN);
      for (int kt = 0; kt < num_k_tiles; ++kt) {
        const int s = kt % kStages, round = kt / kStages;
        mbar_wait(empty(s), (round & 1) ^ 1);
        mbar_arrive_expect_tx(full(s), Cfg::kStageBytes);
        for (int q = 0; q < kParts; ++q) {
          tma_load(a_tile(s, q), tmap_a, kt * kBK, row_a, q, full(s));
          tma_load(b_tile(s, q), tmap_b, kt * kBK, row_b, q, full(s));
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
      mbar_wait(full(s), (kt / kStages) & 1);
      const std::uint64_t a_big = smem_desc(a_tile(s, 0) + a_rows);
      const std::uint64_t a_small = smem_desc(a_tile(s, 1) + a_rows);
      const std::uint64_t b_big = smem_desc(b_tile(s, 0)), b_small = smem_desc(b_tile(s, 1));
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < kBK / kWgmmaK; ++ks) {
        const int step = ks * kWgmmaK * 4 >> 4;  // +32 bytes per k8 step, in descriptor units
        wgmma_tf32<kBN>(cross, a_small + step, b_big + step, ks > 0);
        wgmma_tf32<kBN>(cross, a_big + step, b_small + step, 1);
        wgmma_tf32<kBN>(big, a_big + step, b_big + step, ks > 0);
      }
      wgmma_commit();
      wgmma_wait<0>();
      fence_operands(cross);
      fence_operands(big);
      if (lane == 0) mbar_arrive(empty(s));  // this warp no longer reads stage s
#pragma unroll
      for (int i = 0; i < kAccs; ++i) acc[i] += big[i] + cross[i];
    }
  } else {
    for (int kt = 0; kt < num_k_tiles; ++kt) {
      const int s = kt % kStages;
      mbar_wait(full(s), (kt / kStages) & 1);
      const std::uint64_t a_desc = smem_desc(a_tile(s, 0) + a_rows);
      const std::uint64_t b_desc = smem_desc(b_tile(s, 0));
      wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < kBK / kWgmmaK; ++ks) {
        const int step = ks * kWgmmaK * 4 >> 4;
        wgmma_tf32<kBN>(acc, a_desc + step, b_desc + step, 1);
      }
      wgmma_commit();
      // Keep this k-tile in flight; the previous one is done, so its stage can be refilled.
      wgmma_wait<1>();
      if (kt > 0 && lane == 0) mbar_arrive(empty((kt - 1) % kStages));
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

// An operand as a 3-D tensor [parts][rows][cols] with rows `ld` floats apart, read in boxes of
// kBK x box_rows x 1 and written into shared memory with the 128-byte swizzle. Boxes that hang
// past `rows` or `cols` are filled with zeros by the TMA unit: the last 256-wide tile of B in
// Tf32 mode, and every edge of a direct (unpacked) operand, whose bounds are m or n and k.
bool make_tensor_map(CUtensorMap* map, const float* data, std::int64_t parts, std::int64_t rows,
                     std::int64_t cols, std::int64_t ld, int box_rows, bool direct) {
  const cuuint64_t dims[3] = {cuuint64_t(cols), cuuint64_t(rows), cuuint64_t(parts)};
  const cuuint64_t strides[2] = {cuuint64_t(ld) * 4, cuuint64_t(rows) * cuuint64_t(ld) * 4};
  const cuuint32_t box[3] = {kBK, cuuint32_t(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  // Packed data is rounded already and must stay bit-exact (3xTF32 small parts); the user's
  // raw FP32 is loaded as TFLOAT32 so the TMA unit reduces it to TF32.
  const CUtensorMapDataType type =
      direct ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  return encode_tiled()(map, type, 3, const_cast<float*>(data), dims, strides, box,
                        element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

template <Tf32Mode kMode>
cudaError_t launch_tiles(const Canonical& p, const Tf32Operands& ops, cudaStream_t stream) {
  using Cfg = Config<kMode>;
  constexpr auto kernel =
      kMode == Tf32Mode::Tf32x3 ? tc_02_wgmma_tf32x3_kernel : tc_02_wgmma_tf32_kernel;
  CUtensorMap tmap_a, tmap_b;
  const bool made =
      (ops.a_direct ? make_tensor_map(&tmap_a, ops.a, 1, p.m, p.k, p.lda, kBM, true)
                    : make_tensor_map(&tmap_a, ops.a, Cfg::kParts, ops.mp, ops.kp, ops.kp, kBM,
                                      false)) &&
      (ops.b_direct ? make_tensor_map(&tmap_b, ops.b, 1, p.n, p.k, p.ldb, Cfg::kBN, true)
                    : make_tensor_map(&tmap_b, ops.b, Cfg::kParts, ops.np, ops.kp, ops.kp,
                                      Cfg::kBN, false));
  if (!made) return cudaErrorInvalidValue;
  if (cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             Cfg::kSmemBytes);
      err != cudaSuccess)
    return err;
  const std::int64_t tiles = (ops.mp / kBM) * ceil_div(ops.np, Cfg::kBN);
  kernel<<<dim3(unsigned(tiles)), kThreads, Cfg::kSmemBytes, stream>>>(p, tmap_a, tmap_b, ops);
  return cudaGetLastError();
}

template <Tf32Mode kMode>
std::string_view why_not(const Canonical& p) {
  if (std::string_view r = needs_sm90(p); !r.empty()) return r;
  if (!encode_tiled()) return "needs cuTensorMapEncodeTiled from the driver (CUDA 12+)";
  if (std::string_view r = tf32_why_not(p, kMode); !r.empty()) return r;
  return needs_grid(ceil_div(p.m, kBM) * ceil_div(p.n, Config<kMode>::kBN), 1);
}

template <Tf32Mode kMode>
cudaError_t launch(const Canonical& p, cudaStream_t stream) {
  // Tf32: K-major operands go to TMA untouched, only the others are packed.
  return tf32_gemm(p, kMode, launch_tiles<kMode>, stream, kMode == Tf32Mode::Tf32);
}

}  // namespace
#endif  // SGEMM_HAS_SM90A

SGEMM_KERNEL_ENTRIES(tensorcore_02_wgmma) {
#ifdef SGEMM_HAS_SM90A
  static const KernelEntry entries[] = {
      {{"tc-02-wgmma-tf32x3", Track::TensorCore, 2,
        "Hopper wgmma + TMA, warp-specialized; 3xTF32 split with staged accumulation",
        Math::Fp32Tf32x3, "tensor-core track, rung 02", "compute capability 9.0 (sm_90a)"},
       why_not<Tf32Mode::Tf32x3>, launch<Tf32Mode::Tf32x3>, 2},
      {{"tc-02-wgmma-tf32", Track::TensorCore, 2,
        "Hopper wgmma + TMA, warp-specialized; operands rounded to TF32", Math::Tf32,
        "tensor-core track, rung 02", "compute capability 9.0 (sm_90a)"},
       why_not<Tf32Mode::Tf32>, launch<Tf32Mode::Tf32>, 2},
  };
  return entries;
#else
  return {};
#endif
}

}  // namespace sgemm::detail
