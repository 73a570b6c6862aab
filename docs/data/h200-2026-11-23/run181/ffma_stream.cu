// Run 181 (microbenchmark): how many FFMAs per cycle one SM sub-partition (SMSP) issues from a
// stream like rung 13's (runs of 8 FFMAs sharing a factor, 64 independent accumulators), as a
// function of the loop body's code size (U repetitions of the 64-FFMA block, 1 KB each) and of
// the warps per SMSP (W). One block of 128 x W threads per SM; each warp times its loop with
// clock64. Prints, per (U, W), FFMAs issued per SMSP cycle (1.0 = every cycle).
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

template <int U>
__global__ void __launch_bounds__(512, 1) ffma_stream(const float* in, float* out, int iters,
                                                      long long* cycles) {
  float a[8], b[8], acc[8][8];
  for (int i = 0; i < 8; ++i) {
    a[i] = in[(threadIdx.x + i) & 63];
    b[i] = in[64 + ((threadIdx.x + 3 * i) & 63)];
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
  }
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }
  long long t1 = clock64();
  float s = 0.f;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) s += acc[i][j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if ((threadIdx.x & 31) == 0) cycles[blockIdx.x * 16 + threadIdx.x / 32] = t1 - t0;
}

template <int U>
void measure(int sms, const float* in, float* out, long long* cycles) {
  const long long ffma_per_warp = 1 << 21;
  const int iters = int(ffma_per_warp / (64 * U));
  for (int w = 1; w <= 4; ++w) {
    cudaMemset(cycles, 0, sizeof(long long) * sms * 16);
    ffma_stream<U><<<sms, 128 * w>>>(in, out, iters, cycles);  // warm-up
    ffma_stream<U><<<sms, 128 * w>>>(in, out, iters, cycles);
    if (cudaDeviceSynchronize() != cudaSuccess) { printf("error\n"); return; }
    std::vector<long long> c(sms * 16);
    cudaMemcpy(c.data(), cycles, sizeof(long long) * c.size(), cudaMemcpyDeviceToHost);
    long long mx = 0, mn = 1LL << 62; double sum = 0;
    for (int b = 0; b < sms; ++b)
      for (int k = 0; k < 4 * w; ++k) {
        long long v = c[b * 16 + k]; mx = v > mx ? v : mx; mn = v < mn ? v : mn; sum += v;
      }
    double mean = sum / (sms * 4 * w);
    printf("U=%2d code=%3d KB W=%d  FFMA/cycle/SMSP: %.4f (by mean warp time), %.4f (by slowest); "
           "cycles per warp min %lld max %lld\n", U, U, w, w * double(iters) * 64 * U / mean,
           w * double(iters) * 64 * U / mx, mn, mx);
  }
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float *in, *out; long long* cycles;
  cudaMalloc(&in, 128 * sizeof(float)); cudaMemset(in, 0, 128 * sizeof(float));
  cudaMalloc(&out, sms * 512 * sizeof(float));
  cudaMalloc(&cycles, sms * 16 * sizeof(long long));
  measure<1>(sms, in, out, cycles);
  measure<4>(sms, in, out, cycles);
  measure<8>(sms, in, out, cycles);
  measure<12>(sms, in, out, cycles);
  measure<16>(sms, in, out, cycles);
  measure<24>(sms, in, out, cycles);
  measure<32>(sms, in, out, cycles);
  measure<64>(sms, in, out, cycles);
  return 0;
}
