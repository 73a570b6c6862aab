// Conv rung 03 — implicit GEMM on the tensor cores: mma.sync m16n8k8 TF32 fed by cp.async from
// the precomputed offsets, in Tf32 and 3xTF32.
//
// What changes from rung 02:
// - The tile loop is tensor-core rung 01's, not the CUDA-core one: 128 output pixels x 64 output
//   channels per block, 16-deep k-tiles in a 4-stage cp.async ring, fragments by ldmatrix from
//   16-float rows swizzled against bank conflicts (arch/mma_sync.cuh).
// - With C / G a multiple of 16 a k-tile lies inside one filter tap, so a row of an A tile is 16
//   consecutive channels of one input pixel: four 16-byte cp.async copies, all from the input or
//   all zero-filled in the padding (the copy's source size 0). The loader carries (tap, c) per
//   k-tile as rung 02 does per k-step (precomp.cuh); B, the filters, is K-major as it lies.
//   Other channel counts (the 7 x 7 stem's 3) copy one float at a time, each thread walking the
//   taps along its row of the tile.
// - The tiles hold the user's FP32 values. Each thread rounds its fragments to TF32 (Tf32), or
//   splits them into big and small TF32 parts (3xTF32), in registers after ldmatrix: no pass
//   over the input before the call.
// - 3xTF32: per k-tile the cross terms first, then big * big in a second pass over the tile's
//   shared memory, into a fresh accumulator added to the FP32 sum once per k-tile (tensor-core
//   rung 01's order, for the same reason). A scan of x and w before the tile kernel raises a flag
//   when the split cannot carry a value (tensorcore/pack.cuh, splittable); the tile kernel then
//   returns at once and rung 02's FP32 loop computes the call instead (precomp.cuh).
#include "kernels/arch/cp_async.cuh"
#include "kernels/arch/mma_sync.cuh"
#include "kernels/conv/precomp.cuh"
#include "kernels/epilogue/store.cuh"
#include "kernels/tensorcore/pack.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kBM = 128, kBN = 64, kBK = kK16Floats, kStages = 4;
constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 8;
constexpr int kChunks = kBK / 4;  // 16-byte chunks per tile row
constexpr int kAFloats = kBM * kBK, kStageFloats = (kBM + kBN) * kBK;
constexpr int kSmemBytes = kStages * kStageFloats * int(sizeof(float));  // 48 KB
static_assert(kSmemBytes <= 48 * 1024, "more needs cudaFuncAttributeMaxDynamicSharedMemorySize");

// The warps of a block tile. Tf32: 4 warps of 64 x 32 (173 registers). 3xTF32 keeps a fresh
// accumulator beside the sum and the small parts beside the big ones, which spilled at 64 x 32
// (255 registers and 9 local loads in the loop); 8 warps of 32 x 32 hold them.
template <Tf32Mode kMode>
struct Warps {
  static constexpr int kM = kMode == Tf32Mode::Tf32 ? 2 : 4, kN = 2, kThreads = 32 * kM * kN;
  static constexpr int kFragsM = kBM / kM / kMmaM, kFragsN = kBN / kN / kMmaN;
  static constexpr int kRowsPerPass = kThreads / kChunks;  // tile rows one pass copies
  static constexpr int kALoads = kBM / kRowsPerPass, kBLoads = kBN / kRowsPerPass;
};

// The loaders: the copies of one thread into the ring, k-tile after k-tile, the next one into
// shared memory at sA (kBM rows) and sB (kBN rows) per load(): one commit group's worth, with
// zeros for the padding, for filters past the last and for the reduction past its end.
//
// ChunkLoader, for C / G a multiple of 16 and 16-byte aligned x and w: chunk tid % 4 of A rows
// tid / 4 + i kRowsPerPass and of B rows tid / 4 + i kRowsPerPass.
template <class W>
struct ChunkLoader {
  const PrecompArgs& args;
  PrecompRow a_rows[W::kALoads];
  const float* w_rows[W::kBLoads];  // this thread's filters, at its chunk; null past the last
  int cg, tap = 0, c = 0;           // where the next k-tile starts: channel c of tap `tap`

  __device__ ChunkLoader(const PrecompArgs& a, int group, std::int64_t row0, std::int64_t col0,
                       int tid)
      : args(a), cg(int(a.p.shape.c / a.p.shape.groups)) {
    const ConvProblem& p = a.p;
    const std::int64_t n = p.gemm_n(), k = p.gemm_k();
#pragma unroll
    for (int i = 0; i < W::kALoads; ++i)
      a_rows[i] = PrecompRow(p, group, row0 + tid / kChunks + i * W::kRowsPerPass);
#pragma unroll
    for (int i = 0; i < W::kBLoads; ++i) {
      const std::int64_t j = col0 + tid / kChunks + i * W::kRowsPerPass;
      w_rows[i] = j < n ? p.w + (group * n + j) * k + tid % kChunks * 4 : nullptr;
    }
  }

  __device__ void load(std::uint32_t sA, std::uint32_t sB, int tid) {
    const ConvProblem& p = args.p;
    const int chunk = tid % kChunks;
    const std::int64_t offset = args.taps.offset[tap] + c + chunk * 4;
    const int dh = args.taps.dh[tap], dw = args.taps.dw[tap];
#pragma unroll
    for (int i = 0; i < W::kALoads; ++i) {
      const bool in = a_rows[i].reads(p.shape, dh, dw);
      cp_async16(sA + 4 * swizzled_k16(tid / kChunks + i * W::kRowsPerPass, chunk),
                 in ? p.x + a_rows[i].base + offset : p.x, in ? 16 : 0);
    }
    const std::int64_t k0 = std::int64_t(tap) * cg + c;
#pragma unroll
    for (int i = 0; i < W::kBLoads; ++i)
      cp_async16(sB + 4 * swizzled_k16(tid / kChunks + i * W::kRowsPerPass, chunk),
                 w_rows[i] ? w_rows[i] + k0 : p.w, w_rows[i] ? 16 : 0);
    c += kBK;
    if (c == cg) c = 0, ++tap;
  }
};

// ElementLoader, for any other call (the 7 x 7 stem has C = 3): one float per copy. Thread t
// copies A row t % kBM, kACols consecutive reduction columns from (t / kBM) kACols on, carrying
// the (tap, c) of its first column and stepping through the taps column by column; and B row
// t % kBN, kBCols columns from (t / kBN) kBCols on.
template <class W>
struct ElementLoader {
  static constexpr int kACols = kBK * kBM / W::kThreads, kBCols = kBK * kBN / W::kThreads;
  const PrecompArgs& args;
  PrecompRow a_row;
  const float* w_row;  // this thread's filter; null past the last
  int cg, taps, tap, c;  // channels per group, R S; the tap and channel of the next first column
  std::int64_t k0 = 0;   // the next k-tile's first reduction index

  __device__ ElementLoader(const PrecompArgs& a, int group, std::int64_t row0, std::int64_t col0,
                           int tid)
      : args(a),
        a_row(a.p, group, row0 + tid % kBM),
        cg(int(a.p.shape.c / a.p.shape.groups)),
        taps(int(a.p.shape.r * a.p.shape.s)) {
    const ConvProblem& p = a.p;
    const std::int64_t j = col0 + tid % kBN;
    w_row = j < p.gemm_n() ? p.w + (group * p.gemm_n() + j) * p.gemm_k() : nullptr;
    const int first = tid / kBM * kACols;  // the divisions happen once, here
    tap = first / cg;
    c = first % cg;
  }

  __device__ void load(std::uint32_t sA, std::uint32_t sB, int tid) {
    const ConvProblem& p = args.p;
    const int row = tid % kBM, first = tid / kBM * kACols;
    int t = tap, cc = c;
#pragma unroll
    for (int i = 0; i < kACols; ++i) {
      const int in_table = t < taps ? t : 0;  // past the reduction's end: zeros
      const bool in = t < taps &&
                      a_row.reads(p.shape, args.taps.dh[in_table], args.taps.dw[in_table]);
      const int kk = first + i;
      cp_async4(sA + 4 * (swizzled_k16(row, kk / 4) + kk % 4),
                in ? p.x + a_row.base + args.taps.offset[in_table] + cc : p.x, in ? 4 : 0);
      if (++cc == cg) cc = 0, ++t;
    }
    const int b_row = tid % kBN, b_first = tid / kBN * kBCols;
#pragma unroll
    for (int i = 0; i < kBCols; ++i) {
      const int kk = b_first + i;
      const bool in = w_row != nullptr && k0 + kk < p.gemm_k();
      cp_async4(sB + 4 * (swizzled_k16(b_row, kk / 4) + kk % 4), in ? w_row + k0 + kk : p.w,
                in ? 4 : 0);
    }
    k0 += kBK;
    c += kBK;
    while (c >= cg) c -= cg, ++tap;
  }
};

// The fragments of one k8 step: A's m16 tiles and B's n8 tiles of a warp, raw FP32.
template <class W>
struct Fragments {
  std::uint32_t a[W::kFragsM][4], b[W::kFragsN][2];
};

// ldmatrix lane roles (tensor-core rung 01): for A, lanes 8i .. 8i + 7 address rows
// (i & 1) * 8 + 0..7 of an m16 tile at chunk i >> 1; for B, rows (i >> 1) * 8 + 0..7 of an n16
// pair at chunk i & 1. a_row and b_row are the lane's rows of the warp's first tiles.
template <class W>
__device__ __forceinline__ void load_fragments(std::uint32_t sA, std::uint32_t sB, int ks,
                                               int lane, int a_row, int b_row, Fragments<W>& f) {
  const int a_chunk = 2 * ks + (lane / 8 >> 1), b_chunk = 2 * ks + (lane / 8 & 1);
#pragma unroll
  for (int mi = 0; mi < W::kFragsM; ++mi)
    ldmatrix_x4(f.a[mi], sA + 4 * swizzled_k16(a_row + mi * kMmaM, a_chunk));
#pragma unroll
  for (int nj = 0; nj < W::kFragsN; nj += 2) {
    std::uint32_t r[4];
    ldmatrix_x4(r, sB + 4 * swizzled_k16(b_row + nj * kMmaN, b_chunk));
    f.b[nj][0] = r[0], f.b[nj][1] = r[1], f.b[nj + 1][0] = r[2], f.b[nj + 1][1] = r[3];
  }
}

// Rounds every register of `big` to TF32; with `small`, keeps the rounded remainders there.
template <int kRows, int kCols>
__device__ __forceinline__ void split(std::uint32_t (&big)[kRows][kCols],
                                      std::uint32_t (*small)[kRows][kCols] = nullptr) {
#pragma unroll
  for (int i = 0; i < kRows; ++i)
#pragma unroll
    for (int j = 0; j < kCols; ++j) {
      const float raw = __uint_as_float(big[i][j]), rounded = to_tf32(raw);
      big[i][j] = __float_as_uint(rounded);
      if (small) (*small)[i][j] = __float_as_uint(to_tf32(raw - rounded));
    }
}

template <Tf32Mode kMode, template <class> class Loader>
__device__ __forceinline__ void conv_mma_tiles(const PrecompArgs& args, const int* skip_if) {
  using W = Warps<kMode>;
  constexpr int kFragsM = W::kFragsM, kFragsN = W::kFragsN;
  if (skip_if != nullptr && *skip_if != 0) return;  // the FP32 loop computes this call
  extern __shared__ float smem[];
  const ConvProblem& p = args.p;
  const std::int64_t n = p.gemm_n(), tiles_n = (n + kBN - 1) / kBN;
  const std::int64_t tile_m = blockIdx.x / tiles_n, tile_n = blockIdx.x % tiles_n;
  const int group = blockIdx.y, tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int warp_m = warp / W::kN, warp_n = warp % W::kN;
  const int num_k_tiles = int(ceil_div(p.gemm_k(), kBK));
  const std::uint32_t smem_base = smem_address(smem);
  auto stage_a = [&](int s) { return smem_base + 4 * s * kStageFloats; };
  auto stage_b = [&](int s) { return stage_a(s) + 4 * kAFloats; };

  Loader<W> loader(args, group, tile_m * kBM, tile_n * kBN, tid);
  // Prologue: k-tiles 0 .. kStages-2 in flight; one commit per slot even without a tile, so that
  // "group i holds k-tile i" stays true for the wait below.
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < num_k_tiles) loader.load(stage_a(s), stage_b(s), tid);
    cp_async_commit();
  }

  const int a_row = warp_m * (kBM / W::kM) + (lane / 8 & 1) * 8 + lane % 8;
  const int b_row = warp_n * (kBN / W::kN) + (lane / 8 >> 1) * 8 + lane % 8;
  float acc[kFragsM][kFragsN][4] = {};
  for (int kt = 0; kt < num_k_tiles; ++kt) {
    cp_async_wait<kStages - 2>();  // this thread's copies of k-tile kt have landed
    __syncthreads();               // everyone's have, and everyone is done with k-tile kt - 1
    const int next = kt + kStages - 1;
    if (next < num_k_tiles) loader.load(stage_a(next % kStages), stage_b(next % kStages), tid);
    cp_async_commit();

    const std::uint32_t sA = stage_a(kt % kStages), sB = stage_b(kt % kStages);
    Fragments<W> f;
    // The k-tile's big * big products into `sum`: the running sum in Tf32, the fresh one in
    // 3xTF32.
    auto big_products = [&](float (&sum)[kFragsM][kFragsN][4]) {
#pragma unroll
      for (int ks = 0; ks < kBK / kMmaK; ++ks) {
        load_fragments<W>(sA, sB, ks, lane, a_row, b_row, f);
        split(f.a);
        split(f.b);
#pragma unroll
        for (int mi = 0; mi < kFragsM; ++mi)
#pragma unroll
          for (int nj = 0; nj < kFragsN; ++nj)
            mma_tf32(sum[mi][nj], f.a[mi], f.b[nj][0], f.b[nj][1]);
      }
    };
    if constexpr (kMode == Tf32Mode::Tf32x3) {
      // The k-tile's cross terms first, then a second pass over shared memory for big * big.
      float fresh[kFragsM][kFragsN][4] = {};
#pragma unroll
      for (int ks = 0; ks < kBK / kMmaK; ++ks) {
        load_fragments<W>(sA, sB, ks, lane, a_row, b_row, f);
        Fragments<W> small;
        split(f.a, &small.a);
        split(f.b, &small.b);
#pragma unroll
        for (int mi = 0; mi < kFragsM; ++mi)
#pragma unroll
          for (int nj = 0; nj < kFragsN; ++nj) {
            mma_tf32(fresh[mi][nj], small.a[mi], f.b[nj][0], f.b[nj][1]);
            mma_tf32(fresh[mi][nj], f.a[mi], small.b[nj][0], small.b[nj][1]);
          }
      }
      big_products(fresh);
#pragma unroll
      for (int mi = 0; mi < kFragsM; ++mi)
#pragma unroll
        for (int nj = 0; nj < kFragsN; ++nj)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[mi][nj][e] += fresh[mi][nj][e];
    } else {
      big_products(acc);
    }
  }
  cp_async_wait<0>();  // no copy may be in flight when the block exits

  // Accumulator fragment of an m16n8 tile: elements 0, 1 at (lane / 4, 2 (lane % 4) + 0, 1),
  // elements 2, 3 eight rows below; two adjacent output channels per store.
  const std::int64_t m = p.gemm_m(), k_out = p.shape.k;
  float* const y = p.y + group * n;
  const bool paired = k_out % 2 == 0 && reinterpret_cast<std::uintptr_t>(y) % 8 == 0;
  const std::int64_t row_base = tile_m * kBM + warp_m * (kBM / W::kM) + lane / 4;
  const std::int64_t col_base = tile_n * kBN + warp_n * (kBN / W::kN) + 2 * (lane % 4);
#pragma unroll
  for (int mi = 0; mi < kFragsM; ++mi)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::int64_t row = row_base + mi * kMmaM + h * 8;
      if (row >= m) continue;
#pragma unroll
      for (int nj = 0; nj < kFragsN; ++nj)
        store_c2(y + row * k_out, col_base + nj * kMmaN, n, acc[mi][nj][2 * h],
                 acc[mi][nj][2 * h + 1], p.alpha, p.beta, paired);
    }
}

// kChunks: ChunkLoader, else ElementLoader.
template <bool kChunks>
__global__ void __launch_bounds__(Warps<Tf32Mode::Tf32>::kThreads)
    conv_03_mma_tf32_kernel(const PrecompArgs args, const int* skip_if) {
  if constexpr (kChunks)
    conv_mma_tiles<Tf32Mode::Tf32, ChunkLoader>(args, skip_if);
  else
    conv_mma_tiles<Tf32Mode::Tf32, ElementLoader>(args, skip_if);
}
template <bool kChunks>
__global__ void __launch_bounds__(Warps<Tf32Mode::Tf32x3>::kThreads)
    conv_03_mma_tf32x3_kernel(const PrecompArgs args, const int* skip_if) {
  if constexpr (kChunks)
    conv_mma_tiles<Tf32Mode::Tf32x3, ChunkLoader>(args, skip_if);
  else
    conv_mma_tiles<Tf32Mode::Tf32x3, ElementLoader>(args, skip_if);
}

// Whether ChunkLoader can take p: a k-tile inside one tap, 16-byte copies.
bool chunks_ok(const ConvProblem& p) {
  return (p.shape.c / p.shape.groups) % kBK == 0 && aligned16(p.x) && aligned16(p.w);
}

std::string_view why_not(const ConvProblem& p, const Device& device) {
  if (device.cc < 80) return "needs compute capability 8.0 or newer (TF32 mma.sync)";
  if (ceil_div(p.gemm_k(), kBK) >= (std::int64_t(1) << 31))
    return "needs R S C / groups below 2^35";
  if (std::string_view r = precomp_why_not(p); !r.empty()) return r;
  return needs_grid(ceil_div(p.gemm_m(), kBM) * ceil_div(p.gemm_n(), kBN), p.shape.groups);
}

dim3 grid(const ConvProblem& p) {
  return dim3(unsigned(ceil_div(p.gemm_m(), kBM) * ceil_div(p.gemm_n(), kBN)),
              unsigned(p.shape.groups));
}

cudaError_t launch_tf32(const ConvProblem& p, const LaunchArgs& args) {
  return launch_kernel(
      chunks_ok(p) ? conv_03_mma_tf32_kernel<true> : conv_03_mma_tf32_kernel<false>, grid(p),
      Warps<Tf32Mode::Tf32>::kThreads, kSmemBytes, args.stream, precomp_args(p),
      static_cast<const int*>(nullptr));
}

// 3xTF32: the scans raise `unsplittable` for values the split cannot carry; the tile kernel then
// leaves the call to the FP32 loop, which runs only then.
cudaError_t launch_tf32x3(const ConvProblem& p, const LaunchArgs& args) {
  const Conv2dShape& sh = p.shape;
  int* unsplittable = args.workspace.take<int>(1);
  if (!unsplittable) return cudaErrorMemoryAllocation;
  cudaError_t err = cudaMemsetAsync(unsplittable, 0, sizeof(int), args.stream);
  if (!err)  // x as N H rows of W C floats, w as K rows of R S C / G
    err = scan_unsplittable(p.x, sh.n * sh.h, sh.w * sh.c, sh.w * sh.c, unsplittable, args.stream);
  if (!err) err = scan_unsplittable(p.w, sh.k, p.gemm_k(), p.gemm_k(), unsplittable, args.stream);
  if (!err)
    err = launch_kernel(chunks_ok(p) ? conv_03_mma_tf32x3_kernel<true>
                                     : conv_03_mma_tf32x3_kernel<false>,
                        grid(p), Warps<Tf32Mode::Tf32x3>::kThreads, kSmemBytes, args.stream,
                        precomp_args(p), static_cast<const int*>(unsplittable));
  if (!err) err = conv_fp32_if(p, unsplittable, args.stream);
  return err;
}

std::size_t workspace_tf32x3(const ConvProblem&, const Device&) {
  return Workspace::rounded(sizeof(int));
}

}  // namespace

SGEMM_CONV_KERNEL_ENTRIES(conv_03_mma) {
  static const ConvKernelEntry entries[] = {
      {{"conv-03-mma-tf32x3", Track::Conv, 3,
        "implicit precomp GEMM on mma.sync: cp.async tiles from the per-tap offsets, operands "
        "split into TF32 parts in registers; 3xTF32",
        Math::Fp32Tf32x3, "seed 001's extension on tensor-core rung 01",
        "compute capability 8.0; R S <= 64", Unit::Tf32Tensor},
       why_not, launch_tf32x3, workspace_tf32x3},
      {{"conv-03-mma-tf32", Track::Conv, 3,
        "implicit precomp GEMM on mma.sync: cp.async tiles from the per-tap offsets, operands "
        "rounded to TF32 in registers",
        Math::Tf32, "seed 001's extension on tensor-core rung 01",
        "compute capability 8.0; R S <= 64", Unit::Tf32Tensor},
       why_not, launch_tf32}};
  return entries;
}

}  // namespace sgemm::detail
