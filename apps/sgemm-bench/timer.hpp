// The bench's CUDA error check and its event timer, shared by the table and by --tune.
#pragma once

#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace sgemm::bench {

struct CudaFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw CudaFailure(std::string(what) + ": " + cudaGetErrorString(err));
}

// Times `run` (which enqueues one product on the default stream): warm-up, then `reps` runs each
// bracketed by events, L2 flushed first when the working set would fit in it. Returns the
// median in ms, or a negative value when the run was too slow for the budget.
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
  double median_ms(Run&& run, const char* label, bool flush_l2, int warmup, int reps,
                   double first_run_ms, double budget_s) {
    // A kernel too slow for the budget gets the minimum of 10 timed runs and no extra warm-up,
    // or no timing at all (the verification run already warmed it up).
    if (first_run_ms * (warmup + reps) > budget_s * 1e3) {
      warmup = 0;
      reps = 10;
      if (first_run_ms * reps > 4 * budget_s * 1e3) return -1;
    }
    for (int i = 0; i < warmup; ++i) run();
    check(cudaGetLastError(), "warm-up");
    std::vector<float> times(reps);
    nvtxRangePushA(label);
    for (int i = 0; i < reps; ++i) {
      if (flush_l2) check(cudaMemsetAsync(flush_, i & 0xff, flush_bytes_), "L2 flush");
      check(cudaEventRecord(start_), "cudaEventRecord");
      run();
      check(cudaEventRecord(stop_), "cudaEventRecord");
      check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
      check(cudaEventElapsedTime(&times[i], start_, stop_), "cudaEventElapsedTime");
    }
    nvtxRangePop();
    std::nth_element(times.begin(), times.begin() + reps / 2, times.end());
    return times[reps / 2];
  }

 private:
  std::size_t flush_bytes_;
  void* flush_ = nullptr;
  cudaEvent_t start_, stop_;
};

}  // namespace sgemm::bench
