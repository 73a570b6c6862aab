// Rung 10 — warptiling: the block tile is split into warp tiles, the warp tile into the lanes'
// 4 x 4 sub-tiles, and the next K-tile is fetched into registers while the current one is used.
//
// Three levels of tiling, each sized for what it has to hide or feed:
//
//   block tile 128 x 128 x 16   shared memory, one stage; 2 blocks per SM (64 x 256, 2 x 4
//                               warps, for calls of at most 64 rows; 256 x 64, 8 x 1 warps,
//                               for at most 64 columns)
//   warp tile   32 x  64        8 warps as 4 (M) x 2 (N)
//   lane tile    8 x   8        2 x 2 sub-tiles of 4 x 4: a warp covers its tile in 2 x 2 steps
//                               of 16 x 32, its 32 lanes as a 4 (M) x 8 (N) grid
//
// What bounds an FFMA kernel on Hopper is the issue slot: each SM sub-partition issues one warp
// instruction per cycle, and FP32 peak needs an FFMA in nearly every one. Per k-step a lane
// issues 64 FFMA and 4 LDS.128 (94% FFMA); per K-tile of 16 the loads, stores, two barriers and
// address arithmetic add about 10% more (the compiled loop is 89% FFMA). The rest is keeping the
// FFMA fed:
//
//  - Shared-memory bandwidth. An SM returns 128 bytes of shared memory per cycle, and a warp's
//    LDS.128 returns 512: four cycles, 16 per k-step for 64 FFMA cycles spread over four
//    sub-partitions, i.e. the whole bandwidth at FP32 peak (with the global loads and shared
//    stores on top, through the same L1). NVIDIA documents for Volta and Turing that the return
//    takes half the cycles when lanes n and n^1 (or n and n^2) all read the same address, and we
//    expect Hopper to behave alike (ncu's shared wavefront count checks it). The lane grid is
//    interleaved for that: lane bit 0 selects the row, bits 1-3 the column, bit 4 the row again,
//    so lanes n and n^2 read the same chunk of sA and lanes n and n^1 the same chunk of sB. Each
//    read also covers contiguous bytes (4 chunks of a row of sA, 8 of sB): no bank conflicts.
//  - Registers: 64 accumulators, 16 operands, 16 for the prefetched tile, addresses: at most 128
//    (__launch_bounds__(256, 2)), so that two blocks share an SM and one computes while the
//    other waits at a barrier.
//  - Global latency. The next K-tile's global loads are issued before the current tile's
//    arithmetic and only written to shared memory after it: the several hundred cycles of L2/HBM
//    latency run under 16 k-steps of FFMA instead of stalling the block. Only a tile wholly
//    inside A and B is fetched so; one on an edge (a partial last K-tile, a block on the edge of
//    C) is fetched after the arithmetic, unhidden: its bounds checks in the loop took the registers
//    to exactly 128, where another ptxas build spilled. (Rung 11 goes on to double-buffer shared
//    memory, which also removes one of the two barriers.)
//
// The warp's stores of C are float4 along rows: 8 lanes write 128 contiguous bytes.
// Operands, edges and alignment are handled as in rungs 06-09 (simt/tile_loader.cuh):
// any M, N, K and majorness; requires needs_vec4.
#include <string>

#include "kernels/epilogue/store.cuh"
#include "kernels/pipeline/tail_costs.hpp"
#include "kernels/simt/tile_loader.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kBK = 16;                           // block tile depth
constexpr int kWM = 32, kWN = 64;                 // warp tile
constexpr int kLanesM = 4, kLanesN = 8;           // lane grid of a warp
constexpr int kThreads = 256;                     // 8 warps
constexpr int kSubM = kWM / (4 * kLanesM);        // 4 x 4 sub-tiles per lane, along M
constexpr int kSubN = kWN / (4 * kLanesN);        // and along N
constexpr int kTM = 4 * kSubM, kTN = 4 * kSubN;   // 8 x 8 results per lane
constexpr int kBlocksPerSM = 2;
static_assert(kLanesM * kLanesN == 32);
static_assert(kWM % (4 * kLanesM) == 0 && kWN % (4 * kLanesN) == 0);
static_assert(kLanesM == 4 && kLanesN == 8, "the interleaved lane mapping below is for 4 x 8");

// The block tile: 128 x 128 (4 x 2 warps), or 64 x 256 (2 x 4 warps) for calls of at most 64
// rows and 256 x 64 (8 x 1 warps) for at most 64 columns, which the square tile would leave half
// empty.
template <int BM, int BN>
struct Tile {
  static constexpr int kBM = BM, kBN = BN;
  static constexpr int kWarpsM = kBM / kWM, kWarpsN = kBN / kWN;
  static_assert(kBM % kWM == 0 && kBN % kWN == 0 && 32 * kWarpsM * kWarpsN == kThreads);
  using LayoutA = KOuterLayout<kBM + 4>;  // A(m0 + i, k0 + kk) at sA[kk * (kBM + 4) + i]; the
  using LayoutB = KOuterLayout<kBN + 4>;  // padding keeps a K-major operand's transposed stores
                                          // conflict-free
};
using SquareTile = Tile<128, 128>;
using WideTile = Tile<64, 256>;
using TallTile = Tile<256, 64>;

__device__ __forceinline__ float4 lds128(const float* s) {
  return *reinterpret_cast<const float4*>(s);
}

template <class T, bool AKMajor, bool BKMajor>
__global__ void __launch_bounds__(kThreads, kBlocksPerSM) simt_10_warptile_kernel(const Canonical call) {
  constexpr int kBM = T::kBM, kBN = T::kBN, kWarpsN = T::kWarpsN;
  using LayoutA = typename T::LayoutA;
  using LayoutB = typename T::LayoutB;
  const Canonical p = call.matrix(blockIdx.z);
  __shared__ alignas(16) float sA[kBK * LayoutA::kStride];
  __shared__ alignas(16) float sB[kBK * LayoutB::kStride];

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int lane_m = (lane & 1) | (lane >> 4 << 1);  // lane bits 0 and 4
  const int lane_n = lane >> 1 & 7;                  // lane bits 1-3
  // Row and column in the block tile of this lane's sub-tile (0, 0); sub-tile (im, in) is
  // 4 * kLanesM rows and 4 * kLanesN columns further on.
  const int row = warp / kWarpsN * kWM + 4 * lane_m;
  const int col = warp % kWarpsN * kWN + 4 * lane_n;

  const std::int64_t m0 = std::int64_t(blockIdx.y) * kBM, n0 = std::int64_t(blockIdx.x) * kBN;
  const int m_left = rows_inside(p.m - m0, kBM), n_left = rows_inside(p.n - n0, kBN);
  Vec4TileLoader<kBM, kBK, kThreads, AKMajor> a_tile(panel_origin<AKMajor>(p.a, p.lda, m0),
                                                     p.lda, m_left, tid);
  Vec4TileLoader<kBN, kBK, kThreads, BKMajor> b_tile(panel_origin<BKMajor>(p.b, p.ldb, n0),
                                                     p.ldb, n_left, tid);
  a_tile.load(rows_inside(p.k, kBK));
  b_tile.load(rows_inside(p.k, kBK));

  float acc[kTM][kTN] = {};
  for (std::int64_t k0 = 0; k0 < p.k; k0 += kBK) {
    a_tile.template store<LayoutA>(sA);
    b_tile.template store<LayoutB>(sB);
    __syncthreads();
    const int next_k_left = rows_inside(p.k - k0 - kBK, kBK);  // <= 0: none
    const bool prefetch = next_k_left == kBK && m_left == kBM && n_left == kBN;
    if (prefetch) {  // the next K-tile, under this one's arithmetic: its registers are free again
      a_tile.advance();
      b_tile.advance();
      a_tile.load_whole();
      b_tile.load_whole();
    }
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      float a[kTM], b[kTN];
#pragma unroll
      for (int im = 0; im < kSubM; ++im) {
        const float4 v = lds128(sA + LayoutA::offset(kk, row + im * 4 * kLanesM));
        a[4 * im] = v.x, a[4 * im + 1] = v.y, a[4 * im + 2] = v.z, a[4 * im + 3] = v.w;
      }
#pragma unroll
      for (int in = 0; in < kSubN; ++in) {
        const float4 v = lds128(sB + LayoutB::offset(kk, col + in * 4 * kLanesN));
        b[4 * in] = v.x, b[4 * in + 1] = v.y, b[4 * in + 2] = v.z, b[4 * in + 3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < kTN; ++j)
#pragma unroll
        for (int i = 0; i < kTM; ++i) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
    if (next_k_left > 0 && !prefetch) {  // a tile on an edge of A or B: fetched here, unhidden
      a_tile.advance();
      b_tile.advance();
      a_tile.load(next_k_left);
      b_tile.load(next_k_left);
    }
  }

#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int r = row + i / 4 * 4 * kLanesM + i % 4;
    if (r >= m_left) continue;
    float* c_row = p.c + (m0 + r) * p.ldc;
#pragma unroll
    for (int in = 0; in < kSubN; ++in) {
      const float* v = &acc[i][4 * in];
      store_c4(c_row, n0 + col + in * 4 * kLanesN, p.n, {v[0], v[1], v[2], v[3]}, p.alpha,
               p.beta);
    }
  }
}

// The tile a call runs on.
template <class F>
decltype(auto) with_tile(const Canonical& p, F&& f) {
  if (p.m <= WideTile::kBM) return f.template operator()<WideTile>();
  if (p.n <= TallTile::kBN) return f.template operator()<TallTile>();
  return f.template operator()<SquareTile>();
}

std::string_view why_not(const Canonical& p, const Device&) {
  if (auto reason = needs_vec4(p); !reason.empty()) return reason;
  return with_tile(p, [&]<class T>() {
    return needs_grid(ceil_div(p.n, T::kBN), ceil_div(p.m, T::kBM), p.batch);
  });
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  return with_tile(p, [&]<class T>() {
    const dim3 grid(ceil_div(p.n, T::kBN), ceil_div(p.m, T::kBM), p.batch);
    return with_majorness(p, [&]<bool AKMajor, bool BKMajor>() {
      return launch_kernel(simt_10_warptile_kernel<T, AKMajor, BKMajor>, grid, kThreads, 0,
                           args.stream, p);
    });
  });
}

std::string configuration(const Canonical& p, const Device&) {
  return with_tile(p, [&]<class T>() {
    const std::int64_t tiles = ceil_div(p.m, T::kBM) * ceil_div(p.n, T::kBN);
    return tile_plan_text(tiles, T::kBM, T::kBN, 0) +
           (p.batch > 1 ? " per matrix, " + std::to_string(p.batch) + " matrices" : "");
  });
}

}  // namespace

SGEMM_KERNEL_ENTRIES(simt_10_warptile) {
  static const KernelEntry entries[] = {{
      {"simt-10-warptile", Track::Simt, 10,
       "warptiling: block, warp and lane tiles; interleaved lanes; next K-tile prefetched",
       Math::Fp32, "seed 000, kernel 10 (warptiling); seed 001 (prefetch, budget)",
       kVec4Requirement},
      why_not, launch, nullptr, /*accepts_run_if=*/false, /*needs_handoff=*/false,
      /*batched=*/true, configuration}};
  return entries;
}

}  // namespace sgemm::detail
