// conv2d's choice (conv.hpp).
//
// A 1 x 1, stride-1 convolution is a GEMM with no copy at all: the lowering hands it to the GEMM
// library's `auto` (rung 13 and the tensor-core rungs), 2.0-3.9x cuDNN FP32 on ResNet-50's
// 1 x 1 layers in Fp32 (sgemm-bench --conv-suite, H200). Any other convolution with at most 128
// channels per group goes to conv-02-precomp in every math (FP32 arithmetic is at least as
// accurate as both tensor-core maths): through the patch matrix the GEMM's n of 64 or 128 left
// rung 10 at 0.19-0.56x cuDNN FP32 on the 3 x 3 layers of 64 and 128 channels, where rung 02 ran
// 0.71-0.77x (and faster than the Tf32 lowering's tc-02 too: 0.40 against 1.01 ms at
// 32 x 56 x 56 x 64, 3 x 3). Wider ones are lowered through their patch matrix (rung 13 at
// 0.78-1.73x cuDNN FP32 on the 3 x 3 layers of 256 and 512 channels, 0.30-0.40 ms at batch 32
// where rung 02 took 0.53-0.54), and the rungs, which build no patch matrix, take what would
// not fit the scratch budget.
#include "dispatch/conv.hpp"

#include <array>

#include "kernels/conv/im2col.cuh"

namespace sgemm::detail {
namespace {

// The largest patch matrix the lowering builds.
constexpr std::size_t kMaxPatchBytes = std::size_t(4) << 30;
// Channels per group up to which conv-02-precomp takes the calls the lowering would copy.
constexpr std::int64_t kMaxPrecompChannels = 128;
constexpr std::array<std::string_view, 2> kRungOrder = {"conv-02-precomp", "conv-01-analytic"};

}  // namespace

Canonical lowered_product(const ConvProblem& p, const float* a, std::int64_t lda) {
  const std::int64_t n = p.gemm_n(), k = p.gemm_k(), groups = p.shape.groups;
  // Within a row of A, group g's reduction starts g k floats in (x: g C/G channels, the patch
  // matrix: g R S C/G columns, the same when R = S = 1).
  Canonical c{p.gemm_m(), n, k, p.alpha, p.beta, a, lda, true, p.w, k, true, p.y, p.shape.k};
  c.batch = groups;
  c.stride_a = k;
  c.stride_b = n * k;
  c.stride_c = n;
  return c;
}

Status choose_conv(const ConvProblem& p, const Options& options, const Device& device,
                   ConvDecision* out, std::string* message) {
  *out = ConvDecision{};
  auto try_rung = [&](const ConvKernelEntry& e) -> std::string_view {
    if (std::string_view why = e.why_not(p, device); !why.empty()) return why;
    out->kernel = &e;
    out->workspace_bytes = e.workspace_bytes ? e.workspace_bytes(p, device) : 0;
    return {};
  };
  if (options.kernel != "auto") {
    const ConvKernelEntry* e = find_conv_kernel(options.kernel);
    if (!e) {
      *message = "options.kernel: no convolution kernel named '" + std::string(options.kernel) + "'";
      return Status::InvalidValue;
    }
    if (e->info.math != options.math) {
      *message = "options.kernel: '" + std::string(e->info.slug) + "' computes " +
                 to_string(e->info.math) + " math but options.math is " + to_string(options.math);
      return Status::InvalidValue;
    }
    if (std::string_view why = try_rung(*e); !why.empty()) {
      *message = std::string(e->info.slug) + ": " + std::string(why);
      return Status::NotSupported;
    }
    return Status::Success;
  }
  if (conv_input_is_a(p)) return Status::Success;
  if (p.shape.c / p.shape.groups <= kMaxPrecompChannels)
    if (const ConvKernelEntry* e = find_conv_kernel("conv-02-precomp"); e && try_rung(*e).empty())
      return Status::Success;
  const std::int64_t row = p.shape.r * p.shape.s * p.shape.c;
  const std::int64_t ld = round_up(row, 4);  // 16-byte rows for the float4 and TMA kernels
  const std::size_t bytes = std::size_t(p.gemm_m()) * std::size_t(ld) * sizeof(float);
  if (bytes <= kMaxPatchBytes) {
    out->im2col = true;
    out->cols_ld = ld;
    out->workspace_bytes = bytes;
    return Status::Success;
  }
  for (std::string_view slug : kRungOrder)
    if (const ConvKernelEntry* e = find_conv_kernel(slug); e && try_rung(*e).empty())
      return Status::Success;
  *message = "auto: no convolution kernel takes this call";
  return Status::NotSupported;
}

}  // namespace sgemm::detail
