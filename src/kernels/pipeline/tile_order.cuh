// The order in which blocks (or the rounds of a persistent block) walk the tiles of C.
#pragma once

#include <cstdint>

namespace sgemm::detail {

// Output tile (tile_m, tile_n) of the block with linear index `linear`: blocks run down columns
// of tiles within groups of kTileGroupM tile rows, so the blocks resident at one time share
// a few panels of A and B in L2 instead of streaming all of B once per tile row. With 132 SMs
// a wave covers 8 x 16.5 tiles, which fetches the fewest A and B bytes per k-tile when an A
// tile row weighs twice a B tile column (as in tc-03); measured with ncu on an H200 (at 8192³
// half the DRAM traffic of 16 rows, and a higher clock under the power limit).
inline constexpr int kTileGroupM = 8;
__device__ __forceinline__ void grouped_tile(std::int64_t linear, std::int64_t tiles_m,
                                             std::int64_t tiles_n, std::int64_t& tile_m,
                                             std::int64_t& tile_n) {
  const std::int64_t per_group = kTileGroupM * tiles_n;
  const std::int64_t first_m = linear / per_group * kTileGroupM;
  const std::int64_t group_rows = tiles_m - first_m < kTileGroupM ? tiles_m - first_m : kTileGroupM;
  const std::int64_t in_group = linear % per_group;
  tile_m = first_m + in_group % group_rows;
  tile_n = in_group / group_rows;
}
// grouped_tile's order over pairs of tiles side by side in one tile row: tiles 2q and 2q + 1 are
// (tile_m, 2j) and (tile_m, 2j + 1), where pair q is tile (tile_m, j) of grouped_tile over
// tiles_n / 2 columns of pairs (tiles_n even). A wave covers the same tiles as grouped_tile's,
// but blocks 2i and 2i + 1 of a persistent grid then share their A tile instead of their B tile.
__device__ __forceinline__ void paired_tile(std::int64_t linear, std::int64_t tiles_m,
                                            std::int64_t tiles_n, std::int64_t& tile_m,
                                            std::int64_t& tile_n) {
  std::int64_t pair_n;
  grouped_tile(linear / 2, tiles_m, tiles_n / 2, tile_m, pair_n);
  tile_n = 2 * pair_n + linear % 2;
}

}  // namespace sgemm::detail
