// Host side of the tail split (tail_split.cuh).
#include <climits>
#include <string>

#include "kernels/pipeline/tail_split.cuh"

namespace sgemm::detail {

std::int64_t tail_tiles(std::int64_t tiles, std::int64_t k_tiles, int blocks, TailCosts costs) {
  const std::int64_t r = tiles % blocks;
  if (r == 0 || r * k_tiles > INT_MAX / 2) return 0;  // tail_piece's ints, with room for one range
  const double saved = double(k_tiles) * double(blocks - r) / blocks;
  const double spent = costs.fixed + (tiles > blocks ? costs.after_whole : 0.0);
  return saved > spent ? r : 0;
}

std::string tile_plan_text(std::int64_t tiles, int rows, int cols, std::int64_t tail) {
  std::string text = std::to_string(tiles) + (tiles == 1 ? " block tile of " : " block tiles of ") +
                     std::to_string(rows) + " x " + std::to_string(cols);
  if (tail > 0) text += ", " + std::to_string(tail) + " of them cut along k over all SMs";
  return text;
}

std::size_t tail_workspace_bytes(std::int64_t tail_tiles, int blocks, std::int64_t slot_floats) {
  if (tail_tiles == 0) return 0;
  return Workspace::rounded(std::size_t(2 * blocks * slot_floats) * sizeof(float)) +
         Workspace::rounded(std::size_t(tail_tiles) * sizeof(int));
}

cudaError_t take_tail_workspace(TailSplit& tail, int blocks, std::int64_t k_tiles,
                                std::int64_t slot_floats, Workspace& workspace,
                                cudaStream_t stream, bool completing) {
  tail.range = int((tail.tiles * k_tiles + blocks - 1) / blocks);
  tail.slots = workspace.take<float>(2 * blocks * slot_floats);
  tail.summed = workspace.take<int>(tail.tiles);
  if (tail.slots == nullptr || tail.summed == nullptr) return cudaErrorMemoryAllocation;
  // 0xc0c0c0c0 = -1061109568: with k_tiles < 2^30 added, a count never reaches k_tiles.
  return cudaMemsetAsync(tail.summed, completing ? 0 : 0xc0, tail.tiles * sizeof(int), stream);
}

}  // namespace sgemm::detail
