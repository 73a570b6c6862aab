// conv2d's checks and choices without a GPU: the shape arithmetic, validation messages, quick
// returns, the C mirror, the conv registry, and what `auto` decides on an H100.
#include <gtest/gtest.h>

#include <string>

#include "dispatch/conv.hpp"
#include "kernels/conv/pixel_pairs.cuh"
#include "sgemm/sgemm.h"
#include "sgemm/sgemm.hpp"

namespace sgemm {
namespace {

const float* const kX = reinterpret_cast<const float*>(0x1000);
const float* const kW = reinterpret_cast<const float*>(0x2000);
float* const kY = reinterpret_cast<float*>(0x3000);

Conv2dShape resnet_3x3() { return {32, 56, 56, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1}; }

void expect_invalid(const Conv2dShape& shape, const std::string& names, Options options = {}) {
  EXPECT_EQ(conv2d(shape, 1.0f, kX, kW, 0.0f, kY, nullptr, options), Status::InvalidValue);
  EXPECT_NE(last_error().find(names), std::string_view::npos)
      << "message '" << last_error() << "' does not name " << names;
}

TEST(Conv, OutputShape) {
  Conv2dShape s = resnet_3x3();
  EXPECT_EQ(s.p(), 56);
  EXPECT_EQ(s.q(), 56);
  s = {1, 224, 224, 3, 64, 7, 7, 3, 3, 2, 2, 1, 1, 1};  // the stem
  EXPECT_EQ(s.p(), 112);
  s.dilation_h = 2;  // 13 rows of filter: (224 + 6 - 13) / 2 + 1
  EXPECT_EQ(s.p(), 109);
  s.h = 5;  // a dilated filter taller than the padded input
  EXPECT_EQ(s.p(), 0);
}

// Fields as large as int64 allows must not wrap into a valid output size or into a rung's
// 32-bit coordinates.
TEST(Conv, HugeFieldsDoNotWrap) {
  Conv2dShape s{1, 1, 1, 1, 1, 3, 1, 0, 0, std::int64_t(1) << 62, 1, 3 * (std::int64_t(1) << 61), 1, 1};
  EXPECT_EQ(s.p(), 0);  // 2 * dilation would wrap to a negative extent, and P to 2
  expect_invalid(s, "does not fit");
  s = {1, 1, 1, 1, 1, 1, 1, std::int64_t(1) << 32, 0, std::int64_t(1) << 32, 1, 1, 1, 1};
  ASSERT_EQ(s.p(), 3);  // legal: rows 0 and 2 lie entirely in the padding
  const detail::ConvKernelEntry* precomp = detail::find_conv_kernel("conv-02-precomp");
  ASSERT_NE(precomp, nullptr);
  const detail::ConvProblem p{s, s.p(), s.q(), 1.0f, 0.0f, kX, kW, kY};
  EXPECT_FALSE(precomp->why_not(p, detail::kH100).empty());
}

// conv-05's TMA maps: an image of x whose stride passes 2^40 bytes is declined by name, though
// every coordinate fits 31 bits (stride 2: 2^30 output pixels).
TEST(Conv, TmaIm2colDeclinesHugeImageStrides) {
  const detail::ConvKernelEntry* rung = detail::find_conv_kernel("conv-05-tma-im2col");
  if (!rung) GTEST_SKIP() << "conv-05-tma-im2col is built only with sm_90a";
  const Conv2dShape s{1, 1 << 16, 1 << 16, 64, 64, 1, 1, 0, 0, 2, 2, 1, 1, 1};
  const detail::ConvProblem p{s, s.p(), s.q(), 1.0f, 0.0f, kX, kW, kY};
  EXPECT_NE(rung->why_not(p, detail::kH100).find("2^38"), std::string_view::npos)
      << rung->why_not(p, detail::kH100);
  const Conv2dShape fits{1, 1 << 12, 1 << 12, 64, 64, 1, 1, 0, 0, 1, 1, 1, 1, 1};
  const detail::ConvProblem q{fits, fits.p(), fits.q(), 1.0f, 0.0f, kX, kW, kY};
  EXPECT_EQ(rung->why_not(q, detail::kH100), "");
}

// Pixel pairs recast a convolution over fewer than 4 channels as one over 8 with the same output
// size: half the taps along w (rounded up), twice the dilation, the padding along w stored in the
// packed input's columns.
TEST(Conv, PixelPairsKeepTheOutputSize) {
  const Conv2dShape shapes[] = {
      {32, 224, 224, 3, 64, 7, 7, 3, 3, 2, 2, 1, 1, 1},  // the stem
      {2, 19, 23, 2, 8, 4, 6, 1, 3, 2, 3, 1, 2, 1},      // even S, stride 3, dilation 2 along w
      {3, 9, 10, 1, 12, 5, 5, 2, 2, 1, 1, 1, 1, 1},      // one channel
      {1, 8, 8, 3, 4, 1, 1, 0, 0, 2, 2, 1, 1, 1}};       // 1 x 1, stride 2
  for (const Conv2dShape& s : shapes) {
    const detail::ConvProblem p{s, s.p(), s.q(), 1.0f, 0.0f, kX, kW, kY};
    ASSERT_TRUE(detail::pixel_pairs_apply(p));
    const detail::ConvProblem packed = detail::pixel_paired(p, kX, kW);
    EXPECT_EQ(packed.shape.c, 8);
    EXPECT_EQ(packed.shape.s, (s.s + 1) / 2);
    EXPECT_EQ(packed.shape.pad_w, 0);
    EXPECT_EQ(packed.shape.dilation_w, 2 * s.dilation_w);
    EXPECT_EQ(packed.shape.p(), s.p());
    EXPECT_EQ(packed.shape.q(), s.q());
    EXPECT_EQ(detail::paired_input_floats(p), s.n * s.h * packed.shape.w * 8);
    EXPECT_EQ(detail::paired_filter_floats(p), s.k * s.r * packed.shape.s * 8);
  }
  Conv2dShape grouped = shapes[0];
  grouped.c = grouped.k = grouped.groups = 2;
  EXPECT_FALSE(detail::pixel_pairs_apply({grouped, grouped.p(), grouped.q(), 1.0f, 0.0f, kX, kW, kY}));
}

TEST(Conv, InvalidShapesNamed) {
  Conv2dShape s = resnet_3x3();
  s.n = -1;
  expect_invalid(s, "shape.n");
  s = resnet_3x3();
  s.stride_w = 0;
  expect_invalid(s, "shape.stride_w");
  s = resnet_3x3();
  s.groups = 3;  // 64 channels are not 3 groups
  expect_invalid(s, "shape.groups");
  s = resnet_3x3();
  s.h = 1, s.pad_h = 0;
  expect_invalid(s, "does not fit");
  expect_invalid(resnet_3x3(), "no convolution kernel", Options{.kernel = "simt-13-tma"});
  int scratch[64];
  expect_invalid(resnet_3x3(), "options.workspace", Options{.workspace = scratch, .workspace_bytes = 256});
  EXPECT_EQ(conv2d(resnet_3x3(), 1.0f, nullptr, kW, 0.0f, kY), Status::InvalidValue);
  EXPECT_NE(last_error().find("x is null"), std::string_view::npos);
}

TEST(Conv, QuickReturnsNeedNoDevice) {
  Conv2dShape s = resnet_3x3();
  s.n = 0;
  EXPECT_EQ(conv2d(s, 1.0f, nullptr, nullptr, 0.0f, nullptr), Status::Success);
  s = resnet_3x3();
  EXPECT_EQ(conv2d(s, 0.0f, nullptr, nullptr, 1.0f, kY), Status::Success);  // y = 1 * y
}

TEST(Conv, CApiMirrors) {
  const sgemm_conv2d_shape s{1, 8, 8, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1, 3};
  EXPECT_EQ(sgemm_conv2d(&s, 1.0f, kX, kW, 0.0f, kY, nullptr, nullptr, SGEMM_MATH_FP32),
            SGEMM_INVALID_VALUE);
  EXPECT_NE(std::string(sgemm_last_error()).find("groups"), std::string::npos);
  EXPECT_EQ(sgemm_conv2d(nullptr, 1.0f, kX, kW, 0.0f, kY, nullptr, nullptr, SGEMM_MATH_FP32),
            SGEMM_INVALID_VALUE);
}

TEST(Conv, RegistryListsTheConvLadder) {
  ASSERT_GE(conv_kernels().size(), 2u);
  EXPECT_EQ(conv_kernels()[0].slug, "conv-01-analytic");
  EXPECT_EQ(conv_kernels()[1].slug, "conv-02-precomp");
  for (const KernelInfo& k : conv_kernels()) EXPECT_EQ(k.track, Track::Conv);
  for (const KernelInfo& k : kernels()) EXPECT_NE(k.track, Track::Conv) << k.slug;
}

detail::ConvProblem problem(const Conv2dShape& s) {
  return {s, s.p(), s.q(), 1.0f, 0.0f, kX, kW, kY};
}

TEST(Conv, AutoChoosesRungOrLowering) {
  detail::ConvDecision d;
  std::string message;
  Options o;
  // 3 x 3 with 64 channels: rung 13's pipeline through TMA's im2col mode.
  ASSERT_EQ(detail::choose_conv(problem(resnet_3x3()), o, detail::kH100, &d, &message),
            Status::Success) << message;
  ASSERT_NE(d.kernel, nullptr);
  EXPECT_EQ(d.kernel->info.slug, "conv-05-tma-im2col");
  // Groups, which rung 05 does not take: the precomputed-offset rung up to 128 channels per
  // group, wider ones through the patch matrix.
  Conv2dShape grouped4 = resnet_3x3();
  grouped4.groups = 4;
  ASSERT_EQ(detail::choose_conv(problem(grouped4), o, detail::kH100, &d, &message),
            Status::Success) << message;
  ASSERT_NE(d.kernel, nullptr);
  EXPECT_EQ(d.kernel->info.slug, "conv-02-precomp");
  Conv2dShape wide = resnet_3x3();
  wide.c = wide.k = 256;
  Conv2dShape wide_grouped = wide;
  wide_grouped.c = wide_grouped.k = 1024;
  wide_grouped.groups = 4;
  ASSERT_EQ(detail::choose_conv(problem(wide_grouped), o, detail::kH100, &d, &message),
            Status::Success) << message;
  EXPECT_EQ(d.kernel, nullptr);
  EXPECT_TRUE(d.im2col);
  EXPECT_EQ(d.cols_ld, 9 * 1024);  // R S C
  const Conv2dShape one_by_one{32, 56, 56, 256, 64, 1, 1, 0, 0, 1, 1, 1, 1, 1};
  ASSERT_EQ(detail::choose_conv(problem(one_by_one), o, detail::kH100, &d, &message),
            Status::Success);
  EXPECT_FALSE(d.im2col);  // x is the N H W x C matrix already
  // The product: every group's rows of A, its filters transposed into its columns of y.
  const detail::Canonical c = detail::lowered_product(problem(grouped4), kX, 576);
  EXPECT_EQ(c.m, 32 * 56 * 56);
  EXPECT_EQ(c.n, 16);
  EXPECT_EQ(c.k, 9 * 16);
  EXPECT_EQ(c.batch, 4);
  EXPECT_EQ(c.stride_a, 9 * 16);
  EXPECT_EQ(c.stride_b, 16 * 9 * 16);
  EXPECT_EQ(c.stride_c, 16);
  EXPECT_EQ(c.ldc, 64);
  // Tf32 runs the 3 x 3 layers on conv-03 or conv-04; the stem (C = 3) on rung 05's pixel pairs
  // in every math. A strided 1 x 1 projection is lowered in 3xTF32 and, below 2048 output
  // channels, runs on the tensor-core rungs in Tf32.
  const Conv2dShape stem{32, 224, 224, 3, 64, 7, 7, 3, 3, 2, 2, 1, 1, 1};
  const Conv2dShape projection{32, 56, 56, 256, 512, 1, 1, 0, 0, 2, 2, 1, 1, 1};
  auto expect_choice = [&](const Conv2dShape& s, Math math, std::string_view slug) {
    o.math = math;
    ASSERT_EQ(detail::choose_conv(problem(s), o, detail::kH100, &d, &message), Status::Success)
        << message;
    if (slug.empty()) {
      EXPECT_EQ(d.kernel, nullptr);
      EXPECT_TRUE(d.im2col);
    } else {
      ASSERT_NE(d.kernel, nullptr);
      EXPECT_EQ(d.kernel->info.slug, slug);
    }
  };
  // Tf32 on wgmma with more than 128 channels and tiles for half the SMs (32 x 56 x 56 x 256,
  // 3 x 3: 784), else on mma.sync (64 channels; 32 x 7 x 7 x 512: 26 tiles).
  Conv2dShape res5 = resnet_3x3();
  res5.h = res5.w = 7;
  res5.c = res5.k = 512;
  expect_choice(wide, Math::Tf32, "conv-04-wgmma-tf32");
  expect_choice(resnet_3x3(), Math::Tf32, "conv-03-mma-tf32");
  expect_choice(res5, Math::Tf32, "conv-03-mma-tf32");
  // 3xTF32's larger filters on rung 05's FP32 arithmetic above 128 channels, on conv-03's split
  // products at 128 and fewer (more accurate there) and where rung 05 declines.
  for (const Conv2dShape& s : {wide, res5}) expect_choice(s, Math::Fp32Tf32x3, "conv-05-tma-im2col");
  expect_choice(resnet_3x3(), Math::Fp32Tf32x3, "conv-03-mma-tf32x3");
  expect_choice(grouped4, Math::Fp32Tf32x3, "conv-03-mma-tf32x3");
  expect_choice(stem, Math::Tf32, "conv-05-tma-im2col");
  expect_choice(stem, Math::Fp32Tf32x3, "conv-05-tma-im2col");
  expect_choice(stem, Math::Fp32, "conv-05-tma-im2col");
  expect_choice(projection, Math::Tf32, "conv-04-wgmma-tf32");
  expect_choice(projection, Math::Fp32Tf32x3, {});
  o.math = Math::Fp32;
  // A named rung of another math is refused.
  o.kernel = "conv-02-precomp";
  o.math = Math::Tf32;
  EXPECT_EQ(detail::choose_conv(problem(resnet_3x3()), o, detail::kH100, &d, &message),
            Status::InvalidValue);
}

}  // namespace
}  // namespace sgemm
