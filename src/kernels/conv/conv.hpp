// The contract between conv2d() and a convolution kernel file: every file under
// src/kernels/conv/ defines
//
//   std::span<const sgemm::detail::ConvKernelEntry> sgemm::detail::conv_entries_conv_<NN>_<name>();
//
// (SGEMM_CONV_KERNEL_ENTRIES spells it), which the conv registry calls in ladder order.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "kernels/kernel.hpp"

namespace sgemm::detail {

// One forward convolution as every conv kernel sees it: y = alpha * conv(x, w) + beta * y with
// a valid shape (P, Q >= 1, C and K divisible by the groups), something to compute (alpha != 0,
// C >= 1) and a nonempty output; y is not read when beta == 0.
//
// As a GEMM per group g (implicit GEMM): rows are output pixels, m = N P Q, row (n, p, q);
// columns are the group's output channels, n = K / G; the reduction runs over k = R S C / G,
// index (r, s, c) in the filter's own order, so that the filter is a K-major B:
//   A(row, (r, s, c)) = x[n, p stride_h - pad_h + r dilation_h, q stride_w - pad_w + s dilation_w,
//                         g C/G + c]   (0 outside the input)
//   B((r, s, c), j)   = w[g K/G + j, r, s, c]
//   y[row, g K/G + j] = alpha * sum + beta * y[row, g K/G + j]
struct ConvProblem {
  Conv2dShape shape;
  std::int64_t p, q;  // output height and width
  float alpha, beta;
  const float* x;
  const float* w;
  float* y;

  SGEMM_HOST_DEVICE std::int64_t gemm_m() const { return shape.n * p * q; }
  SGEMM_HOST_DEVICE std::int64_t gemm_n() const { return shape.k / shape.groups; }
  SGEMM_HOST_DEVICE std::int64_t gemm_k() const { return shape.r * shape.s * (shape.c / shape.groups); }
};

struct ConvKernelEntry {
  KernelInfo info;
  // Empty when the kernel computes `p` correctly on `device`, otherwise why not.
  std::string_view (*why_not)(const ConvProblem& p, const Device& device);
  // Enqueues the convolution on args.stream (why_not(p, device) is empty).
  cudaError_t (*launch)(const ConvProblem& p, const LaunchArgs& args);
  // The scratch bytes a launch takes from args.workspace; null for none.
  std::size_t (*workspace_bytes)(const ConvProblem& p, const Device& device) = nullptr;
};

}  // namespace sgemm::detail

#define SGEMM_CONV_KERNEL_ENTRIES(token) \
  std::span<const ::sgemm::detail::ConvKernelEntry> conv_entries_##token()
