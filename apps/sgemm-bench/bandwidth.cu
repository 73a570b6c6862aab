#include "bandwidth.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "timer.hpp"

namespace sgemm::bench {
namespace {

__global__ void sum_kernel(const float4* x, std::size_t count, float* out) {
  float sum = 0.0f;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const float4 v = x[i];
    sum += v.x + v.y + v.z + v.w;
  }
  if (sum == 12345.0f) *out = sum;  // keeps the loads; never true for the zeroed buffer
}

}  // namespace

double measure_read_bandwidth() {
  constexpr std::size_t kBytes = std::size_t(2) << 30;
  float4* x = nullptr;
  float* out = nullptr;
  check(cudaMalloc(&x, kBytes), "cudaMalloc (bandwidth)");
  check(cudaMalloc(&out, sizeof(float)), "cudaMalloc (bandwidth)");
  check(cudaMemset(x, 0, kBytes), "cudaMemset (bandwidth)");
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<float> ms;
  for (int i = 0; i < 6; ++i) {
    check(cudaEventRecord(start), "cudaEventRecord");
    sum_kernel<<<sms * 8, 512>>>(x, kBytes / sizeof(float4), out);
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float t = 0;
    check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    if (i > 0) ms.push_back(t);  // the first run warms up
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(x);
  cudaFree(out);
  return double(kBytes) / (ms[ms.size() / 2] * 1e-3) / 1e12;
}

}  // namespace sgemm::bench
