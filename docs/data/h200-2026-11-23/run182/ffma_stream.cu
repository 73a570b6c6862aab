// Run 182 (microbenchmark): how many FFMAs per cycle one SM sub-partition (SMSP) issues from a
// stream like rung 13's (runs of 8 FFMAs sharing a factor, 64 independent accumulators), as a
// function of the loop body's code size (U repetitions of the 64-FFMA block, 1 KB each) and of
// the warps per SMSP (W). One block of 128 x W threads per SM. Each warp records its SMSP
// (%warpid mod 4) and the clock64 at the start and end of its loop; an SMSP's rate is its warps'
// FFMAs over the span from its first start to its last end. ffma_pattern.py rewrites the loop's
// registers and reuse flags in SASS for the variants (the results are then meaningless; only the
// time counts). Prints, per (U, W), FFMAs per SMSP cycle (1.0 = every cycle): the mean over all
// SMSPs of the GPU, and the lowest and highest.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

template <int U>
__global__ void __launch_bounds__(512, 1) ffma_stream(const float* in, float* out, int iters,
                                                      long long* stamps) {
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
  if ((threadIdx.x & 31) == 0) {
    unsigned warpid;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
    long long* s = stamps + 3 * (blockIdx.x * 16 + threadIdx.x / 32);
    s[0] = t0; s[1] = t1; s[2] = warpid % 4;
  }
}

template <int U>
void measure(int sms, const float* in, float* out, long long* stamps) {
  const long long ffma_per_warp = 1 << 21;
  const int iters = int(ffma_per_warp / (64 * U));
  for (int w = 1; w <= 4; ++w) {
    const int warps = 4 * w;
    cudaMemset(stamps, 0, sizeof(long long) * sms * 48);
    ffma_stream<U><<<sms, 32 * warps>>>(in, out, iters, stamps);  // warm-up
    ffma_stream<U><<<sms, 32 * warps>>>(in, out, iters, stamps);
    if (cudaDeviceSynchronize() != cudaSuccess) { printf("error\n"); return; }
    std::vector<long long> s(sms * 48);
    cudaMemcpy(s.data(), stamps, sizeof(long long) * s.size(), cudaMemcpyDeviceToHost);
    double sum = 0, lo = 1e9, hi = 0;
    int unbalanced = 0;
    for (int b = 0; b < sms; ++b)
      for (int p = 0; p < 4; ++p) {
        long long first = 1LL << 62, last = 0; int n = 0;
        for (int k = 0; k < warps; ++k) {
          const long long* x = &s[3 * (b * 16 + k)];
          if (x[2] != p) continue;
          ++n; first = x[0] < first ? x[0] : first; last = x[1] > last ? x[1] : last;
        }
        if (n != w) ++unbalanced;
        double rate = n ? double(n) * iters * 64 * U / double(last - first) : 0;
        sum += rate; lo = rate < lo ? rate : lo; hi = rate > hi ? rate : hi;
      }
    printf("U=%2d code=%2d KB W=%d  FFMA/cycle/SMSP mean %.4f min %.4f max %.4f%s\n", U,
           U < 2 ? 2 : U, w, sum / (4 * sms), lo, hi,
           unbalanced ? "  (some SMSP had another warp count)" : "");
  }
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float *in, *out; long long* stamps;
  cudaMalloc(&in, 128 * sizeof(float)); cudaMemset(in, 0, 128 * sizeof(float));
  cudaMalloc(&out, sms * 512 * sizeof(float));
  cudaMalloc(&stamps, sms * 48 * sizeof(long long));
  measure<1>(sms, in, out, stamps);
  measure<4>(sms, in, out, stamps);
  measure<8>(sms, in, out, stamps);
  measure<16>(sms, in, out, stamps);
  measure<32>(sms, in, out, stamps);
  return 0;
}
