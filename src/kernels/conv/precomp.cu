// The precomputed offsets (precomp.cuh): the tap table, its limits, and the gated FP32 kernel.
#include "kernels/conv/precomp.cuh"

#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

// (A helper kernel: its name is outside the registry's naming rule, like tc_pack_kernel's.)
__global__ void __launch_bounds__(kConvThreads)
    conv_fp32_if_kernel(const PrecompArgs args, const int* flag) {
  if (*flag == 0) return;
  conv_tile<PrecompLoader>(args.p, args);
}

}  // namespace

PrecompArgs precomp_args(const ConvProblem& p) {
  PrecompArgs a{p, {}};
  const Conv2dShape& sh = p.shape;
  for (std::int64_t r = 0; r < sh.r; ++r)
    for (std::int64_t s = 0; s < sh.s; ++s) {
      const std::int64_t t = r * sh.s + s;
      a.taps.dh[t] = int(r * sh.dilation_h);
      a.taps.dw[t] = int(s * sh.dilation_w);
      a.taps.offset[t] = (r * sh.dilation_h * sh.w + s * sh.dilation_w) * sh.c;
    }
  return a;
}

std::string_view precomp_why_not(const ConvProblem& p) {
  const Conv2dShape& sh = p.shape;
  if (sh.r * sh.s > kMaxTaps) return "needs at most 64 filter taps (R S <= 64)";
  // The loaders keep input coordinates, tap shifts and the reduction carry in 32-bit ints.
  constexpr std::int64_t kLimit = std::int64_t(1) << 30;
  if (sh.h >= kLimit || sh.w >= kLimit || sh.pad_h >= kLimit || sh.pad_w >= kLimit)
    return "needs H, W and the padding below 2^30";
  if (__int128(sh.dilation_h) * (sh.r - 1) >= kLimit ||
      __int128(sh.dilation_w) * (sh.s - 1) >= kLimit)
    return "needs the dilated filter below 2^30";
  if (sh.c / sh.groups >= kLimit) return "needs C / groups below 2^30";
  return conv_tile_why_not(p);
}

cudaError_t conv_fp32_if(const ConvProblem& p, const int* flag, cudaStream_t stream) {
  return launch_kernel(conv_fp32_if_kernel, conv_tile_grid(p), kConvThreads, 0, stream,
                       precomp_args(p), flag);
}

}  // namespace sgemm::detail
