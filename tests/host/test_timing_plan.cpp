// The bench's timing plan: how many warm-up and timed runs a kernel gets.
#include <gtest/gtest.h>

#include "timing_plan.hpp"

namespace sgemm::bench {
namespace {

BenchOptions options(std::vector<std::string> args) { return parse_cli(args); }

TEST(TimingPlan, DefaultsAreTheAskedCounts) {
  const TimingPlan p = plan_timing(options({}), 1.0);
  EXPECT_EQ(p.warmup, 3);
  EXPECT_EQ(p.reps, 20);
  EXPECT_FALSE(p.cut);
}

// Sized from a warm run: cuBLAS SGEMM at 8192³ (~21.6 ms a call) keeps its 400 runs, whatever
// its first call cost (a plan sized from that first call once timed only 10 of them).
TEST(TimingPlan, ManyRepsOfASlowishKernelFitTheBudget) {
  const TimingPlan p = plan_timing(options({"--reps", "400"}), 21.6);
  EXPECT_EQ(p.reps, 400);
  EXPECT_EQ(p.warmup, 3);
  EXPECT_FALSE(p.cut);
}

TEST(TimingPlan, WarmupMsAddsRunsUntilThatMuchTimeHasPassed) {
  EXPECT_EQ(plan_timing(options({"--warmup-ms", "2000"}), 8.7).warmup, 230);  // ceil(229.9)
  EXPECT_EQ(plan_timing(options({"--warmup-ms", "2000"}), 1000.0).warmup, 3);  // the count holds
  EXPECT_EQ(plan_timing(options({"--warmup-ms", "1", "--warmup", "0"}), 0.0).warmup, 1000);  // >= 1 us a run
  EXPECT_FALSE(plan_timing(options({"--warmup-ms", "2000"}), 8.7).cut);
  EXPECT_EQ(plan_timing(options({"--warmup", "0"}), 1.0).warmup, 1);  // the sizing run is made anyway
}

TEST(TimingPlan, TheBudgetCutsTimedRunsToWhatFitsButNotBelowTen) {
  const BenchOptions o = options({"--budget", "30"});
  TimingPlan p = plan_timing(o, 2000.0);  // 23 runs of 2 s > 30 s: 15 fit
  EXPECT_TRUE(p.cut);
  EXPECT_EQ(p.warmup, 1);  // the sizing run
  EXPECT_EQ(p.reps, 15);
  p = plan_timing(o, 10000.0);  // 3 fit; the minimum of 10 is within 4 budgets
  EXPECT_TRUE(p.cut);
  EXPECT_EQ(p.reps, 10);
  p = plan_timing(o, 13000.0);  // 10 runs would take 130 s > 4 x 30: not timed
  EXPECT_TRUE(p.cut);
  EXPECT_EQ(p.reps, 0);
  // A long warm-up counts against the budget too, and keeps what is left of it.
  p = plan_timing(options({"--warmup-ms", "29990"}), 1.0);
  EXPECT_TRUE(p.cut);
  EXPECT_EQ(p.reps, 20);
  EXPECT_EQ(p.warmup, 29980);
}

}  // namespace
}  // namespace sgemm::bench
