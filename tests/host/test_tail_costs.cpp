// The tail split's cost model (kernels/pipeline/tail_costs.hpp): which calls cut their last round.
#include <gtest/gtest.h>

#include <climits>

#include "kernels/pipeline/tail_costs.hpp"

namespace {

using sgemm::detail::tail_tiles;
using sgemm::detail::TailCosts;

constexpr int kSms = 132;
constexpr TailCosts kCosts{11.0, 11.0};  // rung 13's, in its 8-deep k-tiles

TEST(TailCosts, FullRoundsHaveNoTail) {
  EXPECT_EQ(tail_tiles(2 * kSms, 4096, kSms, kCosts), 0);
  EXPECT_EQ(tail_tiles(kSms, 4096, kSms, kCosts), 0);
}

TEST(TailCosts, AloneTheSplitPaysOnlyItsFixedCost) {
  // 8 tiles: the split saves k_tiles * 124 / 132.
  EXPECT_EQ(tail_tiles(8, 16, kSms, kCosts), 8);  // 15.0 saved > 11
  EXPECT_EQ(tail_tiles(8, 11, kSms, kCosts), 0);  // 10.3 saved
  EXPECT_EQ(tail_tiles(1, 8192, kSms, kCosts), 1);
}

TEST(TailCosts, AfterWholeTilesTheSplitPaysBoth) {
  // 512 tiles (4096² in 128 x 256 tiles): 116 in the last round, saving k_tiles * 16 / 132.
  EXPECT_EQ(tail_tiles(512, 128, kSms, kCosts), 0);    // 4096 x 4096 x 1024: 15.5 saved < 22
  EXPECT_EQ(tail_tiles(512, 512, kSms, kCosts), 116);  // 4096³: 62 saved
  // The same 116 tiles as the whole call: after_whole does not apply, and 15.5 saved pays.
  EXPECT_EQ(tail_tiles(116, 128, kSms, TailCosts{11.0, 1e9}), 116);
}

TEST(TailCosts, TooManyKTilesForTheTailKernelsInts) {
  EXPECT_EQ(tail_tiles(100, INT_MAX / 100, kSms, kCosts), 0);
}

}  // namespace
