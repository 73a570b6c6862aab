// CuTe rung 02 — a fast CuTe SGEMM: TiledCopy with cp.async, conflict-free shared memory, a
// TiledMMA of FMAs, and a 3-stage pipeline.
//
// Same convention as cute/01 (A is M x K, B is N x K, C is M x N); what changes is that every
// step is one of CuTe's building blocks, chosen for speed:
// - A block of 256 threads computes a 128 x 128 tile of C, 8 x 8 per thread, in k-tiles of 16.
// - TiledCopy: global -> shared with cp.async, so the loads of k-tiles t+1 and t+2 are in flight
//   while k-tile t is multiplied. How an operand is copied depends on how it is stored
//   (VectorCopy / ScalarCopy below); either way its shared tile is M-major (N-major for B).
// - Shared memory: columns padded so that neither the copies nor the FMA-side loads have bank
//   conflicts (see SmemLayout).
// - TiledMMA: UniversalFMA over 16 x 16 threads, permuted so that each thread's 8 rows (and 8
//   columns) are two runs of 4: each run is one 16-byte shared-memory load. The threads are laid
//   out so that lanes of a warp share those loads (ThrLayout). The operands of the next k-step
//   are loaded into registers while the current one is multiplied.
// Every shape: tile rows past M (N) are never loaded and read as zero; the k-tiles are counted
// from the end of K so that only k-tile 0 is partial, and its columns before k = 0 are never
// loaded either; stores past the edge of C are skipped.
#include <cstdint>

#include <cute/tensor.hpp>

#include "kernels/kernel.hpp"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

using namespace cute;
using cute::Layout;  // not sgemm::Layout

constexpr int kBM = 128, kBN = 128, kBK = 16;  // the block's tile of C, and its k-tile
constexpr int kStages = 3;                     // k-tiles in shared memory at once
constexpr int kThreads = 256;

// The shared tile of A (B alike): kBM x kBK x kStages floats, M-major, each column padded by 4
// floats: (m, k, s) sits at m + 132 k + 132 * 16 s. Unpadded, (m, k) would be in bank m % 32
// for every k; the padding shifts column k by 4k banks, so any 4 consecutive m times 8
// consecutive k hit 32 distinct banks (what ScalarCopy writes), while a column stays contiguous
// and 16-byte aligned (132 * 4 = 33 * 16 bytes) for the 16-byte copies and loads. An XOR
// swizzle avoids the conflicts too, but here the XOR falls on the thread-dependent bits of every
// FMA-side address and costs integer instructions on each k-step; the padding folds into the
// loads' constant offsets.
constexpr int kPaddedBM = kBM + 4;
using SmemLayout = Layout<Shape<Int<kBM>, Int<kBK>, Int<kStages>>,
                          Stride<_1, Int<kPaddedBM>, Int<kPaddedBM * kBK>>>;  // (BM,BK,PIPE)
constexpr int kSmemFloats = kPaddedBM * kBK * kStages;  // per operand, a multiple of 4
constexpr int kSmemBytes = 2 * kSmemFloats * sizeof(float);  // A and B: 50688 bytes

// The two ways a block copies a 128 x 16 tile of an operand from global to shared memory.
//
// VectorCopy: the operand is M-major (N-major for B), 16-byte aligned, ld % 4 == 0 and M % 4 == 0.
// Each thread copies runs of 4 along M with one 16-byte cp.async (.cg: the reuse is in shared
// memory, so L1 is bypassed); 32 threads cover a 128-float column, so a warp reads 512
// contiguous bytes and writes one contiguous column: no bank conflict.
struct VectorCopy {
  using GmemStride = Stride<_1, std::int64_t>;
  using Tiled = decltype(make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, float>{},
                                         Layout<Shape<_32, _8>>{},    // threads, M fastest
                                         Layout<Shape<_4, _1>>{}));  // 4 floats along M each
  static GmemStride stride(std::int64_t ld, bool) { return {{}, ld}; }
};

// ScalarCopy: everything else, above all a K-major operand. 4-byte cp.async with 8 threads along
// K per row, so a warp reads 4 rows x 8 k: four whole 32-byte sectors. The copy transposes into
// the M-major tile; with the padding, the 4 x 8 floats a warp writes fall in 32 distinct banks.
// (An M-major operand lands here when a run of 4 could straddle the matrix's edge or is
// misaligned; its warps then read 16 bytes from each of 8 sectors.)
struct ScalarCopy {
  using GmemStride = Stride<std::int64_t, std::int64_t>;
  using Tiled = decltype(make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<float>, float>{},
                                         Layout<Shape<_32, _8>, Stride<_8, _1>>{},  // K fastest
                                         Layout<Shape<_1, _1>>{}));
  static GmemStride stride(std::int64_t ld, bool k_major) {
    return k_major ? GmemStride{ld, 1} : GmemStride{1, ld};
  }
};

// 16 x 16 threads. The permutation Tile makes thread (i, j) own rows 4i..4i+3 and
// 64+4i..64+4i+3 of the tile, and the same columns: an 8 x 8 block of C as 2 x 2 runs of 4 x 4.
// Which thread is (i, j) is the layout ThrLayout, (i, j) -> thread index, and it is chosen for the
// shared-memory loads. A warp's 32 lanes are a 4 (i) x 8 (j) patch, interleaved like
// simt/10_warptile: lane bit 0 and bit 4 give i, lane bits 1-3 give j; warp bit 0 gives j / 8,
// warp bits 1-2 give i / 4 (the 8 warps as 4 along M x 2 along N). An LDS.128 is served per
// half-warp, one 128-byte wavefront per 8 distinct 16-byte runs: lanes 0-15 read 2 runs of sA
// (the 8 even lanes one, the 8 odd lanes the other) and 8 of sB (lanes n and n^1 share one),
// lanes 16-31 the next 2 runs of sA and the same 8 of sB. So every LDS.128 of A or B is 2
// wavefronts. With the plain layout (16 x 16, i fastest) a half-warp read 16 runs of sA: 2
// wavefronts per half, 3 per LDS.128 on average (ncu: 402.9M for 134.2M).
using ThrLayout = Layout<Shape<Shape<_2, _2, _4>, Shape<_8, _2>, _1>,     // (i, j, k)
                         Stride<Stride<_1, _16, _64>, Stride<_2, _32>, _0>>;  // -> thread index
using TiledMma = decltype(make_tiled_mma(UniversalFMA<float, float, float, float>{}, ThrLayout{},
                                         Tile<Layout<Shape<_16, _4>, Stride<_4, _1>>,
                                              Layout<Shape<_16, _4>, Stride<_4, _1>>, _1>{}));

template <class ACopy, class BCopy>
__global__ void __launch_bounds__(kThreads, 2)
    cute_02_fast_kernel(Canonical p, typename ACopy::GmemStride dA,
                        typename BCopy::GmemStride dB) {
  const int M = int(p.m), N = int(p.n), K = int(p.k);
  Tensor mA = make_tensor(make_gmem_ptr(p.a), make_shape(M, K), dA);                      // (M,K)
  Tensor mB = make_tensor(make_gmem_ptr(p.b), make_shape(N, K), dB);                      // (N,K)
  Tensor mC = make_tensor(make_gmem_ptr(p.c), make_shape(M, N), make_stride(p.ldc, _1{}));  // (M,N)

  // The k-tiles are counted back from K: k-tile 0 starts k_skip <= 15 columns before k = 0, so it
  // is the only partial one.
  const int k_tiles = (K + kBK - 1) / kBK;
  const int k_skip = k_tiles * kBK - K;
  Tensor gA = local_tile(mA, make_tile(Int<kBM>{}, Int<kBK>{}), make_coord(blockIdx.y, _));
  Tensor gB = local_tile(mB, make_tile(Int<kBN>{}, Int<kBK>{}), make_coord(blockIdx.x, _));
  gA = domain_offset(make_coord(0, -k_skip, 0), gA);  // (BM,BK,k)
  gB = domain_offset(make_coord(0, -k_skip, 0), gB);  // (BN,BK,k)
  Tensor gC = local_tile(mC, make_tile(Int<kBM>{}, Int<kBN>{}), make_coord(blockIdx.y, blockIdx.x));
  // Coordinates within a tile (identity tensors), to compare with what is left of the matrix.
  Tensor cA = make_identity_tensor(make_shape(Int<kBM>{}, Int<kBK>{}));  // (m,k) -> (m,k)
  Tensor cB = make_identity_tensor(make_shape(Int<kBN>{}, Int<kBK>{}));
  Tensor cC = make_identity_tensor(make_shape(Int<kBM>{}, Int<kBN>{}));
  const int m_rest = M - int(blockIdx.y) * kBM;
  const int n_rest = N - int(blockIdx.x) * kBN;

  extern __shared__ float4 smem[];  // kSmemBytes, 16-byte aligned
  Tensor sA = make_tensor(make_smem_ptr(reinterpret_cast<float*>(smem)), SmemLayout{});
  Tensor sB = make_tensor(sA.data() + Int<kSmemFloats>{}, SmemLayout{});  // both (BM,BK,PIPE)

  // --- global -> shared: each thread's copies and the predicates that guard them --------------
  typename ACopy::Tiled copy_a;
  typename BCopy::Tiled copy_b;
  ThrCopy thr_copy_a = copy_a.get_slice(threadIdx.x);
  Tensor tAgA = thr_copy_a.partition_S(gA);  // (CPY,CPY_M,CPY_K,k)
  Tensor tAsA = thr_copy_a.partition_D(sA);  // (CPY,CPY_M,CPY_K,PIPE)
  Tensor tAcA = thr_copy_a.partition_S(cA);  // (CPY,CPY_M,CPY_K)
  ThrCopy thr_copy_b = copy_b.get_slice(threadIdx.x);
  Tensor tBgB = thr_copy_b.partition_S(gB);
  Tensor tBsB = thr_copy_b.partition_D(sB);
  Tensor tBcB = thr_copy_b.partition_S(cB);
  // Rows past the edge are never loaded; in k-tile 0, neither are the columns before k = 0.
  auto a_row_in = [&](auto c) { return get<0>(c) < m_rest; };
  auto b_row_in = [&](auto c) { return get<0>(c) < n_rest; };
  auto k_in = [&](auto c) { return get<1>(c) >= k_skip; };
  Tensor tApA = lazy::transform(tAcA, a_row_in);
  Tensor tBpB = lazy::transform(tBcB, b_row_in);
  Tensor tApA_k0 = lazy::transform(tAcA, [&](auto c) { return a_row_in(c) && k_in(c); });
  Tensor tBpB_k0 = lazy::transform(tBcB, [&](auto c) { return b_row_in(c) && k_in(c); });
  // Source and destination of the next copy, advanced after each copy (the k-tiles are loaded in
  // order, into stages 0, 1, 2, 0, ...) by pointer bumps: one k-tile along K for the source, one
  // stage (wrapping to 0) for the destination. The main loop then neither recomputes the
  // k-tile's address (a 64-bit k_tile * 16 * ld) nor the stage's per copied element.
  Tensor tAgA_k = tAgA(_, _, _, 0);  // (CPY,CPY_M,CPY_K)
  Tensor tBgB_k = tBgB(_, _, _, 0);
  Tensor tAsA_w = tAsA(_, _, _, 0);  // (CPY,CPY_M,CPY_K)
  Tensor tBsB_w = tBsB(_, _, _, 0);
  const auto a_k_tile_step = Int<kBK>{} * get<1>(dA);  // elements between k-tiles
  const auto b_k_tile_step = Int<kBK>{} * get<1>(dB);
  constexpr int kStageFloats = kPaddedBM * kBK;
  int write_stage = 0;
  auto next_k_tile = [&] {
    tAgA_k.data() = tAgA_k.data() + a_k_tile_step;
    tBgB_k.data() = tBgB_k.data() + b_k_tile_step;
    const bool wrap = write_stage == kStages - 1;
    const int stage_step = wrap ? -(kStages - 1) * kStageFloats : kStageFloats;
    write_stage = wrap ? 0 : write_stage + 1;
    tAsA_w.data() = tAsA_w.data() + stage_step;
    tBsB_w.data() = tBsB_w.data() + stage_step;
  };
  auto load_k_tile = [&] {  // the next k-tile, any but 0: whole in k
    copy_if(copy_a, tApA, tAgA_k, tAsA_w);
    copy_if(copy_b, tBpB, tBgB_k, tBsB_w);
    next_k_tile();
  };

  // What is never loaded must read as zero: clear every stage once, before any copy lands.
  clear(tAsA);
  clear(tBsB);
  __syncthreads();

  // Prologue: k-tiles 0 .. kStages-2 into stages 0 .. kStages-2, one cp.async group each
  // (empty past the last k-tile, so that group i is always k-tile i).
  copy_if(copy_a, tApA_k0, tAgA_k, tAsA_w);
  copy_if(copy_b, tBpB_k0, tBgB_k, tBsB_w);
  next_k_tile();
  cp_async_fence();
  CUTE_UNROLL
  for (int s = 1; s < kStages - 1; ++s) {
    if (s < k_tiles) load_k_tile();
    cp_async_fence();
  }

  // --- shared -> registers -> FMA ------------------------------------------------------------
  TiledMma mma;
  ThrMMA thr_mma = mma.get_slice(threadIdx.x);
  Tensor tCsA = thr_mma.partition_A(sA);                    // (MMA,MMA_M,MMA_K,PIPE)
  Tensor tCsB = thr_mma.partition_B(sB);                    // (MMA,MMA_N,MMA_K,PIPE)
  Tensor tCrA = thr_mma.partition_fragment_A(sA(_, _, 0));  // (MMA,MMA_M,MMA_K)
  Tensor tCrB = thr_mma.partition_fragment_B(sB(_, _, 0));  // (MMA,MMA_N,MMA_K)
  Tensor tCgC = thr_mma.partition_C(gC);                    // (MMA,MMA_M,MMA_N)
  Tensor tCcC = thr_mma.partition_C(cC);                    // (MMA,MMA_M,MMA_N)
  Tensor tCrC = thr_mma.make_fragment_C(tCgC);              // (MMA,MMA_M,MMA_N)
  clear(tCrC);

  // k-tile t lives in stage t % kStages. Wait for k-tile 0 and load its first k-step.
  int read_stage = 0;
  cp_async_wait<kStages - 2>();
  __syncthreads();
  copy(tCsA(_, _, 0, read_stage), tCrA(_, _, 0));
  copy(tCsB(_, _, 0, read_stage), tCrB(_, _, 0));

  for (int k_tile = 0; k_tile < k_tiles; ++k_tile) {
    CUTE_UNROLL
    for (int k = 0; k < kBK; ++k) {
      if (k == kBK - 1) {
        // Next k-tile: this thread's copies of it have landed (no more than kStages-2 younger
        // groups are pending), the barrier says everyone's have, and that every thread is done
        // reading the stage that k == 0 below overwrites.
        cp_async_wait<kStages - 2>();
        __syncthreads();
        read_stage = read_stage + 1 == kStages ? 0 : read_stage + 1;
      }
      // shared -> registers for the next k-step, while this one is multiplied.
      const int k_next = (k + 1) % kBK;
      copy(tCsA(_, _, k_next, read_stage), tCrA(_, _, k_next));
      copy(tCsB(_, _, k_next, read_stage), tCrB(_, _, k_next));
      if (k == 0) {
        // global -> shared for k-tile + kStages-1, into the stage read during the last k-tile
        // (an empty group when there is none, so that group i stays k-tile i).
        if (k_tile + (kStages - 1) < k_tiles) load_k_tile();
        cp_async_fence();
      }
      cute::gemm(mma, tCrA(_, _, k), tCrB(_, _, k), tCrC);
    }
  }

  // C = alpha * acc + beta * C inside the matrix; with beta == 0, C is not read.
  const auto c_rest = make_coord(m_rest, n_rest);
  if (p.beta == 0.0f) {
    CUTE_UNROLL
    for (int i = 0; i < size(tCrC); ++i)
      if (elem_less(tCcC(i), c_rest)) tCgC(i) = p.alpha * tCrC(i);
  } else {
    CUTE_UNROLL
    for (int i = 0; i < size(tCrC); ++i)
      if (elem_less(tCcC(i), c_rest)) tCgC(i) = p.alpha * tCrC(i) + p.beta * tCgC(i);
  }
}

// The 16-byte copy needs the operand M-major (N-major), 16-byte aligned, ld % 4 == 0, and rows
// in whole runs of 4: a run that straddled the edge would read past the matrix.
bool vector_copy_fits(const float* ptr, std::int64_t ld, bool k_major, std::int64_t rows) {
  return !k_major && aligned16(ptr) && ld % 4 == 0 && rows % 4 == 0;
}

template <class ACopy, class BCopy>
cudaError_t launch_with(const Canonical& p, cudaStream_t stream) {
  auto* kernel = cute_02_fast_kernel<ACopy, BCopy>;
  // More than the 48 KB a block gets without asking.
  if (cudaError_t e = set_max_dynamic_smem(kernel, kSmemBytes)) return e;
  const dim3 grid(ceil_div(p.n, kBN), ceil_div(p.m, kBM));
  return launch_kernel(kernel, grid, kThreads, kSmemBytes, stream, p,
                       ACopy::stride(p.lda, p.a_k_major), BCopy::stride(p.ldb, p.b_k_major));
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  const bool vector_a = vector_copy_fits(p.a, p.lda, p.a_k_major, p.m);
  const bool vector_b = vector_copy_fits(p.b, p.ldb, p.b_k_major, p.n);
  if (vector_a && vector_b) return launch_with<VectorCopy, VectorCopy>(p, args.stream);
  if (vector_a) return launch_with<VectorCopy, ScalarCopy>(p, args.stream);
  if (vector_b) return launch_with<ScalarCopy, VectorCopy>(p, args.stream);
  return launch_with<ScalarCopy, ScalarCopy>(p, args.stream);
}

std::string_view why_not(const Canonical& p, const Device&) {
  // Tile coordinates are 32-bit; the margin keeps the rounding up to whole tiles in range.
  constexpr std::int64_t kMaxDim = std::int64_t(1) << 30;
  if (p.m >= kMaxDim || p.n >= kMaxDim || p.k >= kMaxDim) return "needs m, n, k < 2^30";
  return needs_grid(ceil_div(p.n, kBN), ceil_div(p.m, kBM));
}

}  // namespace

SGEMM_KERNEL_ENTRIES(cute_02_fast) {
  static const KernelEntry entries[] = {{
      {"cute-02-fast", Track::Cute, 2,
       "fast CuTe SGEMM: cp.async TiledCopy, padded conflict-free smem, FMA TiledMMA, 3 stages",
       Math::Fp32, "seed 004, taken to a pipelined 128 x 128 tile", "m, n, k < 2^30"},
      why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail
