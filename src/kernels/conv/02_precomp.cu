// Conv rung 02 — precomputed offsets ("Implicit Precomp GEMM"): no division in the k-loop.
//
// What changes from rung 01: the loader's address arithmetic leaves the k-loop (precomp.cuh,
// shared with rung 03).
// - Per filter tap (r, s) the host computes once per problem the offset of that tap's input
//   pixel from the pixel under tap (0, 0), (r dilation_h W + s dilation_w) C, and the tap's row
//   and column shift for the padding test; the table travels in the kernel's parameters
//   (constant memory), up to kMaxTaps taps.
// - Each thread decomposes its 4 output rows into (n, p, q) once, before the loop, and keeps
//   each row's base offset and top-left input coordinates in registers.
// - Its reduction index kk = (r S + s) C/G + c advances by 16 per k-step: the thread carries
//   (tap, c) along, adding 16 to c and moving to the next tap when c passes C/G, so the loop
//   only adds and compares.
#include "kernels/conv/precomp.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

__global__ void __launch_bounds__(kConvThreads) conv_02_precomp_kernel(const PrecompArgs args) {
  conv_tile<PrecompLoader>(args.p, args);
}

std::string_view why_not(const ConvProblem& p, const Device&) { return precomp_why_not(p); }

cudaError_t launch(const ConvProblem& p, const LaunchArgs& args) {
  return launch_kernel(conv_02_precomp_kernel, conv_tile_grid(p), kConvThreads, 0, args.stream,
                       precomp_args(p));
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
