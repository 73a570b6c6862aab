// Stream-K for a persistent kernel's last round (simt rung 13, tensor-core rung 03).
//
// T tiles on G blocks leave R = T mod G tiles for a last round that idles the other G - R SMs.
// The whole-tile kernel stops before them; then a tail kernel cuts their R * k_tiles k-tiles into
// G equal ranges, one per block. A range meets at most two tiles: its pieces. Each piece's sums go
// to the block's slot in a workspace, and the block whose piece completes a tile's k-tiles (an
// atomic count) adds the tile's slots in k order and stores the tile: no block waits for another,
// and the result does not depend on timing. A separate kernel, because a second k-loop in the
// whole-tile kernel made ptxas assign that loop's registers worse (docs/experiments.md).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/arch/hopper.cuh"
#include "kernels/pipeline/tail_costs.hpp"
#include "runtime/workspace.hpp"

namespace sgemm::detail {

// The tail kernel's share: the last `tiles` tiles of the kernel's order.
struct TailSplit {
  int tiles;      // R < gridDim.x, with R * k_tiles <= 2^30
  int range;      // k-tiles per block: ceil(R * k_tiles / gridDim.x) <= k_tiles
  float* slots;   // two partial tiles per block (its range meets at most two tiles)
  int* summed;    // per tail tile: k-tiles whose sums are in slots (zero at launch)
};

// Piece `i` (0 or 1) of this block's range of the tail's k-tiles: k-tiles [k_begin, k_end) of
// tail tile `tile`. Integer adds and compares only, so that the values stay warp-uniform. A block
// runs piece 1 (the start of the next tile, from k = 0) before piece 0 (the end of its first
// tile): the blocks then move through k together and share the slices of A and B they read in L2
// (in range order, ncu at 4096³ on an H100: rung 13's tail had an L2 hit rate of 31%, the whole
// tiles 84%).
__device__ __forceinline__ bool tail_piece(const TailSplit& tail, int k_tiles, int i, int& tile,
                                           int& k_begin, int& k_end) {
  const int total = tail.tiles * k_tiles, begin = int(blockIdx.x) * tail.range;
  const int length = min(begin + tail.range, total) - begin;
  if (length <= 0) return false;
  int t = 0, k0 = begin;
  while (k0 >= k_tiles) k0 -= k_tiles, ++t;  // begin / k_tiles, at most R steps
  if (i == 0) {
    tile = t, k_begin = k0, k_end = min(k0 + length, k_tiles);
    return true;
  }
  if (k0 + length <= k_tiles) return false;
  tile = t + 1, k_begin = 0, k_end = k0 + length - k_tiles;
  return true;
}

// Calls piece(i, tile, k_begin, k_end) for each of this block's pieces, in the order above.
template <class Piece>
__device__ __forceinline__ void for_each_tail_piece(const TailSplit& tail, int k_tiles,
                                                    Piece&& piece) {
  int tile, k_begin, k_end;
  for (int i = 1; i >= 0; --i)
    if (tail_piece(tail, k_tiles, i, tile, k_begin, k_end)) piece(i, tile, k_begin, k_end);
}

// The slots that hold sums of tail tile `tile` belong to blocks first .. end - 1 (in k order), the
// blocks whose ranges meet the tile; in block b's slots the tile is piece 1 when b's range starts
// before the tile, else piece 0. tail_slot is the first float of block b's slot for the tile.
__device__ __forceinline__ void tail_slot_blocks(const TailSplit& tail, int k_tiles, int tile,
                                                 int& first, int& end) {
  first = tile * k_tiles / tail.range;
  end = (tile * k_tiles + k_tiles + tail.range - 1) / tail.range;
}
__device__ __forceinline__ const float* tail_slot(const TailSplit& tail, int k_tiles, int tile,
                                                  int block, std::int64_t slot_floats) {
  const int piece = block * tail.range < tile * k_tiles ? 1 : 0;
  return tail.slots + (2 * std::int64_t(block) + piece) * slot_floats;
}

// Slot float x of tail tile `tile` summed over the tile's slots in k order, as sum_tail_tile adds
// them (the same sum, bit for bit), with kTailSumBatch loads in flight: the body of a kernel that
// sums a tail of many slots per tile on all SMs (kSeparateSumSlots below).
constexpr int kTailSumBatch = 8, kTailSumThreads = 256;  // loads in flight; such a kernel's block
__device__ __forceinline__ float sum_tail_float(const TailSplit& tail, int k_tiles, int tile,
                                                std::int64_t slot_floats, int x) {
  int first, end;
  tail_slot_blocks(tail, k_tiles, tile, first, end);
  float sum = 0.0f;
  for (int b0 = first; b0 < end; b0 += kTailSumBatch) {
    float v[kTailSumBatch];
#pragma unroll
    for (int b = 0; b < kTailSumBatch; ++b)
      if (b0 + b < end) v[b] = __ldcg(tail_slot(tail, k_tiles, tile, b0 + b, slot_floats) + x);
#pragma unroll
    for (int b = 0; b < kTailSumBatch; ++b)
      if (b0 + b < end) sum += v[b];
  }
  return sum;
}

// Calls slot(p) for each slot that holds sums of tail tile `tile`, p = its first float, in k order.
template <class Slot>
__device__ __forceinline__ void for_each_tail_slot(const TailSplit& tail, int k_tiles, int tile,
                                                   std::int64_t slot_floats, Slot&& slot) {
  int first, end;
  tail_slot_blocks(tail, k_tiles, tile, first, end);
  for (int block = first; block < end; ++block)
    slot(tail_slot(tail, k_tiles, tile, block, slot_floats));
}

// Piece `piece` of this block's range covered k_count k-tiles of tail tile `tile`, with sums acc
// in each of the kThreads threads that hold a tile (`thread` = 0 .. kThreads - 1, all of them
// here). Publishes the sums in the block's slot; in the block whose piece completes the tile's
// k-tiles, returns true with acc = the sum of the tile's slots, added in k order. Uses named
// barrier `barrier` of the kThreads threads.
template <int kThreads, int kFloats>
__device__ __forceinline__ bool sum_tail_tile(const TailSplit& tail, int k_tiles, int piece,
                                              int tile, int k_count, float (&acc)[kFloats],
                                              volatile int* last, int thread, int barrier) {
  constexpr std::int64_t kSlotFloats = std::int64_t(kFloats) * kThreads;
  // Thread t keeps acc[e] at float e * kThreads + t of a slot: every warp access is coalesced.
  // One float per store: float4 stores would ask for acc in aligned register quads through the
  // k-loop, and rung 13's loop, scheduled under that constraint, took more registers and more
  // bank clashes, and spilled (docs/experiments.md, section 5).
  float* slot = tail.slots + (2 * std::int64_t(blockIdx.x) + piece) * kSlotFloats + thread;
#pragma unroll
  for (int e = 0; e < kFloats; ++e) __stcg(slot + e * kThreads, acc[e]);
  __threadfence();  // the sums are visible to the GPU before the count says so
  named_barrier(barrier, kThreads);
  if (thread == 0) *last = atomicAdd(tail.summed + tile, k_count) + k_count == k_tiles;
  named_barrier(barrier, kThreads);
  if (!*last) return false;
  __threadfence();
#pragma unroll
  for (int e = 0; e < kFloats; ++e) acc[e] = 0.0f;
  for_each_tail_slot(tail, k_tiles, tile, kSlotFloats, [&](const float* slot) {
    const float* src = slot + thread;
#pragma unroll
    for (int e = 0; e < kFloats; ++e) {
      // 16 loads at a time: left free, the compiler would hold them all.
      if (e % 16 == 0) asm volatile("" ::: "memory");
      acc[e] += __ldcg(src + e * kThreads);
    }
  });
  return true;
}

// The workspace a tail of `tail_tiles` tiles takes on `blocks` blocks: two slots of slot_floats
// floats per block, then one counter per tail tile.
std::size_t tail_workspace_bytes(std::int64_t tail_tiles, int blocks, std::int64_t slot_floats);

// Sets tail.range, takes the workspace for `tail` (as tail_workspace_bytes counts it) and sets
// the counters on `stream`: to zero, or (completing = false) to where no piece's count completes
// a tile, so that every block only publishes its sums and a separate kernel adds them.
cudaError_t take_tail_workspace(TailSplit& tail, int blocks, std::int64_t k_tiles,
                                std::int64_t slot_floats, Workspace& workspace,
                                cudaStream_t stream, bool completing = true);

// A tail tile's sums lie in ~blocks / R + 1 slots. From this many on, the completing block's
// read-back (one SM reading every slot) costs more than a kernel that adds them on every SM: a
// kernel given `sum` takes that kernel from here on (rung 13 on an H200: 128 x 128 x 65536 took
// 0.102 ms instead of 0.240).
constexpr int kSeparateSumSlots = 8;
struct NoSeparateSum {};

// Runs a persistent kernel pair over `tiles` tiles of k_tiles k-tiles on `sms` SMs:
// launch(false, blocks, tail) for the whole tiles, then launch(true, sms, tail) for the tail when
// tail_tiles cuts one off. `launch` launches and returns the launch's error; slot_floats is one
// tile's partial sums. The tail's workspace (tail_workspace_bytes of the same tail_tiles) is
// taken before the first launch, so that a short workspace leaves C untouched.
// With `sum` (not NoSeparateSum), tails of at least kSeparateSumSlots slots per tile leave their
// sums to sum(tail), launched after the tail kernel.
template <class Launch, class Sum = NoSeparateSum>
cudaError_t launch_with_tail(std::int64_t tiles, std::int64_t k_tiles, int sms, TailCosts costs,
                             std::int64_t slot_floats, Workspace& workspace, cudaStream_t stream,
                             Launch&& launch, Sum&& sum = {}) {
  TailSplit tail{int(tail_tiles(tiles, k_tiles, sms, costs)), 0, nullptr, nullptr};
  constexpr bool kCanSum = !std::is_same_v<std::decay_t<Sum>, NoSeparateSum>;
  const bool separate = kCanSum && tail.tiles > 0 && sms / tail.tiles + 1 >= kSeparateSumSlots;
  if (tail.tiles > 0)
    if (cudaError_t err = take_tail_workspace(tail, sms, k_tiles, slot_floats, workspace, stream,
                                              !separate);
        err != cudaSuccess)
      return err;
  cudaError_t err = cudaSuccess;
  if (const std::int64_t whole = tiles - tail.tiles; whole > 0)
    err = launch(false, unsigned(whole < sms ? whole : sms), tail);
  if (err == cudaSuccess && tail.tiles > 0) err = launch(true, unsigned(sms), tail);
  if constexpr (kCanSum)
    if (err == cudaSuccess && separate) err = sum(tail);
  return err;
}

}  // namespace sgemm::detail
