// Run 103's probe: how much of a synchronized call's event time is not the GPU's work. For each
// contender at one shape: the median event time of single calls each followed by a
// synchronization (the bench's regime), the event time of 20 calls enqueued back to back
// divided by 20 (host and launch costs hidden behind the previous call), and the host time of
// one enqueue while the GPU is busy. Alternated 4 times so that the clock's drift is shared.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "reference/harness.hpp"
#include "sgemm/sgemm.hpp"

using namespace sgemm;

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 4096;
  ref::GemmCase gc;
  gc.layout = Layout::RowMajor;
  gc.op_a = gc.op_b = Op::N;
  gc.m = gc.n = gc.k = n;
  gc.alpha = 1.0f;
  gc.beta = 0.0f;
  ref::CaseBuffers buf(gc);
  buf.fill_random(0x5eed0000u);
  const ref::GemmCase c = buf.gemm_case();
  cublasHandle_t h;
  cublasCreate(&h);
  struct Who {
    std::string name;
    std::function<void()> run;
  };
  auto ours = [&](const char* slug, Math math) {
    return [&, slug, math] {
      Options o;
      o.kernel = slug;
      o.math = math;
      if (gemm(c.layout, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, buf.a(), c.lda, buf.b(), c.ldb,
               c.beta, buf.c(), c.ldc, nullptr, o) != Status::Success) {
        std::fprintf(stderr, "%s: %s\n", slug, last_error());
        std::exit(1);
      }
    };
  };
  std::vector<Who> who{
      {"cublas-sgemm", [&] { ref::cublas_sgemm(h, c, buf.a(), buf.b(), buf.c(), false); }},
      {"cublas-tf32", [&] { ref::cublas_sgemm(h, c, buf.a(), buf.b(), buf.c(), true); }},
      {"simt-13-tma", ours("simt-13-tma", Math::Fp32)},
      {"tc-03-wgmma-rs-tf32x3", ours("tc-03-wgmma-rs-tf32x3", Math::Fp32Tf32x3)},
      {"tc-03-wgmma-rs-tf32", ours("tc-03-wgmma-rs-tf32", Math::Tf32)}};
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto elapsed = [&] {
    check(cudaEventSynchronize(e1), "sync");
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    return double(ms);
  };
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  };
  std::printf("%lld^3: per call, us (single = synchronized one by one; piped = 20 back to back / 20;"
              " host = one enqueue while the GPU is busy)\n", (long long)n);
  for (int pass = 0; pass < 4; ++pass) {
    for (Who& w : who) {
      for (int i = 0; i < 10; ++i) w.run();
      check(cudaDeviceSynchronize(), "warm-up");
      std::vector<double> single, host;
      for (int i = 0; i < 20; ++i) {
        cudaEventRecord(e0);
        w.run();
        cudaEventRecord(e1);
        single.push_back(elapsed() * 1e3);
      }
      cudaEventRecord(e0);
      for (int i = 0; i < 20; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        w.run();
        host.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      }
      cudaEventRecord(e1);
      const double piped = elapsed() * 1e3 / 20;
      const double s = median(single);
      std::printf("pass %d %-24s single %9.1f  piped %9.1f  single-piped %7.1f  host %6.1f\n", pass,
                  w.name.c_str(), s, piped, s - piped, median(host));
    }
  }
  check(cudaDeviceSynchronize(), "end");
  return 0;
}
