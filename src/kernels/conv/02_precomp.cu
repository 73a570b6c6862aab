// Conv rung 02 — precomputed offsets ("Implicit Precomp GEMM"): no division in the k-loop.
//
// What changes from rung 01: the loader's address arithmetic leaves the k-loop.
// - Per filter tap (r, s) the host computes once per problem the offset of that tap's input
//   pixel from the pixel under tap (0, 0), (r dilation_h W + s dilation_w) C, and the tap's row
//   and column shift for the padding test; the table travels in the kernel's parameters
//   (constant memory), up to kMaxTaps taps.
// - Each thread decomposes its 4 output rows into (n, p, q) once, before the loop, and keeps
//   each row's base offset and top-left input coordinates in registers.
// - Its reduction index kk = (r S + s) C/G + c advances by 16 per k-step: the thread carries
//   (tap, c) along, adding 16 to c and moving to the next tap when c passes C/G, so the loop
//   only adds and compares.
#include "kernels/conv/implicit_gemm.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kMaxTaps = 64;  // 8 x 8 filters

struct TapTable {
  std::int64_t offset[kMaxTaps];  // (r dilation_h W + s dilation_w) C
  int dh[kMaxTaps], dw[kMaxTaps];  // r dilation_h, s dilation_w
};

struct PrecompArgs {
  ConvProblem p;
  TapTable taps;
};

struct PrecompLoader {
  const PrecompArgs& args;
  std::int64_t base[kConvLoads];  // offset of the row's tap-(0, 0) pixel, channel g C/G
  int h0[kConvLoads], w0[kConvLoads];
  bool row_in[kConvLoads];
  std::int64_t cg;
  int tap, c;  // where this thread's reduction column is

  __device__ PrecompLoader(const PrecompArgs& a, int group, std::int64_t row0, int tid) : args(a) {
    const ConvProblem& p = a.p;
    const Conv2dShape& sh = p.shape;
    cg = sh.c / sh.groups;
#pragma unroll
    for (int i = 0; i < kConvLoads; ++i) {
      const std::int64_t row = row0 + tid / kConvBK + i * (kConvThreads / kConvBK);
      row_in[i] = row < p.gemm_m();
      const std::int64_t q = row % p.q, pq = row / p.q, pp = pq % p.p, n = pq / p.p;
      h0[i] = int(pp * sh.stride_h - sh.pad_h);
      w0[i] = int(q * sh.stride_w - sh.pad_w);
      base[i] = ((n * sh.h + h0[i]) * sh.w + w0[i]) * sh.c + group * cg;
    }
    const std::int64_t kk = tid % kConvBK;  // the divisions happen once, here
    tap = int(kk / cg);
    c = int(kk % cg);
  }

  __device__ void load(std::int64_t, float (&v)[kConvLoads]) {
    const ConvProblem& p = args.p;
    const bool k_in = tap < p.shape.r * p.shape.s;
    const std::int64_t offset = k_in ? args.taps.offset[tap] + c : 0;
    const int dh = k_in ? args.taps.dh[tap] : 0, dw = k_in ? args.taps.dw[tap] : 0;
#pragma unroll
    for (int i = 0; i < kConvLoads; ++i) {
      const int h = h0[i] + dh, w = w0[i] + dw;
      const bool in = k_in && row_in[i] && h >= 0 && h < p.shape.h && w >= 0 && w < p.shape.w;
      v[i] = in ? p.x[base[i] + offset] : 0.0f;
    }
    c += kConvBK;  // the next k-step's column
    while (c >= cg) c -= int(cg), ++tap;
  }
};

__global__ void __launch_bounds__(kConvThreads) conv_02_precomp_kernel(const PrecompArgs args) {
  conv_tile<PrecompLoader>(args.p, args);
}

std::string_view why_not(const ConvProblem& p, const Device&) {
  if (p.shape.r * p.shape.s > kMaxTaps) return "needs at most 64 filter taps (R S <= 64)";
  // The loader keeps input coordinates, tap shifts and the reduction carry in 32-bit ints.
  const Conv2dShape& sh = p.shape;
  constexpr std::int64_t kLimit = std::int64_t(1) << 30;
  if (sh.h >= kLimit || sh.w >= kLimit || sh.pad_h >= kLimit || sh.pad_w >= kLimit)
    return "needs H, W and the padding below 2^30";
  if (__int128(sh.dilation_h) * (sh.r - 1) >= kLimit ||
      __int128(sh.dilation_w) * (sh.s - 1) >= kLimit)
    return "needs the dilated filter below 2^30";
  if (sh.c / sh.groups >= kLimit) return "needs C / groups below 2^30";
  return conv_tile_why_not(p);
}

cudaError_t launch(const ConvProblem& p, const LaunchArgs& args) {
  PrecompArgs a{p, {}};
  const Conv2dShape& sh = p.shape;
  for (std::int64_t r = 0; r < sh.r; ++r)
    for (std::int64_t s = 0; s < sh.s; ++s) {
      const std::int64_t t = r * sh.s + s;
      a.taps.dh[t] = int(r * sh.dilation_h);
      a.taps.dw[t] = int(s * sh.dilation_w);
      a.taps.offset[t] = (r * sh.dilation_h * sh.w + s * sh.dilation_w) * sh.c;
    }
  return launch_kernel(conv_02_precomp_kernel, conv_tile_grid(p), kConvThreads, 0, args.stream, a);
}

}  // namespace

SGEMM_CONV_KERNEL_ENTRIES(conv_02_precomp) {
  static const ConvKernelEntry entries[] = {{
      {"conv-02-precomp", Track::Conv, 2,
       "implicit precomp GEMM: per-tap offsets from the host in kernel parameters, rows "
       "decomposed once, the reduction index carried without division",
       Math::Fp32, "seed 001's extension (Implicit Precomp GEMM, as in cuDNN)", "R S <= 64"},
      why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail
