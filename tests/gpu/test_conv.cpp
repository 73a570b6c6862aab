// conv2d for every convolution kernel and for `auto` in every math, against the direct float64
// reference (src/reference/conv_reference.hpp): padding at every edge, strides, dilation, odd
// channel counts, 1 x 1 and 7 x 7 filters, tiny batches and groups.
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "reference/conv_reference.hpp"

namespace sgemm::test {
namespace {

struct ConvCase {
  Conv2dShape shape;
  float alpha = 1.0f, beta = 0.0f;
};

Conv2dShape conv(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t k,
                 std::int64_t r, std::int64_t s, std::int64_t pad, std::int64_t stride,
                 std::int64_t dilation = 1, std::int64_t groups = 1) {
  return {n, h, w, c, k, r, s, pad, pad, stride, stride, dilation, dilation, groups};
}

std::vector<ConvCase> conv_cases() {
  std::vector<ConvCase> v = {
      {conv(1, 5, 7, 3, 4, 3, 3, 1, 1)},               // tiny, padding on every edge
      {conv(2, 9, 8, 5, 7, 3, 3, 1, 2), 2.0f, 0.5f},   // stride 2, C and K odd, beta
      {conv(3, 11, 10, 6, 9, 3, 3, 2, 1, 2)},          // dilation 2
      {conv(2, 14, 14, 13, 70, 1, 1, 0, 1)},           // 1 x 1: x is A
      {conv(2, 15, 15, 16, 33, 1, 1, 0, 2), -1.0f, 1.0f},  // 1 x 1, stride 2 (a projection)
      {conv(1, 23, 21, 3, 64, 7, 7, 3, 2)},            // the stem: 7 x 7, stride 2, C = 3
      {conv(2, 12, 12, 8, 12, 3, 3, 1, 1, 1, 4)},      // groups
      {conv(1, 10, 10, 16, 16, 3, 3, 1, 1, 1, 16)},    // depthwise
      {conv(1, 6, 6, 2, 3, 5, 2, 0, 1)},               // R != S, no padding
      {conv(4, 30, 30, 64, 128, 3, 3, 1, 1)},          // several tiles each way
      // C / groups a multiple of 16 or 32 (the tensor-core rungs' k-tiles): stride and beta with
      // a partial column tile, dilation with groups, and a 5 x 5 filter over partial tiles.
      {conv(2, 9, 11, 32, 24, 3, 3, 1, 2), 1.5f, -0.5f},
      {conv(1, 7, 9, 32, 20, 3, 3, 2, 1, 2, 2)},
      {conv(3, 17, 13, 48, 72, 5, 5, 2, 1)},
      {conv(1, 7, 9, 64, 40, 3, 3, 2, 1, 2, 2)},  // 32 channels per group, dilation 2
      {conv(2, 10, 10, 32, 300, 3, 3, 1, 1), 1.0f, 0.25f},  // 300 filters: a partial 256 tile
      {conv(2, 6, 6, 4, 5, 3, 3, 1, 1), 0.0f, 3.0f},   // alpha 0: y = beta y
      // C and K multiples of 4 (rung 05's TMA loads): padding, stride and dilation that differ
      // per axis, with C = 12 (k-tiles of 8 channels half past C); 140 tiles of 512 x 64 across
      // images, a round for every SM and a tail; one 64 x 512 tile.
      {Conv2dShape{3, 13, 17, 12, 20, 3, 5, 2, 1, 1, 2, 2, 1, 1}, 1.0f, 0.5f},
      {conv(70, 32, 32, 4, 8, 3, 3, 1, 1)},
      {conv(1, 8, 8, 8, 600, 3, 3, 1, 1)},
      // Below 4 channels (rung 05's pixel pairs): an even S with dilation and stride along w that
      // differ from h's; one channel, an odd S and padding wider than the stride.
      {Conv2dShape{2, 19, 23, 2, 8, 4, 6, 1, 3, 2, 3, 1, 2, 1}, 1.0f, 0.5f},
      {conv(3, 9, 10, 1, 12, 5, 5, 2, 1)},
  };
  return v;
}

std::string describe(const ConvCase& c) {
  const Conv2dShape& s = c.shape;
  return "N" + std::to_string(s.n) + " H" + std::to_string(s.h) + " W" + std::to_string(s.w) +
         " C" + std::to_string(s.c) + " K" + std::to_string(s.k) + " " + std::to_string(s.r) +
         "x" + std::to_string(s.s) + " pad " + std::to_string(s.pad_h) + " stride " +
         std::to_string(s.stride_h) + " dilation " + std::to_string(s.dilation_h) + " groups " +
         std::to_string(s.groups) + " alpha " + std::to_string(c.alpha) + " beta " +
         std::to_string(c.beta);
}

// Runs one case; a kernel that declines it must say NotSupported and leave y untouched.
void run_conv(const ConvCase& c, const Options& options, std::uint64_t seed) {
  ref::ConvBuffers buf(c.shape);
  buf.fill_random(seed);
  buf.compute_reference();
  const Status s = conv2d(c.shape, c.alpha, buf.x(), buf.w(), c.beta, buf.y(), nullptr, options);
  const std::string error(s == Status::Success ? "" : last_error());
  const cudaError_t sync = cudaDeviceSynchronize();
  ASSERT_EQ(sync, cudaSuccess) << cudaGetErrorString(sync) << " after " << options.kernel << " on "
                               << describe(c);
  if (s == Status::NotSupported && options.kernel != "auto") {
    const ref::ConvBuffers::Verdict untouched = buf.verify(0.0f, 1.0f, Math::Fp32);
    EXPECT_TRUE(untouched.pass) << options.kernel << " declined " << describe(c)
                                << " but changed y: " << untouched.detail;
    return;
  }
  ASSERT_EQ(s, Status::Success) << options.kernel << " " << to_string(options.math) << " on "
                                << describe(c) << ": " << error;
  const ref::ConvBuffers::Verdict v = buf.verify(c.alpha, c.beta, options.math);
  EXPECT_TRUE(v.pass) << options.kernel << " " << to_string(options.math) << " on " << describe(c)
                      << ": " << v.detail << " (relative error " << v.rel_fro << ")";
}

class ConvKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvKernels, Cases) {
  Options options;
  options.kernel = GetParam();
  for (const KernelInfo& k : conv_kernels())
    if (k.slug == GetParam()) options.math = k.math;
  std::uint64_t seed = 1;
  for (const ConvCase& c : conv_cases()) {
    run_conv(c, options, seed++);
    if (HasFailure()) return;
  }
}

std::vector<std::string> conv_slugs() {
  std::vector<std::string> slugs;
  for (const KernelInfo& k : conv_kernels()) slugs.emplace_back(k.slug);
  return slugs;
}

INSTANTIATE_TEST_SUITE_P(Kernels, ConvKernels, ::testing::ValuesIn(conv_slugs()), test_name);

TEST(ConvAuto, EveryMath) {
  std::uint64_t seed = 100;
  for (Math math : built_maths()) {
    Options options;
    options.math = math;
    for (const ConvCase& c : conv_cases()) {
      run_conv(c, options, seed++);
      if (HasFailure()) return;
    }
  }
}

// 3xTF32 on an input its split cannot carry: FLT_MAX rounds to infinity in TF32, so the tensor
// cores would return infinities where FP32 arithmetic gives finite values. The scan before the
// tile kernel must hand the call to the FP32 loop, for both of conv-03's loaders.
TEST(ConvAuto, Tf32x3HandsUnsplittableInputToFp32) {
  const ConvCase cases[] = {{conv(2, 8, 8, 32, 16, 3, 3, 1, 1)}, {conv(2, 9, 7, 3, 8, 3, 3, 1, 1)},
                            {conv(1, 6, 6, 16, 8, 3, 3, 1, 1), 1.0f, 0.5f}};
  std::uint64_t seed = 300;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(describe(c));
    ref::ConvBuffers buf(c.shape);
    buf.fill_random(seed++);
    const float huge = 3.4028235e38f;  // FLT_MAX
    ASSERT_EQ(cudaMemcpy(const_cast<float*>(buf.x()) + buf.x_count() / 2, &huge, sizeof(float),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
    buf.compute_reference();
    Options options;
    options.math = Math::Fp32Tf32x3;
    options.kernel = "conv-03-mma-tf32x3";
    ASSERT_EQ(conv2d(c.shape, c.alpha, buf.x(), buf.w(), c.beta, buf.y(), nullptr, options),
              Status::Success)
        << last_error();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const ref::ConvBuffers::Verdict v = buf.verify(c.alpha, c.beta, options.math);
    EXPECT_TRUE(v.pass) << v.detail << " (relative error " << v.rel_fro << ")";
  }
}

// A larger layer through the lowering (a ResNet-50 3 x 3 at batch 2), every math.
TEST(ConvAuto, ResNetLayer) {
  for (Math math : built_maths()) {
    Options options;
    options.math = math;
    run_conv({conv(2, 28, 28, 128, 128, 3, 3, 1, 1)}, options, 7);
    if (HasFailure()) return;
  }
}

// conv2d inside a CUDA graph, in both capture modes: the rung, the lowering through a pooled
// patch matrix, and x itself as A; each graph replayed on the capturing stream and another.
TEST(ConvAuto, GraphCapture) {
  const ConvCase cases[] = {{conv(2, 14, 14, 32, 40, 3, 3, 1, 1)},
                            {conv(2, 14, 14, 256, 64, 3, 3, 1, 2), 1.0f, 0.5f},
                            {conv(2, 9, 9, 64, 96, 1, 1, 0, 1)},
                            {conv(2, 64, 66, 32, 160, 3, 3, 1, 1)}};  // conv-04 in Tf32
  std::uint64_t seed = 500;
  for (cudaStreamCaptureMode mode : {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal})
    for (Math math : built_maths())
      for (const ConvCase& c : cases) {
        SCOPED_TRACE(describe(c) + " " + to_string(math));
        ref::ConvBuffers buf(c.shape);
        buf.fill_random(seed++);
        buf.compute_reference();
        cudaStream_t streams[2];
        for (cudaStream_t& st : streams)
          ASSERT_EQ(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
        Options options;
        options.math = math;
        cudaGraph_t graph = nullptr;
        ASSERT_EQ(cudaStreamBeginCapture(streams[0], mode), cudaSuccess);
        const Status s = conv2d(c.shape, c.alpha, buf.x(), buf.w(), c.beta, buf.y(), streams[0],
                                options);
        const std::string message(s == Status::Success ? "" : last_error());
        ASSERT_EQ(cudaStreamEndCapture(streams[0], &graph), cudaSuccess);
        ASSERT_EQ(s, Status::Success) << message;
        cudaGraphExec_t exec = nullptr;
        ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
        for (int r = 0; r < 2; ++r) {
          buf.reset_y();
          ASSERT_EQ(cudaGraphLaunch(exec, streams[r % 2]), cudaSuccess);
          ASSERT_EQ(cudaStreamSynchronize(streams[r % 2]), cudaSuccess);
          const ref::ConvBuffers::Verdict v = buf.verify(c.alpha, c.beta, math);
          EXPECT_TRUE(v.pass) << "replay " << r << ": " << v.detail;
        }
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        for (cudaStream_t st : streams) cudaStreamDestroy(st);
        if (HasFailure()) return;
      }
}

}  // namespace
}  // namespace sgemm::test
