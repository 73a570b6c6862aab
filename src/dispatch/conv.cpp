// conv2d's choice (conv.hpp). Numbers: sgemm-bench --conv-suite and --conv on an H200, ResNet-50
// layers at batch 32 unless said. cuDNN's TF32 time for one layer moved by up to 2x between its
// algorithm searches, so the Tf32 ratios below are rough.
//
// A 1 x 1, stride-1 convolution is a GEMM with no copy at all: the lowering hands it to the GEMM
// library's `auto` (rung 13 and the tensor-core rungs): 2.0-4.0x cuDNN FP32 in Fp32, 2.0-8.1x in
// 3xTF32, 1.7-5.5x cuDNN TF32 in Tf32.
//
// Tf32 runs the larger filters on the tensor cores fed straight from x, conv-04-wgmma
// (conv04_suited) or conv-03-mma: 0.55-1.30x cuDNN TF32 on the 3 x 3 layers, where the lowering's
// patch matrix left tc-02 at 0.22-0.53x. 3xTF32 runs them on conv-05's FP32 (below) where it
// takes them, else on conv-03-mma: 1.23-2.17x cuDNN FP32 against conv-02-precomp's and the
// lowering's 0.78-1.65x; more accurate than conv-05 at 128 channels and fewer (conv05_in_tf32x3).
// The strided 1 x 1 projections and odd channel counts: tensor_cores_lowered and conv03_suited
// below.
//
// Fp32: every other convolution conv-05-tma-im2col takes (groups 1, C and K multiples of 4) runs
// there, rung 13's pipeline fed by TMA's im2col mode: 1.22-2.51x cuDNN FP32 on the 3 x 3 layers at
// batch 32 and 64 and 1.52-1.89x on the strided 1 x 1 projections, where rung 02 (64 and 128
// channels) ran 0.47-0.69x and the lowering through the patch matrix 0.84-1.70x. It also takes
// 3xTF32's filters larger than 1 x 1 with more than 128 channels (conv05_in_tf32x3). The rest,
// with at most 128 channels per group, goes to conv-02-precomp (through the patch matrix the
// GEMM's n of 64 or 128 left rung 10 at 0.19-0.56x cuDNN FP32, where rung 02 ran 0.71-0.77x);
// wider ones are lowered through their patch matrix, and the rungs, which build no patch matrix,
// take what would not fit the scratch budget.
#include "dispatch/conv.hpp"

#include <array>

#include "kernels/conv/im2col.cuh"
#include "kernels/conv/pixel_pairs.cuh"

namespace sgemm::detail {
namespace {

// The largest patch matrix the lowering builds.
constexpr std::size_t kMaxPatchBytes = std::size_t(4) << 30;
// Channels per group up to which conv-02-precomp takes the calls the lowering would copy.
constexpr std::int64_t kMaxPrecompChannels = 128;
// Channels per group up to which 3xTF32 runs the larger filters on conv-03's split products.
constexpr std::int64_t kMaxSplitProductChannels = 128;
// The tensor-core rung of a math that has one.
std::string_view tensor_core_rung(Math math) {
  switch (math) {
    case Math::Tf32: return "conv-03-mma-tf32";
    case Math::Fp32Tf32x3: return "conv-03-mma-tf32x3";
    case Math::Fp32: break;
  }
  return {};
}
// Tf32 and 3xTF32: whether the lowering through the patch matrix beats conv-03. A 1 x 1 layer's
// patch matrix is a strided gather, as cheap to build as one pass over x, and the GEMM library's
// wgmma rungs outrun conv-03's mma.sync once the product is long enough to pay for it: 3xTF32 on
// every strided 1 x 1 projection of ResNet-50 (1.58-2.96x cuDNN FP32 against conv-03's
// 1.11-1.78x), Tf32 from 2048 output channels (res5's, 0.058 against 0.088 ms at batch 32; at 512
// and 1024 conv-03 was faster, 0.095 against 0.148 ms).
bool tensor_cores_lowered(const ConvProblem& p, Math math) {
  if (p.shape.r != 1 || p.shape.s != 1) return false;
  return math == Math::Fp32Tf32x3 || p.gemm_n() >= 2048;
}
// Whether conv-03 takes p: channel counts that are not multiples of 16 leave it copying one float
// at a time. On the stem (C = 3) that is still faster than conv-02-precomp in Tf32 (0.544 against
// 0.601 ms at batch 32), not in 3xTF32 (0.679), where rung 02's FP32 is also the more accurate;
// the lowering took 1.1-1.3 ms (its GEMM packs B, whose rows of 147 floats TMA cannot read).
bool conv03_suited(const ConvProblem& p, Math math) {
  return math == Math::Tf32 || (p.shape.c / p.shape.groups) % 16 == 0;
}
// Tf32: conv-04's wgmma (one persistent block per SM, tiles of 128 output pixels x up to 256
// channels) beat conv-03 with more than 128 output channels per group and tiles for at least half
// the SMs: 0.076 against 0.095 ms on res3's projection (batch 32, 392 tiles), 0.143 against 0.157
// on res4's strided 3 x 3 and 0.114 against 0.150 on its projection at batch 64. Its producer
// rounds every chunk to TF32 in shared memory, which the narrower tiles cannot hide: on the 3 x 3
// layers of 64 and 128 channels it took 0.110-0.113 ms against conv-03's 0.084-0.086; with 49
// tiles (res4's 3 x 3 at batch 32) 0.141 against 0.096.
bool conv04_suited(const ConvProblem& p, const Device& device) {
  const std::int64_t n = p.gemm_n();
  const std::int64_t tiles = ceil_div(p.gemm_m(), 128) * ceil_div(n, 256) * p.shape.groups;
  return n > 128 && 2 * tiles >= device.sms;
}
// 3xTF32: whether conv-05's FP32 arithmetic (at least as accurate as 3xTF32) takes p: the
// filters larger than 1 x 1 with more than 128 channels per group, or channel counts conv-03
// copies a float at a time (the stem). At 256 and 512 channels it was faster than conv-03's split
// tensor-core products (0.198-0.207 against 0.238-0.248 ms at batch 32). At 64 and 128 it was about
// as fast (0.37-0.40 against 0.38-0.42 ms at batch 64), but it adds the R S C products of an output
// in one FP32 chain, as cuDNN's FMA kernels do, and on res2's 3 x 3 at batch 64 its error was
// cuDNN FP32's (4.264e-7 against 4.254e-7), where conv-03's was 1.34e-7. On the strided 1 x 1
// projections the lowering to tc-03 was faster (0.107-0.121 against 0.182-0.198 ms at res4 and
// res5).
bool conv05_in_tf32x3(const ConvProblem& p) {
  if (p.shape.r * p.shape.s == 1) return false;
  return p.shape.c / p.shape.groups > kMaxSplitProductChannels ||
         !conv03_suited(p, Math::Fp32Tf32x3);
}
// Tf32: whether conv-05's FP32 takes p: fewer than 4 channels (the stem), which it runs on pixel
// pairs and conv-03 copies a float at a time: 0.366 against 0.544 ms at batch 32, 0.717 against
// 1.071 at 64.
bool conv05_in_tf32(const ConvProblem& p) { return pixel_pairs_apply(p); }

constexpr std::array<std::string_view, 2> kRungOrder = {"conv-02-precomp", "conv-01-analytic"};

// The lowering through the patch matrix, whatever its size.
void lower_through_patches(const ConvProblem& p, ConvDecision* out) {
  const std::int64_t row = p.shape.r * p.shape.s * p.shape.c;
  const std::int64_t ld = round_up(row, 4);  // 16-byte rows for the float4 and TMA kernels
  out->im2col = true;
  out->cols_ld = ld;
  out->workspace_bytes = std::size_t(p.gemm_m()) * std::size_t(ld) * sizeof(float);
}

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
  if (options.math == Math::Fp32 || (options.math == Math::Fp32Tf32x3 && conv05_in_tf32x3(p)) ||
      (options.math == Math::Tf32 && conv05_in_tf32(p)))
    if (const ConvKernelEntry* e = find_conv_kernel("conv-05-tma-im2col");
        e && try_rung(*e).empty())
      return Status::Success;
  if (std::string_view slug = tensor_core_rung(options.math); !slug.empty()) {
    if (tensor_cores_lowered(p, options.math)) {
      lower_through_patches(p, out);
      if (out->workspace_bytes <= kMaxPatchBytes) return Status::Success;
      *out = ConvDecision{};
    }
    if (options.math == Math::Tf32 && conv04_suited(p, device))
      if (const ConvKernelEntry* e = find_conv_kernel("conv-04-wgmma-tf32");
          e && try_rung(*e).empty())
        return Status::Success;
    if (conv03_suited(p, options.math))
      if (const ConvKernelEntry* e = find_conv_kernel(slug); e && try_rung(*e).empty())
        return Status::Success;
  }
  if (p.shape.c / p.shape.groups <= kMaxPrecompChannels)
    if (const ConvKernelEntry* e = find_conv_kernel("conv-02-precomp"); e && try_rung(*e).empty())
      return Status::Success;
  lower_through_patches(p, out);
  if (out->workspace_bytes <= kMaxPatchBytes) return Status::Success;
  *out = ConvDecision{};
  for (std::string_view slug : kRungOrder)
    if (const ConvKernelEntry* e = find_conv_kernel(slug); e && try_rung(*e).empty())
      return Status::Success;
  *message = "auto: no convolution kernel takes this call";
  return Status::NotSupported;
}

}  // namespace sgemm::detail
