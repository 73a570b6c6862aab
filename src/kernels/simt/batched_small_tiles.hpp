// Rung 15's tile (15_batched_small.cu), host code only, so that `auto`'s rules (dispatch/) see
// the tile a call runs on: the smallest of 16, 32 and 64 on a side that covers the matrix, or 64;
// 16 for a single call with a short k.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/kernel.hpp"

namespace sgemm::detail {

inline constexpr int kRung15MaxTile = 64;
// A single call of at most this k runs on 16-wide tiles, whatever its size: there a launch and
// one pass over k are the cost, and the most blocks finish first. Measured on an H200, 16-wide
// against the tile covering the matrix: 64³ 6.1 against 7.5 us, 32 x 64 x 128 8.4 against 10.3;
// against rung 10's tiles in ranges of k and split_sum: 128³ 8.4 against 11.4, 192³ 11.0 against
// 13.2, 512 x 512 x 128 10.7 against 13.3. With k = 256 they lost (128 x 128 x 256 13.1 against
// 12.4, 256³ 13.4 against 12.8).
inline constexpr std::int64_t kRung15ShortK = 192;

inline int rung15_tile(const Canonical& p) {
  if (p.batch == 1 && p.k <= kRung15ShortK) return 16;
  const std::int64_t side = std::max(p.m, p.n);
  return side <= 16 ? 16 : side <= 32 ? 32 : kRung15MaxTile;
}

// Tiles of one matrix.
inline std::int64_t rung15_tile_count(const Canonical& p) {
  const int tile = rung15_tile(p);
  return ceil_div(p.m, tile) * ceil_div(p.n, tile);
}

}  // namespace sgemm::detail
