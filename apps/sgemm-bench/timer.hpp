// The bench's CUDA error check and its event timer, shared by the table and by --tune.
#pragma once

#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "timing_plan.hpp"

namespace sgemm::bench {

struct CudaFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw CudaFailure(std::string(what) + ": " + cudaGetErrorString(err));
}

// A median and the plan it came from.
struct Timing {
  double ms = -1;  // negative when the plan timed nothing
  TimingPlan plan;
};

// measure() times `run` (which enqueues one product on the default stream): the cool-down, if
// any; one event-timed sizing run, which is also the first warm-up run; the rest of the warm-up;
// then the plan's timed runs, each bracketed by events, with L2 flushed first when the working
// set would fit in it.
class Timer {
 public:
  explicit Timer(std::size_t l2_bytes) : flush_bytes_(std::max<std::size_t>(2 * l2_bytes, 64u << 20)) {
    check(cudaMalloc(&flush_, flush_bytes_), "cudaMalloc (L2 flush)");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~Timer() {
    cudaFree(flush_);
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  template <typename Run>
  Timing measure(Run&& run, const char* label, bool flush_l2, const BenchOptions& options) {
    Timing t;
    if (options.cooldown_ms > 0) {  // an idle GPU, so every kernel starts from the same power state
      check(cudaDeviceSynchronize(), "cool-down");
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options.cooldown_ms));
    }
    t.plan = plan_timing(options, time_once(run, false));  // the sizing run: the first warm-up
    for (int i = 1; i < t.plan.warmup; ++i) run();
    check(cudaGetLastError(), "warm-up");
    if (t.plan.reps == 0) return t;
    std::vector<float> times(t.plan.reps);
    nvtxRangePushA(label);
    for (float& ms : times) ms = time_once(run, flush_l2);
    nvtxRangePop();
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    t.ms = times[times.size() / 2];
    return t;
  }

  // One run of `run` timed with events (L2 flushed first when asked), in ms.
  template <typename Run>
  float time(Run&& run, bool flush_l2) {
    return time_once(run, flush_l2);
  }

 private:
  template <typename Run>
  float time_once(Run& run, bool flush_l2) {
    if (flush_l2) check(cudaMemsetAsync(flush_, flush_value_++ & 0xff, flush_bytes_), "L2 flush");
    check(cudaEventRecord(start_), "cudaEventRecord");
    run();
    check(cudaEventRecord(stop_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms;
  }

  std::size_t flush_bytes_;
  void* flush_ = nullptr;
  int flush_value_ = 0;
  cudaEvent_t start_, stop_;
};

}  // namespace sgemm::bench
