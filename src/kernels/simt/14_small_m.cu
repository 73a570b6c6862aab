// Rung 14 — small M: the call is a few vector-matrix products, and its cost is reading B once.
//
// With m <= 64 rows of C (LLM decode, small batches), the tiled rungs waste most of their tiles,
// and the work is nothing like theirs: each of B's k x n values is used m times, each of A's m x k
// values n times, so A is small and B is the call. At m = 16 and n = k = 4096 B is 64 MB and the
// FMAs take under half the time a read of B takes at the HBM bandwidth (seed 003's roofline: 8
// FLOPs per byte against an FP32 ridge near 20). So this rung is a memory-bound kernel:
// - B streams through once, 16-byte loads, several in flight per thread; A is staged in shared
//   memory a chunk of k at a time and read from there by every warp, or, for a few rows, read
//   from global memory beside B (L1 and L2 serve the repeats).
// - B with k contiguous (the weight of nn.Linear: row-major x w^T): a warp owns 4 columns of C,
//   its lanes split k, 4 consecutive k per lane and load; each lane keeps rows x 4 partial dot
//   products (with up to 2 rows, 4 chains each, for accuracy), and a warp shuffle sums them at
//   the end.
// - B with n contiguous: a lane owns 4 consecutive columns, the block's warps split k, and each
//   step multiplies one float4 of B by one value of A per row, read by the whole warp at once
//   (a broadcast); a warp issues 8 such loads of B before it multiplies; the warps' sums meet
//   in shared memory.
// - Where one pass over the columns does not fill the GPU, k is also split over blocks
//   (grid.y); each block writes its partial sums to the workspace, and split_sum adds them in a
//   fixed order, so that the result does not depend on timing.
// - n <= 64 with many rows is the same call transposed: C^T = B^T A^T, stored with C's rows as
//   its columns (kColMajorC).
#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/epilogue/split_sum.hpp"
#include "kernels/epilogue/store.cuh"
#include "kernels/kernel.hpp"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kThreads = 256, kWarps = kThreads / 32;
constexpr int kMaxRows = 64;       // rows of C this rung takes (of the call or, transposed, columns)
constexpr int kWarpRows = 16;      // rows of C a warp keeps sums for (8 with A read directly)
constexpr int kKChunk = 512;       // k-values of A staged per chunk (x rows: <= 128 KB)
constexpr int kDotColumns = 4;     // K-major B: columns of C per warp
constexpr int kDotStep = 32 * 4;   // K-major B: k-values a warp covers per step

// The problem as this rung sees it: C (rows x cols) = alpha A B + beta C with rows <= 64, stored
// row-major, or (col_major_c) column-major: C(i, j) at c[j * ldc + i].
struct SmallM {
  Canonical p;
  bool col_major_c;
  int warp_rows;        // K-major B: rows of C per warp, 8 with A read directly, else 16
  int row_groups;       // K-major B: warps per column group
  bool direct_a;        // K-major B and A: A read from global memory in float4s, not staged
  bool narrow;          // N-major B: NarrowAxpy's blocks (at most 4 rows), else WideAxpy's
  int splits;           // k is cut into this many ranges (grid.y)
  std::int64_t k_range;  // k-values per range, a multiple of kKChunk
  float* partial;       // splits > 1: splits x rows x cols partial sums
};

__device__ __forceinline__ float& c_at(const SmallM& s, std::int64_t i, std::int64_t j) {
  return s.col_major_c ? s.p.c[j * s.p.ldc + i] : s.p.c[i * s.p.ldc + j];
}

// The result of element (i, j), from this block's range of k: into C, or into the partial sums.
__device__ __forceinline__ void emit(const SmallM& s, std::int64_t i, std::int64_t j, float sum) {
  if (s.splits == 1)
    store_c(&c_at(s, i, j), sum, s.p.alpha, s.p.beta);
  else
    s.partial[(std::int64_t(blockIdx.y) * s.p.m + i) * s.p.n + j] = sum;
}

// Stages rows [row0, row0 + rows) of A at k-values [k0, k0 + kKChunk) into sA, zero outside A:
// k-contiguous (sA[r * kKChunk + kk], for the dot kernel) or row-contiguous (sA[kk * rows + r],
// for the axpy kernel, whose lanes all read one k-value at a time). Each thread has kStageLoads
// loads in flight before it stores any: staged one at a time, a chunk of 16 rows cost more than
// the chunk's share of B.
constexpr int kStageLoads = 8;
template <bool kRowContiguous>
__device__ __forceinline__ void stage_a(const Canonical& p, float* sA, std::int64_t row0, int rows,
                                        std::int64_t k0) {
  const int total = rows * kKChunk;
  for (int base = threadIdx.x; base < total; base += kThreads * kStageLoads) {
    float v[kStageLoads];
#pragma unroll
    for (int u = 0; u < kStageLoads; ++u) {
      // Consecutive threads read consecutive addresses of A in either of its layouts.
      const int e = base + u * kThreads;
      const int r = p.a_k_major ? e / kKChunk : e % rows;
      const int kk = p.a_k_major ? e % kKChunk : e / rows;
      const std::int64_t i = row0 + r, k = k0 + kk;
      v[u] = e < total && i < p.m && k < p.k
                 ? (p.a_k_major ? p.a[i * p.lda + k] : p.a[k * p.lda + i])
                 : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < kStageLoads; ++u) {
      const int e = base + u * kThreads;
      const int r = p.a_k_major ? e / kKChunk : e % rows;
      const int kk = p.a_k_major ? e % kKChunk : e / rows;
      if (e < total) sA[kRowContiguous ? kk * rows + r : r * kKChunk + kk] = v[u];
    }
  }
}

__device__ __forceinline__ float4 load4(const float* x, bool inside) {
  return inside ? __ldg(reinterpret_cast<const float4*>(x)) : float4{0, 0, 0, 0};
}

// Rows of A a dot kernel's block stages: kRows for one row group, else 16 per group.
__host__ __device__ constexpr int dot_block_rows(int row_groups, int rows) {
  return row_groups > 1 ? row_groups * kWarpRows : rows;
}
// Registers: a warp of 16 rows reading A directly holds 16 float4s of A besides its 64 sums, and
// took 243 registers (one block per SM); 8-row warps stay near 144.
constexpr int kDirectWarpRows = 8;

// A K-major A's values at k .. k + 3 for the kRows rows from row0, read from global memory (L1
// serves the other warps of the block, which read the same rows), zero outside A. Needs A
// 16-byte aligned with lda % 4 == 0; kWhole: k + 4 <= k_end.
template <int kRows, bool kWhole>
__device__ __forceinline__ void load_a_direct(const Canonical& p, std::int64_t row0,
                                              std::int64_t k, std::int64_t k_end,
                                              float4 (&a)[kRows]) {
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const std::int64_t i = row0 + r;
    const float* x = p.a + (i < p.m ? i : 0) * p.lda + k;
    if constexpr (kWhole) {
      a[r] = load4(x, i < p.m);
    } else {
      a[r] = {k < k_end ? x[0] : 0.0f, k + 1 < k_end ? x[1] : 0.0f, k + 2 < k_end ? x[2] : 0.0f,
              k + 3 < k_end ? x[3] : 0.0f};
      if (i >= p.m) a[r] = {0, 0, 0, 0};
    }
  }
}

// B with k contiguous. Block: kWarps / row_groups column groups of kDotColumns columns, each
// computed by row_groups warps of kWarpRows rows. A comes from global memory directly where its
// alignment allows (kDirectA), else staged in shared memory a chunk of k at a time.
template <int kRows, bool kDirectA>
__device__ __forceinline__ void dot_columns(const SmallM& s) {
  extern __shared__ float sA[];  // staged A: block_rows x kKChunk
  const Canonical& p = s.p;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int group = warp % s.row_groups, column_group = warp / s.row_groups;
  const int block_rows = dot_block_rows(s.row_groups, kRows);
  const std::int64_t col0 =
      (std::int64_t(blockIdx.x) * (kWarps / s.row_groups) + column_group) * kDotColumns;
  const std::int64_t k_begin = std::int64_t(blockIdx.y) * s.k_range;
  const std::int64_t k_end = std::min(p.k, k_begin + s.k_range);
  // A lane's sums: with at most 2 rows, one per k-value of its float4 (4 chains a quarter as
  // long, added at the end), else one. Measured on an H200, NT x cuBLAS SGEMM's error: 1 x 11008 x
  // 4096 0.91 against 1.54, 2 x 4096 x 11008 0.79 against 1.31, at 0-6% more time. At 4 rows it
  // took 74 -> 123 registers and 2 blocks per SM instead of 3: 4 x 11008 x 4096 71 against 54 us.
  constexpr int kChains = kRows <= 2 ? 4 : 1;
  float acc[kRows][kDotColumns][kChains] = {};
  // Columns past n read column 0 (in bounds) and are not stored.
  const float* b_cols = p.b + (col0 < p.n ? col0 : 0) * p.ldb;
  const int cols_in = int(std::min<std::int64_t>(p.n - col0, kDotColumns));
  const std::int64_t col_step = cols_in > 1 ? p.ldb : 0;
  for (std::int64_t k0 = k_begin; k0 < k_end; k0 += kKChunk) {
    if constexpr (!kDirectA) {
      __syncthreads();  // the previous chunk is read
      stage_a<false>(p, sA, 0, block_rows, k0);
      __syncthreads();
    }
    const float* a_rows = sA + group * kWarpRows * kKChunk;
    // One step: 128 k-values of the warp's 4 columns; kWhole where all of them lie inside k.
    const auto step_at = [&]<bool kWhole>(int step) {
      const std::int64_t k = k0 + step + 4 * lane;
      float4 b[kDotColumns];
#pragma unroll
      for (int c = 0; c < kDotColumns; ++c) {
        const float* b_col = b_cols + (c < cols_in ? c * col_step : 0);
        if (kWhole) {
          b[c] = load4(b_col + k, c < cols_in);
        } else {
          b[c] = {k < k_end ? b_col[k] : 0.0f, k + 1 < k_end ? b_col[k + 1] : 0.0f,
                  k + 2 < k_end ? b_col[k + 2] : 0.0f, k + 3 < k_end ? b_col[k + 3] : 0.0f};
          if (c >= cols_in) b[c] = {0, 0, 0, 0};
        }
      }
      float4 a[kRows];
      if constexpr (kDirectA) {
        load_a_direct<kRows, kWhole>(p, std::int64_t(group) * s.warp_rows, k, k_end, a);
      } else {
#pragma unroll
        for (int r = 0; r < kRows; ++r)
          a[r] = *reinterpret_cast<const float4*>(a_rows + r * kKChunk + step + 4 * lane);
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int c = 0; c < kDotColumns; ++c) {
          float(&sum)[kChains] = acc[r][c];
          if constexpr (kChains == 4) {
            sum[0] = fmaf(a[r].x, b[c].x, sum[0]);
            sum[1] = fmaf(a[r].y, b[c].y, sum[1]);
            sum[2] = fmaf(a[r].z, b[c].z, sum[2]);
            sum[3] = fmaf(a[r].w, b[c].w, sum[3]);
          } else {
            sum[0] = fmaf(a[r].x, b[c].x,
                          fmaf(a[r].y, b[c].y, fmaf(a[r].z, b[c].z, fmaf(a[r].w, b[c].w, sum[0]))));
          }
        }
    };
    int step = 0;
    for (; step < kKChunk && k0 + step + kDotStep <= k_end; step += kDotStep)
      step_at.template operator()<true>(step);
    for (; step < kKChunk && k0 + step < k_end; step += kDotStep)
      step_at.template operator()<false>(step);
  }
  // The lanes' partial dot products, summed over the warp; lane (r * 4 + c) % 32 keeps (r, c).
#pragma unroll
  for (int r = 0; r < kRows; ++r)
#pragma unroll
    for (int c = 0; c < kDotColumns; ++c) {
      float sum = acc[r][c][0];
      if constexpr (kChains == 4) sum = (sum + acc[r][c][1]) + (acc[r][c][2] + acc[r][c][3]);
#pragma unroll
      for (int d = 16; d > 0; d /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, d);
      const std::int64_t i = std::int64_t(group) * s.warp_rows + r;
      if (lane == (r * kDotColumns + c) % 32 && i < p.m && c < cols_in) emit(s, i, col0 + c, sum);
    }
}

// B with n contiguous. A block takes kColumns columns of C, 4 per lane (kLanesN lanes side by
// side), and 16 of its rows (grid.z walks the rest, each reading B again); its kSlots groups of
// kLanesN threads take every kSlots-th k-value of each chunk of k, in batches of kAxpyBatch
// loads of B issued before any of their products. The slots' sums are added within each warp,
// then across warps in shared memory, in a fixed order.
// - Wide: 128 columns, 256 threads, which hold 16 rows of sums; A staged in shared memory a
//   chunk at a time.
// - Narrow: 32 columns, 512 threads, for at most 4 rows: a GEMV's 4096 columns fill 128 SMs
//   without ranges of k, whose partial sums cost split_sum's launch (1 x 4096 x 4096 on an H200:
//   the wide blocks in 8 ranges took 21.5 us and split_sum 3.2, cuBLAS's GEMV 20.1). A is read
//   from global memory beside B (L1 serves the block's repeats): with the block's 1024 k-values
//   of A staged per chunk behind two barriers, each chunk waited for A's loads and then B's.
constexpr int kAxpyBatch = 8;
template <int kBlockThreads_, int kLanesN_, bool kDirectA_>
struct AxpyShape {
  static constexpr int kBlockThreads = kBlockThreads_, kLanesN = kLanesN_;
  static constexpr bool kDirectA = kDirectA_;  // A read from global memory, not staged
  static constexpr int kColumns = 4 * kLanesN;
  static constexpr int kSlots = kBlockThreads / kLanesN;  // k-values a step covers
  static constexpr int kWarps = kBlockThreads / 32;
  static constexpr int kChunk = std::max(kKChunk, kSlots * kAxpyBatch);  // k-values of A staged
  static constexpr int kSmemFloatsPerRow =
      kDirectA ? kWarps * kColumns : std::max(kChunk, kWarps * kColumns);
};
using WideAxpy = AxpyShape<kThreads, 32, false>;
using NarrowAxpy = AxpyShape<512, 8, true>;
constexpr int kNarrowAxpyRows = 4;

template <class Shape, int kRows>
__device__ __forceinline__ void axpy_columns(const SmallM& s) {
  extern __shared__ float smem[];  // sA: kChunk x kRows; then reused for the warps' sums
  const Canonical& p = s.p;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int lane_n = threadIdx.x % Shape::kLanesN, slot = threadIdx.x / Shape::kLanesN;
  const std::int64_t row0 = std::int64_t(blockIdx.z) * kWarpRows;  // this block's rows of C
  const std::int64_t col = std::int64_t(blockIdx.x) * Shape::kColumns + 4 * lane_n;
  const std::int64_t k_begin = std::int64_t(blockIdx.y) * s.k_range;
  const std::int64_t k_end = std::min(p.k, k_begin + s.k_range);
  const bool vec = col + 4 <= p.n;  // B 16-byte aligned with ldb % 4 == 0 (why_not)
  float acc[kRows][4] = {};
  for (std::int64_t k0 = k_begin; k0 < k_end; k0 += Shape::kChunk) {
    if constexpr (!Shape::kDirectA) {
      static_assert(Shape::kChunk == kKChunk && Shape::kBlockThreads == kThreads,
                    "stage_a stages kKChunk k-values with kThreads threads");
      __syncthreads();
      stage_a<true>(p, smem, row0, kRows, k0);
      __syncthreads();
    }
    const int chunk = int(std::min<std::int64_t>(Shape::kChunk, k_end - k0));
    for (int kb = slot; kb < chunk; kb += Shape::kSlots * kAxpyBatch) {
      float4 b[kAxpyBatch];
#pragma unroll
      for (int u = 0; u < kAxpyBatch; ++u) {
        const int kk = kb + u * Shape::kSlots;
        const float* b_row = p.b + (k0 + (kk < chunk ? kk : 0)) * p.ldb + col;
        if (kk >= chunk) {
          b[u] = {0, 0, 0, 0};
        } else if (vec) {
          b[u] = __ldg(reinterpret_cast<const float4*>(b_row));
        } else {
          b[u] = {col < p.n ? b_row[0] : 0.0f, col + 1 < p.n ? b_row[1] : 0.0f,
                  col + 2 < p.n ? b_row[2] : 0.0f, col + 3 < p.n ? b_row[3] : 0.0f};
        }
      }
      float a_direct[Shape::kDirectA ? kAxpyBatch : 1][kRows];
      if constexpr (Shape::kDirectA) {  // loaded beside B, before the products
#pragma unroll
        for (int u = 0; u < kAxpyBatch; ++u)
#pragma unroll
          for (int r = 0; r < kRows; ++r) {
            const int kk = kb + u * Shape::kSlots;
            const std::int64_t i = row0 + r, k = k0 + kk;
            a_direct[u][r] = kk < chunk && i < p.m
                                 ? __ldg(p.a_k_major ? p.a + i * p.lda + k : p.a + k * p.lda + i)
                                 : 0.0f;
          }
      }
#pragma unroll
      for (int u = 0; u < kAxpyBatch; ++u)
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          const int kk = kb + u * Shape::kSlots;
          float a;
          if constexpr (Shape::kDirectA)
            a = a_direct[u][r];
          else
            a = kk < chunk ? smem[kk * kRows + r] : 0.0f;  // past the chunk: not staged
          acc[r][0] = fmaf(a, b[u].x, acc[r][0]);
          acc[r][1] = fmaf(a, b[u].y, acc[r][1]);
          acc[r][2] = fmaf(a, b[u].z, acc[r][2]);
          acc[r][3] = fmaf(a, b[u].w, acc[r][3]);
        }
    }
  }
  // The warp's slots of each column group, then the warps.
#pragma unroll
  for (int r = 0; r < kRows; ++r)
#pragma unroll
    for (int q = 0; q < 4; ++q)
#pragma unroll
      for (int d = Shape::kLanesN; d < 32; d *= 2)
        acc[r][q] += __shfl_xor_sync(0xffffffffu, acc[r][q], d);
  __syncthreads();
  float* sums = smem;  // kWarps x kRows x kColumns
  if (lane < Shape::kLanesN)
#pragma unroll
    for (int r = 0; r < kRows; ++r)
#pragma unroll
      for (int q = 0; q < 4; ++q)
        sums[(warp * kRows + r) * Shape::kColumns + 4 * lane + q] = acc[r][q];
  __syncthreads();
  for (int e = threadIdx.x; e < kRows * Shape::kColumns; e += Shape::kBlockThreads) {
    const int r = e / Shape::kColumns, j = e % Shape::kColumns;
    float sum = 0.0f;
    for (int w = 0; w < Shape::kWarps; ++w) sum += sums[(w * kRows + r) * Shape::kColumns + j];
    const std::int64_t cj = std::int64_t(blockIdx.x) * Shape::kColumns + j;
    if (row0 + r < p.m && cj < p.n) emit(s, row0 + r, cj, sum);
  }
}

// kBKMajor: B with k contiguous (dot_columns, A direct or staged), else with n contiguous
// (axpy_columns, wide).
template <int kRows, bool kBKMajor, bool kDirectA>
__global__ void __launch_bounds__(kThreads) simt_14_small_m_kernel(const SmallM s) {
  if constexpr (kBKMajor)
    dot_columns<kRows, kDirectA>(s);
  else
    axpy_columns<WideAxpy, kRows>(s);
}

template <int kRows>
__global__ void __launch_bounds__(NarrowAxpy::kBlockThreads)
    simt_14_small_m_narrow_kernel(const SmallM s) {
  axpy_columns<NarrowAxpy, kRows>(s);
}

// --- host side ---------------------------------------------------------------------------------

// The call as this rung computes it: as it is when m is small, transposed when n is.
SmallM oriented(const Canonical& p) {
  SmallM s{};
  s.col_major_c = p.m > kMaxRows;
  s.p = s.col_major_c ? p.transposed() : p;
  return s;
}

std::int64_t tiles_of(const SmallM& s) {
  if (s.p.b_k_major) return ceil_div(s.p.n, std::int64_t(kWarps / s.row_groups) * kDotColumns);
  return ceil_div(s.p.n, s.narrow ? NarrowAxpy::kColumns : WideAxpy::kColumns);
}

// How the blocks cover the call: column tiles, and how many ranges k is cut into so that at
// least two blocks per SM stream B (about one of the narrow axpy's, which fills an SM), each
// range a whole number of A's chunks.
SmallM planned(const Canonical& call, const Device& device) {
  SmallM s = oriented(call);
  const Canonical& p = s.p;
  s.row_groups = 1;
  if (p.b_k_major) {
    s.direct_a = p.a_k_major && aligned16(p.a) && p.lda % 4 == 0;
    s.warp_rows = s.direct_a ? kDirectWarpRows : kWarpRows;
    // A power of two, so that the block's 8 warps split evenly.
    while (s.row_groups * s.warp_rows < p.m) s.row_groups *= 2;
  }
  const std::int64_t sms = std::max(device.sms, 1);
  const auto cut = [&](SmallM& plan) {
    const int chunk = p.b_k_major ? kKChunk : plan.narrow ? NarrowAxpy::kChunk : WideAxpy::kChunk;
    const std::int64_t chunks = ceil_div(p.k, chunk);
    // The narrow blocks are cut only while the ranges still add whole rounds of SMs: a GEMV's
    // 128 column blocks on 132 SMs run whole, not in two ranges added by split_sum.
    const std::int64_t tiles = tiles_of(plan);
    const std::int64_t want = plan.narrow ? sms / tiles : ceil_div(2 * sms, tiles);
    const std::int64_t splits =
        std::clamp<std::int64_t>(want, 1, std::min<std::int64_t>(chunks, 65535));
    plan.k_range = ceil_div(chunks, splits) * chunk;
    plan.splits = int(ceil_div(p.k, plan.k_range));
  };
  cut(s);
  if (p.b_k_major || p.m > kNarrowAxpyRows) return s;
  // N-major B with at most 4 rows: the narrow blocks for one row where they fill at least 90% of
  // their rounds of SMs, and for 2-4 rows where the wide blocks, ranges included, would not give
  // every SM one. Measured on an H200: 1 x 4096 x 4096 29.0 against the wide blocks' 31.7
  // us, 1 x 8192 x 8192 69.6 against 76.6, 2 x 2048 x 2048 14.8 against 21.1, 4 x 1024 x 4096
  // 16.5 against 22.0; 1 x 11008 x 4096 (344 narrow blocks, 87%) 58.5 against 54.2, and 4 x 4096
  // x 4096 37.7 against 32.8, where the narrow blocks' direct reads of A grow with the rows.
  SmallM narrow = s;
  narrow.narrow = true;
  cut(narrow);
  const std::int64_t tiles = tiles_of(narrow);
  const bool full_rounds = 10 * tiles >= 9 * ceil_div(tiles, sms) * sms;
  if ((p.m == 1 && full_rounds) || tiles_of(s) * s.splits < sms) return narrow;
  return s;
}

// N-major B: blocks of kWarpRows rows of C, each reading B again (grid.z).
unsigned row_blocks_of(const SmallM& s) {
  return s.p.b_k_major ? 1 : unsigned(ceil_div(s.p.m, kWarpRows));
}

std::string_view why_not(const Canonical& call, const Device&) {
  if (std::min(call.m, call.n) > kMaxRows) return "needs m or n <= 64";
  const SmallM s = oriented(call);
  if (!aligned16(s.p.b) || s.p.ldb % 4 != 0)
    return "needs the large operand 16-byte aligned with a leading dimension that is a multiple "
           "of 4 (16-byte loads)";
  if (std::max({call.m, call.n, call.k}) > INT32_MAX) return "needs m, n, k < 2^31";
  return {};
}

std::size_t workspace_bytes(const Canonical& call, const Device& device, const KernelEntry*) {
  const SmallM s = planned(call, device);
  if (s.splits == 1) return 0;
  return Workspace::rounded(std::size_t(s.splits) * s.p.m * s.p.n * sizeof(float));
}

// The rows a kernel instantiation keeps sums for: the smallest of 1, 2, 4, 8, 16 that holds m.
int instantiated_rows(std::int64_t m) { return m <= 1 ? 1 : m <= 2 ? 2 : m <= 4 ? 4 : m <= 8 ? 8 : 16; }

// Launches kernel<rows>(s) for rows = instantiated_rows(m), with its dynamic shared memory.
template <class Launch>
cudaError_t with_rows(int rows, Launch&& launch) {
  switch (rows) {
    case 1: return launch.template operator()<1>();
    case 2: return launch.template operator()<2>();
    case 4: return launch.template operator()<4>();
    case 8: return launch.template operator()<8>();
    default: return launch.template operator()<16>();
  }
}

cudaError_t launch(const Canonical& call, const LaunchArgs& args) {
  SmallM s = planned(call, args.device);
  if (s.splits > 1) {
    s.partial = args.workspace.take<float>(std::int64_t(s.splits) * s.p.m * s.p.n);
    if (!s.partial) return cudaErrorMemoryAllocation;
  }
  const unsigned row_blocks = row_blocks_of(s);
  const dim3 grid(unsigned(tiles_of(s)), unsigned(s.splits), row_blocks);
  const int rows = s.row_groups > 1 ? s.warp_rows
                   : row_blocks > 1 ? kWarpRows
                                    : std::min(instantiated_rows(s.p.m), s.p.b_k_major ? s.warp_rows : kWarpRows);
  const cudaError_t err = with_rows(rows, [&]<int kRows>() {
    const auto go = [&](auto kernel, std::size_t smem, int threads = kThreads) {
      if (cudaError_t e = set_max_dynamic_smem(kernel, int(smem))) return e;
      return launch_kernel(kernel, grid, threads, smem, args.stream, s);
    };
    if (!s.p.b_k_major) {
      if constexpr (kRows <= kNarrowAxpyRows)
        if (s.narrow)
          return go(simt_14_small_m_narrow_kernel<kRows>,
                    NarrowAxpy::kSmemFloatsPerRow * kRows * sizeof(float),
                    NarrowAxpy::kBlockThreads);
      return go(simt_14_small_m_kernel<kRows, false, false>,
                WideAxpy::kSmemFloatsPerRow * kRows * sizeof(float));
    }
    if constexpr (kRows <= kDirectWarpRows)
      if (s.direct_a) return go(simt_14_small_m_kernel<kRows, true, true>, 0);
    return go(simt_14_small_m_kernel<kRows, true, false>,
              std::size_t(dot_block_rows(s.row_groups, kRows)) * kKChunk * sizeof(float));
  });
  if (err || s.splits == 1) return err;
  return split_sum({s.partial, s.p.n, s.splits, s.p.m, s.p.n, s.p.c, s.p.ldc, s.col_major_c,
                    s.p.alpha, s.p.beta, nullptr},
                   args.device, args.stream);
}

std::string configuration(const Canonical& call, const Device& device) {
  const SmallM s = planned(call, device);
  std::string text = std::to_string(tiles_of(s)) + (s.narrow ? " narrow" : "") + " column blocks";
  if (row_blocks_of(s) > 1) text += " x " + std::to_string(row_blocks_of(s)) + " row blocks";
  if (s.splits > 1)
    text += " x " + std::to_string(s.splits) + " ranges of " + std::to_string(s.k_range) +
            " k, added by split_sum";
  if (s.col_major_c) text += "; run as C^T = B^T A^T";
  return text;
}

}  // namespace

SGEMM_KERNEL_ENTRIES(simt_14_small_m) {
  static const KernelEntry entries[] = {{
      {"simt-14-small-m", Track::Simt, 14,
       "small M (or N): B streamed once with 16-byte loads, A staged in shared memory, k split "
       "over blocks when the columns do not fill the GPU",
       Math::Fp32, "beyond the seeds: seed 003's roofline for the memory-bound regime",
       "m or n <= 64; the large operand 16-byte aligned, its leading dimension a multiple of 4"},
      why_not, launch, workspace_bytes, /*accepts_run_if=*/false, /*needs_handoff=*/false,
      /*batched=*/false, configuration}};
  return entries;
}

}  // namespace sgemm::detail
