// Rung 15's tile (15_batched_small.cu), host code only, so that `auto`'s rules (dispatch/) see
// the tile a call runs on: the smallest of 16, 32 and 64 on a side that covers the matrix, or 64.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/kernel.hpp"

namespace sgemm::detail {

inline constexpr int kRung15MaxTile = 64;

inline int rung15_tile(const Canonical& p) {
  const std::int64_t side = std::max(p.m, p.n);
  return side <= 16 ? 16 : side <= 32 ? 32 : kRung15MaxTile;
}

// Tiles of one matrix.
inline std::int64_t rung15_tile_count(const Canonical& p) {
  const int tile = rung15_tile(p);
  return ceil_div(p.m, tile) * ceil_div(p.n, tile);
}

}  // namespace sgemm::detail
