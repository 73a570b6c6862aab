// Racecheck probe (not part of the project): times each of rung 13's SanitizerShapes calls.
#include <sgemm/sgemm.hpp>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
using namespace sgemm;
struct Case { Layout l; Op a, b; long m, n, k; float alpha, beta; };
static long r4(long x) { return (x + 3) / 4 * 4; }
int main() {
  const Case cases[] = {{Layout::RowMajor, Op::N, Op::N, 37, 29, 41, -0.5f, 0.75f},
                        {Layout::ColMajor, Op::N, Op::T, 37, 29, 41, -0.5f, 0.75f},
                        {Layout::RowMajor, Op::N, Op::N, 131, 67, 45, -0.5f, 0.75f},
                        {Layout::ColMajor, Op::N, Op::T, 131, 67, 45, -0.5f, 0.75f},
                        {Layout::RowMajor, Op::N, Op::N, 66, 72, 45, -0.5f, 0.0f}};
  float* buf; cudaMalloc(&buf, 3 << 20);
  std::vector<float> h(3 << 18, 0.25f);
  cudaMemcpy(buf, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
  Options o; o.kernel = "simt-13-tma";
  for (int rep = 0; rep < 2; ++rep)
    for (const Case& c : cases) {
      // generous leading dimensions, multiples of 4
      const long ld = r4(std::max({c.m, c.n, c.k}) + 1);
      const auto t0 = std::chrono::steady_clock::now();
      Status s = gemm(c.l, c.a, c.b, c.m, c.n, c.k, c.alpha, buf, ld, buf + (1 << 18), ld, c.beta,
                      buf + (2 << 18), ld, nullptr, o);
      cudaError_t e = cudaDeviceSynchronize();
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::printf("rep %d %s %c%c %ldx%ldx%ld: %s %s %.1f ms\n", rep, c.l == Layout::RowMajor ? "row" : "col",
                  c.a == Op::N ? 'N' : 'T', c.b == Op::N ? 'N' : 'T', c.m, c.n, c.k, to_string(s),
                  cudaGetErrorString(e), ms);
      std::fflush(stdout);
    }
}
