// Rung 13's block tiles (13_tma.cu), host code only, so that `auto`'s estimates (dispatch/) and
// the host tests see the tile a call runs on.
//
// Its 8 consumer warps each compute a 64 x 64 part of C; the block tile arranges them 2 x 4
// (128 x 256, the shape the rung was tuned on), 4 x 2 (256 x 128), 1 x 8 (64 x 512) or 8 x 1
// (512 x 64). Every arrangement does the same work per k-tile, so a call runs on the one whose
// tiles cover C with the least padding: at most 64 rows fit 64 x 512 tiles, which a 128-row tile
// would leave half empty, and at most 64 columns 512 x 64.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.hpp"

namespace sgemm::detail {

inline constexpr int kRung13WarpRows = 64, kRung13WarpCols = 64, kRung13Warps = 8;

struct Rung13Tile {
  int warps_m;  // consumer warps along m; 8 / warps_m along n
  constexpr int rows() const { return warps_m * kRung13WarpRows; }
  constexpr int cols() const { return kRung13Warps / warps_m * kRung13WarpCols; }
};

// In order of preference where they pad C equally.
inline constexpr std::array<Rung13Tile, 4> kRung13Tiles{{{2}, {4}, {1}, {8}}};

inline Rung13Tile rung13_tile(const Canonical& p) {
  const auto padded = [&](Rung13Tile t) {
    return ceil_div(p.m, t.rows()) * t.rows() * (ceil_div(p.n, t.cols()) * t.cols());
  };
  Rung13Tile best = kRung13Tiles[0];
  for (const Rung13Tile t : kRung13Tiles)
    if (padded(t) < padded(best)) best = t;
  return best;
}

inline std::int64_t rung13_tile_count(const Canonical& p) {
  const Rung13Tile t = rung13_tile(p);
  return ceil_div(p.m, t.rows()) * ceil_div(p.n, t.cols());
}

}  // namespace sgemm::detail
