// How many untimed and timed runs the bench gives one kernel at one shape. Host-only, so that CI
// can test it.
#pragma once

#include "cli.hpp"

namespace sgemm::bench {

struct TimingPlan {
  int warmup = 1;      // untimed runs before the timed ones, the sizing run included (>= 1)
  int reps = 0;        // timed runs; 0: not timed, too slow for --budget
  bool cut = false;    // fewer runs than asked, to stay within --budget
};

// `run_ms` is one warm run's time. It sizes the plan, not the first call: a first call can
// include one-time setup (cuBLAS's heuristics and module loading) many times its run time.
// --warmup-ms adds warm-up runs until that much time has passed, so that a kernel is timed in
// its own steady state (clock and power), not in what the kernels before it left behind.
TimingPlan plan_timing(const BenchOptions& options, double run_ms);

}  // namespace sgemm::bench
