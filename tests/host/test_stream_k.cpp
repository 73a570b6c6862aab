// The split-last-round schedule of the persistent tensor-core rungs (kernels/common/stream_k.cuh)
// is plain arithmetic: check on the host that every (tile, k-tile) is computed exactly once and
// that the fixup's view of who owns a split tile matches the units the blocks actually run.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "kernels/common/stream_k.cuh"

namespace sgemm::detail {
namespace {

// Runs every block's units and checks coverage and ownership; returns the number of units.
std::int64_t check_schedule(const StreamK& s, std::int64_t tiles) {
  std::vector<int> covered(std::size_t(tiles * s.k_tiles), 0);
  std::map<std::int64_t, std::set<int>> pieces;  // split tile -> blocks with a piece of it
  std::int64_t units = 0;
  for (int b = 0; b < s.blocks; ++b) {
    WorkUnit u;
    for (int j = 0; s.unit(b, j, u); ++j, ++units) {
      EXPECT_LE(0, u.k_begin);
      EXPECT_LT(u.k_begin, u.k_end);
      EXPECT_LE(u.k_end, s.k_tiles);
      EXPECT_LT(u.tile, tiles);
      if (u.tile < s.dp_tiles) {
        EXPECT_EQ(u.k_begin, 0);
        EXPECT_EQ(u.k_end, s.k_tiles);
      } else if (u.k_begin != 0 || u.k_end != s.k_tiles) {
        EXPECT_TRUE(pieces[u.tile - s.dp_tiles].insert(b).second) << "two pieces of one tile";
      }
      for (int k = u.k_begin; k < u.k_end; ++k) ++covered[std::size_t(u.tile * s.k_tiles + k)];
    }
  }
  for (std::size_t i = 0; i < covered.size(); ++i)
    EXPECT_EQ(covered[i], 1) << "tile " << i / s.k_tiles << " k-tile " << i % s.k_tiles;
  // The fixup counts owners from owner() and has_range(); each owner has its own slot.
  std::set<std::int64_t> slots;
  for (const auto& [t, blocks] : pieces) {
    std::set<int> owners;
    for (int c = s.owner(t * s.k_tiles); c <= s.owner((t + 1) * s.k_tiles - 1); ++c)
      if (s.has_range(c)) owners.insert(c);
    EXPECT_EQ(owners, blocks) << "split tile " << t;
    for (int c : owners) {
      const std::int64_t slot = s.slot(c, t);
      EXPECT_LT(slot, 2 * std::int64_t(s.blocks));
      EXPECT_TRUE(slots.insert(slot).second) << "slot " << slot << " used twice";
    }
  }
  return units;
}

TEST(StreamK, PlanSplitsOnlyWhenItPays) {
  // 8192³ on 132 SMs: 3xTF32 (128 x 128 tiles) 31 rounds + 4 tiles; Tf32 (256 x 128) 15 + 68.
  StreamK s = StreamK::plan(4096, 256, 132);
  EXPECT_EQ(s.dp_tiles, 4092);
  EXPECT_EQ(s.sk_iters, 4 * 256);
  s = StreamK::plan(2048, 256, 132);
  EXPECT_EQ(s.dp_tiles, 1980);
  // 4096³ Tf32: 3 rounds + 116 tiles of 128 k-tiles: the 16 idle blocks' share is too small.
  EXPECT_EQ(StreamK::plan(512, 128, 132).sk_iters, 0);
  EXPECT_EQ(StreamK::plan(512, 128, 132).dp_tiles, 512);
  // Whole rounds, fewer tiles than blocks, shallow k: nothing to split.
  EXPECT_EQ(StreamK::plan(264, 256, 132).sk_iters, 0);
  EXPECT_EQ(StreamK::plan(100, 256, 100).sk_iters, 0);
  EXPECT_EQ(StreamK::plan(136, 8, 132).sk_iters, 0);
}

TEST(StreamK, PlannedSchedulesCoverEveryKTileOnce) {
  for (auto [tiles, k_tiles] : std::vector<std::pair<std::int64_t, int>>{
           {4096, 256}, {2048, 256}, {1024, 128}, {136, 32}, {136, 125}, {272, 125}, {512, 128}}) {
    const StreamK s = StreamK::plan(tiles, k_tiles, 132);
    check_schedule(s, tiles);
  }
}

// Every remainder, including ranges shorter than a k-tile (empty ranges) and longer than half a
// tile, on grids of several sizes, split whether or not plan() would.
TEST(StreamK, ForcedSplitsCoverEveryKTileOnce) {
  for (int blocks : {1, 3, 7, 132})
    for (int k_tiles : {1, 2, 3, 5, 32, 125})
      for (std::int64_t rem = 1; rem < blocks; rem += blocks / 7 + 1) {
        const std::int64_t tiles = 2 * blocks + rem;
        const StreamK s{tiles - rem, rem * k_tiles, k_tiles, blocks, nullptr, nullptr};
        check_schedule(s, tiles);
        if (HasFailure()) return;
      }
}

}  // namespace
}  // namespace sgemm::detail
