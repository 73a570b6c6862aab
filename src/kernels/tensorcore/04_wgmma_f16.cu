// Tensor-core rung 04 — Tf32 math on the FP16 tensor cores: every row of A and every column of
// B scaled by a power of two into FP16's range, where rounding to FP16 is rounding to TF32.
//
// What changes from rung 02:
// - TF32 and FP16 keep the same 11 significant bits (10 stored, one implied); only their
//   exponent ranges differ (TF32 has FP32's, FP16 spans 2^-14 to 65504 in normal numbers).
//   Scaling by a power of two is exact, so for a value whose scaled magnitude is an FP16
//   normal, fp16(x 2^-s) 2^s is tf32(x), bit for bit (both round to nearest, ties to even, as
//   to_tf32 and the TFLOAT32 tensor maps of rungs 02-03 do). With row i of A scaled by 2^-sa_i
//   and column j of B by 2^-sb_j, C_ij = alpha 2^(sa_i + sb_j) sum_p a'_ip b'_pj multiplies
//   exactly the TF32 operands of rungs 02-03, on tensor cores that run FP16 at twice the TF32
//   rate and read half the bytes per product.
// - The shifts put the largest magnitude of each row (column) in [2^14, 2^15): nothing can
//   overflow, and FP16's normal range reaches 28 binades below it. A row or column with a
//   nonzero value further down would lose bits that TF32 keeps, and Inf or NaN has no scaled
//   form. The pack raises a flag for either; the tile kernel then returns at once and the FP32
//   fallback of the TF32 rungs (common/tf32_pack.cuh) computes the call.
// - So every call makes two passes over A and B before the tile kernel: their largest
//   magnitudes per row of A and column of B (atomicMax on the bit patterns, which order as the
//   magnitudes of nonnegative floats), then the scaled FP16 copies, K-major and zero past k.
// - The tile kernel is rung 02's Tf32 loop with 16-bit types: a k-tile is 64 halves (one
//   128-byte swizzle row, as 32 floats were), each k16 step one m64n256k16, and the shifts are
//   applied in the epilogue.
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "kernels/common/epilogue.cuh"
#include "kernels/common/tf32_pack.cuh"
#include "kernels/common/wgmma.cuh"
#include "kernels/common/workspace.cuh"

namespace sgemm::detail {

#ifdef SGEMM_HAS_SM90A
namespace {

// --- the scales --------------------------------------------------------------------------------

// The shift s of a row whose largest magnitude has the bit pattern max_bits: that magnitude
// times 2^-s lies in [2^14, 2^15) (a subnormal maximum lands lower, which only helps).
constexpr int kTopExponent = 14;
__device__ __forceinline__ int scale_shift(std::uint32_t max_bits) {
  const int biased = int(max_bits >> 23);
  return max_bits == 0 ? 0 : (biased > 0 ? biased : 1) - 127 - kTopExponent;
}
constexpr float kFp16MinNormal = 0x1p-14f;
constexpr std::uint32_t kInfBits = 0x7f800000u;

// max_bits[r] = bit pattern of max_p |x(r, p)| (NaN's patterns lie above Inf's). A block covers
// 32 rows x 256 k; its threads walk the contiguous dimension of x.
constexpr int kMaxRows = 32, kMaxK = 256, kMaxThreads = 256;

__global__ void __launch_bounds__(kMaxThreads)
    f16_row_max_kernel(StridedOperand x, std::int64_t rows, std::int64_t k,
                       std::uint32_t* max_bits) {
  const std::int64_t r0 = std::int64_t(blockIdx.x) * kMaxRows;
  const std::int64_t k0 = std::int64_t(blockIdx.y) * kMaxK;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  constexpr int kWarps = kMaxThreads / 32;
  auto magnitude = [&](std::int64_t r, std::int64_t kk) {
    return __float_as_uint(fabsf(x(r, kk)));
  };
  if (x.col_stride == 1) {  // rows run along k: a warp per row, its lanes along k
#pragma unroll
    for (int i = 0; i < kMaxRows / kWarps; ++i) {
      const std::int64_t r = r0 + warp * (kMaxRows / kWarps) + i;
      std::uint32_t m = 0;
      if (r < rows) {
#pragma unroll
        for (int j = 0; j < kMaxK / 32; ++j) {
          const std::int64_t kk = k0 + lane + 32 * j;
          if (kk < k) m = max(m, magnitude(r, kk));
        }
      }
      m = __reduce_max_sync(0xffffffffu, m);
      if (lane == 0 && m != 0) atomicMax(max_bits + r, m);
    }
  } else {  // rows are contiguous: a lane per row, the warps along k
    const std::int64_t r = r0 + lane;
    std::uint32_t m = 0;
    if (r < rows) {
#pragma unroll 8
      for (int j = 0; j < kMaxK / kWarps; ++j) {
        const std::int64_t kk = k0 + warp + kWarps * j;
        if (kk < k) m = max(m, magnitude(r, kk));
      }
    }
    if (m != 0) atomicMax(max_bits + r, m);
  }
}

// out[r][p] = fp16(x(r, p) 2^-s_r) for r < rows_p, p < kp (zero past rows and k). A block
// stages a 32-row x 64-k tile in shared memory, read along x's contiguous dimension and written
// along k, a row of 64 halves (128 bytes) per warp. Raises *unfit when a value has no exact
// scaled FP16 form.
constexpr int kPackRows = 32, kPackK = 64, kPackRowsPerPass = 8;

__global__ void __launch_bounds__(32 * kPackRowsPerPass)
    f16_pack_kernel(StridedOperand x, std::int64_t rows, std::int64_t k,
                    const std::uint32_t* max_bits, __half2* out, std::int64_t kp, int* unfit) {
  __shared__ float tile[kPackRows][kPackK + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t r0 = std::int64_t(blockIdx.x) * kPackRows;
  const std::int64_t k0 = std::int64_t(blockIdx.y) * kPackK;
  auto load = [&](int r, int kk) {
    return r0 + r < rows && k0 + kk < k ? x(r0 + r, k0 + kk) : 0.0f;
  };
  if (x.col_stride == 1) {
#pragma unroll
    for (int i = 0; i < kPackRows; i += kPackRowsPerPass)
#pragma unroll
      for (int h = 0; h < kPackK; h += 32) tile[ty + i][tx + h] = load(ty + i, tx + h);
  } else {
#pragma unroll
    for (int i = 0; i < kPackK; i += kPackRowsPerPass) tile[tx][ty + i] = load(tx, ty + i);
  }
  __syncthreads();

  bool bad = false;
#pragma unroll
  for (int i = 0; i < kPackRows; i += kPackRowsPerPass) {
    const int r = ty + i;
    const std::uint32_t row_max = r0 + r < rows ? max_bits[r0 + r] : 0;
    const int shift = scale_shift(row_max);
    const float v0 = ldexpf(tile[r][2 * tx], -shift), v1 = ldexpf(tile[r][2 * tx + 1], -shift);
    bad |= row_max >= kInfBits || (v0 != 0.0f && fabsf(v0) < kFp16MinNormal) ||
           (v1 != 0.0f && fabsf(v1) < kFp16MinNormal);
    out[((r0 + r) * kp + k0) / 2 + tx] = __floats2half2_rn(v0, v1);
  }
  if (__any_sync(0xffffffffu, bad) && tx == 0) *unfit = 1;
}

// --- the tile kernel ---------------------------------------------------------------------------

constexpr int kBM = 128, kBN = 256;
constexpr int kBK = 64;  // halves: one 128-byte swizzle row
constexpr int kWgmmaK16 = 16, kDescK16Step = kWgmmaK16 * 2 >> 4;
constexpr int kConsumers = 2, kWarpgroup = 128, kThreads = kWarpgroup * (1 + kConsumers);
constexpr int kStages = 4;
constexpr int kATileBytes = kBM * kBK * 2, kBTileBytes = kBN * kBK * 2;
constexpr int kStageBytes = kATileBytes + kBTileBytes;  // 48 KB
using Ring = TmaRing<kStages, kStageBytes>;
static_assert(kBM == kConsumers * kWgmmaM && kBK * 2 == kSwizzleRowFloats * 4);

// What the tile kernel reads besides the tensor maps: the shifts' maxima and the pack's flag.
struct Scaled {
  const std::uint32_t* a_max;  // per row of A
  const std::uint32_t* b_max;  // per column of B
  const int* unfit;
  int num_k_tiles;
};

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;

__device__ __forceinline__ void f16_tile(const Canonical& p, const CUtensorMap& tmap_a,
                                         const CUtensorMap& tmap_b, const Scaled& ops) {
  constexpr int kAccs = kBN / 2;
  if (*ops.unfit != 0) return;  // the FP32 fallback computes this call
  extern __shared__ std::uint8_t smem_raw[];
  const Ring ring(smem_raw);
  std::int64_t tile_m, tile_n;
  grouped_tile(blockIdx.x, (p.m + kBM - 1) / kBM, (p.n + kBN - 1) / kBN, tile_m, tile_n);
  const int warpgroup = threadIdx.x / kWarpgroup;
  ring.init(kConsumers * 4);

  if (warpgroup == 0) {  // producer: one thread keeps the ring full
    setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) {
      const int row_a = int(tile_m * kBM), row_b = int(tile_n * kBN);
      for (int kt = 0; kt < ops.num_k_tiles; ++kt) {
        const int s = kt % kStages;
        mbar_wait(ring.empty(s), ((kt / kStages) & 1) ^ 1);
        mbar_arrive_expect_tx(ring.full(s), kStageBytes);
        tma_load(ring.stage(s), tmap_a, kt * kBK, row_a, ring.full(s));
        tma_load(ring.stage(s) + kATileBytes, tmap_b, kt * kBK, row_b, ring.full(s));
      }
    }
    return;
  }

  // Consumers: warpgroup c computes rows 64c .. 64c+63 of the block tile, keeping one k-tile
  // of wgmmas in flight while it waits for the next stage.
  setmaxnreg_inc<kConsumerRegisters>();
  const int consumer = warpgroup - 1;
  const int lane = threadIdx.x % 32, warp_in_group = (threadIdx.x / 32) % 4;
  const std::uint32_t a_rows = consumer * kWgmmaM * kBK * 2;  // 8 KB: a whole number of atoms
  float acc[kAccs] = {};
  for (int kt = 0; kt < ops.num_k_tiles; ++kt) {
    const int s = kt % kStages;
    mbar_wait(ring.full(s), (kt / kStages) & 1);
    const std::uint64_t a_desc = smem_desc(ring.stage(s) + a_rows);
    const std::uint64_t b_desc = smem_desc(ring.stage(s) + kATileBytes);
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < kBK / kWgmmaK16; ++ks)
      wgmma_f16_256(acc, a_desc + ks * kDescK16Step, b_desc + ks * kDescK16Step, 1);
    wgmma_commit();
    wgmma_wait<1>();
    if (kt > 0 && lane == 0) mbar_arrive(ring.empty((kt - 1) % kStages));
  }
  wgmma_wait<0>();
  fence_operands(acc);

  // Epilogue: C = alpha 2^(s_row + s_col) acc + beta C on the in-range elements (thread t of
  // warp w holds rows 16w + t/4 and 8 below, columns 8j + 2(t%4) + {0, 1}).
  const std::int64_t row_base = tile_m * kBM + consumer * kWgmmaM + warp_in_group * 16 + lane / 4;
  const std::int64_t col_base = tile_n * kBN + 2 * (lane % 4);
  const bool paired = p.ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(p.c) % 8 == 0;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const std::int64_t row = row_base + 8 * h;
    if (row >= p.m) continue;
    const int row_shift = scale_shift(ops.a_max[row]);
#pragma unroll
    for (int j = 0; j < kBN / 8; ++j) {
      const std::int64_t col = col_base + 8 * j;
      if (col >= p.n) continue;
      const int s0 = row_shift + scale_shift(ops.b_max[col]);
      const int s1 = col + 1 < p.n ? row_shift + scale_shift(ops.b_max[col + 1]) : 0;
      store_c2(p.c + row * p.ldc, col, p.n, ldexpf(acc[4 * j + 2 * h], s0),
               ldexpf(acc[4 * j + 2 * h + 1], s1), p.alpha, p.beta, paired);
    }
  }
}
#endif  // sm_90a device code

__global__ void __launch_bounds__(kThreads, 1)
    tc_04_wgmma_f16_tf32_kernel(const Canonical p, const __grid_constant__ CUtensorMap tmap_a,
                                const __grid_constant__ CUtensorMap tmap_b, const Scaled ops) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  f16_tile(p, tmap_a, tmap_b, ops);
#endif
}

// --- host side ---------------------------------------------------------------------------------

std::int64_t round_up(std::int64_t x, std::int64_t d) { return ceil_div(x, d) * d; }

// The scaled copy of an operand, rows x kp halves, K-major, read in boxes of 64 x box_rows.
bool make_f16_map(CUtensorMap* map, const __half2* data, std::int64_t rows, std::int64_t kp,
                  int box_rows) {
  const cuuint64_t dims[2] = {cuuint64_t(kp), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(kp) * 2};
  const cuuint32_t box[2] = {kBK, cuuint32_t(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode_tiled()(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<__half2*>(data), dims,
                        strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The maxima and the scaled copy of x (rows x k) into out (rows_p x kp halves).
cudaError_t scale_to_f16(StridedOperand x, std::int64_t rows, std::int64_t k,
                         std::uint32_t* max_bits, __half2* out, std::int64_t rows_p,
                         std::int64_t kp, int* unfit, cudaStream_t stream) {
  f16_row_max_kernel<<<dim3(unsigned(ceil_div(rows, kMaxRows)), unsigned(ceil_div(k, kMaxK))),
                       kMaxThreads, 0, stream>>>(x, rows, k, max_bits);
  f16_pack_kernel<<<dim3(unsigned(rows_p / kPackRows), unsigned(kp / kPackK)),
                    dim3(32, kPackRowsPerPass), 0, stream>>>(x, rows, k, max_bits, out, kp,
                                                              unfit);
  return cudaGetLastError();
}

std::string_view why_not(const Canonical& p) {
  if (std::string_view r = needs_sm90(p); !r.empty()) return r;
  if (!encode_tiled()) return "needs cuTensorMapEncodeTiled from the driver (CUDA 12+)";
  if (ceil_div(p.k, kPackK) > 65535) return "k exceeds the scaling passes' grid";
  // TMA coordinates: rows of the scaled copies below 2^31.
  if (round_up(std::max(p.m, p.n), kBN) >= (std::int64_t(1) << 31))
    return "m or n exceeds the tile kernel's 32-bit tile coordinates";
  return needs_grid(ceil_div(p.m, kBM) * ceil_div(p.n, kBN), 1);
}

cudaError_t launch(const Canonical& p, cudaStream_t stream) {
  cudaMemPool_t pool;
  if (cudaError_t err = workspace_pool(&pool); err != cudaSuccess) return err;
  // workspace = [unfit flag | A's row maxima | B's column maxima | A' (mp x kp) | B'^T (np x kp)]
  const std::int64_t mp = round_up(p.m, kPackRows), np = round_up(p.n, kPackRows);
  const std::int64_t kp = round_up(p.k, kBK);
  const std::int64_t head = round_up(256 + (mp + np) * 4, 256);  // keeps A' 256-byte aligned
  const std::int64_t bytes = head + (mp + np) * kp * 2;
  void* workspace = nullptr;
  if (cudaError_t err = cudaMallocFromPoolAsync(&workspace, std::size_t(bytes), pool, stream);
      err != cudaSuccess)
    return err;
  auto* base = static_cast<char*>(workspace);
  int* unfit = reinterpret_cast<int*>(base);
  auto* a_max = reinterpret_cast<std::uint32_t*>(base + 256);
  std::uint32_t* b_max = a_max + mp;
  auto* a_scaled = reinterpret_cast<__half2*>(base + head);
  __half2* b_scaled = a_scaled + mp * kp / 2;

  cudaError_t err = cudaMemsetAsync(workspace, 0, std::size_t(head), stream);
  if (err == cudaSuccess)
    err = scale_to_f16(operand_a(p), p.m, p.k, a_max, a_scaled, mp, kp, unfit, stream);
  if (err == cudaSuccess)
    err = scale_to_f16(operand_bt(p), p.n, p.k, b_max, b_scaled, np, kp, unfit, stream);
  CUtensorMap tmap_a, tmap_b;
  if (err == cudaSuccess && !(make_f16_map(&tmap_a, a_scaled, mp, kp, kBM) &&
                              make_f16_map(&tmap_b, b_scaled, np, kp, kBN)))
    err = cudaErrorInvalidValue;
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute(tc_04_wgmma_f16_tf32_kernel,
                               cudaFuncAttributeMaxDynamicSharedMemorySize, Ring::kSmemBytes);
  if (err == cudaSuccess) {
    const std::int64_t tiles = ceil_div(p.m, kBM) * ceil_div(p.n, kBN);
    tc_04_wgmma_f16_tf32_kernel<<<unsigned(tiles), kThreads, Ring::kSmemBytes, stream>>>(
        p, tmap_a, tmap_b, {a_max, b_max, unfit, int(kp / kBK)});
    err = cudaGetLastError();
  }
  if (err == cudaSuccess) err = fp32_fallback(p, unfit, stream);
  const cudaError_t free_err = cudaFreeAsync(workspace, stream);
  return err != cudaSuccess ? err : free_err;
}

}  // namespace
#endif  // SGEMM_HAS_SM90A

SGEMM_KERNEL_ENTRIES(tensorcore_04_wgmma_f16) {
#ifdef SGEMM_HAS_SM90A
  static const KernelEntry entries[] = {
      {{"tc-04-wgmma-f16-tf32", Track::TensorCore, 4,
        "Tf32 on FP16 wgmma: rows of A and columns of B scaled by powers of two, so FP16 "
        "rounding is TF32 rounding",
        Math::Tf32, "tensor-core track, rung 04", "compute capability 9.0 (sm_90a)"},
       why_not, launch, 0},
  };
  return entries;
#else
  return {};
#endif
}

}  // namespace sgemm::detail
