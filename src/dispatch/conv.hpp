// What conv2d's `auto` decides: a conv rung, or the lowering to the GEMM library (the input, or
// its patch matrix, times the filters transposed, in the call's math).
#pragma once

#include <cstddef>
#include <string>

#include "kernels/conv/conv.hpp"

namespace sgemm::detail {

struct ConvDecision {
  const ConvKernelEntry* kernel = nullptr;  // the conv rung; null: lowered to a GEMM
  bool im2col = false;             // lowered through the patch matrix (else x is A itself)
  std::int64_t cols_ld = 0;        // the patch matrix's leading dimension
  std::size_t workspace_bytes = 0;  // the rung's scratch, or the patch matrix
};

// options.kernel names a conv rung (checked: math, why_not, workspace) or is "auto". Returns
// InvalidValue or NotSupported with *message on failure.
Status choose_conv(const ConvProblem& p, const Options& options, const Device& device,
                   ConvDecision* out, std::string* message);

// The lowered convolution as a strided batch over the groups: A (N P Q x G R S C/G, leading
// dimension lda) times each group's filters transposed into its columns of y.
Canonical lowered_product(const ConvProblem& p, const float* a, std::int64_t lda);

std::span<const ConvKernelEntry> conv_registry();  // in ladder order
const ConvKernelEntry* find_conv_kernel(std::string_view slug);

}  // namespace sgemm::detail
