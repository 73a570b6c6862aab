// Tensor-core rung 05 — small M on the tensor cores: rung 14's memory-bound calls (m or n <= 64:
// LLM decode, nn.Linear on a few rows) in Tf32 and 3xTF32 math.
//
// Such a call is the read of its large operand B. In FP32 the FMAs of 32 or 64 rows take as long
// as that read or longer (8 FLOPs per byte at 16 rows against an FP32 ridge near 20); on the
// tensor cores they cost far less, even three times over for 3xTF32. So this rung keeps rung
// 14's shape and replaces its arithmetic:
// - B streams from global memory straight into mma.sync fragments, with no shared memory and no
//   packing pass: each lane loads 16-byte vectors of B for 32 k at a time, every load of a step in
//   flight before the first mma.
// - The order of k inside a 16-deep slice does not change a dot product, so the slice is
//   permuted to fit the loads: lane (g, t) = (lane / 4, lane % 4) holds k = 4t .. 4t + 3, which
//   feed fragment slots t and t + 4 of two m16n8k8 mmas (k = 4t, 4t + 1 and 4t + 2, 4t + 3). A
//   K-major B gives those four values as one vector per n8 tile; an N-major B gives four n8
//   tiles' worth per vector (row k, columns 4g .. 4g + 3: value q goes to tile q, whose column g
//   is column 4g + q), four rows of k per 16-deep slice.
// - A (at most 64 rows) is staged in shared memory 4096 values at a time, rounded to TF32 (or
//   split into big and small parts), and read back with the same permutation as one 16-byte
//   load per row of a fragment; rows are padded by 16 floats, so a quarter-warp's two rows fall
//   in different banks.
// - A warp owns 32 columns of C and all of its rows, a block 4 warps' columns and one range of
//   k. k is cut into as many ranges as it takes for four blocks per SM (with one, B streamed at
//   under half the bandwidth), and split_sum adds the ranges in order.
// - 3xTF32: per m16 tile and 32-deep step, the cross terms (small*big, big*small) first into a
//   fresh accumulator, then big*big, and the fresh sum joins the FP32 running sum; with the
//   cross terms interleaved with big*big, the truncating tensor-core adds lost their low bits
//   (2.5e-7 against 1.4e-7 at 1 x 4096 x 4096). Every value of A and B is tested as it is split;
//   one the split cannot carry raises the flag, and the FP32 fallback computes the call
//   (pack.cuh).
// - n <= 64 with many rows is the same call transposed (Canonical::transposed).
#include <algorithm>
#include <cstdint>

#include "kernels/arch/mma_sync.cuh"
#include "kernels/epilogue/split_sum.hpp"
#include "kernels/epilogue/store.cuh"
#include "kernels/fallback/fp32_any.cuh"
#include "kernels/kernel.hpp"
#include "kernels/tensorcore/pack.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kThreads = 128, kWarps = kThreads / 32;
constexpr int kMaxRows = 64;
constexpr int kStepK = 32;  // k-values per step: two 16-deep slices, four mmas per n8 tile
constexpr int kStageLoads = 8;  // loads of A a thread has in flight before it stores them
constexpr int kNTiles = 4;      // n8 tiles per warp: 32 columns
constexpr int kMinRange = 256;  // k-values per block at least: its staging and sums amortized
constexpr int kBlockColumns = kWarps * 8 * kNTiles;

// The problem as this rung sees it: p.m <= 64, C row-major or (col_major_c) column-major.
struct SmallMTc {
  Canonical p;
  bool col_major_c;
  bool a_vec;            // A 16-byte aligned with lda % 4 == 0: staged in 16-byte loads
  int splits;            // k cut into this many ranges (grid.y)
  std::int64_t k_range;  // k-values per range, a multiple of kStepK
  float* partial;        // null: the block stores into C; else splits x m x n partial sums
  int* nonfinite;        // 3xTF32: raised on a value the split cannot carry
};

// A's staging chunk for 16 kMTiles rows: 4096 values whatever the rows (16 KB, twice that for
// 3xTF32's two parts), so that several blocks fit on an SM.
template <int kMTiles>
constexpr int kChunkOf = 4096 / (16 * kMTiles);
template <int kMTiles>
constexpr int kStrideOf = kChunkOf<kMTiles> + 16;

template <int kMTiles, Tf32Mode kMode>
constexpr std::size_t smem_bytes() {
  return std::size_t(kMode == Tf32Mode::Tf32x3 ? 2 : 1) * 16 * kMTiles * kStrideOf<kMTiles> *
         sizeof(float);
}

__device__ __forceinline__ float4 ldg4(const float* x) {
  return __ldg(reinterpret_cast<const float4*>(x));
}

// The value as the tensor cores take it: rounded to TF32 (part 0), and for 3xTF32 the rounded
// remainder (part 1); false when the split cannot carry it.
template <Tf32Mode kMode>
__device__ __forceinline__ void split(float x, float& big, float& small, bool& unsplittable) {
  big = to_tf32(x);
  if constexpr (kMode == Tf32Mode::Tf32x3) {
    small = to_tf32(x - big);
    unsplittable |= !splittable(x);
  }
}

// Stages A's rows 0 .. 16 kMTiles - 1 at k-values [k0, k0 + chunk) into sA (part q at
// q * rows * stride, row r at r * stride), zero outside A and past k_end. Each thread moves
// groups of four values along A's contiguous dimension: one 16-byte load when a_vec allows.
template <int kMTiles, Tf32Mode kMode>
__device__ __forceinline__ void stage_a(const SmallMTc& s, float* sA, std::int64_t k0,
                                        std::int64_t k_end, bool& unsplittable) {
  constexpr int kRows = 16 * kMTiles, kChunk = kChunkOf<kMTiles>, kStride = kStrideOf<kMTiles>;
  constexpr int kQuads = kRows * kChunk / 4;
  const Canonical& p = s.p;
  for (int base = threadIdx.x; base < kQuads; base += kThreads * kStageLoads) {
    float4 v[kStageLoads];
#pragma unroll
    for (int u = 0; u < kStageLoads; ++u) {
      const int e = base + u * kThreads;
      // K-major A: four k of one row; M-major: one k of four rows.
      const int r = p.a_k_major ? e / (kChunk / 4) : 4 * (e % (kRows / 4));
      const int kk = p.a_k_major ? 4 * (e % (kChunk / 4)) : e / (kRows / 4);
      const std::int64_t i = r, k = k0 + kk;
      v[u] = {0, 0, 0, 0};
      if (e >= kQuads) continue;
      if (p.a_k_major) {
        if (i >= p.m || k >= k_end) continue;
        const float* x = p.a + i * p.lda + k;
        if (s.a_vec && k + 4 <= k_end)
          v[u] = ldg4(x);
        else
          v[u] = {x[0], k + 1 < k_end ? x[1] : 0.0f, k + 2 < k_end ? x[2] : 0.0f,
                  k + 3 < k_end ? x[3] : 0.0f};
      } else {
        if (i >= p.m || k >= k_end) continue;
        const float* x = p.a + k * p.lda + i;
        if (s.a_vec && i + 4 <= p.m)
          v[u] = ldg4(x);
        else
          v[u] = {x[0], i + 1 < p.m ? x[1] : 0.0f, i + 2 < p.m ? x[2] : 0.0f,
                  i + 3 < p.m ? x[3] : 0.0f};
      }
    }
#pragma unroll
    for (int u = 0; u < kStageLoads; ++u) {
      const int e = base + u * kThreads;
      if (e >= kQuads) break;
      const int r = p.a_k_major ? e / (kChunk / 4) : 4 * (e % (kRows / 4));
      const int kk = p.a_k_major ? 4 * (e % (kChunk / 4)) : e / (kRows / 4);
      const float x[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
      float big[4], small[4] = {};
#pragma unroll
      for (int q = 0; q < 4; ++q) split<kMode>(x[q], big[q], small[q], unsplittable);
      float* big_part = sA;
      float* small_part = sA + kRows * kStride;
      if (p.a_k_major) {
        *reinterpret_cast<float4*>(big_part + r * kStride + kk) = {big[0], big[1], big[2], big[3]};
        if constexpr (kMode == Tf32Mode::Tf32x3)
          *reinterpret_cast<float4*>(small_part + r * kStride + kk) = {small[0], small[1],
                                                                       small[2], small[3]};
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          big_part[(r + q) * kStride + kk] = big[q];
          if constexpr (kMode == Tf32Mode::Tf32x3) small_part[(r + q) * kStride + kk] = small[q];
        }
      }
    }
  }
}

// One step's B: b[h][v] for slice h (k + 16h). K-major B: v is the n8 tile, the vector its
// column g at k + 16h + 4t .. + 3. N-major B: the vector of row k + 16h + 4t + v at columns
// 4g .. 4g + 3 of the warp's 32 (value q of it belongs to tile q). kWhole: the step lies inside
// k_end.
template <bool kBKMajor, bool kWhole>
__device__ __forceinline__ void load_b(const SmallMTc& s, std::int64_t col0, std::int64_t k,
                                       std::int64_t k_end, float4 (&b)[2][kNTiles]) {
  const Canonical& p = s.p;
  const int g = threadIdx.x % 32 / 4, t = threadIdx.x % 4;
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int v = 0; v < kNTiles; ++v) {
      b[h][v] = {0, 0, 0, 0};
      if constexpr (kBKMajor) {
        const std::int64_t j = col0 + 8 * v + g, kk = k + 16 * h + 4 * t;
        if (j >= p.n) continue;
        const float* x = p.b + j * p.ldb + kk;
        if (kWhole)
          b[h][v] = ldg4(x);
        else if (kk < k_end)
          b[h][v] = {x[0], kk + 1 < k_end ? x[1] : 0.0f, kk + 2 < k_end ? x[2] : 0.0f,
                     kk + 3 < k_end ? x[3] : 0.0f};
      } else {
        const std::int64_t j = col0 + 4 * g, kk = k + 16 * h + 4 * t + v;
        if (j >= p.n || (!kWhole && kk >= k_end)) continue;
        const float* x = p.b + kk * p.ldb + j;
        if (j + 4 <= p.n)
          b[h][v] = ldg4(x);
        else
          b[h][v] = {x[0], j + 1 < p.n ? x[1] : 0.0f, j + 2 < p.n ? x[2] : 0.0f, 0.0f};
      }
    }
}

__device__ __forceinline__ float lane_of(const float4& v, int q) {
  return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w;
}

template <int kMTiles, bool kBKMajor, Tf32Mode kMode>
__global__ void __launch_bounds__(kThreads, 2) tc_05_mma_small_m_kernel(const SmallMTc s) {
  constexpr bool kThree = kMode == Tf32Mode::Tf32x3;
  constexpr int kRows = 16 * kMTiles, kChunk = kChunkOf<kMTiles>, kStride = kStrideOf<kMTiles>;
  extern __shared__ float4 smem[];
  float* sA = reinterpret_cast<float*>(smem);
  const Canonical& p = s.p;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const std::int64_t col0 = (std::int64_t(blockIdx.x) * kWarps + warp) * 8 * kNTiles;
  const std::int64_t k_begin = std::int64_t(blockIdx.y) * s.k_range;
  const std::int64_t k_end = std::min(p.k, k_begin + s.k_range);

  // A's fragments for rows g and g + 8 of m16 tile mi at k = 16h + 4t .. + 3 of the step, part
  // q: mma j takes k = 4t + 2j (slot t) and 4t + 2j + 1 (slot t + 4).
  const auto a_fragments = [&](int q, int mi, int offset, std::uint32_t (&af)[2][4]) {
    const float* rows = sA + q * kRows * kStride + (16 * mi + g) * kStride + offset + 4 * t;
    const float4 lo = *reinterpret_cast<const float4*>(rows);
    const float4 hi = *reinterpret_cast<const float4*>(rows + 8 * kStride);
    af[0][0] = __float_as_uint(lo.x), af[0][1] = __float_as_uint(hi.x);
    af[0][2] = __float_as_uint(lo.y), af[0][3] = __float_as_uint(hi.y);
    af[1][0] = __float_as_uint(lo.z), af[1][1] = __float_as_uint(hi.z);
    af[1][2] = __float_as_uint(lo.w), af[1][3] = __float_as_uint(hi.w);
  };
  // B's values for tile v, mma j, slot e (0: t, 1: t + 4) of slice h.
  const auto b_value = [&](const float4 (&b)[2][kNTiles], int h, int v, int j, int e) {
    return kBKMajor ? lane_of(b[h][v], 2 * j + e) : lane_of(b[h][2 * j + e], v);
  };

  // d += the step's big*big products of m16 tile mi (Tf32: the only ones).
  const auto big_products = [&](const float4 (&b)[2][kNTiles], int step, int mi,
                                float (&d)[kNTiles][4]) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      std::uint32_t a_big[2][4];
      a_fragments(0, mi, step + 16 * h, a_big);
#pragma unroll
      for (int v = 0; v < kNTiles; ++v)
#pragma unroll
        for (int j = 0; j < 2; ++j)
          mma_tf32(d[v], a_big[j], __float_as_uint(to_tf32(b_value(b, h, v, j, 0))),
                   __float_as_uint(to_tf32(b_value(b, h, v, j, 1))));
    }
  };

  float acc[kMTiles][kNTiles][4] = {};
  bool unsplittable = false;
  for (std::int64_t k0 = k_begin; k0 < k_end; k0 += kChunk) {
    __syncthreads();  // the previous chunk is read
    stage_a<kMTiles, kMode>(s, sA, k0, k_end, unsplittable);
    __syncthreads();
    const int chunk = int(std::min<std::int64_t>(kChunk, k_end - k0));
#pragma unroll 1
    for (int step = 0; step < chunk; step += kStepK) {
      float4 b[2][kNTiles];
      if (k0 + step + kStepK <= k_end)
        load_b<kBKMajor, true>(s, col0, k0 + step, k_end, b);
      else
        load_b<kBKMajor, false>(s, col0, k0 + step, k_end, b);
      if constexpr (kThree) {
        // Per m16 tile, the step's cross terms first, into a fresh accumulator (their sum is
        // small and keeps its low bits through the tensor cores' truncating adds), then
        // big*big; the fresh sum joins the FP32 running sum once per step.
#pragma unroll
        for (int mi = 0; mi < kMTiles; ++mi) {
          float fresh[kNTiles][4] = {};
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            std::uint32_t a_big[2][4], a_small[2][4];
            a_fragments(0, mi, step + 16 * h, a_big);
            a_fragments(1, mi, step + 16 * h, a_small);
#pragma unroll
            for (int v = 0; v < kNTiles; ++v)
#pragma unroll
              for (int j = 0; j < 2; ++j) {
                std::uint32_t big[2], small[2];
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                  float bb, bs;
                  split<kMode>(b_value(b, h, v, j, e), bb, bs, unsplittable);
                  big[e] = __float_as_uint(bb), small[e] = __float_as_uint(bs);
                }
                mma_tf32(fresh[v], a_small[j], big[0], big[1]);
                mma_tf32(fresh[v], a_big[j], small[0], small[1]);
              }
          }
          big_products(b, step, mi, fresh);
#pragma unroll
          for (int v = 0; v < kNTiles; ++v)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[mi][v][e] += fresh[v][e];
        }
      } else {
#pragma unroll
        for (int mi = 0; mi < kMTiles; ++mi) big_products(b, step, mi, acc[mi]);
      }
    }
  }
  if constexpr (kThree) {
    if (__any_sync(0xffffffffu, unsplittable) && lane == 0) *s.nonfinite = 1;
  }

  // Element e of tile (mi, v): row 16 mi + g + 8 (e / 2), tile column 2t + e % 2.
#pragma unroll
  for (int mi = 0; mi < kMTiles; ++mi)
#pragma unroll
    for (int v = 0; v < kNTiles; ++v)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const std::int64_t i = 16 * mi + g + 8 * (e / 2);
        const int c = 2 * t + e % 2;
        const std::int64_t j = kBKMajor ? col0 + 8 * v + c : col0 + 4 * c + v;
        if (i >= p.m || j >= p.n) continue;
        if (s.partial != nullptr)
          s.partial[(std::int64_t(blockIdx.y) * p.m + i) * p.n + j] = acc[mi][v][e];
        else
          store_c(s.col_major_c ? p.c + j * p.ldc + i : p.c + i * p.ldc + j, acc[mi][v][e],
                  p.alpha, p.beta);
      }
}

// --- host side ---------------------------------------------------------------------------------

constexpr int m_tiles_of(std::int64_t rows) { return rows <= 16 ? 1 : rows <= 32 ? 2 : 4; }

// How the blocks cover the call: column blocks, and ranges of k (multiples of a step, at least
// kMinRange) until there are kBlocksPerSm blocks per SM: with one in flight per SM, B streamed at
// under half the HBM bandwidth.
constexpr int kBlocksPerSm = 4;
SmallMTc planned(const Canonical& call, const Device& device) {
  SmallMTc s{};
  s.col_major_c = call.m > kMaxRows;
  s.p = s.col_major_c ? call.transposed() : call;
  const Canonical& p = s.p;
  s.a_vec = aligned16(p.a) && p.lda % 4 == 0;
  const std::int64_t columns = ceil_div(p.n, kBlockColumns);
  const std::int64_t want = ceil_div(std::int64_t(kBlocksPerSm) * std::max(device.sms, 1), columns);
  const std::int64_t most = std::max<std::int64_t>(1, p.k / kMinRange);
  const std::int64_t splits =
      std::clamp<std::int64_t>(want, 1, std::min<std::int64_t>(most, 65535));
  s.k_range = round_up(ceil_div(p.k, splits), kStepK);
  s.splits = int(ceil_div(p.k, s.k_range));
  return s;
}

// Whether the blocks store C themselves: with one range of k, unless 3xTF32 with beta != 0 (a
// failed split leaves C to the FP32 fallback, which must find it untouched; with beta == 0 the
// fallback overwrites whatever the blocks stored). Otherwise split_sum adds the blocks' sums,
// and in 3xTF32 only when the split held.
bool stores_c(const SmallMTc& s, Tf32Mode mode) {
  return s.splits == 1 && (mode == Tf32Mode::Tf32 || s.p.beta == 0.0f);
}

template <Tf32Mode kMode>
std::string_view why_not(const Canonical& call, const Device& device) {
  if (device.cc < 80) return "needs compute capability 8.0 or newer (TF32 mma.sync)";
  if (std::min(call.m, call.n) > kMaxRows) return "needs m or n <= 64";
  const Canonical p = call.m > kMaxRows ? call.transposed() : call;
  if (!aligned16(p.b) || p.ldb % 4 != 0)
    return "needs the large operand 16-byte aligned with a leading dimension that is a multiple "
           "of 4 (16-byte loads)";
  if (std::max({call.m, call.n, call.k}) > INT32_MAX) return "needs m, n, k < 2^31";
  return {};
}

template <Tf32Mode kMode>
std::size_t workspace_bytes(const Canonical& call, const Device& device, const KernelEntry*) {
  if (kMode == Tf32Mode::Tf32x3 && call.k < kMinSplitK) return 0;
  const SmallMTc s = planned(call, device);
  std::size_t bytes = kMode == Tf32Mode::Tf32x3 ? Workspace::rounded(sizeof(int)) : 0;
  if (!stores_c(s, kMode))
    bytes += Workspace::rounded(std::size_t(s.splits) * s.p.m * s.p.n * sizeof(float));
  return bytes;
}

template <int kMTiles, Tf32Mode kMode>
cudaError_t launch_tiles(const SmallMTc& s, dim3 grid, cudaStream_t stream) {
  constexpr std::size_t bytes = smem_bytes<kMTiles, kMode>();
  const auto go = [&](auto kernel) {
    if (cudaError_t e = set_max_dynamic_smem(kernel, int(bytes))) return e;
    return launch_kernel(kernel, grid, kThreads, bytes, stream, s);
  };
  return s.p.b_k_major ? go(tc_05_mma_small_m_kernel<kMTiles, true, kMode>)
                       : go(tc_05_mma_small_m_kernel<kMTiles, false, kMode>);
}

template <Tf32Mode kMode>
cudaError_t launch(const Canonical& call, const LaunchArgs& args) {
  constexpr bool kThree = kMode == Tf32Mode::Tf32x3;
  // A handful of products per element: the split's own error is not below FP32's (pack.cuh).
  if (kThree && call.k < kMinSplitK) return fp32_any(call, nullptr, args.device, args.stream);
  SmallMTc s = planned(call, args.device);
  if constexpr (kThree) {
    s.nonfinite = args.workspace.take<int>(1);
    if (!s.nonfinite) return cudaErrorMemoryAllocation;
    if (cudaError_t err = cudaMemsetAsync(s.nonfinite, 0, sizeof(int), args.stream)) return err;
  }
  if (!stores_c(s, kMode)) {
    s.partial = args.workspace.take<float>(std::int64_t(s.splits) * s.p.m * s.p.n);
    if (!s.partial) return cudaErrorMemoryAllocation;
  }
  const dim3 grid(unsigned(ceil_div(s.p.n, kBlockColumns)), unsigned(s.splits));
  cudaError_t err;
  switch (m_tiles_of(s.p.m)) {
    case 1: err = launch_tiles<1, kMode>(s, grid, args.stream); break;
    case 2: err = launch_tiles<2, kMode>(s, grid, args.stream); break;
    default: err = launch_tiles<4, kMode>(s, grid, args.stream); break;
  }
  if (err == cudaSuccess && s.partial != nullptr)
    err = split_sum({s.partial, s.p.n, s.splits, s.p.m, s.p.n, s.p.c, s.p.ldc, s.col_major_c,
                     s.p.alpha, s.p.beta, s.nonfinite},
                    args.device, args.stream);
  if (err == cudaSuccess && kThree) err = fp32_any(call, s.nonfinite, args.device, args.stream);
  return err;
}

}  // namespace

SGEMM_KERNEL_ENTRIES(tensorcore_05_mma_small_m) {
  static const KernelEntry entries[] = {
      {{"tc-05-mma-small-m-tf32x3", Track::TensorCore, 5,
        "small M on mma.sync: B streamed from global memory straight into fragments, A staged "
        "and split in shared memory, 3xTF32 with staged accumulation, k split over blocks",
        Math::Fp32Tf32x3, "beyond the seeds: rung 14's memory-bound regime on the tensor cores",
        "m or n <= 64; the large operand 16-byte aligned, its leading dimension a multiple of 4",
        Unit::Tf32Tensor},
       why_not<Tf32Mode::Tf32x3>, launch<Tf32Mode::Tf32x3>, workspace_bytes<Tf32Mode::Tf32x3>},
      {{"tc-05-mma-small-m-tf32", Track::TensorCore, 5,
        "small M on mma.sync: B streamed from global memory straight into fragments, A staged "
        "in shared memory, operands rounded to TF32, k split over blocks",
        Math::Tf32, "beyond the seeds: rung 14's memory-bound regime on the tensor cores",
        "m or n <= 64; the large operand 16-byte aligned, its leading dimension a multiple of 4",
        Unit::Tf32Tensor},
       why_not<Tf32Mode::Tf32>, launch<Tf32Mode::Tf32>, workspace_bytes<Tf32Mode::Tf32>},
  };
  return entries;
}

}  // namespace sgemm::detail
