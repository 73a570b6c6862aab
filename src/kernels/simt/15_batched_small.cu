// Rung 15 — batches of small matrices: one launch, a tile of C sized to the matrix.
//
// A strided batch of small products (attention heads, per-sample projections, many 16 x 16 or
// 64 x 64 blocks) gives rung 10 a 128 x 128 tile per matrix whatever its size: a 16 x 16 product
// fills 1/64 of it, and a 64 x 64 one a quarter. This rung takes the tile from the matrix: 16, 32
// or 64 rows and columns, so that a block's threads compute C and not padding, and runs every
// tile of every matrix of the batch as one grid (block b: matrix b / tiles, tile b % tiles). A
// single call with a short k takes 16-wide tiles whatever its size: the most blocks, each one
// pass over k (batched_small_tiles.hpp).
// Each thread computes 2 x 2 or 4 x 4 adjacent results of the tile (TileShape: 64 threads for the
// 16- and 32-wide tiles, 256 for the 64-wide), so that a step of k reads its values of A and B
// with one shared load each (LDS.128 for 4 x 4: 2 loads per 16 FFMAs); a warp's reads of A are
// broadcasts among its few rows of threads and of B consecutive.
// k goes in steps of 16 or 32 through shared memory, the next step's values held in registers
// while the block multiplies the current one. Loads follow each operand's contiguous dimension
// (any layout, leading dimension and alignment: scalar global accesses), and land transposed
// where the operand is K-major: 8 threads along k, 4 rows per warp, into rows of kTile + 4
// floats, which puts a warp's 32 stores in 32 banks.
#include <algorithm>

#include "kernels/epilogue/store.cuh"
#include "kernels/kernel.hpp"
#include "kernels/simt/batched_small_tiles.hpp"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

// A tile's threads and k-step. Every tile gives its threads 4 x 4 results but the 16-wide one,
// 2 x 2: 2 shared loads (LDS.128) per 16 FFMAs, where the 32-wide tile's 2 x 2 results on 256
// threads took 2 loads per 4 FFMAs and ran the long-k splits at a quarter of the FMA rate. The
// 64-wide tile runs on 256 threads, four blocks per SM (64 registers); the 32-wide on 64, 16 blocks
// per SM; both step k by 32. The 16-wide tile runs on 64 threads, k in steps of 16, 25 blocks per
// SM (at most 40 registers, from the minimum of 24 blocks; at 32 registers ptxas spilled): a batch
// of 4096 such matrices takes 1.2 rounds of the GPU (256 threads per tile would take four).
template <int kTile>
struct TileShape {
  static constexpr int kPer = kTile == 16 ? 2 : 4;  // results per thread, each dimension
  static constexpr int kSide = kTile / kPer;        // threads along each dimension
  static constexpr int kThreads = kSide * kSide;
  static constexpr int kBK = kTile == 64 ? 32 : 16;
  static constexpr int kMinBlocks = kTile == 16 ? 24 : kTile == 32 ? 16 : 4;
};

// One operand's values of a k-step, X(row0 + row, k0 + kk) for the tile's rows (of m for A, of n
// for B^T) and the step's kk < kBK, zero outside X (rows x k): loaded into registers, then stored
// into shared memory as sX[kk][row]. X is K-major (X(r, k) at x[r ld + k]) or MN-major (at
// x[k ld + r]). A K-major operand is read 8 floats along k per row, 4 rows per warp; an MN-major
// one along its rows.
template <int kTile, bool kKMajor>
struct StepLoader {
  static constexpr int kBK = TileShape<kTile>::kBK, kThreads = TileShape<kTile>::kThreads;
  static constexpr int kLoads = kBK * kTile / kThreads;
  struct Place {
    int row, kk;
  };
  // Where element e of a step lies. Thread t loads elements t + i kThreads, which lie at
  // place(t) + place(i kThreads) for these tiles: a constant offset per load from the thread's
  // first, so that the loads share one pointer.
  __host__ __device__ static constexpr Place place(int e) {
    return kKMajor ? Place{e / 8 % kTile, e % 8 + e / (8 * kTile) * 8}
                   : Place{e % kTile, e / kTile};
  }
  static constexpr bool additive() {
    for (int t = 0; t < kThreads; ++t)
      for (int i = 0; i < kLoads; ++i) {
        const Place e = place(t + i * kThreads), a = place(t), d = place(i * kThreads);
        if (e.row != a.row + d.row || e.kk != a.kk + d.kk) return false;
      }
    return true;
  }
  static_assert(additive(), "load i of thread t must lie at place(t) + place(i kThreads)");

  const float* x;  // the thread's first element at k0 = 0
  std::int64_t ld;
  Place first;
  int rows_in;  // rows of X from the first element's on (at most kTile)
  float v[kLoads];

  __device__ StepLoader(const float* x_, std::int64_t ld_, std::int64_t rows, std::int64_t row0)
      : ld(ld_), first(place(threadIdx.x)) {
    x = x_ + (kKMajor ? (row0 + first.row) * ld + first.kk : first.kk * ld + row0 + first.row);
    rows_in = int(std::min<std::int64_t>(rows - row0 - first.row, kTile));
  }
  __device__ void load(std::int64_t k0, std::int64_t k) {
    const float* step = x + (kKMajor ? k0 : k0 * ld);
    const int k_in = int(std::min<std::int64_t>(k - k0, kBK)) - first.kk;
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      const Place d = place(i * kThreads);
      v[i] = d.row < rows_in && d.kk < k_in ? step[kKMajor ? d.row * ld + d.kk : d.kk * ld + d.row]
                                            : 0.0f;
    }
  }
  __device__ void store(float (*sX)[kTile + 4]) const {
#pragma unroll
    for (int i = 0; i < kLoads; ++i) {
      const Place d = place(i * kThreads);
      sX[first.kk + d.kk][first.row + d.row] = v[i];
    }
  }
};

// kPer consecutive floats of shared memory (kPer = 2 or 4) as one load.
template <int kPer>
__device__ __forceinline__ void lds(const float* s, float (&v)[kPer]) {
  static_assert(kPer == 2 || kPer == 4);
  if constexpr (kPer == 4) {
    const float4 t = *reinterpret_cast<const float4*>(s);
    v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
  } else {
    const float2 t = *reinterpret_cast<const float2*>(s);
    v[0] = t.x, v[1] = t.y;
  }
}

// c_vec4: every matrix of C 16-byte aligned and ldc % 4 == 0, for float4 stores of the 64-wide
// tile's rows.
template <int kTile, bool AKMajor, bool BKMajor>
__global__ void __launch_bounds__(TileShape<kTile>::kThreads, TileShape<kTile>::kMinBlocks)
    simt_15_batched_small_kernel(const Canonical call, const bool c_vec4) {
  using Shape = TileShape<kTile>;
  constexpr int kPer = Shape::kPer, kSide = Shape::kSide, kBK = Shape::kBK;
  // sA[kk][r] = A(row0 + r, k0 + kk), sB[kk][c] = B(k0 + kk, col0 + c); rows of kTile + 4 floats
  // keep every thread's kPer values 16-byte aligned.
  __shared__ __align__(16) float sA[kBK][kTile + 4];
  __shared__ __align__(16) float sB[kBK][kTile + 4];

  const std::int64_t tiles_n = ceil_div(call.n, kTile);
  const std::int64_t tiles = tiles_n * ceil_div(call.m, kTile);
  const std::int64_t block = blockIdx.x;
  const Canonical p = call.matrix(block / tiles);
  const std::int64_t row0 = block % tiles / tiles_n * kTile, col0 = block % tiles_n * kTile;
  const int tx = threadIdx.x % kSide, ty = threadIdx.x / kSide;

  StepLoader<kTile, AKMajor> next_a(p.a, p.lda, p.m, row0);
  StepLoader<kTile, BKMajor> next_b(p.b, p.ldb, p.n, col0);  // B^T: n x k
  next_a.load(0, p.k);
  next_b.load(0, p.k);
  float acc[kPer][kPer] = {};
  for (std::int64_t k0 = 0; k0 < p.k; k0 += kBK) {
    next_a.store(sA);
    next_b.store(sB);
    __syncthreads();
    if (k0 + kBK < p.k) {  // the next step's loads fly while this one is multiplied
      next_a.load(k0 + kBK, p.k);
      next_b.load(k0 + kBK, p.k);
    }
#pragma unroll 8
    for (int kk = 0; kk < kBK; ++kk) {
      float av[kPer], bv[kPer];
      lds<kPer>(&sA[kk][ty * kPer], av);
      lds<kPer>(&sB[kk][tx * kPer], bv);
#pragma unroll
      for (int i = 0; i < kPer; ++i)
#pragma unroll
        for (int j = 0; j < kPer; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
    const std::int64_t row = row0 + ty * kPer + i, col = col0 + tx * kPer;
    if (row >= p.m) continue;
    float* c_row = p.c + row * p.ldc;
    if constexpr (kPer == 4) {
      if (c_vec4) {
        store_c4(c_row, col, p.n, float4{acc[i][0], acc[i][1], acc[i][2], acc[i][3]}, p.alpha,
                 p.beta);
        continue;
      }
    }
#pragma unroll
    for (int j = 0; j < kPer; ++j)
      if (col + j < p.n) store_c(c_row + col + j, acc[i][j], p.alpha, p.beta);
  }
}

std::string_view why_not(const Canonical& p, const Device&) {
  return needs_grid(rung15_tile_count(p) * p.batch, 1);
}

template <int kTile>
cudaError_t launch_tile(const Canonical& p, const LaunchArgs& args) {
  const unsigned blocks = unsigned(rung15_tile_count(p) * p.batch);
  const bool c_vec4 = aligned16(p.c) && p.ldc % 4 == 0 && (p.batch == 1 || p.stride_c % 4 == 0);
  return with_majorness(p, [&]<bool AKMajor, bool BKMajor>() {
    return launch_kernel(simt_15_batched_small_kernel<kTile, AKMajor, BKMajor>, blocks,
                         TileShape<kTile>::kThreads, 0, args.stream, p, c_vec4);
  });
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  switch (rung15_tile(p)) {
    case 16: return launch_tile<16>(p, args);
    case 32: return launch_tile<32>(p, args);
    default: return launch_tile<64>(p, args);
  }
}

}  // namespace

SGEMM_KERNEL_ENTRIES(simt_15_batched_small) {
  static const KernelEntry entries[] = {{
      {"simt-15-batched-small", Track::Simt, 15,
       "batches of small matrices: 16, 32 or 64-wide tiles as the matrix needs, the whole batch "
       "in one grid",
       Math::Fp32, "the library's own (strided-batched calls)", "none"},
      why_not, launch, nullptr, /*accepts_run_if=*/false, /*needs_handoff=*/false,
      /*batched=*/true}};
  return entries;
}

}  // namespace sgemm::detail
