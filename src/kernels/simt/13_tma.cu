// Rung 13 — the Hopper pipeline: TMA fills a ring of shared-memory stages, a producer warp and
// two consumer warpgroups split the work, and a persistent grid walks the tiles in L2-friendly
// order.
//
// What changes from rung 12:
// - No thread copies anything. Per k-tile one thread issues two TMA loads (cp.async.bulk.tensor):
//   the copy engine reads a 2-D box of A and one of B, fills zeros wherever the box hangs past the
//   matrix (every edge is free), and counts the bytes into the stage's "full" mbarrier.
// - Warp specialization. Warpgroup 0 produces: one thread issues the loads, and the warpgroup gives
//   its registers back (setmaxnreg.dec). Warpgroups 1 and 2 consume (setmaxnreg.inc to 232): a warp
//   waits on a stage's full barrier, multiplies, and arrives on the stage's "empty" barrier, which
//   the producer waits on before it refills the stage. No __syncthreads in the main loop: a warp
//   waits only when its data is not there yet, and never for a slower warp.
// - A bigger thread tile: 16 x 8 results (128 accumulators) take 24 LDS.128 per 512 FFMAs, where
//   rungs 11-12 needed 32; the registers for it are the producer's.
// - Four block tiles of the same work (tma_tiles.hpp): the 8 consumer warps' 64 x 64 parts of C
//   as 2 x 4 (128 x 256), 4 x 2, 1 x 8 (64 x 512, for at most 64 rows) or 8 x 1 (512 x 64, for
//   at most 64 columns); a call runs on the one that pads C least. TMA boxes hold at most 256
//   rows, so an operand's tile of 512 arrives as two panels of 256.
// - A persistent grid: one CTA per SM loops over tiles, and the producer runs into the next tile
//   while the consumers write the last one out. Tiles are numbered kGroupM tile-rows at a time, so
//   that the CTAs working at the same time share panels of A and B in L2.
// - The last round as a second kernel (stream-K for the tail, pipeline/tail_split.cuh): with T
//   tiles on G CTAs, the R = T mod G tiles of the last round (4096³: 512 tiles on 132 SMs, the
//   fourth round 116/132 full) are cut along k over all SMs by a tail kernel, the same template
//   with kTail set. Where that leaves a tile's sums in many slots (few tiles, long k), a third
//   kernel adds them over all SMs.
//
// TMA cannot transpose. An operand stored along m (or n) lands as s[k][m] and is read as in rungs
// 11-12. A K-major one lands as s[m][k], rows of kBK = 8 floats (32 bytes), and is read along k:
// one LDS.128 gives one row's values at 4 consecutive k. So the inner loop works a quad of 4
// k-steps at a time: a thread holds B's 4 x 8 values of the quad in registers and streams its 16
// rows of A through, 4 rows x 4 k (4 LDS.128, either layout) at a time, each followed by 128 FFMAs.
//
// Shared-memory reads: an LDS.128 returns 512 bytes to a warp, 4 cycles at 128 bytes per cycle,
// or 2 when lanes n and n^1 (or n and n^2) all read the same address; lanes are interleaved so
// that every read here qualifies (rung 11 explains). Each half-warp then needs its 8 distinct
// 16-byte chunks in different bank groups. A thread's rows of A are tm + 4i: a half-warp reads 2
// rows of one 128-byte line. Its columns of a K-major B are tn + 8j: 8 rows of 32 bytes, two lines
// at the same offsets, which would take 2 wavefronts. TMA's 32-byte swizzle (bit 4 of the shared
// address, which half of a row, XOR bit 7, which line of a pair) swaps the halves in every other
// line, so the 8 chunks land in 8 different bank groups. With these strides the swizzle term is a
// compile-time constant (A) or fixed per thread (B).
#include "kernels/arch/hopper.cuh"
#include "kernels/epilogue/store.cuh"
#include "kernels/operand.cuh"
#include "kernels/pipeline/tail_split.cuh"
#include "kernels/pipeline/tile_order.cuh"
#include "kernels/pipeline/tma_ring.cuh"
#include "kernels/simt/tile_loader.cuh"
#include "kernels/simt/tma_tiles.hpp"
#include "runtime/launch.hpp"

#ifdef SGEMM_HAS_SM90A
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#endif

namespace sgemm::detail {

#ifdef SGEMM_HAS_SM90A
namespace {

constexpr int kBK = 8;                   // k-tile; kBK floats = 32 bytes: a swizzle span
constexpr int kStages = 8;               // 12-18 KB each: 7 k-tiles (~7 us) of look-ahead
constexpr int kTM = 16, kTN = 8;         // thread tile
constexpr int kLanesM = 4, kLanesN = 8;  // a warp's lanes: a 64 x 64 warp tile
constexpr int kWarpTileM = kLanesM * kTM, kWarpTileN = kLanesN * kTN;
constexpr int kConsumerWarps = kRung13Warps, kConsumerThreads = kConsumerWarps * 32;
constexpr int kWarpgroup = 128, kThreads = kWarpgroup + kConsumerThreads;  // 384
constexpr int kMaxBoxRows = 256;  // a TMA box's limit per dimension
constexpr int kSlotFloats = kTM * kTN * kConsumerThreads;  // a tile's partial sums (tail split)
static_assert(kWarpTileM == kRung13WarpRows && kWarpTileN == kRung13WarpCols);
static_assert(kConsumerThreads == 2 * kWarpgroup, "two consumer warpgroups");
static_assert(kBK == 8 && kLanesM == 4 && kLanesN == 8,
              "the swizzle terms of FragmentOffsets assume 32-byte rows, rows tm + 4i of A and "
              "columns tn + 8j of B, and multiply_quad two quads per stage");

// A block tile (tma_tiles.hpp): kWarpsM x kWarpsN consumer warps of 64 x 64. An operand's tile
// lands in panels of at most kMaxBoxRows rows (of m or n), each one TMA box.
template <int kWarpsM_>
struct BlockTile {
  static constexpr int kWarpsM = kWarpsM_, kWarpsN = kConsumerWarps / kWarpsM;
  static constexpr int kBM = kWarpsM * kWarpTileM, kBN = kWarpsN * kWarpTileN;
  static constexpr int kPanelA = kBM < kMaxBoxRows ? kBM : kMaxBoxRows;
  static constexpr int kPanelB = kBN < kMaxBoxRows ? kBN : kMaxBoxRows;
  static constexpr int kATileBytes = kBM * kBK * 4, kBTileBytes = kBN * kBK * 4;
  static constexpr int kStageBytes = kATileBytes + kBTileBytes;
  using Ring = TmaRing<kStages, kStageBytes>;  // the stages, their full and empty barriers
  static_assert(kWarpsM * kWarpsN == kConsumerWarps);
  static_assert(kPanelA * kBK * 4 % 1024 == 0 && kPanelB * kBK * 4 % 1024 == 0,
                "every panel 1024-aligned: the swizzle pattern repeats every 1024 bytes");
};

// The tiles of C: tiles_m x tiles_n of the block tile (see tile_coords for their order).
struct TileOrder {
  std::int64_t tiles_m, tiles_n;
};

// Device code for sm_90a only: in a multi-architecture build the other targets get an empty
// kernel, which is never launched (why_not asks for compute capability 9.0).
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)

// 128 * 40 + 256 * 232 = 64512 registers: what 384 threads at the launch-bounds limit of 168 hold.
constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;

// The mbarrier, TMA and setmaxnreg wrappers are in arch/hopper.cuh; this one only rung 13 uses.
__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap& map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(&map))
               : "memory");
}

// Tile t of the persistent loop, in the grouped order (pipeline/tile_order.cuh): the CTAs working
// at the same time read few distinct panels of A and B.
__device__ __forceinline__ void tile_coords(const TileOrder& order, std::int64_t t,
                                            std::int64_t& tile_m, std::int64_t& tile_n) {
  grouped_tile(t, order.tiles_m, order.tiles_n, tile_m, tile_n);
}

// The tiles the whole-tile kernel computes: 0 .. whole_tiles - 1. (Passing the count as a kernel
// parameter instead made ptxas assign that kernel's loop registers differently.)
__device__ __forceinline__ std::int64_t whole_tiles(const TileOrder& order, const TailSplit& tail) {
  return order.tiles_m * order.tiles_n - tail.tiles;
}

// --- the producer: one thread ------------------------------------------------------------------

// Walks the same (tile, k-tile) sequence as the consumers and fills stage after stage.
template <class Tile, bool AKMajor, bool BKMajor, bool kTail>
__device__ void produce(const CUtensorMap& tmap_a, const CUtensorMap& tmap_b, std::uint32_t stages,
                        std::uint32_t full_bar, std::uint32_t empty_bar, const TileOrder& order,
                        int k_tiles, const TailSplit& tail) {
  prefetch_tensor_map(tmap_a);
  prefetch_tensor_map(tmap_b);
  int stage = 0;
  std::uint32_t phase = 0;  // flips each time the ring wraps around
  // k-tiles [k_begin, k_end) of tile t into the ring.
  const auto load = [&](std::int64_t t, int k_begin, int k_end) {
    std::int64_t tile_m, tile_n;
    tile_coords(order, t, tile_m, tile_n);
    const int m0 = int(tile_m * Tile::kBM), n0 = int(tile_n * Tile::kBN);  // m0 < m < 2^31
    for (int kt = k_begin; kt < k_end; ++kt) {
      mbar_wait(empty_bar + 8 * stage, phase ^ 1);  // the consumers are done with this stage
      const std::uint32_t full = full_bar + 8 * stage, sA = stages + stage * Tile::kStageBytes;
      const std::uint32_t sB = sA + Tile::kATileBytes;
      const int k0 = kt * kBK;
      mbar_arrive_expect_tx(full, Tile::kStageBytes);
      // The tensor maps' innermost dimension is the contiguous one: k for a K-major operand.
#pragma unroll
      for (int r = 0; r < Tile::kBM; r += Tile::kPanelA)
        tma_load(sA + r * kBK * 4, tmap_a, AKMajor ? k0 : m0 + r, AKMajor ? m0 + r : k0, full);
#pragma unroll
      for (int c = 0; c < Tile::kBN; c += Tile::kPanelB)
        tma_load(sB + c * kBK * 4, tmap_b, BKMajor ? k0 : n0 + c, BKMajor ? n0 + c : k0, full);
      if (++stage == kStages) stage = 0, phase ^= 1;
    }
  };
  if constexpr (kTail) {
    for_each_tail_piece(tail, k_tiles, [&](int, int tile, int k_begin, int k_end) {
      load(whole_tiles(order, tail) + tile, k_begin, k_end);
    });
  } else {
    for (std::int64_t t = blockIdx.x; t < whole_tiles(order, tail); t += gridDim.x)
      load(t, 0, k_tiles);
  }
}

// --- the consumers: 8 warps, a 16 x 8 tile of C per thread -------------------------------------

// Where this thread's values sit in a stage's tiles, in bytes from the tile's start.
//   A K-major (s[m][k], 32-byte rows, swizzled): row tm + 4i of the warp's 64, its 16-byte half q
//     at a + 128 i + 16 (q ^ (i & 1)); (row >> 2) & 1 = i & 1 is the swizzle bit.
//   A M-major (panels s[k][m] of kPanelA rows, 4 kPanelA-byte rows): rows tm * 4 + 16 g + {0..3}
//     at k: a + 4 kPanelA k + 64 g (a warp's 64 rows lie in one panel).
//   B N-major (panels s[k][n] of kPanelB columns): columns tn * 4 + 32 h + {0..3} at k:
//     b[0] + 4 kPanelB k + 128 h.
//   B K-major (s[n][k], 32-byte rows, swizzled): column tn + 8j, half q at b[q] + 256 j; the
//     swizzle bit (column >> 2) & 1 = tn >> 2 is folded into b[q].
// Byte offset of row `row` (of m or n) of an MN-major tile in panels of `panel` rows, at k = 0.
__device__ __forceinline__ int mn_major_offset(int row, int panel) {
  return (row / panel * panel * kBK + row % panel) * 4;
}
struct FragmentOffsets {
  int a, b[2];

  template <class Tile, bool AKMajor, bool BKMajor>
  __device__ static FragmentOffsets of(int wm, int wn, int tm, int tn) {
    FragmentOffsets o;
    o.a = AKMajor ? (wm * kWarpTileM + tm) * kBK * 4
                  : mn_major_offset(wm * kWarpTileM + tm * 4, Tile::kPanelA);
    for (int q = 0; q < 2; ++q)
      o.b[q] = BKMajor ? (wn * kWarpTileN + tn) * kBK * 4 + ((q ^ (tn >> 2)) << 4)
                       : mn_major_offset(wn * kWarpTileN + tn * 4, Tile::kPanelB);
    return o;
  }
};

__device__ __forceinline__ float4 lds128(const unsigned char* p) {
  return *reinterpret_cast<const float4*>(p);
}

// acc += this thread's part of the quad q (k-steps 4q .. 4q+3) of the stage's tiles sA, sB.
template <class Tile, bool AKMajor, bool BKMajor>
__device__ __forceinline__ void multiply_quad(float (&acc)[kTM][kTN], const unsigned char* sA,
                                              const unsigned char* sB, int q,
                                              const FragmentOffsets& off) {
  float b[4][kTN];  // b[kk][j]: k-step 4q + kk, column j
  if constexpr (BKMajor) {
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      const float4 v = lds128(sB + off.b[q] + j * 8 * kBK * 4);
      b[0][j] = v.x, b[1][j] = v.y, b[2][j] = v.z, b[3][j] = v.w;
    }
  } else {
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float4 v = lds128(sB + (4 * q + kk) * Tile::kPanelB * 4 + off.b[0] + h * 128);
        b[kk][4 * h] = v.x, b[kk][4 * h + 1] = v.y, b[kk][4 * h + 2] = v.z, b[kk][4 * h + 3] = v.w;
      }
  }
#pragma unroll
  for (int g = 0; g < kTM / 4; ++g) {
    float a[4][4];  // a[r][kk]: row 4g + r of the thread's 16, k-step 4q + kk
    if constexpr (AKMajor) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int i = 4 * g + r;
        const float4 v = lds128(sA + off.a + i * 4 * kBK * 4 + ((q ^ (i & 1)) << 4));
        a[r][0] = v.x, a[r][1] = v.y, a[r][2] = v.z, a[r][3] = v.w;
      }
    } else {
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        const float4 v = lds128(sA + (4 * q + kk) * Tile::kPanelA * 4 + off.a + g * 64);
        a[0][kk] = v.x, a[1][kk] = v.y, a[2][kk] = v.z, a[3][kk] = v.w;
      }
    }
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
#pragma unroll
        for (int j = 0; j < kTN; ++j)
          acc[4 * g + r][j] = fmaf(a[r][kk], b[kk][j], acc[4 * g + r][j]);
  }
}

// The row and column in its warp's 64 x 64 part of C of acc[i][j] of the thread at (tm, tn).
// (store_tile spells its columns out per store width: acc_col there moved the K-major-B
// kernels' k-loop schedules.)
template <bool AKMajor>
__device__ __forceinline__ int acc_row(int tm, int i) {
  return AKMajor ? tm + 4 * i : tm * 4 + 16 * (i / 4) + i % 4;
}
template <bool BKMajor>
__device__ __forceinline__ int acc_col(int tn, int j) {
  return BKMajor ? tn + 8 * j : tn * 4 + 32 * (j / 4) + j % 4;
}

// C = alpha * acc + beta * C for this thread's 16 x 8 elements that lie inside C. c_warp =
// &C(row0, col0), the corner of the warp's 64 x 64 part; rows_in, cols_in: how much of it lies
// inside C (0..64), so that the bounds checks are 32-bit compares with constants.
template <bool AKMajor, bool BKMajor>
__device__ __forceinline__ void store_tile(const Canonical& p, bool c_vec4,
                                           const float (&acc)[kTM][kTN], float* c_warp,
                                           int rows_in, int cols_in, int tm, int tn) {
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    const int row = acc_row<AKMajor>(tm, i);
    if (row >= rows_in) continue;
    float* c_row = c_warp + row * p.ldc;
    if constexpr (BKMajor) {
#pragma unroll
      for (int j = 0; j < kTN; ++j)
        if (tn + 8 * j < cols_in) store_c(c_row + tn + 8 * j, acc[i][j], p.alpha, p.beta);
    } else {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int col = tn * 4 + 32 * h;
        const float* v = &acc[i][4 * h];
        if (c_vec4) {  // float4 accesses: c_warp is 16-byte aligned, and so is every row
          store_c4(c_row, col, cols_in, float4{v[0], v[1], v[2], v[3]}, p.alpha, p.beta);
        } else {
#pragma unroll
          for (int c = 0; c < 4; ++c)
            if (col + c < cols_in) store_c(c_row + col + c, v[c], p.alpha, p.beta);
        }
      }
    }
  }
}

constexpr int kTailBarrier = 1;  // named barrier of the consumers, for sum_tail_tile

// Where consumer thread `consumer` (0-255) works: its warp's 64 x 64 part (wm, wn) of the tile
// and its lane's place (tm, tn) in the warp. Lanes 4 x 8, interleaved: lane bits 0 and 4 pick tm,
// bits 1-3 tn. Lanes n and n^2 then read the same chunk of A, n and n^1 the same chunk of B, which
// halves an LDS.128's 4 cycles.
// With one column of warps (512 x 64) wn is 0, but computed from the warp, which ptxas cannot
// bound: as a constant it let ptxas spill four registers in the k-loop of A and B K-major.
template <class Tile>
struct ConsumerPlace {
  int warp, lane, wm, wn, tm, tn;
  __device__ explicit ConsumerPlace(int consumer)
      : warp(consumer / 32), lane(consumer % 32),
        wm(Tile::kWarpsN == 1 ? warp % Tile::kWarpsM : warp / Tile::kWarpsN),
        wn(Tile::kWarpsN == 1 ? warp / Tile::kWarpsM : warp % Tile::kWarpsN),
        tm((lane & 1) + lane / 16 * 2), tn(lane / 2 % kLanesN) {}
};

template <class Tile, bool AKMajor, bool BKMajor, bool kTail>
__device__ void consume(const Canonical& p, bool c_vec4, const unsigned char* stages,
                        std::uint32_t full_bar, std::uint32_t empty_bar, const TileOrder& order,
                        int k_tiles, const TailSplit& tail) {
  const int consumer = threadIdx.x - kWarpgroup;
  const ConsumerPlace<Tile> at(consumer);
  const int lane = at.lane, wm = at.wm, wn = at.wn, tm = at.tm, tn = at.tn;
  const FragmentOffsets off = FragmentOffsets::of<Tile, AKMajor, BKMajor>(wm, wn, tm, tn);

  int stage = 0;
  std::uint32_t phase = 0;
  // acc += the next k_count k-tiles of the ring.
  const auto multiply = [&](float (&acc)[kTM][kTN], int k_count) {
    for (int kt = 0; kt < k_count; ++kt) {
      mbar_wait(full_bar + 8 * stage, phase);  // the stage's bytes have landed
      const unsigned char* sA = stages + stage * Tile::kStageBytes;
#pragma unroll
      for (int q = 0; q < kBK / 4; ++q)
        multiply_quad<Tile, AKMajor, BKMajor>(acc, sA, sA + Tile::kATileBytes, q, off);
      __syncwarp();  // every lane's reads of the stage come before lane 0's release
      if (lane == 0) mbar_arrive(empty_bar + 8 * stage);
      if (++stage == kStages) stage = 0, phase ^= 1;
    }
  };
  const auto store = [&](std::int64_t tile_m, std::int64_t tile_n, const float (&acc)[kTM][kTN]) {
    const std::int64_t row0 = tile_m * Tile::kBM + wm * kWarpTileM;
    const std::int64_t col0 = tile_n * Tile::kBN + wn * kWarpTileN;
    store_tile<AKMajor, BKMajor>(p, c_vec4, acc, p.c + row0 * p.ldc + col0,
                                 int(std::min<std::int64_t>(p.m - row0, kWarpTileM)),
                                 int(std::min<std::int64_t>(p.n - col0, kWarpTileN)), tm, tn);
  };
  if constexpr (kTail) {
    __shared__ int last;  // whether this CTA completes the tile (sum_tail_tile)
    for_each_tail_piece(tail, k_tiles, [&](int piece, int tile, int k_begin, int k_end) {
      // The coordinates before the k-loop, where they are warp-uniform and cost no registers of
      // the sums: after it, the slow path of tile_coords's 64-bit division was a call whose
      // return address went to the stack.
      std::int64_t tile_m, tile_n;
      tile_coords(order, whole_tiles(order, tail) + tile, tile_m, tile_n);
      float acc[kTM][kTN] = {};
      multiply(acc, k_end - k_begin);
      if (sum_tail_tile<kConsumerThreads>(tail, k_tiles, piece, tile, k_end - k_begin,
                                          reinterpret_cast<float(&)[kTM * kTN]>(acc), &last,
                                          consumer, kTailBarrier))
        store(tile_m, tile_n, acc);
    });
  } else {
    for (std::int64_t t = blockIdx.x; t < whole_tiles(order, tail); t += gridDim.x) {
      std::int64_t tile_m, tile_n;
      tile_coords(order, t, tile_m, tile_n);
      float acc[kTM][kTN] = {};
      multiply(acc, k_tiles);
      store(tile_m, tile_n, acc);
    }
  }
}

// A tail whose tiles have many slots (kSeparateSumSlots, pipeline/tail_split.cuh) is summed here
// instead of by each tile's completing block: the slots' floats are spread over all SMs. Thread x
// of tile blockIdx.y adds slot float x over the tile's slots in k order, as sum_tail_tile does
// (the same sums, bit for bit), and stores it where store_tile would: slot float x is acc[i][j] of
// consumer thread t, x = (i * kTN + j) * kConsumerThreads + t.
template <class Tile, bool AKMajor, bool BKMajor>
__device__ void sum_tail_slots(const Canonical& p, const TileOrder& order, const TailSplit& tail,
                               int k_tiles) {
  const int tile = blockIdx.y, x = blockIdx.x * kTailSumThreads + threadIdx.x;
  const float sum = sum_tail_float(tail, k_tiles, tile, kSlotFloats, x);
  const int e = x / kConsumerThreads, i = e / kTN, j = e % kTN;
  const ConsumerPlace<Tile> at(x % kConsumerThreads);
  std::int64_t tile_m, tile_n;
  tile_coords(order, whole_tiles(order, tail) + tile, tile_m, tile_n);
  const std::int64_t r = tile_m * Tile::kBM + at.wm * kWarpTileM + acc_row<AKMajor>(at.tm, i);
  const std::int64_t c = tile_n * Tile::kBN + at.wn * kWarpTileN + acc_col<BKMajor>(at.tn, j);
  if (r < p.m && c < p.n) store_c(p.c + r * p.ldc + c, sum, p.alpha, p.beta);
}
#endif  // sm_90a device code

// (A helper kernel: its name is outside the registry's naming rule, like tc_pack_kernel's.)
template <class Tile, bool AKMajor, bool BKMajor>
__global__ void __launch_bounds__(kTailSumThreads)
    simt13_tail_sum_kernel(const Canonical p, const TileOrder order, const TailSplit tail,
                            int k_tiles) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  sum_tail_slots<Tile, AKMajor, BKMajor>(p, order, tail, k_tiles);
#endif
}

// kTail = false: the whole tiles; true: the tail's pieces.
template <class Tile, bool AKMajor, bool BKMajor, bool kTail>
__global__ void __launch_bounds__(kThreads, 1)
    simt_13_tma_kernel(const Canonical p, const __grid_constant__ CUtensorMap tmap_a,
                       const __grid_constant__ CUtensorMap tmap_b, const TileOrder order,
                       const bool c_vec4, const TailSplit tail) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ std::uint8_t smem[];
  const typename Tile::Ring ring(smem);  // 1024-byte aligned stages, for the swizzled TMA boxes
  ring.init(kConsumerWarps);  // one arrival per consumer warp empties a stage
  // Stage s and its barriers from stage 0's, as produce() and consume() walk them. (Taken from
  // ring.stages rather than ring.base: ptxas then allocates the k-loop's registers as the SASS
  // reorder expects.)
  const unsigned char* stages = ring.stages;
  const std::uint32_t stages_addr = smem_address(stages);
  const std::uint32_t full_bar = stages_addr + Tile::Ring::kBarrierOffset;
  const std::uint32_t empty_bar = full_bar + kStages * 8;

  const int k_tiles = int((p.k + kBK - 1) / kBK);
  if (threadIdx.x < kWarpgroup) {
    setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0)
      produce<Tile, AKMajor, BKMajor, kTail>(tmap_a, tmap_b, stages_addr, full_bar, empty_bar,
                                             order, k_tiles, tail);
    return;
  }
  setmaxnreg_inc<kConsumerRegisters>();
  consume<Tile, AKMajor, BKMajor, kTail>(p, c_vec4, stages, full_bar, empty_bar, order, k_tiles,
                                         tail);
#endif
}

// --- host side ---------------------------------------------------------------------------------

// Operand X (rows x k: A, or B^T) as a 2-D tensor whose innermost dimension is the contiguous one,
// read in boxes of kBK k-steps x box_rows rows. A K-major box has 32-byte rows and is swizzled
// (see the top of the file); an MN-major one lands as it is. Zeros past the tensor's edges.
bool make_tensor_map(CUtensorMap* map, const float* x, std::int64_t rows, std::int64_t k,
                     std::int64_t ld, bool k_major, int box_rows) {
  const cuuint64_t dims[2] = {cuuint64_t(k_major ? k : rows), cuuint64_t(k_major ? rows : k)};
  const cuuint64_t strides[1] = {cuuint64_t(ld) * 4};
  const cuuint32_t box[2] = {cuuint32_t(k_major ? kBK : box_rows),
                             cuuint32_t(k_major ? box_rows : kBK)};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode_tiled()(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(x), dims,
                        strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        k_major ? CU_TENSOR_MAP_SWIZZLE_32B : CU_TENSOR_MAP_SWIZZLE_NONE,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

std::string_view why_not(const Canonical& p, const Device& device) {
  if (const auto reason = needs_sm90_tma(device); !reason.empty()) return reason;
  if (!aligned16(p.a) || !aligned16(p.b)) return "needs A and B 16-byte aligned (TMA)";
  if (p.lda % 4 || p.ldb % 4)
    return "needs lda and ldb multiples of 4 (TMA row strides are multiples of 16 bytes)";
  // With C's rows stored one float at a time (C not 16-byte aligned, or ldc % 4 != 0) the kernel
  // returned wrong sums, differently from run to run, on a column-major NN 3328 x 2559 x 1152
  // call with ldc = 3331 (H200); with float4 stores of C the same call is right. Until that race
  // is found, such calls go to the other kernels.
  if (!aligned16(p.c) || p.ldc % 4)
    return "needs C 16-byte aligned and ldc a multiple of 4 (float4 stores of C)";
  if (std::max({p.m, p.n, p.k}) > INT_MAX) return "needs m, n, k < 2^31 (TMA coordinates)";
  if (const auto reason = needs_tma_strides(std::max(p.lda, p.ldb)); !reason.empty())
    return reason;
  return {};
}

// The tail split's costs in k-tile times (~1.3 us; tail_tiles), measured on an H200 with every
// shape timed split and whole: a split costs ~11 k-tiles (14 us) when it is the call's only
// kernel and ~22 after a whole-tile kernel. So 512³ (60 saved) is split, 3.6x faster than one
// round of whole tiles; 2048³ (7.8 saved) and 4096 x 4096 x 1024 (15.5) stay whole.
constexpr TailCosts kTailCosts{11.0, 11.0};
static_assert(kBK == 8, "kTailCosts are in times of an 8-deep k-tile: re-measure them with kBK "
                        "(doubling the k-tile once made the split silently stop paying)");

std::size_t workspace_bytes(const Canonical& p, const Device& device, const KernelEntry*) {
  const std::int64_t tail =
      tail_tiles(rung13_tile_count(p), ceil_div(p.k, kBK), device.sms, kTailCosts);
  return tail_workspace_bytes(tail, device.sms, kSlotFloats);
}

std::string configuration(const Canonical& p, const Device& device) {
  const Rung13Tile tile = rung13_tile(p);
  const std::int64_t tiles = rung13_tile_count(p);
  return tile_plan_text(tiles, tile.rows(), tile.cols(),
                        tail_tiles(tiles, ceil_div(p.k, kBK), device.sms, kTailCosts));
}

template <class Tile, bool AKMajor, bool BKMajor>
cudaError_t launch_as(const Canonical& p, const LaunchArgs& args) {
  CUtensorMap tmap_a, tmap_b;
  if (!make_tensor_map(&tmap_a, p.a, p.m, p.k, p.lda, AKMajor, Tile::kPanelA) ||
      !make_tensor_map(&tmap_b, p.b, p.n, p.k, p.ldb, BKMajor, Tile::kPanelB))
    return cudaErrorInvalidValue;
  const int sms = args.device.sms;
  const std::int64_t tiles_m = ceil_div(p.m, Tile::kBM), tiles_n = ceil_div(p.n, Tile::kBN);
  const TileOrder order{tiles_m, tiles_n};
  const bool c_vec4 = aligned16(p.c) && p.ldc % 4 == 0;  // float4 stores of C
  const auto whole_kernel = simt_13_tma_kernel<Tile, AKMajor, BKMajor, false>;
  const auto tail_kernel = simt_13_tma_kernel<Tile, AKMajor, BKMajor, true>;
  constexpr int kSmemBytes = Tile::Ring::kSmemBytes;
  for (const auto kernel : {whole_kernel, tail_kernel})
    if (cudaError_t err = set_max_dynamic_smem(kernel, kSmemBytes)) return err;
  const std::int64_t k_tiles = ceil_div(p.k, kBK);
  return launch_with_tail(
      tiles_m * tiles_n, k_tiles, sms, kTailCosts, kSlotFloats, args.workspace, args.stream,
      [&](bool tail, unsigned ctas, const TailSplit& split) {
        return launch_kernel(tail ? tail_kernel : whole_kernel, ctas, kThreads, kSmemBytes,
                             args.stream, p, tmap_a, tmap_b, order, c_vec4, split);
      },
      [&](const TailSplit& split) {
        const dim3 grid(kSlotFloats / kTailSumThreads, unsigned(split.tiles));
        return launch_kernel(simt13_tail_sum_kernel<Tile, AKMajor, BKMajor>, grid, kTailSumThreads,
                             0, args.stream, p, order, split, int(k_tiles));
      });
}

template <int kWarpsM>
cudaError_t launch_tile(const Canonical& p, const LaunchArgs& args) {
  return with_majorness(p, [&]<bool AKMajor, bool BKMajor>() {
    return launch_as<BlockTile<kWarpsM>, AKMajor, BKMajor>(p, args);
  });
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  switch (rung13_tile(p).warps_m) {
    case 1: return launch_tile<1>(p, args);
    case 4: return launch_tile<4>(p, args);
    case 8: return launch_tile<8>(p, args);
    default: return launch_tile<2>(p, args);
  }
}

}  // namespace
#endif  // SGEMM_HAS_SM90A

SGEMM_KERNEL_ENTRIES(simt_13_tma) {
#ifdef SGEMM_HAS_SM90A
  static const KernelEntry entries[] = {{
      {"simt-13-tma", Track::Simt, 13,
       "Hopper pipeline: TMA ring, producer/consumer warpgroups, 16 x 8 per thread, persistent; "
       "block tiles of 128 x 256, 256 x 128, 64 x 512 or 512 x 64",
       Math::Fp32, "beyond the seeds: Hopper TMA, mbarrier, setmaxnreg (seed 001's ideas taken on)",
       "compute capability 9.0 (sm_90a); A, B, C 16-byte aligned; lda, ldb, ldc multiples of 4"},
      why_not, launch, workspace_bytes, /*accepts_run_if=*/false, /*needs_handoff=*/false,
      /*batched=*/false, configuration}};
  return entries;
#else
  return {};
#endif
}

}  // namespace sgemm::detail
