// Rung 13's pipeline (13_tma.cu explains it): one producer thread fills a ring of shared-memory
// stages through TMA, two consumer warpgroups multiply 16 x 8 results per thread out of it, a
// persistent grid walks the block tiles (tma_tiles.hpp), and a tail kernel cuts the last round
// along k. The rungs that run it supply the producer's loads per k-tile (a Feed) and their own
// kernels: simt-13-tma tiles of A and B, conv-05-tma-im2col the patches of a convolution's input.
//
// A Feed is a device-side object with
//   void prefetch() const;  // its tensor maps into the cache, before the first load
//   void load(std::uint32_t sA, std::uint32_t sB, std::uint32_t full, int m0, int n0, int kt)
//       const;              // k-tile kt of the block tile at (m0, n0) into the stage's A and B
//                           // tiles, counted into the mbarrier `full` (kStageBytes in all)
// The stage's A tile is kBM rows of m, its B tile kBN rows of n, as the consumers read them
// (FragmentOffsets below); a K-major operand's rows are kBK floats with TMA's 32-byte swizzle.
#pragma once

#include "kernels/arch/hopper.cuh"
#include "kernels/epilogue/store.cuh"
#include "kernels/pipeline/tail_split.cuh"
#include "kernels/pipeline/tile_order.cuh"
#include "kernels/pipeline/tma_ring.cuh"
#include "kernels/simt/tma_tiles.hpp"
#include "runtime/launch.hpp"

#ifdef SGEMM_HAS_SM90A
#include <algorithm>
#include <cstdint>
#include <string>
#endif

namespace sgemm::detail {

#ifdef SGEMM_HAS_SM90A
namespace simt_tma {

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

// The mbarrier, TMA and setmaxnreg wrappers are in arch/hopper.cuh; this one only the producers
// here use.
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
template <class Tile, bool kTail, class Feed>
__device__ void produce(const Feed& feed, std::uint32_t stages, std::uint32_t full_bar,
                        std::uint32_t empty_bar, const TileOrder& order, int k_tiles,
                        const TailSplit& tail) {
  feed.prefetch();
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
      mbar_arrive_expect_tx(full, Tile::kStageBytes);
      feed.load(sA, sA + Tile::kATileBytes, full, m0, n0, kt);
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
    simt_tma_tail_sum_kernel(const Canonical p, const TileOrder order, const TailSplit tail,
                             int k_tiles) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  sum_tail_slots<Tile, AKMajor, BKMajor>(p, order, tail, k_tiles);
#endif
}

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
// A rung's kernel body (kTail = false: the whole tiles; true: the tail's pieces): C of p (its m,
// n, k, alpha, beta, c and ldc; A and B come through `feed`) over `order`'s tiles.
template <class Tile, bool AKMajor, bool BKMajor, bool kTail, class Feed>
__device__ __forceinline__ void run_pipeline(const Canonical& p, const Feed& feed,
                                             const TileOrder& order, bool c_vec4,
                                             const TailSplit& tail) {
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
      produce<Tile, kTail>(feed, stages_addr, full_bar, empty_bar, order, k_tiles, tail);
    return;
  }
  setmaxnreg_inc<kConsumerRegisters>();
  consume<Tile, AKMajor, BKMajor, kTail>(p, c_vec4, stages, full_bar, empty_bar, order, k_tiles,
                                         tail);
}
#endif  // sm_90a device code

// --- host side ---------------------------------------------------------------------------------

// The tail split's costs in k-tile times (~1.3 us; tail_tiles), measured on an H200 with every
// shape timed split and whole: a split costs ~11 k-tiles (14 us) when it is the call's only
// kernel and ~22 after a whole-tile kernel. So 512³ (60 saved) is split, 3.6x faster than one
// round of whole tiles; 2048³ (7.8 saved) and 4096 x 4096 x 1024 (15.5) stay whole.
constexpr TailCosts kTailCosts{11.0, 11.0};
static_assert(kBK == 8, "kTailCosts are in times of an 8-deep k-tile: re-measure them with kBK "
                        "(doubling the k-tile once made the split silently stop paying)");

// The scratch the tail split takes for p (as the launch below splits it).
inline std::size_t pipeline_workspace_bytes(const Canonical& p, const Device& device) {
  const std::int64_t tail =
      tail_tiles(rung13_tile_count(p), ceil_div(p.k, kBK), device.sms, kTailCosts);
  return tail_workspace_bytes(tail, device.sms, kSlotFloats);
}

// The block tiles and the tail split of p, for --explain.
inline std::string pipeline_configuration(const Canonical& p, const Device& device) {
  const Rung13Tile tile = rung13_tile(p);
  const std::int64_t tiles = rung13_tile_count(p);
  return tile_plan_text(tiles, tile.rows(), tile.cols(),
                        tail_tiles(tiles, ceil_div(p.k, kBK), device.sms, kTailCosts));
}

// f.template operator()<BlockTile<...>>() for the block tile that p runs on (rung13_tile).
template <class F>
cudaError_t with_block_tile(const Canonical& p, F&& f) {
  switch (rung13_tile(p).warps_m) {
    case 1: return f.template operator()<BlockTile<1>>();
    case 4: return f.template operator()<BlockTile<4>>();
    case 8: return f.template operator()<BlockTile<8>>();
    default: return f.template operator()<BlockTile<2>>();
  }
}

// Launches a rung's whole-tile kernel, and its tail kernels where the split pays, for p on Tile.
// launch(kernel, ctas, order, c_vec4, split) enqueues `kernel` (whole_kernel or tail_kernel, with
// the block size and shared memory below) with the rung's own arguments.
template <class Tile, bool AKMajor, bool BKMajor, class Kernel, class Launch>
cudaError_t launch_pipeline(const Canonical& p, const LaunchArgs& args, Kernel whole_kernel,
                            Kernel tail_kernel, Launch&& launch) {
  const int sms = args.device.sms;
  const std::int64_t tiles_m = ceil_div(p.m, Tile::kBM), tiles_n = ceil_div(p.n, Tile::kBN);
  const TileOrder order{tiles_m, tiles_n};
  const bool c_vec4 = aligned16(p.c) && p.ldc % 4 == 0;  // float4 stores of C
  for (const auto kernel : {whole_kernel, tail_kernel})
    if (cudaError_t err = set_max_dynamic_smem(kernel, Tile::Ring::kSmemBytes)) return err;
  const std::int64_t k_tiles = ceil_div(p.k, kBK);
  return launch_with_tail(
      tiles_m * tiles_n, k_tiles, sms, kTailCosts, kSlotFloats, args.workspace, args.stream,
      [&](bool tail, unsigned ctas, const TailSplit& split) {
        return launch(tail ? tail_kernel : whole_kernel, ctas, order, c_vec4, split);
      },
      [&](const TailSplit& split) {
        const dim3 grid(kSlotFloats / kTailSumThreads, unsigned(split.tiles));
        return launch_kernel(simt_tma_tail_sum_kernel<Tile, AKMajor, BKMajor>, grid,
                             kTailSumThreads, 0, args.stream, p, order, split, int(k_tiles));
      });
}

}  // namespace simt_tma
#endif  // SGEMM_HAS_SM90A

}  // namespace sgemm::detail
