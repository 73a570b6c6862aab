// Timeline probe for tensor-core rung 03 (not part of the project): globaltimer stamps per CTA.
#include <sgemm/sgemm.hpp>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
extern "C" void tc03_probe_read(unsigned long long* host);
extern "C" void tc03_probe_clear();
static unsigned long long P[2][2][132][16];
static void dump(const char* tag, int mode) {
  tc03_probe_read(&P[0][0][0][0]);
  unsigned long long t0 = ~0ull;
  for (int b = 0; b < 132; ++b) if (P[mode][0][b][0]) t0 = std::min(t0, P[mode][0][b][0]);
  printf("== %s (ns from the first whole CTA's entry)\n", tag);
  for (int k = 0; k < 2; ++k)
    for (int b = 0; b < 132; ++b) {
      printf("%s %3d", k ? "T" : "W", b);
      for (int s = 0; s < 16; ++s) {
        unsigned long long v = P[mode][k][b][s];
        if (k == 1 && (s == 5 || s == 10)) printf(" %lld", (long long)v);
        else printf(" %lld", v ? (long long)(v - t0) : -1ll);
      }
      printf("\n");
    }
}
int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8192;
  bool x3 = argc > 2 ? strcmp(argv[2], "tf32") != 0 : true;
  size_t e = size_t(n) * n;
  float *a, *b, *c;
  cudaMalloc(&a, e * 4); cudaMalloc(&b, e * 4); cudaMalloc(&c, e * 4);
  std::vector<float> h(e);
  for (size_t i = 0; i < e; ++i) h[i] = float(rand() % 2001 - 1000) / 1000.0f;
  cudaMemcpy(a, h.data(), e * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(b, h.data(), e * 4, cudaMemcpyHostToDevice);
  sgemm::Options o;
  o.kernel = x3 ? "tc-03-wgmma-rs-tf32x3" : "tc-03-wgmma-rs-tf32";
  o.math = x3 ? sgemm::Math::Fp32Tf32x3 : sgemm::Math::Tf32;
  auto call = [&] {
    auto s = sgemm::gemm(sgemm::Layout::RowMajor, sgemm::Op::N, sgemm::Op::N, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n, nullptr, o);
    if (s != sgemm::Status::Success) { printf("gemm failed: %s %s\n", sgemm::to_string(s), std::string(sgemm::last_error()).c_str()); exit(1); }
  };
  for (int i = 0; i < 5; ++i) call();
  cudaDeviceSynchronize();
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int rep = 0; rep < 2; ++rep) {
    tc03_probe_clear(); cudaDeviceSynchronize();
    cudaEventRecord(e0); call(); cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    printf("isolated call %d: %.4f ms, %.2f TFLOPS\n", rep, ms, 2.0 * n * n * double(n) / ms / 1e9);
    char tag[64]; snprintf(tag, sizeof tag, "isolated %d", rep); dump(tag, x3);
  }
  cudaEventRecord(e0);
  for (int i = 0; i < 20; ++i) call();
  cudaEventRecord(e1); cudaEventSynchronize(e1);
  float ms; cudaEventElapsedTime(&ms, e0, e1);
  printf("back-to-back: %.4f ms per call, %.2f TFLOPS\n", ms / 20, 2.0 * n * n * double(n) / (ms / 20) / 1e9);
  dump("last of 20 back-to-back", x3);
  printf("err: %s\n", cudaGetErrorString(cudaGetLastError()));
}
