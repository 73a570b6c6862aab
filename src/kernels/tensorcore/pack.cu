// The packing pass of the TF32 tensor-core rungs and its driver, tf32_gemm (see pack.cuh).
#include "kernels/tensorcore/pack.cuh"

#include <algorithm>
#include <cstdint>

#include "kernels/fallback/fp32_any.cuh"
#include "kernels/operand.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

// --- packing ---------------------------------------------------------------------------------

constexpr int kPackTile = 32;  // a block packs a 32-row x 32-k tile with 32 x 8 threads
constexpr int kPackRowsPerPass = 8;

// Matrix z of a batch (grid z) is read at x + z * x and packed at out + z * out.
struct BatchStrides {
  std::int64_t x = 0, out = 0;
};

// Which parts a pack writes: the big part (Tf32), both (3xTF32), or the small part alone
// (3xTF32 with the big part read in place, Tf32Direct::a_big).
enum class PackParts { Big, BigAndSmall, Small };

// out[q][r][kk] for r < rows_p, kk < kp from x (rows x k), zero outside. Reads walk the
// contiguous dimension of x, writes walk k; the 33-float rows of the staging tile keep both
// the row-wise and the column-wise shared accesses free of bank conflicts.
template <PackParts kParts>
__global__ void tc_pack_kernel(StridedOperand x, std::int64_t rows, std::int64_t k, float* out,
                               std::int64_t rows_p, std::int64_t kp, int* nonfinite,
                               const int* run_if, BatchStrides batch) {
  if (run_if != nullptr && *run_if == 0) return;
  x.ptr += blockIdx.z * batch.x, out += blockIdx.z * batch.out;
  __shared__ float tile[kPackTile][kPackTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t r0 = std::int64_t(blockIdx.x) * kPackTile;
  const bool k_contiguous = x.col_stride == 1;
  constexpr bool kSplit = kParts != PackParts::Big;
  // The k-tiles of the block's rows, gridDim.y apart (k may need more than 65535 of them).
  for (std::int64_t k0 = std::int64_t(blockIdx.y) * kPackTile; k0 < kp;
       k0 += std::int64_t(gridDim.y) * kPackTile) {
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
    __syncthreads();  // the tile is read before the next k-tile overwrites it
  }
}

// The same for an x whose rows run along k (col_stride 1), where out has x's layout and the
// pack is an element-wise map: no staging, 16-byte accesses. A thread packs kPackQuads groups
// of 4 consecutive k, a block's threads neighbouring groups, all loads issued before the first
// store. vec4: x's rows start 16-byte aligned (ptr and row_stride), so a group inside the row
// is one float4 load. (ncu, 8192³, 3xTF32's small part of A on an H200: 127.4 us against the
// tile kernel's 154.3.)
constexpr int kPackRowThreads = 256, kPackQuads = 4;

template <PackParts kParts>
__global__ void __launch_bounds__(kPackRowThreads)
    tc_pack_rows_kernel(StridedOperand x, std::int64_t rows, std::int64_t k, float* out,
                        std::int64_t rows_p, std::int64_t kp, int* nonfinite, bool vec4,
                        const int* run_if, BatchStrides batch) {
  if (run_if != nullptr && *run_if == 0) return;
  x.ptr += blockIdx.z * batch.x, out += blockIdx.z * batch.out;
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
                 cudaStream_t stream, std::int64_t batch = 1, BatchStrides strides = {}) {
  if (x.col_stride == 1) {
    const bool vec4 = reinterpret_cast<std::uintptr_t>(x.ptr) % 16 == 0 &&
                      x.row_stride % 4 == 0 && strides.x % 4 == 0;
    // Below 2^23 blocks for any buffer that fits in a GPU's memory (16 KB per block).
    const std::int64_t blocks = ceil_div(rows_p * (kp / 4), kPackRowThreads * kPackQuads);
    return launch_kernel(tc_pack_rows_kernel<kParts>, dim3(unsigned(blocks), 1, unsigned(batch)),
                         kPackRowThreads, 0, stream, x, rows, k, out, rows_p, kp, nonfinite, vec4,
                         run_if, strides);
  }
  const dim3 grid(unsigned(rows_p / kPackTile),
                  unsigned(std::min<std::int64_t>(kp / kPackTile, 65535)), unsigned(batch));
  return launch_kernel(tc_pack_kernel<kParts>, grid, dim3(kPackTile, kPackRowsPerPass), 0, stream,
                       x, rows, k, out, rows_p, kp, nonfinite, run_if, strides);
}

// 3xTF32 with an operand the tile kernel splits itself: only raise the flag. x is `outer` rows
// of `inner` contiguous floats, `ld` apart; blocks stride over both.
constexpr int kScanThreads = 256, kScanBlocksX = 8, kScanBlocksY = 2048;

__global__ void __launch_bounds__(kScanThreads)
    tc_scan_kernel(const float* x, std::int64_t outer, std::int64_t inner, std::int64_t ld,
                   std::int64_t matrix_stride, int* nonfinite, const int* run_if) {
  if (run_if != nullptr && *run_if == 0) return;
  x += blockIdx.z * matrix_stride;  // matrix z of a batch
  bool unsplittable = false;
  for (std::int64_t o = blockIdx.y; o < outer; o += gridDim.y)
    for (std::int64_t i = std::int64_t(blockIdx.x) * kScanThreads + threadIdx.x; i < inner;
         i += std::int64_t(gridDim.x) * kScanThreads)
      unsplittable |= !splittable(x[o * ld + i]);
  if (__any_sync(0xffffffffu, unsplittable) && threadIdx.x % 32 == 0) *nonfinite = 1;
}

cudaError_t scan(StridedOperand x, std::int64_t rows, std::int64_t cols, int* nonfinite,
                 const int* run_if, cudaStream_t stream, std::int64_t batch = 1,
                 std::int64_t matrix_stride = 0) {
  // The contiguous dimension runs along threads.
  const bool rows_contiguous = x.col_stride == 1;
  const std::int64_t outer = rows_contiguous ? rows : cols, inner = rows_contiguous ? cols : rows;
  const std::int64_t ld = rows_contiguous ? x.row_stride : x.col_stride;
  const dim3 grid(unsigned(std::min<std::int64_t>(ceil_div(inner, kScanThreads), kScanBlocksX)),
                  unsigned(std::min<std::int64_t>(outer, kScanBlocksY)), unsigned(batch));
  return launch_kernel(tc_scan_kernel, grid, kScanThreads, 0, stream, x.ptr, outer, inner, ld,
                       matrix_stride, nonfinite, run_if);
}

// Whether an operand can skip the pack (Tf32) or the copy of its big part (3xTF32, a_big). The
// tensor cores then receive the user's FP32 values, reduced to TF32 on the way: by a TFLOAT32
// tensor map, which rounds exactly as to_tf32 (what the 3xTF32 split needs), or, in Tf32 mode,
// by the tensor core ignoring the low mantissa bits. Such truncation leaves each product off by
// less than 2^-9 of |a||b| instead of 2^-10: still inside the Tf32 bound (k + 2) 2^-11 sum
// |a||b| from k = 2 on, and kDirectMinK leaves room for the accumulation. The tensor map's
// strides (a row, and the whole matrix: make_k_major_map) must stay below 2^40 bytes.
constexpr std::int64_t kMaxTmaFloats = std::int64_t(1) << 38;

}  // namespace

bool direct_ok(const float* x, std::int64_t ld, bool k_major, std::int64_t rows, std::int64_t k) {
  return k_major && k >= kDirectMinK && ld % 4 == 0 && aligned16(x) &&
         ld < kMaxTmaFloats / std::max<std::int64_t>(rows, 1);
}

cudaError_t scan_unsplittable(const float* x, std::int64_t rows, std::int64_t cols,
                              std::int64_t ld, int* flag, cudaStream_t stream) {
  return scan({x, ld, 1}, rows, cols, flag, nullptr, stream);
}

std::string_view tf32_why_not(const Canonical& p) {
  if (p.batch > 65535) return "a batch above 65535 exceeds the packing grid";
  // TMA coordinates and the tile kernels' 32-bit row offsets: parts * rows < 2^31.
  const std::int64_t mp = round_up(p.m, kPackTileMN), np = round_up(p.n, kPackTileMN);
  if (2 * mp >= (std::int64_t(1) << 31) || 2 * np >= (std::int64_t(1) << 31))
    return "needs m, n < 2^30 (the tensor-core rungs' 32-bit tile coordinates)";
  if (p.k >= (std::int64_t(1) << 31) - kPackTileK) return "needs k < 2^31 - 32 (TMA coordinates)";
  return {};
}

namespace {

// Where tf32_gemm's pieces go: which operands are read in place, and the packed sizes.
struct Tf32Plan {
  bool split, fp32_only, a_direct, b_direct;
  std::int64_t mp, np, kp, a_floats, b_floats;
};

Tf32Plan plan(const Canonical& p, Tf32Mode mode, Tf32Direct direct) {
  if (p.batch > 1 && !direct.batch) direct = {};  // every matrix of a batch is packed
  Tf32Plan t{};
  t.split = mode == Tf32Mode::Tf32x3;
  t.fp32_only = t.split && p.k < kMinSplitK;
  const std::int64_t parts = t.split ? 2 : 1;
  t.mp = round_up(p.m, kPackTileMN);
  t.np = round_up(p.n, kPackTileMN);
  t.kp = round_up(p.k, kPackTileK);
  const bool k_major_direct = direct.k_major && !t.split;
  // A batch's A read in place is one tensor map: its matrices 16-byte aligned, their stride
  // below the map's limit.
  const bool a_batch_ok = p.batch == 1 || (p.stride_a % 4 == 0 && p.stride_a < kMaxTmaFloats);
  t.a_direct = (k_major_direct || (t.split && direct.a_big)) && a_batch_ok &&
               direct_ok(p.a, p.lda, p.a_k_major, p.m, p.k);
  t.b_direct =
      direct.b_always || (k_major_direct && direct_ok(p.b, p.ldb, p.b_k_major, p.n, p.k));
  t.a_floats = (t.a_direct ? parts - 1 : parts) * t.mp * t.kp;  // the small part only
  t.b_floats = t.b_direct ? 0 : parts * t.np * t.kp;
  return t;
}

}  // namespace

std::size_t tf32_workspace_bytes(const Canonical& p, Tf32Mode mode, Tf32Direct direct,
                                 std::size_t tile_bytes) {
  const Tf32Plan t = plan(p, mode, direct);
  if (t.fp32_only) return 0;
  return Workspace::rounded(sizeof(int)) +
         Workspace::rounded(std::size_t(t.a_floats * p.batch) * sizeof(float)) +
         Workspace::rounded(std::size_t(t.b_floats * p.batch) * sizeof(float)) + tile_bytes;
}

cudaError_t tf32_gemm(const Canonical& p, Tf32Mode mode, Tf32TileLauncher launch_tiles,
                      const LaunchArgs& args, Tf32Direct direct) {
  const Tf32Plan t = plan(p, mode, direct);
  const cudaStream_t stream = args.stream;
  const int* run_if = args.run_if;
  if (t.fp32_only) return fp32_any(p, run_if, args.device, stream);
  int* nonfinite = args.workspace.take<int>(1);
  float* a_packed = args.workspace.take<float>(t.a_floats * p.batch);
  float* b_packed = args.workspace.take<float>(t.b_floats * p.batch);
  // A batch packs matrix z of a packed operand at z * a_floats, z * b_floats (an operand read
  // in place keeps its own stride: Tf32Direct::batch).
  const BatchStrides a_batch{p.stride_a, t.a_floats}, b_batch{p.stride_b, t.b_floats};
  if (!nonfinite || (t.a_floats && !a_packed) || (t.b_floats && !b_packed))
    return cudaErrorMemoryAllocation;

  cudaError_t err = cudaSuccess;
  if (t.split) {
    err = cudaMemsetAsync(nonfinite, 0, sizeof(int), stream);
    if (err == cudaSuccess)
      err = t.a_direct ? pack<PackParts::Small>(operand_a(p), p.m, p.k, a_packed, t.mp, t.kp,
                                                nonfinite, run_if, stream, p.batch, a_batch)
                       : pack<PackParts::BigAndSmall>(operand_a(p), p.m, p.k, a_packed, t.mp,
                                                      t.kp, nonfinite, run_if, stream, p.batch,
                                                      a_batch);
    if (err == cudaSuccess && !t.b_direct)
      err = pack<PackParts::BigAndSmall>(operand_bt(p), p.n, p.k, b_packed, t.np, t.kp, nonfinite,
                                         run_if, stream, p.batch, b_batch);
    else if (err == cudaSuccess && !(direct.b_checked && p.beta == 0.0f))
      err = scan(operand_b(p), p.k, p.n, nonfinite, run_if, stream,
                 p.stride_b == 0 ? 1 : p.batch, p.stride_b);
  } else {
    if (!t.a_direct)
      err = pack<PackParts::Big>(operand_a(p), p.m, p.k, a_packed, t.mp, t.kp, nullptr, run_if,
                                 stream, p.batch, a_batch);
    if (err == cudaSuccess && !t.b_direct)
      err = pack<PackParts::Big>(operand_bt(p), p.n, p.k, b_packed, t.np, t.kp, nullptr, run_if,
                                 stream, p.batch, b_batch);
  }
  if (err == cudaSuccess)
    err = launch_tiles(p,
                       {t.a_direct ? p.a : a_packed,
                        t.split ? (t.a_direct ? a_packed : a_packed + t.mp * t.kp) : nullptr,
                        t.b_direct ? p.b : b_packed, t.split ? nonfinite : nullptr, run_if, t.mp,
                        t.np, t.kp, t.a_direct, t.b_direct, t.a_floats, t.b_floats},
                       args);
  if (err == cudaSuccess && t.split) err = fp32_any(p, nonfinite, args.device, stream);
  return err;
}

}  // namespace sgemm::detail
