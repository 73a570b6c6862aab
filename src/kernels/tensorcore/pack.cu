// The packing pass, workspace and FP32 fallback of the tensor-core rungs (see tf32_pack.cuh).
#include "kernels/tensorcore/pack.cuh"

#include <algorithm>
#include <cstdint>

#include "kernels/operand.cuh"
#include "runtime/workspace.hpp"

namespace sgemm::detail {
namespace {

// --- workspace -------------------------------------------------------------------------------

// The flag gets a 256-byte slot so the operand buffers after it stay 256-byte aligned (TMA
// needs 16, cp.async 16).
constexpr std::int64_t kFlagBytes = 256;

// --- packing ---------------------------------------------------------------------------------

constexpr int kPackTile = 32;  // a block packs a 32-row x 32-k tile with 32 x 8 threads
constexpr int kPackRowsPerPass = 8;

// Which parts a pack writes: the big part (Tf32), both (3xTF32), or the small part alone
// (3xTF32 with the big part read in place, Tf32Direct::a_big).
enum class PackParts { Big, BigAndSmall, Small };

// out[q][r][kk] for r < rows_p, kk < kp from x (rows x k), zero outside. Reads walk the
// contiguous dimension of x, writes walk k; the 33-float rows of the staging tile keep both
// the row-wise and the column-wise shared accesses free of bank conflicts.
template <PackParts kParts>
__global__ void tc_pack_kernel(StridedOperand x, std::int64_t rows, std::int64_t k, float* out,
                               std::int64_t rows_p, std::int64_t kp, int* nonfinite,
                               const int* run_if) {
  if (run_if != nullptr && *run_if == 0) return;
  __shared__ float tile[kPackTile][kPackTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t r0 = std::int64_t(blockIdx.x) * kPackTile;
  const std::int64_t k0 = std::int64_t(blockIdx.y) * kPackTile;
  const bool k_contiguous = x.col_stride == 1;
  constexpr bool kSplit = kParts != PackParts::Big;

  bool unsplittable = false;
#pragma unroll
  for (int i = 0; i < kPackTile; i += kPackRowsPerPass) {
    const int r = k_contiguous ? ty + i : tx;
    const int kk = k_contiguous ? tx : ty + i;
    const float v = (r0 + r < rows && k0 + kk < k) ? x(r0 + r, k0 + kk) : 0.0f;
    if constexpr (kSplit) unsplittable |= !splittable(v);
    tile[r][kk] = v;
  }
  if constexpr (kSplit) {
    if (__any_sync(0xffffffffu, unsplittable) && tx == 0) *nonfinite = 1;
  }
  __syncthreads();

#pragma unroll
  for (int i = 0; i < kPackTile; i += kPackRowsPerPass) {
    const float v = tile[ty + i][tx];
    float* dst = out + (r0 + ty + i) * kp + k0 + tx;
    const float big = to_tf32(v), small = to_tf32(v - big);
    if constexpr (kParts == PackParts::Small) {
      dst[0] = small;
    } else {
      dst[0] = big;
      if constexpr (kParts == PackParts::BigAndSmall) dst[rows_p * kp] = small;
    }
  }
}

// The same for an x whose rows run along k (col_stride 1), where out has x's layout and the
// pack is an element-wise map: no staging, 16-byte accesses. A thread packs kPackQuads groups
// of 4 consecutive k, a block's threads neighbouring groups, all loads issued before the first
// store. vec4: x's rows start 16-byte aligned (ptr and row_stride), so a group inside the row
// is one float4 load. (ncu, 8192³, 3xTF32's small part of A on an H200: 127.4 us against the
// tile kernel's 154.3; docs/perf-notes.md, run 94.)
constexpr int kPackRowThreads = 256, kPackQuads = 4;

template <PackParts kParts>
__global__ void __launch_bounds__(kPackRowThreads)
    tc_pack_rows_kernel(StridedOperand x, std::int64_t rows, std::int64_t k, float* out,
                        std::int64_t rows_p, std::int64_t kp, int* nonfinite, bool vec4,
                        const int* run_if) {
  if (run_if != nullptr && *run_if == 0) return;
  const std::int64_t quads_per_row = kp / 4, quads = rows_p * quads_per_row;
  const std::int64_t first = std::int64_t(blockIdx.x) * kPackRowThreads * kPackQuads + threadIdx.x;
  float4 v[kPackQuads];
#pragma unroll
  for (int i = 0; i < kPackQuads; ++i) {
    const std::int64_t q = first + i * kPackRowThreads;
    const std::int64_t r = q / quads_per_row, kk = q % quads_per_row * 4;
    const bool in = q < quads && r < rows;  // otherwise zero padding
    const float* src = in ? x.ptr + r * x.row_stride + kk : x.ptr;
    if (in && vec4 && kk + 4 <= k) {
      v[i] = *reinterpret_cast<const float4*>(src);
    } else {
      v[i] = {in && kk < k ? src[0] : 0.0f, in && kk + 1 < k ? src[1] : 0.0f,
              in && kk + 2 < k ? src[2] : 0.0f, in && kk + 3 < k ? src[3] : 0.0f};
    }
  }
  constexpr bool kSplit = kParts != PackParts::Big;
  bool unsplittable = false;
#pragma unroll
  for (int i = 0; i < kPackQuads; ++i) {
    const std::int64_t q = first + i * kPackRowThreads;
    if (q >= quads) break;
    const float e[4] = {v[i].x, v[i].y, v[i].z, v[i].w};
    float big[4], small[4];
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      if constexpr (kSplit) unsplittable |= !splittable(e[c]);
      big[c] = to_tf32(e[c]), small[c] = to_tf32(e[c] - big[c]);
    }
    float4* dst = reinterpret_cast<float4*>(out) + q;  // out's rows are kp floats, as q counts
    if constexpr (kParts == PackParts::Small) {
      dst[0] = {small[0], small[1], small[2], small[3]};
    } else {
      dst[0] = {big[0], big[1], big[2], big[3]};
      if constexpr (kParts == PackParts::BigAndSmall)
        dst[quads] = {small[0], small[1], small[2], small[3]};
    }
  }
  if constexpr (kSplit) {
    if (__any_sync(0xffffffffu, unsplittable) && threadIdx.x % 32 == 0) *nonfinite = 1;
  }
}

template <PackParts kParts>
cudaError_t pack(StridedOperand x, std::int64_t rows, std::int64_t k, float* out,
                 std::int64_t rows_p, std::int64_t kp, int* nonfinite, const int* run_if,
                 cudaStream_t stream) {
  if (x.col_stride == 1) {
    const bool vec4 = reinterpret_cast<std::uintptr_t>(x.ptr) % 16 == 0 && x.row_stride % 4 == 0;
    // Below 2^23 blocks for any buffer that fits in a GPU's memory (16 KB per block).
    const std::int64_t blocks = ceil_div(rows_p * (kp / 4), kPackRowThreads * kPackQuads);
    tc_pack_rows_kernel<kParts><<<unsigned(blocks), kPackRowThreads, 0, stream>>>(
        x, rows, k, out, rows_p, kp, nonfinite, vec4, run_if);
    return cudaGetLastError();
  }
  const dim3 grid(rows_p / kPackTile, kp / kPackTile);
  tc_pack_kernel<kParts><<<grid, dim3(kPackTile, kPackRowsPerPass), 0, stream>>>(
      x, rows, k, out, rows_p, kp, nonfinite, run_if);
  return cudaGetLastError();
}

// 3xTF32 with an operand the tile kernel splits itself: only raise the flag. x is `outer` rows
// of `inner` contiguous floats, `ld` apart; blocks stride over both.
constexpr int kScanThreads = 256, kScanBlocksX = 8, kScanBlocksY = 2048;

__global__ void __launch_bounds__(kScanThreads)
    tc_scan_kernel(const float* x, std::int64_t outer, std::int64_t inner, std::int64_t ld,
                   int* nonfinite, const int* run_if) {
  if (run_if != nullptr && *run_if == 0) return;
  bool unsplittable = false;
  for (std::int64_t o = blockIdx.y; o < outer; o += gridDim.y)
    for (std::int64_t i = std::int64_t(blockIdx.x) * kScanThreads + threadIdx.x; i < inner;
         i += std::int64_t(gridDim.x) * kScanThreads)
      unsplittable |= !splittable(x[o * ld + i]);
  if (__any_sync(0xffffffffu, unsplittable) && threadIdx.x % 32 == 0) *nonfinite = 1;
}

cudaError_t scan(StridedOperand x, std::int64_t rows, std::int64_t cols, int* nonfinite,
                 const int* run_if, cudaStream_t stream) {
  // The contiguous dimension runs along threads.
  const bool rows_contiguous = x.col_stride == 1;
  const std::int64_t outer = rows_contiguous ? rows : cols, inner = rows_contiguous ? cols : rows;
  const std::int64_t ld = rows_contiguous ? x.row_stride : x.col_stride;
  const dim3 grid(unsigned(std::min<std::int64_t>(ceil_div(inner, kScanThreads), kScanBlocksX)),
                  unsigned(std::min<std::int64_t>(outer, kScanBlocksY)));
  tc_scan_kernel<<<grid, kScanThreads, 0, stream>>>(x.ptr, outer, inner, ld, nonfinite,
                                                       run_if);
  return cudaGetLastError();
}

// --- the FP32 fallback -----------------------------------------------------------------------

// A plain 64 x 64 shared-memory tiled FFMA kernel, 4 x 4 results per thread, each block
// striding over the tiles of C. It runs after the tile kernel of every 3xTF32 call and returns
// at once unless the flag was raised; with no flag (k < kMinSplitK) it always computes.
constexpr int kFbTile = 64, kFbK = 16, kFbThreads = 256, kFbSide = 16;
// Blocks per SM when the flag decides: a grid of one block per tile (16384 at 8192³) took
// 15 us just to start and leave (run 44); a few per SM leave in a fraction of that.
constexpr int kFbBlocksPerSm = 4;
constexpr std::int64_t kFbMaxBlocks = std::int64_t(1) << 20;

__global__ void __launch_bounds__(kFbThreads) tc_fallback_kernel(Canonical p, StridedOperand a,
                                                                  StridedOperand b,
                                                                  const int* nonfinite) {
  if (nonfinite != nullptr && *nonfinite == 0) return;
  __shared__ float sA[kFbK][kFbTile];  // sA[kk][r] = A(row0 + r, k0 + kk)
  __shared__ float sB[kFbK][kFbTile];  // sB[kk][c] = B(k0 + kk, col0 + c)

  const int tid = threadIdx.x, tx = tid % kFbSide, ty = tid / kFbSide;
  const bool a_k_contiguous = a.col_stride == 1, b_k_contiguous = b.row_stride == 1;
  const std::int64_t tiles_n = (p.n + kFbTile - 1) / kFbTile;
  const std::int64_t tiles = tiles_n * ((p.m + kFbTile - 1) / kFbTile);

  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::int64_t row0 = tile / tiles_n * kFbTile, col0 = tile % tiles_n * kFbTile;
    float acc[4][4] = {};
    for (std::int64_t k0 = 0; k0 < p.k; k0 += kFbK) {
#pragma unroll
      for (int i = 0; i < kFbK * kFbTile / kFbThreads; ++i) {
        // Consecutive threads follow the contiguous dimension of each operand.
        const int e = tid + i * kFbThreads;
        const int a_r = a_k_contiguous ? e / kFbK : e % kFbTile;
        const int a_k = a_k_contiguous ? e % kFbK : e / kFbTile;
        sA[a_k][a_r] = (row0 + a_r < p.m && k0 + a_k < p.k) ? a(row0 + a_r, k0 + a_k) : 0.0f;
        const int b_c = b_k_contiguous ? e / kFbK : e % kFbTile;
        const int b_k = b_k_contiguous ? e % kFbK : e / kFbTile;
        sB[b_k][b_c] = (k0 + b_k < p.k && col0 + b_c < p.n) ? b(k0 + b_k, col0 + b_c) : 0.0f;
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kFbK; ++kk) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
#pragma unroll
          for (int j = 0; j < 4; ++j)
            acc[i][j] = fmaf(sA[kk][ty + i * kFbSide], sB[kk][tx + j * kFbSide], acc[i][j]);
        }
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const std::int64_t row = row0 + ty + i * kFbSide;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const std::int64_t col = col0 + tx + j * kFbSide;
        if (row < p.m && col < p.n) store_c(p.c + row * p.ldc + col, acc[i][j], p.alpha, p.beta);
      }
    }
  }
}

// Whether an operand can skip the pack (Tf32) or the copy of its big part (3xTF32, a_big). The
// tensor cores then receive the user's FP32 values, reduced to TF32 on the way: by a TFLOAT32
// tensor map, which rounds exactly as to_tf32 (what the 3xTF32 split needs), or, in Tf32 mode,
// by the tensor core ignoring the low mantissa bits. Such truncation leaves each product off by
// less than 2^-9 of |a||b| instead of 2^-10: still inside the Tf32 bound (k + 2) 2^-11 sum
// |a||b| from k = 2 on, and kDirectMinK leaves room for the accumulation.
bool direct_ok(const float* x, std::int64_t ld, bool k_major, std::int64_t k) {
  return k_major && k >= kDirectMinK && ld % 4 == 0 && aligned16(x);
}

}  // namespace

cudaError_t fp32_fallback(const Canonical& p, const int* nonfinite, cudaStream_t stream) {
  const std::int64_t tiles = ceil_div(p.n, kFbTile) * ceil_div(p.m, kFbTile);
  const std::int64_t cap =
      nonfinite != nullptr ? kFbBlocksPerSm * std::int64_t(std::max(device_sm_count(), 1))
                           : kFbMaxBlocks;
  const unsigned blocks = unsigned(std::min(tiles, cap));
  tc_fallback_kernel<<<blocks, kFbThreads, 0, stream>>>(p, operand_a(p), operand_b(p), nonfinite);
  return cudaGetLastError();
}

std::string_view tf32_why_not(const Canonical& p) {
  const std::int64_t mp = round_up(p.m, kPackTileMN), np = round_up(p.n, kPackTileMN);
  const std::int64_t kp = round_up(p.k, kPackTileK);
  if (kp / kPackTile > 65535) return "k exceeds the packing pass's grid";
  // TMA coordinates and the tile kernels' 32-bit row offsets: parts * rows < 2^31.
  if (2 * mp >= (std::int64_t(1) << 31) || 2 * np >= (std::int64_t(1) << 31))
    return "m or n exceeds the tensor-core rungs' 32-bit tile coordinates";
  return {};  // the fallback's grid strides over C's tiles: it fits any shape
}

cudaError_t tf32_gemm(const Canonical& p, Tf32Mode mode, Tf32TileLauncher launch_tiles,
                      cudaStream_t stream, Tf32Direct direct, const int* run_if) {
  const bool split = mode == Tf32Mode::Tf32x3;
  if (split && p.k < kMinSplitK) return fp32_fallback(p, run_if, stream);
  cudaMemPool_t pool;
  if (cudaError_t err = workspace_pool(&pool); err != cudaSuccess) return err;
  const std::int64_t parts = split ? 2 : 1;
  const std::int64_t mp = round_up(p.m, kPackTileMN), np = round_up(p.n, kPackTileMN);
  const std::int64_t kp = round_up(p.k, kPackTileK);
  const bool k_major_direct = direct.k_major && !split;
  const bool a_direct =
      (k_major_direct || (split && direct.a_big)) && direct_ok(p.a, p.lda, p.a_k_major, p.k);
  const bool b_direct =
      direct.b_always || (k_major_direct && direct_ok(p.b, p.ldb, p.b_k_major, p.k));
  const std::int64_t a_floats = (a_direct ? parts - 1 : parts) * mp * kp;  // small part only
  const std::int64_t b_floats = b_direct ? 0 : parts * np * kp;
  const std::int64_t bytes = kFlagBytes + (a_floats + b_floats) * std::int64_t(sizeof(float));

  void* workspace = nullptr;
  if (cudaError_t err = cudaMallocFromPoolAsync(&workspace, std::size_t(bytes), pool, stream);
      err != cudaSuccess)
    return err;
  int* nonfinite = static_cast<int*>(workspace);
  float* a_packed = reinterpret_cast<float*>(static_cast<char*>(workspace) + kFlagBytes);
  float* b_packed = a_packed + a_floats;

  cudaError_t err = cudaSuccess;
  if (split) {
    err = cudaMemsetAsync(nonfinite, 0, sizeof(int), stream);
    if (err == cudaSuccess)
      err = a_direct ? pack<PackParts::Small>(operand_a(p), p.m, p.k, a_packed, mp, kp,
                                              nonfinite, run_if, stream)
                     : pack<PackParts::BigAndSmall>(operand_a(p), p.m, p.k, a_packed, mp, kp,
                                                    nonfinite, run_if, stream);
    if (err == cudaSuccess && !b_direct)
      err = pack<PackParts::BigAndSmall>(operand_bt(p), p.n, p.k, b_packed, np, kp, nonfinite,
                                         run_if, stream);
    else if (err == cudaSuccess && !(direct.b_checked && p.beta == 0.0f))
      err = scan(operand_b(p), p.k, p.n, nonfinite, run_if, stream);
  } else {
    if (!a_direct)
      err = pack<PackParts::Big>(operand_a(p), p.m, p.k, a_packed, mp, kp, nullptr, run_if,
                             stream);
    if (err == cudaSuccess && !b_direct)
      err = pack<PackParts::Big>(operand_bt(p), p.n, p.k, b_packed, np, kp, nullptr, run_if,
                             stream);
  }
  if (err == cudaSuccess)
    err = launch_tiles(p,
                       {a_direct ? p.a : a_packed,
                        split ? (a_direct ? a_packed : a_packed + mp * kp) : nullptr,
                        b_direct ? p.b : b_packed,
                        split ? nonfinite : nullptr, run_if, mp, np, kp, a_direct, b_direct},
                       stream);
  if (err == cudaSuccess && split) err = fp32_fallback(p, nonfinite, stream);
  const cudaError_t free_err = cudaFreeAsync(workspace, stream);
  return err != cudaSuccess ? err : free_err;
}

}  // namespace sgemm::detail
