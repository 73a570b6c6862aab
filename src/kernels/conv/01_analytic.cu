// Conv rung 01 — analytic implicit GEMM: the convolution as a GEMM whose A is never built.
//
// Seed 001's extension: only the global-to-shared load of A changes from the GEMM. Element
// (row, kk) of A is the input value under filter tap (r, s, c) for output pixel (n, p, q), and
// the loader finds both from the GEMM indices with divisions and remainders, for every element
// of every k-step: row -> (n, p, q) and kk -> (r, s, c), then the input coordinates, a bounds
// test for the padding, and the load. The tile loop (implicit_gemm.cuh) is shared with rung 02.
#include "kernels/conv/implicit_gemm.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

struct AnalyticLoader {
  const ConvProblem& p;
  std::int64_t first_row;
  int group, k_col;

  __device__ AnalyticLoader(const ConvProblem& problem, int g, std::int64_t row0, int tid)
      : p(problem), first_row(row0 + tid / kConvBK), group(g), k_col(tid % kConvBK) {}

  __device__ void load(std::int64_t k0, float (&v)[kConvLoads]) const {
    const Conv2dShape& sh = p.shape;
    const std::int64_t cg = sh.c / sh.groups, kk = k0 + k_col;
#pragma unroll
    for (int i = 0; i < kConvLoads; ++i) {
      const std::int64_t row = first_row + i * (kConvThreads / kConvBK);
      v[i] = 0.0f;
      if (row >= p.gemm_m() || kk >= p.gemm_k()) continue;
      const std::int64_t q = row % p.q, pq = row / p.q, pp = pq % p.p, n = pq / p.p;
      const std::int64_t c = kk % cg, rs = kk / cg, s = rs % sh.s, r = rs / sh.s;
      const std::int64_t h = pp * sh.stride_h - sh.pad_h + r * sh.dilation_h;
      const std::int64_t w = q * sh.stride_w - sh.pad_w + s * sh.dilation_w;
      if (h >= 0 && h < sh.h && w >= 0 && w < sh.w)
        v[i] = p.x[((n * sh.h + h) * sh.w + w) * sh.c + group * cg + c];
    }
  }
};

__global__ void __launch_bounds__(kConvThreads) conv_01_analytic_kernel(const ConvProblem p) {
  conv_tile<AnalyticLoader>(p, p);
}

std::string_view why_not(const ConvProblem& p, const Device&) { return conv_tile_why_not(p); }

cudaError_t launch(const ConvProblem& p, const LaunchArgs& args) {
  return launch_kernel(conv_01_analytic_kernel, conv_tile_grid(p), kConvThreads, 0, args.stream, p);
}

}  // namespace

SGEMM_CONV_KERNEL_ENTRIES(conv_01_analytic) {
  static const ConvKernelEntry entries[] = {{
      {"conv-01-analytic", Track::Conv, 1,
       "implicit GEMM: A's (n, p, q) and (r, s, c) found by division for every loaded element",
       Math::Fp32, "seed 001's extension (convolution as implicit GEMM)", "none"},
      why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail
