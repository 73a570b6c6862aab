// A persistent grid's tile schedule with a split last round: Stream-K's "data-parallel + one
// split round" hybrid (Osama, Merrill, Cecka, Garland and Owens, "Stream-K: Work-centric
// Parallel Decomposition for Dense Matrix-Matrix Multiplication on the GPU", PPoPP 2023).
//
// T output tiles on G resident blocks take ceil(T / G) rounds of one tile each. When T % G is
// small, the last round keeps a few SMs busy for a whole tile while the others idle: 8192³ in
// 128 x 128 tiles on 132 SMs is 31 full rounds and a round of 4 tiles, 3% of the kernel. Here
// the first T - T % G tiles are computed whole, block b taking tiles b, b + G, ... as before;
// then the k-tiles of the remaining T % G tiles, laid end to end, are dealt out over all G
// blocks in equal contiguous ranges. A range shorter than a tile (it always is: T % G < G)
// covers the end of one tile and the start of the next.
//
// A block that computed only part of a tile writes its partial sum to its own workspace slot
// and counts itself in on the tile; the block that counts in last adds all of the tile's
// partials in block order — so the result does not depend on which block came last — and
// stores the tile. No block waits for another.
#pragma once

#include <cstdint>

// The schedule is plain arithmetic, shared by host code (plan, the host tests) and the kernels.
#ifdef __CUDACC__
#define SGEMM_STREAM_K_FN __host__ __device__
#else
#define SGEMM_STREAM_K_FN
#endif

namespace sgemm::detail {

// One piece of work: k-tiles [k_begin, k_end) of output tile `tile` (in the grouped order).
struct WorkUnit {
  std::int64_t tile;
  int k_begin, k_end;
};

struct StreamK {
  std::int64_t dp_tiles;  // tiles computed whole: 0 .. dp_tiles - 1
  std::int64_t sk_iters;  // k-tiles of tiles dp_tiles .. T - 1, dealt out over the blocks
  int k_tiles;            // k-tiles per output tile
  int blocks;             // the persistent grid
  float* partials;        // 2 slots per block, each the partial sum of one tile
  int* arrivals;          // per split tile: blocks counted in so far, zero at launch

  // Whether to split the last round: only when the idle time it saves (the idle blocks' share
  // of a tile) outweighs writing and re-reading the partial sums, which costs about as much as
  // kSplitCostKTiles k-tiles of work per block (a 256 x 128 partial in and out of L2 against
  // one k-tile's ~1000 tensor-core clocks).
  static constexpr int kSplitCostKTiles = 16;
  static StreamK plan(std::int64_t tiles, int k_tiles, int blocks) {
    const std::int64_t rem = tiles % blocks;
    const bool split = rem > 0 && tiles >= blocks &&
                       (blocks - rem) * std::int64_t(k_tiles) >= kSplitCostKTiles * blocks;
    return {split ? tiles - rem : tiles, split ? rem * k_tiles : 0, k_tiles, blocks, nullptr,
            nullptr};
  }
  std::int64_t split_tiles() const { return sk_iters / (k_tiles > 0 ? k_tiles : 1); }

  // Split k-tile i (0 .. sk_iters - 1) belongs to block b where b * sk / G <= i < (b + 1) * sk / G.
  // With fewer split k-tiles than blocks some ranges are empty; those blocks own nothing.
  SGEMM_STREAM_K_FN std::int64_t range_begin(int b) const { return b * sk_iters / blocks; }
  SGEMM_STREAM_K_FN bool has_range(int b) const { return range_begin(b) < range_begin(b + 1); }
  SGEMM_STREAM_K_FN int owner(std::int64_t i) const {
    return int(((i + 1) * blocks - 1) / sk_iters);
  }
  // Block b's j-th unit (j = 0, 1, ...): its whole tiles, then the one or two pieces of its
  // range. False past the last. A function of (b, j) alone, so that a kernel keeps one counter
  // live across its main loop rather than a cursor.
  SGEMM_STREAM_K_FN bool unit(int b, int j, WorkUnit& u) const {
    const int whole = dp_tiles > b ? int((dp_tiles - b + blocks - 1) / blocks) : 0;
    if (j < whole) {
      u = {b + std::int64_t(j) * blocks, 0, k_tiles};
      return true;
    }
    if (j > whole + 1) return false;
    std::int64_t pos = range_begin(b);
    const std::int64_t end = range_begin(b + 1);
    if (j == whole + 1) pos = (pos / k_tiles + 1) * k_tiles;  // the piece in the next tile
    if (pos >= end) return false;
    const int k_begin = int(pos % k_tiles);
    const std::int64_t left = end - pos;
    u = {dp_tiles + pos / k_tiles, k_begin, left < k_tiles - k_begin ? int(k_begin + left) : k_tiles};
    return true;
  }
  // Block b's partial of split tile t (0-based among the split tiles): slot 0 for the tile its
  // range starts in, slot 1 for the next one.
  SGEMM_STREAM_K_FN std::int64_t slot(int b, std::int64_t t) const {
    return 2 * std::int64_t(b) + (t == range_begin(b) / k_tiles ? 0 : 1);
  }
};

#ifdef __CUDACC__
// The fixup of a unit that covers part of its tile, run by the `threads` threads that hold the
// accumulators (thread `t` holds acc, the same floats in every block); `sync` is a barrier over
// exactly those threads and `last` a shared word. Returns true in the block that counted in
// last, with acc replaced by the tile's whole sum (the partials added in block order); the
// caller then stores the tile.
template <int kAccs, typename Sync>
__device__ bool stream_k_fixup(const StreamK& s, const WorkUnit& u, float (&acc)[kAccs], int t,
                               int threads, Sync sync, volatile int* last) {
  const std::int64_t split_tile = u.tile - s.dp_tiles;
  const std::int64_t slot_floats = std::int64_t(kAccs) * threads;
  const int b = blockIdx.x;
  float* mine = s.partials + s.slot(b, split_tile) * slot_floats;
#pragma unroll
  for (int i = 0; i < kAccs; ++i) __stcg(mine + i * threads + t, acc[i]);
  __threadfence();  // this thread's partial is visible device-wide before the count
  sync();
  const int first = s.owner(split_tile * s.k_tiles);
  const int final_owner = s.owner((split_tile + 1) * s.k_tiles - 1);
  int owners = 0;
  for (int c = first; c <= final_owner; ++c) owners += s.has_range(c);
  if (t == 0) *last = atomicAdd(s.arrivals + split_tile, 1) == owners - 1;
  sync();
  if (!*last) return false;
  __threadfence();  // the other blocks' partials, counted in before us, are visible
  // Every owner's partial, this block's included, from the workspace in block order; a batch
  // of accumulators at a time, so that only a batch of loads is in flight beside acc.
  constexpr int kBatch = 16;
  static_assert(kAccs % kBatch == 0);
#pragma unroll
  for (int i = 0; i < kAccs; i += kBatch) {
    for (int c = first; c <= final_owner; ++c) {
      if (!s.has_range(c)) continue;
      const float* part = s.partials + s.slot(c, split_tile) * slot_floats + i * threads + t;
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const float x = __ldcg(part + j * threads);
        acc[i + j] = c == first ? x : acc[i + j] + x;
      }
    }
  }
  return true;
}
#endif  // __CUDACC__

}  // namespace sgemm::detail
