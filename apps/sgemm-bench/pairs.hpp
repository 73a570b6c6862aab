// What the bench's suites (--suite, --batched, --conv-suite) share: timing the library against
// its baseline in alternating pairs, and the per-math summary of the ratios.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sgemm/sgemm.hpp"
#include "timer.hpp"

namespace sgemm::bench {

inline const char* math_flag(Math m) {
  return m == Math::Fp32 ? "fp32" : m == Math::Fp32Tf32x3 ? "tf32x3" : "tf32";
}

inline double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// Medians of `pairs` pairs, each call timed alone with events, the baseline first: the ratio
// (baseline time / ours), which is robust to clock and power drift, and each side's time.
struct PairTimes {
  double ratio = 0, ours_ms = 0, theirs_ms = 0;
};

template <class Theirs, class Ours>
PairTimes time_pairs(Timer& timer, Theirs&& theirs, Ours&& ours, int pairs, bool flush_l2) {
  for (int i = 0; i < 2; ++i) theirs(), ours();  // warm-up
  std::vector<double> ratios, ours_ms, theirs_ms;
  for (int i = 0; i < pairs; ++i) {
    const double t_theirs = timer.time(theirs, flush_l2), t_ours = timer.time(ours, flush_l2);
    theirs_ms.push_back(t_theirs), ours_ms.push_back(t_ours), ratios.push_back(t_theirs / t_ours);
  }
  return {median(ratios), median(ours_ms), median(theirs_ms)};
}

// One call's ratio, for the summary.
struct Ratio {
  Math math;
  double ratio;      // 0 where nothing was timed
  std::string call;  // how the summary names the call
};

// Per math: how many calls, the geometric mean and the worst ratio, and the worst call.
// `calls` and `call` name what was timed ("calls" / "call", "layers" / "layer").
inline void print_means(const std::vector<Ratio>& ratios, const std::vector<Math>& maths,
                        const char* calls, const char* call) {
  std::printf("\n%-7s %6s %10s %10s  worst %s\n", "math", calls, "geomean", "worst", call);
  for (Math math : maths) {
    double log_sum = 0, worst = 1e30;
    int count = 0;
    std::string worst_call;
    for (const Ratio& r : ratios)
      if (r.math == math && r.ratio > 0) {
        log_sum += std::log(r.ratio), ++count;
        if (r.ratio < worst) worst = r.ratio, worst_call = r.call;
      }
    if (count)
      std::printf("%-7s %6d %10.4f %10.4f  %s\n", math_flag(math), count,
                  std::exp(log_sum / count), worst, worst_call.c_str());
  }
}

}  // namespace sgemm::bench
