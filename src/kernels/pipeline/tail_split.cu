// Host side of the tail split (tail_split.cuh).
#include <climits>

#include "kernels/pipeline/tail_split.cuh"
#include "runtime/workspace.hpp"

namespace sgemm::detail {

std::int64_t tail_tiles(std::int64_t tiles, std::int64_t k_tiles, int blocks, TailCosts costs) {
  const std::int64_t r = tiles % blocks;
  if (r == 0 || r * k_tiles > INT_MAX / 2) return 0;  // tail_piece's ints, with room for one range
  const double saved = double(k_tiles) * double(blocks - r) / blocks;
  const double spent = costs.fixed + (tiles > blocks ? costs.after_whole : 0.0);
  return saved > spent ? r : 0;
}

cudaError_t take_tail_workspace(TailSplit& tail, int blocks, std::int64_t k_tiles,
                                std::int64_t slot_floats, cudaStream_t stream, void** workspace,
                                bool completing) {
  tail.range = int((tail.tiles * k_tiles + blocks - 1) / blocks);
  cudaMemPool_t pool;
  if (cudaError_t err = workspace_pool(&pool); err != cudaSuccess) return err;
  const std::int64_t slot_bytes = 2 * blocks * slot_floats * std::int64_t(sizeof(float));
  const std::int64_t bytes = slot_bytes + tail.tiles * std::int64_t(sizeof(int));
  if (cudaError_t err = cudaMallocFromPoolAsync(workspace, std::size_t(bytes), pool, stream);
      err != cudaSuccess)
    return err;
  tail.slots = static_cast<float*>(*workspace);
  tail.summed = reinterpret_cast<int*>(static_cast<char*>(*workspace) + slot_bytes);
  // 0xc0c0c0c0 = -1061109568: with k_tiles < 2^30 added, a count never reaches k_tiles.
  if (cudaError_t err = cudaMemsetAsync(tail.summed, completing ? 0 : 0xc0,
                                        tail.tiles * sizeof(int), stream);
      err != cudaSuccess) {
    cudaFreeAsync(*workspace, stream);
    *workspace = nullptr;
    return err;
  }
  return cudaSuccess;
}

}  // namespace sgemm::detail
