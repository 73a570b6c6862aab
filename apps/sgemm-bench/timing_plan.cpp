#include "timing_plan.hpp"

#include <algorithm>
#include <cmath>

namespace sgemm::bench {

TimingPlan plan_timing(const BenchOptions& o, double run_ms) {
  // The event timer resolves ~0.5 us; a run reported faster than 1 us is sized as 1 us.
  run_ms = std::max(run_ms, 1e-3);
  const double budget_ms = o.budget_s * 1e3;
  TimingPlan plan;
  plan.warmup = std::max({1, o.warmup, int(std::min(std::ceil(o.warmup_ms / run_ms), 1e9))});
  plan.reps = o.reps;
  if (run_ms * (plan.warmup + plan.reps) <= budget_ms) return plan;
  // Too slow for the budget: time as many runs as it holds, at least 10, and warm up in what is
  // left of it (at least the sizing run; the verification run warmed it up too); time nothing
  // when even 10 runs would take 4 budgets.
  const double runs_in_budget = std::floor(budget_ms / run_ms);
  plan.cut = true;
  plan.reps = int(std::clamp(runs_in_budget, 10.0, double(o.reps)));
  plan.warmup = int(std::clamp(runs_in_budget - plan.reps, 1.0, double(plan.warmup)));
  if (run_ms * plan.reps > 4 * budget_ms) plan.reps = 0;
  return plan;
}

}  // namespace sgemm::bench
