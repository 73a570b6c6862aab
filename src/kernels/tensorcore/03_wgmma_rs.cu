// Tensor-core rung 03 — wgmma with B converted in registers: no packing pass for B.
//
// What changes from rung 02:
// - TF32 wgmma reads only K-major operands from shared memory, so rung 02 packs an N-major B
//   into a transposed copy first (about a tenth of a TF32 call at 8192³). But the A operand of
//   wgmma may come from registers, in any layout the threads can load. So this rung computes
//   the transposed product, C^T = B^T A^T: B^T is the register operand (the wgmma M side, 64
//   columns of C per consumer warpgroup) and A is the shared-memory operand (the wgmma N side,
//   all kBM rows of C). TMA brings B in as it lies in memory, FP32; each consumer thread loads
//   its fragment with two 8-byte shared loads per k8 step from an N-major B (four 4-byte loads
//   from a K-major one, the weight of nn.Linear) and rounds it to TF32 — or, for 3xTF32, splits
//   it into big and small parts — in registers.
// - Which column of C a fragment row holds is ours to choose, as long as the epilogue agrees.
//   Rows g and g + 8 of each warp's 16 hold two adjacent columns (one 8-byte load), and the 8
//   pairs of a warp are spread over the 128-byte swizzle so that each half-warp's 16 loads hit
//   8 distinct 16-byte chunks: no bank conflicts.
// - A is read from the user's memory when it is K-major, through a TFLOAT32 tensor map that
//   rounds it on the way exactly as the pack would; in 3xTF32 mode that is A's big part, and
//   only the small part is packed. An A of another layout is packed (both parts). B needs
//   16-byte aligned rows in either layout (why_not says so otherwise; rung 02 takes those calls).
// - 3xTF32: all three products of a k-tile go into one fresh accumulator, the two cross terms
//   first (their sum stays small, so it keeps its low bits), then big*big; the fresh sum is
//   added to the FP32 running sum once per 32-deep k-tile. One fresh set instead of rung 02's
//   two leaves room for the next k-tile's fragments, which are loaded and split while this
//   k-tile's wgmmas run. Every value of B passes through some thread's split, so the threads
//   also test B for values the split cannot carry and raise the fallback's flag; with beta == 0
//   that replaces the pass over B before the call (Tf32Direct::b_checked).
// - Persistent: one block per SM walks its tiles in the grouped order (3xTF32: in pairs along
//   rows, see tile_at below); the producer runs on into the next tile while the consumers store
//   the last. The partial last round goes to a second kernel, the same template with kTail set,
//   that cuts it along k over all SMs (pipeline/tail_split.cuh; at 8192³ in 3xTF32 the 32nd round
//   of 4 tiles cost 2.8%).
// - With beta == 0 and C's rows 16-byte aligned at both ends, the consumers stage each 32-row
//   chunk of the tile in shared memory and one thread hands it to TMA stores: the consumers go
//   back to the mainloop while the copy engine writes C (direct stores cost the Tf32 kernel
//   3.8% of its cycles at 8192³, ncu on an H200). Other calls store from registers.
// - Caution: the tensor cores read a wgmma's A registers until the wait_group that retires it,
//   and ptxas does not keep those registers from being reused by later instructions (see
//   docs/experiments.md, section 8). Each loop writes a fragment buffer only after the wait that
//   retired the wgmmas which read it, but ptxas must also keep the in-flight k-tile's buffer
//   in other registers, and nothing forces it to. The build checks that it did: the host test
//   KernelResources (hgmma_a_clobbers in scripts/resource_report.py) reads the SASS.
#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/arch/wgmma.cuh"
#include "kernels/epilogue/store.cuh"
#include "kernels/pipeline/tail_split.cuh"
#include "kernels/pipeline/tile_order.cuh"
#include "kernels/pipeline/tma_ring.cuh"
#include "kernels/tensorcore/pack.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {

#ifdef SGEMM_HAS_SM90A
namespace {

constexpr int kBK = kSwizzleRowFloats;
constexpr int kConsumers = 2, kWarpgroup = 128, kThreads = kWarpgroup * (1 + kConsumers);
constexpr int kBN = kConsumers * kWgmmaM;  // columns of C per block: B^T rows in registers
constexpr int kStages = 4;
constexpr int kBBox = kSwizzleRowFloats;   // B arrives in boxes of 32 columns x kBK rows
constexpr int kBBoxBytes = kBBox * kBK * 4;
constexpr int kK8Steps = kBK / kWgmmaK;
// C's staging: two buffers of a 32-row chunk of the block tile, each as kBN / 32 boxes of
// 32 x 32 floats in the 128-byte swizzle (what C's tensor map stores from).
constexpr int kChunkRows = kSwizzleRowFloats, kCBox = kSwizzleRowFloats;
constexpr int kCBoxBytes = kChunkRows * kCBox * 4, kChunkBytes = kChunkRows * kBN * 4;
constexpr int kConsumerBarrier = 1;  // named barrier of the 256 consumer threads
static_assert(kPackTileK == kBK && kBN % kBBox == 0 && kBN % kCBox == 0);

// Rows of C per block, the wgmma N: 3xTF32 needs a fresh accumulator beside the running sum, so
// its tiles have at most 128 rows, Tf32's at most 256; both narrow to 128 or 64 where the wider
// ones would idle SMs or be half empty (tile_rows below).
template <Tf32Mode kMode>
constexpr int kMaxRows = kMode == Tf32Mode::Tf32x3 ? 128 : 256;
constexpr int kNarrowRows = 128, kMinRows = 64;

template <Tf32Mode kMode, int kRows>
struct Config {
  static constexpr int kParts = kMode == Tf32Mode::Tf32x3 ? 2 : 1;
  static constexpr int kBM = kRows;
  static constexpr int kATileBytes = kBM * kBK * 4, kBTileBytes = kBN * kBK * 4;
  // 48 KB in both modes' widest tiles; 32 KB and 24 KB in Tf32's 128- and 64-row ones, 32 KB
  // in 3xTF32's 64-row ones.
  static constexpr int kStageBytes = kParts * kATileBytes + kBTileBytes;
  using Ring = TmaRing<kStages, kStageBytes>;
  // The ring, its barriers on a 1 KB page of their own, then C's two staging buffers.
  static constexpr int kStagingOffset = Ring::kBarrierOffset + 1024;
  static constexpr int kSmemBytes = 1024 + kStagingOffset + 2 * kChunkBytes;  // + alignment slack
  static_assert(2 * kStages * 8 <= 1024 && kSmemBytes <= 227 * 1024);
  static_assert(kBM % kPackTileMN == 0 || kPackTileMN % kBM == 0);
  static_assert(kBM % kChunkRows == 0);
};

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;

// A k-tile of B^T fragments: kK8Steps x the 4 registers of one wgmma's A operand.
using Fragments = std::uint32_t[kK8Steps][4];

// The whole-tile and tail kernels' tile order. 3xTF32 pairs its tiles along rows where it can,
// so that neighbouring blocks share A's two parts (two thirds of a k-tile's bytes) rather than
// B: on two H200s the 3xTF32 call at 8192³ is 1.1-1.5% faster, its L2 -> SM sectors 7% fewer
// (the requests of blocks 2i and 2i + 1 for the same data seem to count once). Tf32 gained
// nothing from it.
template <Tf32Mode kMode>
__device__ __forceinline__ void tile_of(std::int64_t linear, std::int64_t tiles_m,
                                        std::int64_t tiles_n, std::int64_t& tile_m,
                                        std::int64_t& tile_n) {
  if (kMode == Tf32Mode::Tf32x3 && tiles_n % 2 == 0)
    paired_tile(linear, tiles_m, tiles_n, tile_m, tile_n);
  else
    grouped_tile(linear, tiles_m, tiles_n, tile_m, tile_n);
}

// Tile `linear` of a batch, whose matrices' tiles come one matrix after another: tile (m, n) of
// matrix z, in tile_of's order within the matrix.
struct BatchTile {
  int z;
  std::int64_t m, n;
};
template <Tf32Mode kMode>
__device__ __forceinline__ BatchTile batch_tile(std::int64_t linear, std::int64_t tiles_m,
                                                std::int64_t tiles_n) {
  const std::int64_t matrix_tiles = tiles_m * tiles_n;
  BatchTile t;
  t.z = int(linear / matrix_tiles);
  tile_of<kMode>(linear % matrix_tiles, tiles_m, tiles_n, t.m, t.n);
  return t;
}

// Fragment rows `group` and `group + 8` of warp `warp` (0-3) of consumer warpgroup `consumer`
// hold columns col_in_box and col_in_box + 1 of the box-th 32-column box of C's block tile:
// warps 0-1 (2-3) share the first (second) box of the warpgroup, each taking the column pairs
// {0,2,16,18,4,6,20,22} (+8 for odd warps). Per k row a half-warp then reads the 16-byte chunks
// {0,4} and {1,5} (or {2,6}, {3,7}) before the swizzle XORs them with k % 8 = in_group (or
// in_group + 4): eight distinct chunks, all 32 banks once.
__device__ __forceinline__ int fragment_box(int consumer, int warp) {
  return consumer * 2 + warp / 2;
}
__device__ __forceinline__ int fragment_col_in_box(int warp, int group) {
  return (warp % 2) * 8 + (group / 4) * 4 + (group % 4 / 2) * 16 + (group % 2) * 2;
}

// kTail = false: the whole tiles; true: the tail's pieces (pipeline/tail_split.cuh). kBKMajor:
// B's rows run along k (row-major NT), else along n. kRows: rows of C per tile.
template <Tf32Mode kMode, bool kTail, bool kBKMajor, int kRows>
__device__ __forceinline__ void rs_tiles(const Canonical& p, const CUtensorMap& tmap_a,
                                         const CUtensorMap& tmap_a_small,
                                         const CUtensorMap& tmap_b, const CUtensorMap& tmap_c,
                                         bool c_by_tma, const Tf32Operands& ops,
                                         const TailSplit& tail) {
  using Cfg = Config<kMode, kRows>;
  constexpr int kParts = Cfg::kParts, kBM = Cfg::kBM;
  constexpr int kAccs = kBM / 2;  // accumulator floats per thread of a 64 x kBM tile
  if (tile_kernel_idle(ops)) return;  // gated off, or the FP32 fallback computes this call
  extern __shared__ std::uint8_t smem_raw[];
  const typename Cfg::Ring ring(smem_raw);
  auto a_tile = [&](int stage, int part) { return ring.stage(stage) + part * Cfg::kATileBytes; };
  auto b_tile = [&](int stage) { return ring.stage(stage) + kParts * Cfg::kATileBytes; };

  const std::int64_t tiles_m = (p.m + kBM - 1) / kBM, tiles_n = (p.n + kBN - 1) / kBN;
  // Tiles of the whole-tile kernel, over all matrices of the batch.
  const std::int64_t whole = tiles_m * tiles_n * p.batch - tail.tiles;
  const int num_k_tiles = int(ops.kp / kBK);
  const int warpgroup = threadIdx.x / kWarpgroup;
  auto tile_at = [&](std::int64_t linear) { return batch_tile<kMode>(linear, tiles_m, tiles_n); };

  ring.init(kConsumers * 4);  // one arrival per consumer warp empties a stage

  if (warpgroup == 0) {
    // Producer: one thread keeps the ring full, running on into the block's next tile while
    // the consumers store the last one: A's big part (3xTF32: and its small part, from its own
    // map) as K-major boxes, B as 32-column N-major boxes, each box 32 x 128 bytes in the
    // 128-byte swizzle.
    setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) {
      int it = 0;  // k-tiles loaded so far, over all of this block's tiles
      // k-tiles [k_begin, k_end) of tile `tile` into the ring.
      auto load = [&](std::int64_t tile, int k_begin, int k_end) {
        const BatchTile t = tile_at(tile);
        const int row_a = int(t.m * kBM), col_b = int(t.n * kBN);
        // The matrix's coordinate in each map: a broadcast operand read in place (stride 0)
        // has one matrix; packed parts have one per matrix of the batch.
        const int z_a = ops.a_direct && p.stride_a == 0 ? 0 : t.z;
        const int z_b = p.stride_b == 0 ? 0 : t.z;
        for (int kt = k_begin; kt < k_end; ++kt, ++it) {
          const int s = it % kStages, round = it / kStages;
          mbar_wait(ring.empty(s), (round & 1) ^ 1);
          mbar_arrive_expect_tx(ring.full(s), Cfg::kStageBytes);
          tma_load(a_tile(s, 0), tmap_a, kt * kBK, row_a, z_a, ring.full(s));
          if constexpr (kParts == 2)
            tma_load(a_tile(s, 1), tmap_a_small, kt * kBK, row_a, t.z, ring.full(s));
          if constexpr (kBKMajor) {
            tma_load(b_tile(s), tmap_b, kt * kBK, col_b, z_b, ring.full(s));
          } else {
            for (int box = 0; box < kBN / kBBox; ++box)
              tma_load(b_tile(s) + box * kBBoxBytes, tmap_b, col_b + box * kBBox, kt * kBK, z_b,
                       ring.full(s));
          }
        }
      };
      if constexpr (kTail) {
        for_each_tail_piece(tail, num_k_tiles, [&](int, int tile, int k_begin, int k_end) {
          load(whole + tile, k_begin, k_end);
        });
      } else {
        for (std::int64_t tile = blockIdx.x; tile < whole; tile += gridDim.x)
          load(tile, 0, num_k_tiles);
      }
    }
    return;
  }

  // Consumers: warpgroup c holds columns 64c .. 64c+63 of the block tile, as rows of B^T.
  setmaxnreg_inc<kConsumerRegisters>();
  const int consumer = warpgroup - 1;
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int group = lane / 4, in_group = lane % 4;
  // This warp's fragment rows `group` and `group + 8` hold columns col and col + 1 of C's tile.
  const int box = fragment_box(consumer, warp), col_in_box = fragment_col_in_box(warp, group);
  const int col = box * kBBox + col_in_box;
  auto fragment_offset = [&](int k_row) {
    return box * kBBoxBytes + swizzled_offset(k_row, col_in_box);
  };
  const int offset_lo = fragment_offset(in_group), offset_hi = fragment_offset(in_group + 4);
  // A K-major B arrives as one box of kBN rows (columns of C) x 32 k: the fragment's four
  // values lie in rows col and col + 1, at k = in_group and in_group + 4 of each k8 step.
  auto k_major_offset = [&](int row, int k) { return swizzled_offset(row, k); };

  // B^T's fragments of k-tile kt, rounded to TF32 (big) and, for 3xTF32, the rounded
  // remainders (small). Per k8 step: rows {g, g + 8} at k = in_group, then at k = in_group + 4.
  bool unsplittable = false;  // 3xTF32: this thread has split a value of B it cannot carry
  auto load_fragments = [&](int kt, Fragments& big, Fragments* small) {
    const int s = kt % kStages;
    mbar_wait(ring.full(s), (kt / kStages) & 1);
    const std::uint8_t* b = ring.stages + (b_tile(s) - ring.base);
#pragma unroll
    for (int ks = 0; ks < kK8Steps; ++ks) {
      float raw[4];
      if constexpr (kBKMajor) {
        const int k = ks * kWgmmaK + in_group;
        raw[0] = *reinterpret_cast<const float*>(b + k_major_offset(col, k));
        raw[1] = *reinterpret_cast<const float*>(b + k_major_offset(col + 1, k));
        raw[2] = *reinterpret_cast<const float*>(b + k_major_offset(col, k + 4));
        raw[3] = *reinterpret_cast<const float*>(b + k_major_offset(col + 1, k + 4));
      } else {
        const float2 lo = *reinterpret_cast<const float2*>(b + ks * kWgmmaK * 128 + offset_lo);
        const float2 hi = *reinterpret_cast<const float2*>(b + ks * kWgmmaK * 128 + offset_hi);
        raw[0] = lo.x, raw[1] = lo.y, raw[2] = hi.x, raw[3] = hi.y;
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float rounded = to_tf32(raw[i]);
        big[ks][i] = __float_as_uint(rounded);
        if constexpr (kMode == Tf32Mode::Tf32x3) {
          (*small)[ks][i] = __float_as_uint(to_tf32(raw[i] - rounded));
          unsplittable |= !splittable(raw[i]);
        }
      }
    }
  };
  // Stage kt's A tile has been read by this warp's finished wgmmas; its B by the loads above.
  auto release = [&](int kt) {
    if (lane == 0) mbar_arrive(ring.empty(kt % kStages));
  };
  // k_count k-tiles into acc; ring index `first` holds the first of them.
  auto mainloop = [&](int first, int k_count, float (&acc)[kAccs]) {
    if constexpr (kMode == Tf32Mode::Tf32x3) {
      float fresh[kAccs] = {};
      // This k-tile's wgmmas, then the next k-tile's fragments while they run, then the sum.
      auto step = [&](int kt, const Fragments& big, const Fragments& small, Fragments& next_big,
                      Fragments& next_small) {
        const int s = (first + kt) % kStages;
        const std::uint64_t a_big = smem_desc(a_tile(s, 0)), a_small = smem_desc(a_tile(s, 1));
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < kK8Steps; ++ks)
          wgmma_tf32<kBM>(fresh, small[ks], a_big + ks * kDescK8Step, ks > 0);
#pragma unroll
        for (int ks = 0; ks < kK8Steps; ++ks)
          wgmma_tf32<kBM>(fresh, big[ks], a_small + ks * kDescK8Step, 1);
#pragma unroll
        for (int ks = 0; ks < kK8Steps; ++ks)
          wgmma_tf32<kBM>(fresh, big[ks], a_big + ks * kDescK8Step, 1);
        wgmma_commit();
        if (kt + 1 < k_count) load_fragments(first + kt + 1, next_big, &next_small);
        wgmma_wait<0>();
        fence_operands(fresh);
        release(first + kt);
#pragma unroll
        for (int i = 0; i < kAccs; ++i) acc[i] += fresh[i];
      };
      Fragments big0, small0, big1, small1;
      load_fragments(first, big0, &small0);
      for (int kt = 0; kt < k_count; kt += 2) {
        step(kt, big0, small0, big1, small1);
        if (kt + 1 < k_count) step(kt + 1, big1, small1, big0, small0);
      }
    } else {
      // One k-tile of wgmmas stays in flight while the next k-tile's fragments are loaded.
      auto step = [&](int kt, const Fragments& frag, Fragments& next) {
        const std::uint64_t a_desc = smem_desc(a_tile((first + kt) % kStages, 0));
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < kK8Steps; ++ks)
          wgmma_tf32<kBM>(acc, frag[ks], a_desc + ks * kDescK8Step, 1);
        wgmma_commit();
        wgmma_wait<1>();  // k-tile kt - 1 is done: its stage and fragment registers are free
        if (kt > 0) release(first + kt - 1);
        if (kt + 1 < k_count) load_fragments(first + kt + 1, next, nullptr);
      };
      Fragments frag0, frag1;
      load_fragments(first, frag0, nullptr);
      for (int kt = 0; kt < k_count; kt += 2) {
        step(kt, frag0, frag1);
        if (kt + 1 < k_count) step(kt + 1, frag1, frag0);
      }
      wgmma_wait<0>();
      fence_operands(acc);
      release(first + k_count - 1);
    }
  };
  // C by TMA (beta == 0): chunk after chunk of kChunkRows rows into alternating staging buffers.
  const std::uint32_t staging = ring.base + Cfg::kStagingOffset;
  const bool elected = threadIdx.x == kWarpgroup;  // the consumers' thread 0 issues the stores
  int chunks = 0;                                   // staged so far, over all of the block's tiles
  auto store_tile_by_tma = [&](const BatchTile& t, const float (&acc)[kAccs]) {
#pragma unroll
    for (int q = 0; q < kBM / kChunkRows; ++q, ++chunks) {
      const std::uint32_t buffer = staging + (chunks % 2) * kChunkBytes;
      if (chunks >= 2) {  // the TMA unit must have read this buffer's previous chunk
        if (elected) bulk_wait_read<1>();
        named_barrier(kConsumerBarrier, kConsumers * kWarpgroup);
      }
      // Row r of the chunk, column pair (col_in_box, + 1) of box `box`.
#pragma unroll
      for (int jj = 0; jj < kChunkRows / 8; ++jj)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int j = q * (kChunkRows / 8) + jj, r = 8 * jj + 2 * in_group + e;
          const std::uint32_t at = buffer + box * kCBoxBytes + swizzled_offset(r, col_in_box);
          asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(at),
                       "f"(p.alpha * acc[4 * j + e]), "f"(p.alpha * acc[4 * j + 2 + e])
                       : "memory");
        }
      fence_async_shared();
      named_barrier(kConsumerBarrier, kConsumers * kWarpgroup);
      if (elected) {
        for (int b = 0; b < kBN / kCBox; ++b)
          tma_store(tmap_c, int(t.n * kBN) + b * kCBox, int(t.m * kBM) + q * kChunkRows, t.z,
                    buffer + b * kCBoxBytes);
        bulk_commit();
      }
    }
  };
  auto store_tile = [&](const BatchTile& t, const float (&acc)[kAccs]) {
    if (c_by_tma) return store_tile_by_tma(t, acc);
    // Epilogue: acc[4j + 2h + e] is C(row 8j + 2 * in_group + e, column col + h) of the block
    // tile; each thread writes column pairs, 8 bytes at a time where C's alignment allows.
    const bool paired = p.ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(p.c) % 8 == 0;
    float* c = p.c + t.z * p.stride_c;
    const std::int64_t row_base = t.m * kBM + 2 * in_group;
    const std::int64_t col_c = t.n * kBN + col;
#pragma unroll
    for (int j = 0; j < kAccs / 4; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const std::int64_t row = row_base + 8 * j + e;
        if (row < p.m)
          store_c2(c + row * p.ldc, col_c, p.n, acc[4 * j + e], acc[4 * j + 2 + e], p.alpha,
                   p.beta, paired);
      }
    }
  };

  // The block's tiles (or pieces) in turn; `first` is the ring index of the next k-tile.
  int first = 0;
  if constexpr (kTail) {
    __shared__ int last;  // whether this block completes the tile (sum_tail_tile)
    for_each_tail_piece(tail, num_k_tiles, [&](int piece, int tile, int k_begin, int k_end) {
      const BatchTile t = tile_at(whole + tile);
      float acc[kAccs] = {};
      mainloop(first, k_end - k_begin, acc);
      first += k_end - k_begin;
      if (sum_tail_tile<kConsumers * kWarpgroup>(tail, num_k_tiles, piece, tile, k_end - k_begin,
                                                 acc, &last, threadIdx.x - kWarpgroup,
                                                 kConsumerBarrier))
        store_tile(t, acc);
    });
  } else {
    for (std::int64_t tile = blockIdx.x; tile < whole; tile += gridDim.x, first += num_k_tiles) {
      const BatchTile t = tile_at(tile);
      float acc[kAccs] = {};
      mainloop(first, num_k_tiles, acc);
      store_tile(t, acc);
    }
  }
  if constexpr (kMode == Tf32Mode::Tf32x3) {
    if (__any_sync(0xffffffffu, unsplittable) && lane == 0) *ops.nonfinite = 1;
  }
  if (elected) bulk_wait_all();  // C written, and the staging read, before the block exits
}

// A tail whose tiles have many slots (kSeparateSumSlots, pipeline/tail_split.cuh) is summed here
// instead of by each tile's completing block, on all SMs. Slot float x is acc[a] of consumer
// thread t, x = a * 256 + t, and acc[4j + 2h + e] is C(row 8j + 2 in_group + e, column col + h)
// of the block tile, as in rs_tiles' epilogue.
template <Tf32Mode kMode, int kBM>
__device__ void sum_tail_slots(const Canonical& p, const Tf32Operands& ops,
                               const TailSplit& tail) {
  if (tile_kernel_idle(ops)) return;  // gated off, or the FP32 fallback computes this call
  constexpr int kSlotThreads = kConsumers * kWarpgroup;
  constexpr std::int64_t kSlotFloats = std::int64_t(kBM / 2) * kSlotThreads;
  const int tile = blockIdx.y, x = blockIdx.x * kTailSumThreads + threadIdx.x;
  const float sum = sum_tail_float(tail, int(ops.kp / kBK), tile, kSlotFloats, x);
  const int a = x / kSlotThreads, t = x % kSlotThreads;
  const int warp = t / 32 % 4, lane = t % 32, group = lane / 4, in_group = lane % 4;
  const int col = fragment_box(t / kWarpgroup, warp) * kBBox + fragment_col_in_box(warp, group);
  const std::int64_t tiles_m = (p.m + kBM - 1) / kBM, tiles_n = (p.n + kBN - 1) / kBN;
  const BatchTile at =
      batch_tile<kMode>(tiles_m * tiles_n * p.batch - tail.tiles + tile, tiles_m, tiles_n);
  const std::int64_t row = at.m * kBM + 8 * (a / 4) + 2 * in_group + a % 2;
  const std::int64_t c = at.n * kBN + col + a / 2 % 2;
  if (row < p.m && c < p.n)
    store_c(p.c + at.z * p.stride_c + row * p.ldc + c, sum, p.alpha, p.beta);
}
#endif  // sm_90a device code

// (A helper kernel: its name is outside the registry's naming rule, like tc_pack_kernel's.)
template <Tf32Mode kMode, int kRows>
__global__ void __launch_bounds__(kTailSumThreads)
    tc03_tail_sum_kernel(const Canonical p, const Tf32Operands ops, const TailSplit tail) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  sum_tail_slots<kMode, kRows>(p, ops, tail);
#endif
}

template <bool kTail, bool kBKMajor, int kRows>
__global__ void __launch_bounds__(kThreads, 1)
    tc_03_wgmma_rs_tf32x3_kernel(const Canonical p, const __grid_constant__ CUtensorMap tmap_a,
                                 const __grid_constant__ CUtensorMap tmap_a_small,
                                 const __grid_constant__ CUtensorMap tmap_b,
                                 const __grid_constant__ CUtensorMap tmap_c, const bool c_by_tma,
                                 const Tf32Operands ops, const TailSplit tail) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  rs_tiles<Tf32Mode::Tf32x3, kTail, kBKMajor, kRows>(p, tmap_a, tmap_a_small, tmap_b, tmap_c,
                                                     c_by_tma, ops, tail);
#endif
}
template <bool kTail, bool kBKMajor, int kRows>
__global__ void __launch_bounds__(kThreads, 1)
    tc_03_wgmma_rs_tf32_kernel(const Canonical p, const __grid_constant__ CUtensorMap tmap_a,
                               const __grid_constant__ CUtensorMap tmap_a_small,
                               const __grid_constant__ CUtensorMap tmap_b,
                               const __grid_constant__ CUtensorMap tmap_c, const bool c_by_tma,
                               const Tf32Operands ops, const TailSplit tail) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  rs_tiles<Tf32Mode::Tf32, kTail, kBKMajor, kRows>(p, tmap_a, tmap_a_small, tmap_b, tmap_c,
                                                   c_by_tma, ops, tail);
#endif
}

// --- host side ---------------------------------------------------------------------------------

// The matrices of an operand's tensor map: the batch's, `stride` floats apart, or one where
// the stride is 0 (a broadcast operand, read at matrix coordinate 0) or the call is one matrix.
struct MapMatrices {
  std::int64_t count, stride;  // stride 0: the matrix's own size (make_k_major_map's default)
};
MapMatrices map_matrices(std::int64_t batch, std::int64_t stride) {
  return stride == 0 || batch == 1 ? MapMatrices{1, 0} : MapMatrices{batch, stride};
}

// Row-major matrices (rows of `cols` floats, `ld` apart: the user's N-major B, or C) as 3-D
// boxes of 32 columns x 32 rows x 1 matrix, FP32, 128-byte swizzle. Loads fill zeros past the
// edges; stores leave out rows past the last, and columns past the last only when it ends a
// 16-byte piece of its row (launch_tiles uses C's map only then: see tma_store in
// arch/hopper.cuh).
bool make_row_major_map(CUtensorMap* map, const float* data, std::int64_t rows,
                        std::int64_t cols, std::int64_t ld, MapMatrices matrices,
                        CUtensorMapL2promotion promotion) {
  const std::int64_t stride = matrices.stride ? matrices.stride : rows * ld;
  const cuuint64_t dims[3] = {cuuint64_t(cols), cuuint64_t(rows), cuuint64_t(matrices.count)};
  const cuuint64_t strides[2] = {cuuint64_t(ld) * 4, cuuint64_t(stride) * 4};
  const cuuint32_t box[3] = {kSwizzleRowFloats, kSwizzleRowFloats, 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  return encode_tiled()(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, const_cast<float*>(data), dims,
                        strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_128B, promotion,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The tail split's costs in k-tile times (tail_tiles), measured on an H200 (every shape timed
// split and whole). Tf32 (~0.65 us k-tiles): ~16-28 when the split is the call's only
// kernel, ~36 after a whole-tile kernel (256 x 256 x 1024 split 1.6x faster; 768 x 1536 x 1024
// and 4096 x 4096 x 1024 stay whole). 3xTF32 (~0.94 us): ~12 and ~17 (2560 x 2560 x 1280 split
// 1.13x faster).
template <Tf32Mode kMode>
constexpr TailCosts kTailCosts =
    kMode == Tf32Mode::Tf32x3 ? TailCosts{12.0, 5.0} : TailCosts{24.0, 12.0};
static_assert(kBK == 32, "kTailCosts are in times of a 32-deep k-tile: re-measure them with kBK");

// Tiles of `rows` rows of C over all matrices of a batch.
std::int64_t tile_count(const Canonical& p, int rows) {
  return ceil_div(p.m, rows) * ceil_div(p.n, kBN) * p.batch;
}
constexpr std::int64_t kTailSlotFloats(int bm) { return bm / 2 * kConsumers * kWarpgroup; }

// Rows of C per tile: from the widest (kMaxRows), halved down to 64 while the tiles would be at
// least half empty (m <= rows / 2), or would occupy at most half the SMs with a short k
// (kShortKTiles) or one too short for the tail split to cut: twice the tiles, each with the same
// k-loop. Measured on an H200 (Tf32, x cuBLAS SGEMM), 64-row tiles against 128 and 256:
// 1024³ 3.58 against 3.34 and 2.56 (256 rows cut by the tail split), 512³ 1.45 against 1.29 and
// 0.94, 128³ 1.34 against 1.20; 32 x 16384 x 8192 1.82 against 1.18; 64 x 11008 x 4096 2.16
// against 1.74. Where the tail split cuts a long k over all SMs anyway, the narrow tiles only read
// B more often: 128 x 4096 x 4096 2.70 on 128 rows against 2.13 on 64, 256 x 4096 x 4096 4.37 on
// 256 against 3.63 and 2.66 (256 x 256 x 131072: 0.111 ms on 256 rows, 0.151 on 128).
constexpr std::int64_t kShortKTiles = 32;  // k <= 1024
template <Tf32Mode kMode>
int tile_rows(const Canonical& p, int sms) {
  const std::int64_t k_tiles = round_up(p.k, kPackTileK) / kBK;
  int rows = kMaxRows<kMode>;
  while (rows > kMinRows) {
    const std::int64_t tiles = tile_count(p, rows);
    const bool half_empty = p.m <= rows / 2;
    const bool few = 2 * tiles <= sms && (k_tiles <= kShortKTiles ||
                                          tail_tiles(tiles, k_tiles, sms, kTailCosts<kMode>) == 0);
    if (!half_empty && !few) break;
    rows /= 2;
  }
  return rows;
}

// The tile kernel of a mode (only that mode's is instantiated).
template <Tf32Mode kMode, bool kTail, bool kBKMajor, int kRows>
constexpr auto tile_kernel() {
  if constexpr (kMode == Tf32Mode::Tf32x3)
    return tc_03_wgmma_rs_tf32x3_kernel<kTail, kBKMajor, kRows>;
  else
    return tc_03_wgmma_rs_tf32_kernel<kTail, kBKMajor, kRows>;
}

template <Tf32Mode kMode, bool kBKMajor, int kRows>
cudaError_t launch_tiles_of(const Canonical& p, const Tf32Operands& ops, const LaunchArgs& args) {
  using Cfg = Config<kMode, kRows>;
  constexpr auto whole_kernel = tile_kernel<kMode, false, kBKMajor, kRows>();
  constexpr auto tail_kernel = tile_kernel<kMode, true, kBKMajor, kRows>();
  // A's big part (Tf32: its only part), rounded by the TMA unit when read in place; 3xTF32's
  // small part, always packed. tmap_a_small stays zero in Tf32 mode (not read).
  // Each map's third dimension holds the matrices of a batch (map_matrices); packed operands
  // have one matrix per matrix of the batch.
  CUtensorMap tmap_a{}, tmap_a_small{}, tmap_b{}, tmap_c{};
  const MapMatrices a_matrices = map_matrices(p.batch, p.stride_a);
  const MapMatrices b_matrices = map_matrices(p.batch, p.stride_b);
  const MapMatrices packed = map_matrices(p.batch, ops.a_matrix_floats);
  const bool made =
      (ops.a_direct ? make_k_major_map(&tmap_a, ops.a, a_matrices.count, p.m, p.k, p.lda,
                                       Cfg::kBM, true, a_matrices.stride)
                    : make_k_major_map(&tmap_a, ops.a, packed.count, ops.mp, ops.kp, ops.kp,
                                       Cfg::kBM, false, packed.stride)) &&
      (Cfg::kParts == 1 || make_k_major_map(&tmap_a_small, ops.a_small, packed.count, ops.mp,
                                            ops.kp, ops.kp, Cfg::kBM, false, packed.stride)) &&
      (kBKMajor ? make_k_major_map(&tmap_b, p.b, b_matrices.count, p.n, p.k, p.ldb, kBN, false,
                                   b_matrices.stride)
                : make_row_major_map(&tmap_b, p.b, p.k, p.n, p.ldb, b_matrices,
                                     CU_TENSOR_MAP_L2_PROMOTION_L2_256B));
  if (!made) return cudaErrorInvalidValue;
  // TMA stores replace C (beta == 0 only) and need 16-byte aligned rows. They also write the
  // whole 16-byte piece of a row that holds C's last column (with n = 29, columns 29-31 of a
  // padded row were overwritten), so C's rows must end on a 16-byte boundary too. A C whose
  // map cannot be made (a row stride of 2^40 bytes or more) is stored from registers.
  // A batch's matrices of C must start 16-byte aligned too.
  const bool c_by_tma = p.beta == 0.0f && aligned16(p.c) && p.ldc % 4 == 0 && p.n % 4 == 0 &&
                        p.stride_c % 4 == 0 &&
                        make_row_major_map(&tmap_c, p.c, p.m, p.n, p.ldc,
                                           map_matrices(p.batch, p.stride_c),
                                           CU_TENSOR_MAP_L2_PROMOTION_NONE);
  for (const auto kernel : {whole_kernel, tail_kernel})
    if (cudaError_t err = set_max_dynamic_smem(kernel, Cfg::kSmemBytes)) return err;
  // Persistent: one block per SM at most, each walking its share of the tiles; the last round's
  // tiles cut along k over all SMs when that pays, their sums added over all SMs when a tile has
  // many pieces (pipeline/tail_split.cuh).
  return launch_with_tail(
      tile_count(p, kRows), ops.kp / kBK, args.device.sms, kTailCosts<kMode>,
      kTailSlotFloats(Cfg::kBM), args.workspace, args.stream,
      [&](bool tail, unsigned blocks, const TailSplit& split) {
        return launch_kernel(tail ? tail_kernel : whole_kernel, blocks, kThreads, Cfg::kSmemBytes,
                             args.stream, p, tmap_a, tmap_a_small, tmap_b, tmap_c, c_by_tma, ops,
                             split);
      },
      [&](const TailSplit& split) {
        const unsigned blocks_per_tile = kTailSlotFloats(Cfg::kBM) / kTailSumThreads;
        return launch_kernel(tc03_tail_sum_kernel<kMode, kRows>,
                             dim3(blocks_per_tile, unsigned(split.tiles)), kTailSumThreads, 0,
                             args.stream, p, ops, split);
      });
}

template <Tf32Mode kMode, int kRows>
cudaError_t launch_tiles_rows(const Canonical& p, const Tf32Operands& ops,
                              const LaunchArgs& args) {
  return p.b_k_major ? launch_tiles_of<kMode, true, kRows>(p, ops, args)
                     : launch_tiles_of<kMode, false, kRows>(p, ops, args);
}

template <Tf32Mode kMode>
cudaError_t launch_tiles(const Canonical& p, const Tf32Operands& ops, const LaunchArgs& args) {
  switch (tile_rows<kMode>(p, args.device.sms)) {
    case kMinRows: return launch_tiles_rows<kMode, kMinRows>(p, ops, args);
    case kNarrowRows: return launch_tiles_rows<kMode, kNarrowRows>(p, ops, args);
    default: return launch_tiles_rows<kMode, kMaxRows<kMode>>(p, ops, args);
  }
}

// B always in place; A (3xTF32: its big part) in place when K-major, packed otherwise; in a
// batch too (the maps' third dimension).
constexpr Tf32Direct kDirect{
    .k_major = true, .a_big = true, .b_always = true, .b_checked = true, .batch = true};

template <Tf32Mode kMode>
std::string_view why_not(const Canonical& p, const Device& device) {
  if (std::string_view r = needs_sm90_tma(device); !r.empty()) return r;
  if (!aligned16(p.b) || p.ldb % 4 != 0)
    return "needs B 16-byte aligned with a leading dimension that is a multiple of 4";
  if (std::string_view r = needs_tma_strides(p.ldb); !r.empty()) return r;
  // A K-major B's map is 3-D (make_k_major_map): its whole-matrix stride is below 2^40 bytes too.
  if (p.b_k_major && double(p.n) * double(p.ldb) >= 0x1p38)
    return "needs n x ldb < 2^38 for a K-major B (TMA strides)";
  // A batch's B is one 3-D map: its matrices 16-byte aligned, their stride below 2^40 bytes.
  if (p.batch > 1 && (p.stride_b % 4 != 0 || p.stride_b >= (std::int64_t(1) << 38)))
    return "needs B's matrix stride a multiple of 4 below 2^38 in a batch";
  if (std::string_view r = tf32_why_not(p); !r.empty()) return r;
  return needs_grid(tile_count(p, kMinRows), 1);
}

template <Tf32Mode kMode>
std::size_t workspace_bytes(const Canonical& p, const Device& device, const KernelEntry*) {
  const std::int64_t k_tiles = round_up(p.k, kPackTileK) / kBK;
  const int rows = tile_rows<kMode>(p, device.sms);
  const std::int64_t tail = tail_tiles(tile_count(p, rows), k_tiles, device.sms, kTailCosts<kMode>);
  return tf32_workspace_bytes(p, kMode, kDirect,
                              tail_workspace_bytes(tail, device.sms, kTailSlotFloats(rows)));
}

template <Tf32Mode kMode>
cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  return tf32_gemm(p, kMode, launch_tiles<kMode>, args, kDirect);
}

template <Tf32Mode kMode>
std::string configuration(const Canonical& p, const Device& device) {
  const int rows = tile_rows<kMode>(p, device.sms);
  const std::int64_t tiles = tile_count(p, rows);
  const std::int64_t k_tiles = round_up(p.k, kPackTileK) / kBK;
  return tile_plan_text(tiles, rows, kBN,
                        tail_tiles(tiles, k_tiles, device.sms, kTailCosts<kMode>));
}

}  // namespace
#endif  // SGEMM_HAS_SM90A

SGEMM_KERNEL_ENTRIES(tensorcore_03_wgmma_rs) {
#ifdef SGEMM_HAS_SM90A
  static const KernelEntry entries[] = {
      {{"tc-03-wgmma-rs-tf32x3", Track::TensorCore, 3,
        "wgmma with B^T split into TF32 parts in registers (no B packing); 3xTF32",
        Math::Fp32Tf32x3, "tensor-core track, rung 03",
        "compute capability 9.0 (sm_90a); N-major B, 16-byte aligned", Unit::Tf32Tensor},
       why_not<Tf32Mode::Tf32x3>, launch<Tf32Mode::Tf32x3>, workspace_bytes<Tf32Mode::Tf32x3>,
       /*accepts_run_if=*/true, /*needs_handoff=*/false, /*batched=*/true,
       configuration<Tf32Mode::Tf32x3>},
      {{"tc-03-wgmma-rs-tf32", Track::TensorCore, 3,
        "wgmma with B^T rounded to TF32 in registers (no packing when A is K-major)", Math::Tf32,
        "tensor-core track, rung 03",
        "compute capability 9.0 (sm_90a); N-major B, 16-byte aligned", Unit::Tf32Tensor},
       why_not<Tf32Mode::Tf32>, launch<Tf32Mode::Tf32>, workspace_bytes<Tf32Mode::Tf32>,
       /*accepts_run_if=*/true, /*needs_handoff=*/false, /*batched=*/true,
       configuration<Tf32Mode::Tf32>},
  };
  return entries;
#else
  return {};
#endif
}

}  // namespace sgemm::detail
