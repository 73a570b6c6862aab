// Tensor-core rung 04 — Tf32 and 3xTF32 math on the FP16 tensor cores: every row of A and every
// column of B scaled by a power of two into FP16's range, where rounding to FP16 is rounding to
// TF32.
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
//   overflow, and FP16's normal range reaches 28 binades below it. A nonzero value further
//   down would lose bits that TF32 keeps. The pass sets it aside: zero in the scaled copy, the
//   value on a short list, and after the tile kernel a correction kernel adds its products to C
//   (Tf32: from TF32 operands, exact in FP32; 3xTF32: in FP32). Values drawn from a normal
//   distribution fall that low with a probability near 2^-27 each (about one per 8192 x 8192
//   operand; measured with numpy), so the list is usually empty and rarely long.
// - Inf or NaN has no scaled form, nor has a row whose shift is out of range, and a list can
//   overflow (256 values per operand). For those the pass raises a flag: the tile kernel and
//   the correction return at once, and tc-03 (or tc-02) computes the call in the same mode, its
//   kernels enqueued behind them and gated on the same flag (tf32_gemm's run_if).
// - 3xTF32: big = fp16(v) and small = fp16((v - big) 2^12) of each scaled value v are the 3xTF32
//   split's parts (see kSmallScale), and the tile kernel's staged accumulation is tc-03's: per
//   k-tile a fresh accumulator takes the cross terms, is scaled by 2^-12, takes big * big, and
//   joins the FP32 running sum. 128 x 128 tiles leave the registers for the fresh accumulator.
// - So every call scales A and B before the tile kernel: an operand whose rows run along k (A
//   in the row-major NN case) in one read, a block per row holding it in shared memory while
//   it finds the maximum; any other in two passes (the maxima by atomicMax on the bit
//   patterns, which order as the magnitudes of nonnegative floats, then the scaled copy,
//   transposed to K-major). At 8192³ this costs ~0.32 ms of a ~2.0 ms Tf32 call, ~0.40 ms of
//   a ~6.7 ms 3xTF32 call.
// - The tile kernel is rung 02's loop with 16-bit types, made persistent: a k-tile is 64 halves
//   (one 128-byte swizzle row, as 32 floats were), each k16 step one m64n256k16 (Tf32) or three
//   m64n128k16 (3xTF32), the factors 2^s multiplied in at the epilogue. At 8192³ on an H200 it
//   runs at 77% (Tf32) and 73% (3xTF32) of the FP16 tensor rate: its wgmma reads and TMA writes
//   together ask about the bytes per clock of shared memory an SM has (an estimate from their
//   byte counts, not measured in isolation: docs/experiments.md, section 9).
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "kernels/arch/wgmma.cuh"
#include "kernels/epilogue/store.cuh"
#include "kernels/fallback/fp32_any.cuh"
#include "kernels/operand.cuh"
#include "kernels/pipeline/tile_order.cuh"
#include "kernels/pipeline/tma_ring.cuh"
#include "kernels/tensorcore/pack.cuh"
#include "runtime/launch.hpp"


namespace sgemm::detail {

#ifdef SGEMM_HAS_SM90A
namespace {

// --- the scales --------------------------------------------------------------------------------

// The shift s of a row whose largest magnitude has the bit pattern max_bits: that magnitude
// times 2^-s lies in [2^14, 2^15). A subnormal maximum gets s = -140, out of range (below).
constexpr int kTopExponent = 14;
__device__ __forceinline__ int scale_shift(std::uint32_t max_bits) {
  const int biased = int(max_bits >> 23);
  return max_bits == 0 ? 0 : (biased > 0 ? biased : 1) - 127 - kTopExponent;
}
// Shifts are kept within +-kMaxShift, so that 2^s of a row, of a column and of their sum are
// normal floats: every scaling is one exact multiplication. A row whose largest magnitude lies
// outside [2^-49, 2^78) raises the flag (tc-03 computes the call).
constexpr int kMaxShift = 63;
__device__ __forceinline__ float pow2(int s) { return __int_as_float((s + 127) << 23); }
constexpr float kFp16MinNormal = 0x1p-14f;
constexpr std::uint32_t kInfBits = 0x7f800000u;

// Whether x, scaled to v, is zero or has an FP16 normal that rounds as TF32 would. Decided on x:
// a tiny x whose v underflows to zero in FP32 must be set aside too.
__device__ __forceinline__ bool fits_f16(float x, float v) {
  return x == 0.0f || fabsf(v) >= kFp16MinNormal;
}

// Whether a row with this maximum and shift can be scaled at all (not Inf or NaN, shift in range).
__device__ __forceinline__ bool scalable(std::uint32_t max_bits, int shift) {
  return max_bits < kInfBits && shift >= -kMaxShift && shift <= kMaxShift;
}

// A nonzero value that its row's shift takes below FP16's normal range is set aside: the
// scaled copy holds zero in its place, and the value goes to a short list (row, p, x) whose
// products a correction kernel adds to C after the tile kernel (f16_correct_kernel). Data drawn
// from a normal distribution has about one such value per 8192 x 8192 operand. A list that
// overflows raises the flag instead.
constexpr int kSetAsideCapacity = 256;  // per operand
struct SetAside {
  std::int32_t row, k;
  float value;  // as the user gave it
};
struct SetAsideList {
  SetAside* entries;
  int* count;
};
// Once the list is full nobody adds to its count any more (so it cannot wrap around, and data
// with many such values does not queue on one atomic).
__device__ __forceinline__ void set_aside(SetAsideList list, std::int64_t row, std::int64_t k,
                                          float value, int* unfit) {
  const int slot =
      *static_cast<volatile int*>(list.count) < kSetAsideCapacity ? atomicAdd(list.count, 1)
                                                                   : kSetAsideCapacity;
  if (slot < kSetAsideCapacity)
    list.entries[slot] = {std::int32_t(row), std::int32_t(k), value};
  else
    *unfit = 1;
}

// The scaled value v = x 2^-s as stored: fp16(v) where that is an FP16 normal (or zero), else
// zero with x set aside.
__device__ __forceinline__ float scaled_or_set_aside(float v, float x, std::int64_t row,
                                                     std::int64_t k, SetAsideList list,
                                                     int* unfit) {
  if (fits_f16(x, v)) return v;
  set_aside(list, row, k, x, unfit);
  return 0.0f;
}

// 3xTF32: the small part of a scaled value v is fp16((v - big) 2^12), big = fp16(v). With |v| <
// 2^15 the remainder is at most 2^3 (half a unit of big's last place), so 2^12 keeps it below
// FP16's largest value, and for every v that is not set aside its FP16 form is tf32(v - big)
// scaled, bit for bit, unless it falls below FP16's normal range: then it is rounded to a
// multiple of 2^-36, an error of at most 2^-37 (2^-23 of the smallest v kept), about the split's
// own.
constexpr float kSmallScale = 0x1p12f, kSmallUnscale = 0x1p-12f;

// Stores scaled values (v0, v1) at out[i], half2 units: their FP16 forms, and for 3xTF32 their
// small parts at out[i + part], the second part of the copy.
template <Tf32Mode kMode>
__device__ __forceinline__ void store_scaled(__half2* out, std::int64_t i, std::int64_t part,
                                             float v0, float v1) {
  const __half2 big = __floats2half2_rn(v0, v1);
  out[i] = big;
  if constexpr (kMode == Tf32Mode::Tf32x3) {
    const float2 b = __half22float2(big);
    out[i + part] = __floats2half2_rn((v0 - b.x) * kSmallScale, (v1 - b.y) * kSmallScale);
  }
}

// An operand whose rows run along k (col_stride 1), in one read: a block per row keeps the
// row's first kRowCache values in shared memory while it finds the row's largest magnitude,
// then writes out[r][p] = fp16(x(r, p) 2^-s_r) for p < kp (zero past k, and on rows_p's padding
// rows; 3xTF32: and the small parts after them, rows_p x kp halves on) and scale[r] = 2^s_r.
// Values past kRowCache are read again. Sets aside a value below FP16's normal range; raises
// *unfit for a row with Inf, NaN or a shift out of range.
constexpr int kRowThreads = 256, kRowCache = 8192;

template <Tf32Mode kMode>
__global__ void __launch_bounds__(kRowThreads)
    f16_scale_rows_kernel(StridedOperand x, std::int64_t rows, std::int64_t k, __half2* out,
                          std::int64_t kp, std::int64_t part, float* scale, SetAsideList aside,
                          int* unfit, bool vec4) {
  __shared__ float4 cache[kRowCache / 4];
  __shared__ std::uint32_t warp_max[kRowThreads / 32];
  const std::int64_t r = blockIdx.x;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const float* row = x.ptr + (r < rows ? r : 0) * x.row_stride;
  auto quad = [&](std::int64_t kk) -> float4 {  // x(r, kk .. kk + 3), zero outside
    if (r >= rows || kk >= k) return {0.0f, 0.0f, 0.0f, 0.0f};
    if (vec4 && kk + 4 <= k) return *reinterpret_cast<const float4*>(row + kk);
    return {row[kk], kk + 1 < k ? row[kk + 1] : 0.0f, kk + 2 < k ? row[kk + 2] : 0.0f,
            kk + 3 < k ? row[kk + 3] : 0.0f};
  };
  std::uint32_t m = 0;
  for (std::int64_t kk = 4 * threadIdx.x; kk < k; kk += 4 * kRowThreads) {
    const float4 v = quad(kk);
    if (kk < kRowCache) cache[kk / 4] = v;
    m = max(m, max(max(__float_as_uint(fabsf(v.x)), __float_as_uint(fabsf(v.y))),
                   max(__float_as_uint(fabsf(v.z)), __float_as_uint(fabsf(v.w)))));
  }
  m = __reduce_max_sync(0xffffffffu, m);
  if (lane == 0) warp_max[warp] = m;
  __syncthreads();
#pragma unroll
  for (int w = 0; w < kRowThreads / 32; ++w) m = max(m, warp_max[w]);
  const int shift = scale_shift(m);
  const bool row_ok = scalable(m, shift);
  const float down = row_ok ? pow2(-shift) : 1.0f;
  if (!row_ok && threadIdx.x == 0) *unfit = 1;
  for (std::int64_t kk = 4 * threadIdx.x; kk < kp; kk += 4 * kRowThreads) {
    const float4 v = kk < kRowCache ? (kk < k ? cache[kk / 4] : float4{}) : quad(kk);
    const float x4[4] = {v.x, v.y, v.z, v.w};
    float s[4];
#pragma unroll
    for (int c = 0; c < 4; ++c)
      s[c] = row_ok ? scaled_or_set_aside(x4[c] * down, x4[c], r, kk + c, aside, unfit) : 0.0f;
    store_scaled<kMode>(out, (r * kp + kk) / 2, part, s[0], s[1]);
    store_scaled<kMode>(out, (r * kp + kk) / 2 + 1, part, s[2], s[3]);
  }
  if (threadIdx.x == 0) scale[r] = row_ok ? pow2(shift) : 1.0f;
}

// Other operands in two passes. First max_bits[r] = bit pattern of max_p |x(r, p)| (NaN's
// patterns lie above Inf's): a block covers 32 rows x 256 k, a lane per row, the warps along k.
constexpr int kMaxRows = 32, kMaxK = 256, kMaxThreads = 256;

__global__ void __launch_bounds__(kMaxThreads)
    f16_row_max_kernel(StridedOperand x, std::int64_t rows, std::int64_t k,
                       std::uint32_t* max_bits) {
  constexpr int kWarps = kMaxThreads / 32;
  const std::int64_t r = std::int64_t(blockIdx.x) * kMaxRows + threadIdx.x % 32;
  std::uint32_t m = 0;
  // The block's k-ranges, gridDim.y apart (k may need more than 65535 of them).
  for (std::int64_t k0 = std::int64_t(blockIdx.y) * kMaxK + threadIdx.x / 32; r < rows && k0 < k;
       k0 += std::int64_t(gridDim.y) * kMaxK) {
#pragma unroll 8
    for (int j = 0; j < kMaxK / kWarps; ++j) {
      const std::int64_t kk = k0 + kWarps * j;
      if (kk < k) m = max(m, __float_as_uint(fabsf(x(r, kk))));
    }
  }
  if (m != 0) atomicMax(max_bits + r, m);
}

// Then out[r][p] = fp16(x(r, p) 2^-s_r) for r < rows_p, p < kp (zero past rows and k, and in
// place of a value set aside; 3xTF32: and the small parts after them), and scale[r] = 2^s_r.
// A block stages a 32-row x 64-k tile in shared memory, read along x's contiguous dimension and
// written along k, a row of 64 halves (128 bytes) per warp.
constexpr int kPackRows = 32, kPackK = 64, kPackRowsPerPass = 8;

template <Tf32Mode kMode>
__global__ void __launch_bounds__(32 * kPackRowsPerPass)
    f16_pack_kernel(StridedOperand x, std::int64_t rows, std::int64_t k,
                    const std::uint32_t* max_bits, __half2* out, std::int64_t kp,
                    std::int64_t part, float* scale, SetAsideList aside, int* unfit) {
  __shared__ float tile[kPackRows][kPackK + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t r0 = std::int64_t(blockIdx.x) * kPackRows;
  bool bad = false;
  // The block's k-tiles, gridDim.y apart (k may need more than 65535 of them).
  for (std::int64_t k0 = std::int64_t(blockIdx.y) * kPackK; k0 < kp;
       k0 += std::int64_t(gridDim.y) * kPackK) {
#pragma unroll
    for (int i = 0; i < kPackK; i += kPackRowsPerPass)
      tile[tx][ty + i] = r0 + tx < rows && k0 + ty + i < k ? x(r0 + tx, k0 + ty + i) : 0.0f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kPackRows; i += kPackRowsPerPass) {
      const int r = ty + i;
      const std::uint32_t row_max = r0 + r < rows ? max_bits[r0 + r] : 0;
      const int shift = scale_shift(row_max);
      const bool row_ok = scalable(row_max, shift);
      const float down = row_ok ? pow2(-shift) : 1.0f;
      const float x0 = tile[r][2 * tx], x1 = tile[r][2 * tx + 1];
      bad |= !row_ok;
      const float v0 =
          row_ok ? scaled_or_set_aside(x0 * down, x0, r0 + r, k0 + 2 * tx, aside, unfit) : 0.0f;
      const float v1 =
          row_ok ? scaled_or_set_aside(x1 * down, x1, r0 + r, k0 + 2 * tx + 1, aside, unfit)
                 : 0.0f;
      store_scaled<kMode>(out, ((r0 + r) * kp + k0) / 2 + tx, part, v0, v1);
      if (k0 == 0 && tx == 0) scale[r0 + r] = row_ok ? pow2(shift) : 1.0f;
    }
    __syncthreads();  // the tile is read before the next k-tile overwrites it
  }
  if (__any_sync(0xffffffffu, bad) && tx == 0) *unfit = 1;
}

// --- the values set aside ----------------------------------------------------------------------

// Before the tile kernel, the sums of the products that involve a value set aside, in Tf32 mode
// each factor rounded to TF32 as the tensor cores would have seen it (the product of two is
// exact in FP32), in 3xTF32 mode in FP32: A's entry (i, p, a) adds a B(p, j) to every C(i, j);
// B's entry (j, p, b) adds A(i, p) b to every C(i, j) where A(i, p) was not itself set aside
// (A's entries take all of B). They go to patches that the tile kernel's epilogue adds to its
// sums before it applies alpha, so that alpha multiplies the whole sum once: a row patch for
// each distinct row of A's list (all n columns, with B's terms of those columns), a column
// patch for each distinct column of B's list (all m rows; the rows that a row patch covers
// hold zero).
// Every element of a patch is written by one thread, which adds its terms in (row, k) order: the
// result does not depend on the order in which the passes listed the values. A row patch is one
// item of work per 256 columns, a column patch one per 256 rows. Nothing happens unless
// something was set aside and the flag is down.
constexpr int kCorrectThreads = 256;
static_assert(kSetAsideCapacity <= kCorrectThreads);

// Where the patches are, and which patch (or -1) covers each row and column of C.
struct Patches {
  float* rows;    // distinct rows of A's list x n
  float* cols;    // distinct columns of B's list x m
  int* row_slot;  // per row of C
  int* col_slot;  // per column of C
};

struct SortedList {  // a list in shared memory, sorted by (row, k), and where each row begins
  SetAside entry[kSetAsideCapacity];
  int start[kSetAsideCapacity + 1];  // start[d] .. start[d + 1] - 1: the d-th distinct row
  int rows;                          // distinct rows
};

__device__ void sort_set_aside(SetAsideList list, int count, SortedList& out) {
  __shared__ SetAside unsorted[kSetAsideCapacity];
  const int t = threadIdx.x;
  if (t < count) unsorted[t] = list.entries[t];
  __syncthreads();
  if (t < count) {  // (row, k) pairs are distinct: the rank is a position
    const SetAside e = unsorted[t];
    int rank = 0;
    for (int u = 0; u < count; ++u) {
      const SetAside f = unsorted[u];
      rank += f.row < e.row || (f.row == e.row && f.k < e.k);
    }
    out.entry[rank] = e;
  }
  __syncthreads();
  if (t == 0) {
    int rows = 0;
    for (int u = 0; u < count; ++u)
      if (u == 0 || out.entry[u].row != out.entry[u - 1].row) out.start[rows++] = u;
    out.start[rows] = count;
    out.rows = rows;
  }
  __syncthreads();
}

// The distinct row d of `list` holding `row`, or -1.
__device__ int find_row(const SortedList& list, std::int64_t row) {
  for (int d = 0; d < list.rows; ++d)
    if (list.entry[list.start[d]].row == row) return d;
  return -1;
}

// A factor of a product in the correction, as the mode multiplies it.
template <Tf32Mode kMode>
__device__ __forceinline__ float factor(float x) {
  return kMode == Tf32Mode::Tf32 ? to_tf32(x) : x;
}

template <Tf32Mode kMode>
__global__ void __launch_bounds__(kCorrectThreads)
    f16_correct_kernel(Canonical p, StridedOperand a, StridedOperand b, SetAsideList a_aside,
                       SetAsideList b_aside, const float* a_scale, const int* unfit,
                       Patches patches) {
  if (*unfit != 0) return;  // the handoff computes the whole call
  const int a_count = min(*a_aside.count, kSetAsideCapacity);
  const int b_count = min(*b_aside.count, kSetAsideCapacity);
  if (a_count + b_count == 0) return;
  __shared__ SortedList sa, sb;  // A's entries by (row of C, k); B's by (column of C, k)
  sort_set_aside(a_aside, a_count, sa);
  sort_set_aside(b_aside, b_count, sb);
  if (blockIdx.x == 0) {  // the slots: the tile kernel runs after this kernel has ended
    if (threadIdx.x < sa.rows) patches.row_slot[sa.entry[sa.start[threadIdx.x]].row] = threadIdx.x;
    if (threadIdx.x < sb.rows) patches.col_slot[sb.entry[sb.start[threadIdx.x]].row] = threadIdx.x;
  }

  // Sum over B's entries of column j, leaving out A(i, p) set aside when skip_set_aside.
  auto b_terms = [&](std::int64_t i, std::int64_t j, bool skip_set_aside) {
    float sum = 0.0f;
    const int d = find_row(sb, j);
    if (d < 0) return sum;
    for (int u = sb.start[d]; u < sb.start[d + 1]; ++u) {
      const float x = a(i, sb.entry[u].k);
      if (skip_set_aside && !fits_f16(x, x / a_scale[i])) continue;
      sum += factor<kMode>(x) * factor<kMode>(sb.entry[u].value);
    }
    return sum;
  };
  const std::int64_t chunks_n = (p.n + kCorrectThreads - 1) / kCorrectThreads;
  const std::int64_t chunks_m = (p.m + kCorrectThreads - 1) / kCorrectThreads;
  const std::int64_t row_items = sa.rows * chunks_n, items = row_items + sb.rows * chunks_m;
  for (std::int64_t item = blockIdx.x; item < items; item += gridDim.x) {
    if (item < row_items) {  // row patch d: row i of C, with all its entries in A's list
      const int d = int(item / chunks_n);
      const std::int64_t i = sa.entry[sa.start[d]].row;
      const std::int64_t j = item % chunks_n * kCorrectThreads + threadIdx.x;
      if (j >= p.n) continue;
      float sum = 0.0f;
      for (int u = sa.start[d]; u < sa.start[d + 1]; ++u)
        sum += factor<kMode>(sa.entry[u].value) * factor<kMode>(b(sa.entry[u].k, j));
      patches.rows[d * p.n + j] = sum + b_terms(i, j, true);
    } else {  // column patch e: column j of C, rows without entries in A's list
      const std::int64_t rest = item - row_items;
      const int e = int(rest / chunks_m);
      const std::int64_t j = sb.entry[sb.start[e]].row;
      const std::int64_t i = rest % chunks_m * kCorrectThreads + threadIdx.x;
      if (i >= p.m) continue;
      patches.cols[e * p.m + i] = find_row(sa, i) >= 0 ? 0.0f : b_terms(i, j, false);
    }
  }
}

// The patch term of C(i, j) (f16_correct_kernel), for an epilogue that found patches.
__device__ __forceinline__ float patch_term(const Patches& patches, const Canonical& p,
                                            std::int64_t i, std::int64_t j) {
  if (const int d = patches.row_slot[i]; d >= 0) return patches.rows[d * p.n + j];
  if (const int e = patches.col_slot[j]; e >= 0) return patches.cols[e * p.m + i];
  return 0.0f;
}

// --- the tile kernel ---------------------------------------------------------------------------

constexpr int kBM = 128;
constexpr int kBK = 64;  // halves: one 128-byte swizzle row
constexpr int kWgmmaK16 = 16, kDescK16Step = kWgmmaK16 * 2 >> 4;
constexpr int kConsumers = 2, kWarpgroup = 128, kThreads = kWarpgroup * (1 + kConsumers);
constexpr int kATileBytes = kBM * kBK * 2;  // one part of A's k-tile
static_assert(kBM == kConsumers * kWgmmaM && kBK * 2 == kSwizzleRowFloats * 4);

// Tf32: one part per operand, 128 x 256 tiles, 4 stages of 48 KB. 3xTF32: big and small parts,
// and a fresh accumulator beside the running sum, so 128 x 128 tiles, 3 stages of 64 KB.
template <Tf32Mode kMode>
struct Config {
  static constexpr bool kSplit = kMode == Tf32Mode::Tf32x3;
  static constexpr int kParts = kSplit ? 2 : 1;
  static constexpr int kBN = kSplit ? 128 : 256;
  static constexpr int kStages = kSplit ? 3 : 4;
  static constexpr int kBTileBytes = kBN * kBK * 2;
  static constexpr int kStageBytes = kParts * (kATileBytes + kBTileBytes);
  using Ring = TmaRing<kStages, kStageBytes>;
};

// What the tile kernel reads besides the tensor maps: the scales 2^s, the passes' flag, and the
// patches of the values set aside.
struct Scaled {
  const float* a_scale;  // per row of A
  const float* b_scale;  // per column of B
  const int* unfit;      // then the two lists' counts
  int num_k_tiles;
  Patches patches;
};

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;

template <Tf32Mode kMode>
__device__ __forceinline__ void f16_tiles(const Canonical& p, const CUtensorMap& tmap_a,
                                          const CUtensorMap& tmap_b, const Scaled& ops) {
  using Cfg = Config<kMode>;
  constexpr int kBN = Cfg::kBN, kStages = Cfg::kStages, kParts = Cfg::kParts;
  constexpr int kAccs = kBN / 2;
  if (*ops.unfit != 0) return;  // the handoff computes this call
  const bool patched = (ops.unfit[1] | ops.unfit[2]) != 0;  // values were set aside
  extern __shared__ std::uint8_t smem_raw[];
  const typename Cfg::Ring ring(smem_raw);
  auto a_tile = [&](int s, int part) { return ring.stage(s) + part * kATileBytes; };
  auto b_tile = [&](int s, int part) {
    return ring.stage(s) + kParts * kATileBytes + part * Cfg::kBTileBytes;
  };
  const std::int64_t tiles_m = (p.m + kBM - 1) / kBM, tiles_n = (p.n + kBN - 1) / kBN;
  const std::int64_t tiles = tiles_m * tiles_n;
  const int warpgroup = threadIdx.x / kWarpgroup;
  ring.init(kConsumers * 4);

  // Persistent: block b computes tiles b, b + gridDim.x, ... in the grouped order. Both roles
  // count k-tiles over all of the block's tiles, so the ring runs on from one tile to the next.
  if (warpgroup == 0) {  // producer: one thread keeps the ring full, into the next tile too
    setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) {
      int it = 0;
      for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        std::int64_t tile_m, tile_n;
        grouped_tile(tile, tiles_m, tiles_n, tile_m, tile_n);
        const int row_a = int(tile_m * kBM), row_b = int(tile_n * kBN);
        for (int kt = 0; kt < ops.num_k_tiles; ++kt, ++it) {
          const int s = it % kStages;
          mbar_wait(ring.empty(s), ((it / kStages) & 1) ^ 1);
          mbar_arrive_expect_tx(ring.full(s), Cfg::kStageBytes);
          for (int q = 0; q < kParts; ++q) {
            tma_load(a_tile(s, q), tmap_a, kt * kBK, row_a, q, ring.full(s));
            tma_load(b_tile(s, q), tmap_b, kt * kBK, row_b, q, ring.full(s));
          }
        }
      }
    }
    return;
  }

  // Consumers: warpgroup c computes rows 64c .. 64c+63 of each block tile.
  setmaxnreg_inc<kConsumerRegisters>();
  const int consumer = warpgroup - 1;
  const int lane = threadIdx.x % 32, warp_in_group = (threadIdx.x / 32) % 4;
  const std::uint32_t a_rows = consumer * kWgmmaM * kBK * 2;  // 8 KB: a whole number of atoms
  const bool paired = p.ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(p.c) % 8 == 0;
  auto release = [&](int it) {
    if (lane == 0) mbar_arrive(ring.empty(it % kStages));
  };
  // k16 step ks of this warpgroup's A part qa times B part qb, from stage s.
  auto product = [&](float (&d)[kAccs], int s, int qa, int qb, int ks, int scale_d) {
    wgmma_f16<kBN>(d, smem_desc(a_tile(s, qa) + a_rows) + ks * kDescK16Step,
                   smem_desc(b_tile(s, qb)) + ks * kDescK16Step, scale_d);
  };
  constexpr int kK16Steps = kBK / kWgmmaK16;
  int it = 0;
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    std::int64_t tile_m, tile_n;
    grouped_tile(tile, tiles_m, tiles_n, tile_m, tile_n);
    float acc[kAccs];
    if constexpr (kMode == Tf32Mode::Tf32) {
      // One k-tile of wgmmas stays in flight while the warpgroup waits for the next stage.
      for (int kt = 0; kt < ops.num_k_tiles; ++kt, ++it) {
        const int s = it % kStages;
        mbar_wait(ring.full(s), (it / kStages) & 1);
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < kK16Steps; ++ks)  // the tile's first step overwrites acc
          product(acc, s, 0, 0, ks, kt > 0 || ks > 0);
        wgmma_commit();
        wgmma_wait<1>();
        if (kt > 0) release(it - 1);
      }
      wgmma_wait<0>();
      fence_operands(acc);
      release(it - 1);
    } else {
      // Staged accumulation: each k-tile's products go into a fresh accumulator, the cross
      // terms first (small * big + big * small, 2^12 too large), which is scaled back before
      // big * big is added on top; the fresh sum then joins the running sum in FP32. The
      // scaling waits for the cross terms, so this warpgroup has no wgmma in flight across it;
      // the other consumer warpgroup keeps the tensor cores busy meanwhile.
#pragma unroll
      for (int i = 0; i < kAccs; ++i) acc[i] = 0.0f;
      float fresh[kAccs];
      for (int kt = 0; kt < ops.num_k_tiles; ++kt, ++it) {
        const int s = it % kStages;
        mbar_wait(ring.full(s), (it / kStages) & 1);
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < kK16Steps; ++ks) product(fresh, s, 1, 0, ks, ks > 0);
#pragma unroll
        for (int ks = 0; ks < kK16Steps; ++ks) product(fresh, s, 0, 1, ks, 1);
        wgmma_commit();
        wgmma_wait<0>();
        fence_operands(fresh);
#pragma unroll
        for (int i = 0; i < kAccs; ++i) fresh[i] *= kSmallUnscale;
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < kK16Steps; ++ks) product(fresh, s, 0, 0, ks, 1);
        wgmma_commit();
        wgmma_wait<0>();
        fence_operands(fresh);
        release(it);
#pragma unroll
        for (int i = 0; i < kAccs; ++i) acc[i] += fresh[i];
      }
    }

    // Epilogue: C = alpha (2^(s_row + s_col) acc + patch) + beta C on the in-range elements
    // (thread t of warp w holds rows 16w + t/4 and 8 below, columns 8j + 2(t%4) + {0, 1}). Both
    // factors are powers of two within 2^+-63, so their product is exact and so is its product
    // with acc (unless that overflows or underflows, as the sum itself would in FP32). The
    // producer is already loading the next tile.
    const std::int64_t row_base =
        tile_m * kBM + consumer * kWgmmaM + warp_in_group * 16 + lane / 4;
    const std::int64_t col_base = tile_n * kBN + 2 * (lane % 4);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::int64_t row = row_base + 8 * h;
      if (row >= p.m) continue;
      const float row_scale = ops.a_scale[row];
#pragma unroll
      for (int j = 0; j < kBN / 8; ++j) {
        const std::int64_t col = col_base + 8 * j;
        if (col >= p.n) continue;
        const float s0 = row_scale * ops.b_scale[col];
        const float s1 = col + 1 < p.n ? row_scale * ops.b_scale[col + 1] : 0.0f;
        float v0 = acc[4 * j + 2 * h] * s0, v1 = acc[4 * j + 2 * h + 1] * s1;
        if (patched) {
          v0 += patch_term(ops.patches, p, row, col);
          if (col + 1 < p.n) v1 += patch_term(ops.patches, p, row, col + 1);
        }
        store_c2(p.c + row * p.ldc, col, p.n, v0, v1, p.alpha, p.beta, paired);
      }
    }
  }
}
#endif  // sm_90a device code

__global__ void __launch_bounds__(kThreads, 1)
    tc_04_wgmma_f16_tf32_kernel(const Canonical p, const __grid_constant__ CUtensorMap tmap_a,
                                const __grid_constant__ CUtensorMap tmap_b, const Scaled ops) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  f16_tiles<Tf32Mode::Tf32>(p, tmap_a, tmap_b, ops);
#endif
}
__global__ void __launch_bounds__(kThreads, 1)
    tc_04_wgmma_f16_tf32x3_kernel(const Canonical p, const __grid_constant__ CUtensorMap tmap_a,
                                  const __grid_constant__ CUtensorMap tmap_b, const Scaled ops) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  f16_tiles<Tf32Mode::Tf32x3>(p, tmap_a, tmap_b, ops);
#endif
}

// --- host side ---------------------------------------------------------------------------------

// The scaled copy of an operand, parts x rows x kp halves, K-major, read in boxes of
// 64 x box_rows of one part.
bool make_f16_map(CUtensorMap* map, const __half2* data, std::int64_t parts, std::int64_t rows,
                  std::int64_t kp, int box_rows) {
  const cuuint64_t dims[3] = {cuuint64_t(kp), cuuint64_t(rows), cuuint64_t(parts)};
  const cuuint64_t strides[2] = {cuuint64_t(kp) * 2, cuuint64_t(rows) * cuuint64_t(kp) * 2};
  const cuuint32_t box[3] = {kBK, cuuint32_t(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  return encode_tiled()(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, const_cast<__half2*>(data), dims,
                        strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The scaled copy of x (rows x k) into out (parts x rows_p x kp halves) and its scales 2^s per
// row: one pass where x's rows run along k, two otherwise (max_bits holds the maxima between).
template <Tf32Mode kMode>
cudaError_t scale_to_f16(StridedOperand x, std::int64_t rows, std::int64_t k,
                         std::uint32_t* max_bits, __half2* out, std::int64_t rows_p,
                         std::int64_t kp, float* scale, SetAsideList aside, int* unfit,
                         cudaStream_t stream) {
  const std::int64_t part = rows_p * kp / 2;  // half2s from a big part to its small part
  if (x.col_stride == 1) {
    const bool vec4 = aligned16(x.ptr) && x.row_stride % 4 == 0;
    return launch_kernel(f16_scale_rows_kernel<kMode>, unsigned(rows_p), kRowThreads, 0, stream,
                         x, rows, k, out, kp, part, scale, aside, unfit, vec4);
  }
  const auto k_blocks = [](std::int64_t k_units) {
    return unsigned(std::min<std::int64_t>(k_units, 65535));  // the kernels stride over the rest
  };
  if (cudaError_t err = launch_kernel(
          f16_row_max_kernel, dim3(unsigned(ceil_div(rows, kMaxRows)), k_blocks(ceil_div(k, kMaxK))),
          kMaxThreads, 0, stream, x, rows, k, max_bits))
    return err;
  return launch_kernel(f16_pack_kernel<kMode>,
                       dim3(unsigned(rows_p / kPackRows), k_blocks(kp / kPackK)),
                       dim3(32, kPackRowsPerPass), 0, stream, x, rows, k, max_bits, out, kp, part,
                       scale, aside, unfit);
}

template <Tf32Mode kMode>
std::string_view why_not(const Canonical& p, const Device& device) {
  if (std::string_view r = needs_sm90_tma(device); !r.empty()) return r;
  // TMA coordinates: rows of the scaled copies below 2^31, k below 2^31.
  if (round_up(std::max(p.m, p.n), 256) >= (std::int64_t(1) << 31))
    return "needs m, n < 2^31 - 256 (the tile kernel's 32-bit tile coordinates)";
  if (p.k >= (std::int64_t(1) << 31) - kBK) return "needs k < 2^31 - 64 (TMA coordinates)";
  return needs_grid(ceil_div(p.m, kBM) * ceil_div(p.n, Config<kMode>::kBN), 1);
}

// The call's control data, scaled copies and patches: where each piece lies, and the bytes.
// control = [unfit flag, set-aside counts | maxima (mp + np) | row and column slots (mp + np) |
// scales (mp + np) | set-aside lists (2 x capacity)]; the flag, counts and maxima start at zero,
// the slots at -1. The patches and the scaled copies [A' (parts x mp x kp) | B'^T (parts x np x
// kp)] go back to the workspace before the handoff, whose kernels may reuse their memory (stream
// order keeps this rung's kernels done with them first); the control data stays, for the
// handoff's kernels read its flag.
template <Tf32Mode kMode>
struct Layout {
  std::int64_t mp, np, kp, zeroed, slots, scales, lists, control_bytes, scaled_bytes, patch_floats;
  explicit Layout(const Canonical& p)
      : mp(round_up(p.m, kPackRows)), np(round_up(p.n, kPackRows)), kp(round_up(p.k, kBK)),
        zeroed(256 + (mp + np) * 4), slots(zeroed), scales(slots + (mp + np) * 4),
        lists(scales + (mp + np) * 4),
        control_bytes(lists + 2 * kSetAsideCapacity * std::int64_t(sizeof(SetAside))),
        scaled_bytes(Config<kMode>::kParts * (mp + np) * kp * 2),
        patch_floats(kSetAsideCapacity * (p.m + p.n)) {}
  std::size_t released() const {
    return Workspace::rounded(patch_floats * sizeof(float)) + Workspace::rounded(scaled_bytes);
  }
};

template <Tf32Mode kMode>
std::size_t workspace_bytes(const Canonical& p, const Device& device,
                            const KernelEntry* handoff) {
  using Cfg = Config<kMode>;
  if (Cfg::kSplit && p.k < kMinSplitK) return 0;
  const Layout<kMode> l(p);
  const std::size_t handed = handoff ? handoff->workspace_bytes(p, device, nullptr) : 0;
  return Workspace::rounded(l.control_bytes) + std::max(l.released(), handed);
}

template <Tf32Mode kMode>
cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  using Cfg = Config<kMode>;
  const cudaStream_t stream = args.stream;
  // 3xTF32 with a handful of products per element: FP32 FMA (see kMinSplitK).
  if (Cfg::kSplit && p.k < kMinSplitK) return fp32_any(p, nullptr, args.device, stream);
  const Layout<kMode> l(p);
  auto* base = args.workspace.take<char>(l.control_bytes);
  const std::size_t before_released = args.workspace.mark();
  auto* patch = args.workspace.take<float>(l.patch_floats);
  auto* a_scaled = args.workspace.take<__half2>(l.scaled_bytes / 4);
  if (!base || !patch || !a_scaled) return cudaErrorMemoryAllocation;
  int* unfit = reinterpret_cast<int*>(base);
  auto* a_max = reinterpret_cast<std::uint32_t*>(base + 256);
  std::uint32_t* b_max = a_max + l.mp;
  int* row_slot = reinterpret_cast<int*>(base + l.slots);
  auto* a_scale = reinterpret_cast<float*>(base + l.scales);
  float* b_scale = a_scale + l.mp;
  auto* entries = reinterpret_cast<SetAside*>(base + l.lists);
  const SetAsideList a_aside{entries, unfit + 1}, b_aside{entries + kSetAsideCapacity, unfit + 2};
  const Patches patches{patch, patch + kSetAsideCapacity * p.n, row_slot, row_slot + l.mp};
  __half2* b_scaled = a_scaled + Cfg::kParts * l.mp * l.kp / 2;

  cudaError_t err = cudaMemsetAsync(base, 0, std::size_t(l.zeroed), stream);
  if (err == cudaSuccess) err = cudaMemsetAsync(row_slot, 0xff, (l.mp + l.np) * 4, stream);
  if (err == cudaSuccess)
    err = scale_to_f16<kMode>(operand_a(p), p.m, p.k, a_max, a_scaled, l.mp, l.kp, a_scale,
                              a_aside, unfit, stream);
  if (err == cudaSuccess)
    err = scale_to_f16<kMode>(operand_bt(p), p.n, p.k, b_max, b_scaled, l.np, l.kp, b_scale,
                              b_aside, unfit, stream);
  if (err == cudaSuccess)
    err = launch_kernel(f16_correct_kernel<kMode>, unsigned(std::max(args.device.sms, 1)),
                        kCorrectThreads, 0, stream, p, operand_a(p), operand_b(p), a_aside,
                        b_aside, static_cast<const float*>(a_scale),
                        static_cast<const int*>(unfit), patches);
  CUtensorMap tmap_a, tmap_b;
  if (err == cudaSuccess && !(make_f16_map(&tmap_a, a_scaled, Cfg::kParts, l.mp, l.kp, kBM) &&
                              make_f16_map(&tmap_b, b_scaled, Cfg::kParts, l.np, l.kp, Cfg::kBN)))
    err = cudaErrorInvalidValue;
  constexpr auto kernel =
      Cfg::kSplit ? tc_04_wgmma_f16_tf32x3_kernel : tc_04_wgmma_f16_tf32_kernel;
  if (err == cudaSuccess) err = set_max_dynamic_smem(kernel, Cfg::Ring::kSmemBytes);
  if (err == cudaSuccess) {
    const std::int64_t tiles = ceil_div(p.m, kBM) * ceil_div(p.n, Cfg::kBN);
    const unsigned blocks = unsigned(std::min<std::int64_t>(tiles, std::max(args.device.sms, 1)));
    err = launch_kernel(kernel, blocks, kThreads, Cfg::Ring::kSmemBytes, stream, p, tmap_a, tmap_b,
                        Scaled{a_scale, b_scale, unfit, int(l.kp / kBK), patches});
  }
  // The handoff computes the call where the passes raised the flag (Inf, NaN, a row out of
  // range, a full list), its every kernel returning at once otherwise.
  args.workspace.release(before_released);
  if (err == cudaSuccess)
    err = args.handoff->launch(p, {stream, args.device, args.workspace, unfit, nullptr});
  return err;
}

}  // namespace
#endif  // SGEMM_HAS_SM90A

SGEMM_KERNEL_ENTRIES(tensorcore_04_wgmma_f16) {
#ifdef SGEMM_HAS_SM90A
  static const KernelEntry entries[] = {
      {{"tc-04-wgmma-f16-tf32", Track::TensorCore, 4,
        "Tf32 on FP16 wgmma: rows of A and columns of B scaled by powers of two, so FP16 "
        "rounding is TF32 rounding",
        Math::Tf32, "tensor-core track, rung 04", "compute capability 9.0 (sm_90a)", Unit::Fp16Tensor},
       why_not<Tf32Mode::Tf32>, launch<Tf32Mode::Tf32>, workspace_bytes<Tf32Mode::Tf32>,
       /*accepts_run_if=*/false, /*needs_handoff=*/true},
      {{"tc-04-wgmma-f16-tf32x3", Track::TensorCore, 4,
        "3xTF32 on FP16 wgmma: the scaled rows and columns split into big and small FP16 parts "
        "(TF32's split, bit for bit), staged accumulation",
        Math::Fp32Tf32x3, "tensor-core track, rung 04", "compute capability 9.0 (sm_90a)", Unit::Fp16Tensor},
       why_not<Tf32Mode::Tf32x3>, launch<Tf32Mode::Tf32x3>, workspace_bytes<Tf32Mode::Tf32x3>,
       /*accepts_run_if=*/false, /*needs_handoff=*/true},
  };
  return entries;
#else
  return {};
#endif
}

}  // namespace sgemm::detail
