// Energy probe (run 55): back-to-back calls of one contender for a fixed time, with the NVML
// energy counter read before and after, and the SM clock / power sampled between calls.
// usage: energy CONTENDER M N K SECONDS [OPS]   (CONTENDER: cublas-sgemm, cublas-tf32, or a
//        slug or "auto"; a slug may end in :x3 or :tf32 to pick the math; OPS: NN (default) or
//        TT, RowMajor, square problems only for TT)
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <sgemm/sgemm.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <algorithm>

typedef int (*nvmlInit_t)();
typedef int (*nvmlGetHandle_t)(unsigned, void**);
typedef int (*nvmlEnergy_t)(void*, unsigned long long*);
typedef int (*nvmlClock_t)(void*, int, unsigned*);
typedef int (*nvmlPower_t)(void*, unsigned*);

int main(int argc, char** argv) {
  if (argc < 6) return 2;
  std::string who = argv[1];
  long m = atol(argv[2]), n = atol(argv[3]), k = atol(argv[4]);
  double seconds = atof(argv[5]);
  const bool tt = argc > 6 && std::string(argv[6]) == "TT";
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (!lib) { printf("no nvml\n"); return 1; }
  auto init = (nvmlInit_t)dlsym(lib, "nvmlInit_v2");
  auto get = (nvmlGetHandle_t)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
  auto energy = (nvmlEnergy_t)dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption");
  auto clock = (nvmlClock_t)dlsym(lib, "nvmlDeviceGetClockInfo");
  auto power = (nvmlPower_t)dlsym(lib, "nvmlDeviceGetPowerUsage");
  void* dev = nullptr;
  if (init() || get(0, &dev)) { printf("nvml init failed\n"); return 1; }
  float *a, *b, *c;
  cudaMalloc(&a, m * k * 4); cudaMalloc(&b, k * n * 4); cudaMalloc(&c, m * n * 4);
  {
    std::vector<float> h(std::max({m * k, k * n}));
    srand(1);
    for (auto& x : h) x = float(rand()) / RAND_MAX * 2 - 1;
    cudaMemcpy(a, h.data(), m * k * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(b, h.data(), k * n * 4, cudaMemcpyHostToDevice);
  }
  cublasHandle_t h; cublasCreate(&h);
  sgemm::Options opt;
  std::string slug = who;
  if (auto p = who.find(':'); p != std::string::npos) {
    slug = who.substr(0, p);
    opt.math = who.substr(p + 1) == "x3" ? sgemm::Math::Fp32Tf32x3 : sgemm::Math::Tf32;
  }
  opt.kernel = slug;
  const float alpha = 1, beta = 0;
  auto run = [&]() {
    if (who == "cublas-sgemm" || who == "cublas-tf32") {
      cublasSetMathMode(h, who == "cublas-tf32" ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
      // Row-major C = A B as column-major C^T = B^T A^T.
      cublasGemmEx(h, tt ? CUBLAS_OP_T : CUBLAS_OP_N, tt ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k,
                   &alpha, b, CUDA_R_32F, tt ? k : n, a, CUDA_R_32F, tt ? m : k,
                   &beta, c, CUDA_R_32F, n,
                   who == "cublas-tf32" ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                   CUBLAS_GEMM_DEFAULT);
    } else {
      const sgemm::Op op = tt ? sgemm::Op::T : sgemm::Op::N;
      auto s = sgemm::gemm(sgemm::Layout::RowMajor, op, op, m, n, k, alpha, a, tt ? m : k, b,
                           tt ? k : n, beta, c, n, nullptr, opt);
      if (s != sgemm::Status::Success) { printf("gemm: %s\n", sgemm::to_string(s)); exit(1); }
    }
  };
  for (int i = 0; i < 3; ++i) run();
  cudaDeviceSynchronize();
  cudaEvent_t e0, e1, batch[2];
  cudaEventCreate(&e0); cudaEventCreate(&e1); cudaEventCreate(&batch[0]); cudaEventCreate(&batch[1]);
  unsigned long long j0, j1;
  std::vector<unsigned> clocks, powers;
  energy(dev, &j0);
  cudaEventRecord(e0);
  auto t0 = std::chrono::steady_clock::now();
  long calls = 0;
  // Two batches of 4 calls in flight: the GPU never waits for the host between calls.
  for (int it = 0; std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds; ++it) {
    for (int i = 0; i < 4; ++i) run();
    calls += 4;
    cudaEventRecord(batch[it % 2]);
    unsigned ck = 0, pw = 0;
    clock(dev, 1, &ck); power(dev, &pw);
    if (it > 0) { clocks.push_back(ck); powers.push_back(pw); }
    if (it > 0) cudaEventSynchronize(batch[(it + 1) % 2]);
  }
  cudaEventRecord(e1); cudaEventSynchronize(e1);
  energy(dev, &j1);
  float ms = 0; cudaEventElapsedTime(&ms, e0, e1);
  auto med = [](std::vector<unsigned> v) { std::sort(v.begin(), v.end()); return v.empty() ? 0u : v[v.size() / 2]; };
  // Skip the first second of samples (clock settling).
  printf("%-28s %s %ldx%ldx%ld calls %ld  ms/call %.4f  J/call %.4f  avgW %.1f  median SM MHz %u  median W %.1f\n",
         who.c_str(), tt ? "TT" : "NN", m, n, k, calls, ms / calls, (j1 - j0) / 1e3 / calls, (j1 - j0) / ms,
         med(clocks), med(powers) / 1e3);
  return 0;
}
