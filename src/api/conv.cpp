// sgemm::conv2d(): validation, quick returns, the choice between a conv rung and the lowering
// to a GEMM, and the launch.
#include <string>

#include "api/gemm.hpp"
#include "api/scale_c.hpp"
#include "dispatch/conv.hpp"
#include "kernels/conv/im2col.cuh"
#include "runtime/device.hpp"
#include "runtime/workspace.hpp"
#include "sgemm/sgemm.hpp"

namespace sgemm {
namespace {

std::int64_t output_extent(std::int64_t in, std::int64_t pad, std::int64_t dilation,
                           std::int64_t filter, std::int64_t stride) {
  if (stride < 1) return 0;
  // In 128 bits: legal fields as large as int64 allows must not wrap into a valid extent.
  const __int128 span = __int128(in) + 2 * __int128(pad) - __int128(dilation) * (filter - 1) - 1;
  if (span < 0) return 0;
  const __int128 extent = span / stride + 1;
  return extent > INT64_MAX ? INT64_MAX : std::int64_t(extent);
}

Status validate(const Conv2dShape& sh, const float* x, const float* w, const float* y,
                float alpha, const Options& options, std::string* message) {
  auto bad = [&](std::string text) {
    *message = std::move(text);
    return Status::InvalidValue;
  };
  const std::pair<const char*, std::int64_t> at_least_zero[] = {
      {"n", sh.n}, {"h", sh.h}, {"w", sh.w}, {"c", sh.c}, {"k", sh.k}, {"pad_h", sh.pad_h},
      {"pad_w", sh.pad_w}};
  for (auto [name, v] : at_least_zero)
    if (v < 0) return bad(std::string("shape.") + name + " = " + std::to_string(v) + " < 0");
  const std::pair<const char*, std::int64_t> at_least_one[] = {
      {"r", sh.r},           {"s", sh.s},           {"stride_h", sh.stride_h},
      {"stride_w", sh.stride_w}, {"dilation_h", sh.dilation_h}, {"dilation_w", sh.dilation_w},
      {"groups", sh.groups}};
  for (auto [name, v] : at_least_one)
    if (v < 1) return bad(std::string("shape.") + name + " = " + std::to_string(v) + " < 1");
  if (sh.c % sh.groups || sh.k % sh.groups)
    return bad("shape.c = " + std::to_string(sh.c) + " and shape.k = " + std::to_string(sh.k) +
               " must be multiples of shape.groups = " + std::to_string(sh.groups));
  if (sh.p() < 1 || sh.q() < 1)
    return bad("the dilated filter (" + std::to_string(sh.dilation_h * (sh.r - 1) + 1) + " x " +
               std::to_string(sh.dilation_w * (sh.s - 1) + 1) + ") does not fit the padded input (" +
               std::to_string(sh.h + 2 * sh.pad_h) + " x " + std::to_string(sh.w + 2 * sh.pad_w) + ")");
  if (!detail::valid_math(options.math)) return bad("options.math: not a Math value");
  if (options.workspace != nullptr || options.workspace_bytes != 0)
    return bad("options.workspace: conv2d takes its scratch from the device's pool");
  if (options.kernel != "auto" && !detail::find_conv_kernel(options.kernel))
    return bad("options.kernel: no convolution kernel named '" + std::string(options.kernel) + "'");
  const bool empty = sh.n == 0 || sh.k == 0;
  const bool reads_inputs = alpha != 0.0f && sh.c > 0;
  if (!empty && reads_inputs && x == nullptr) return bad("x is null");
  if (!empty && reads_inputs && w == nullptr) return bad("w is null");
  if (!empty && y == nullptr) return bad("y is null");
  return Status::Success;
}

}  // namespace

std::int64_t Conv2dShape::p() const { return output_extent(h, pad_h, dilation_h, r, stride_h); }
std::int64_t Conv2dShape::q() const { return output_extent(w, pad_w, dilation_w, s, stride_w); }

Status conv2d(const Conv2dShape& shape, float alpha, const float* x, const float* w, float beta,
              float* y, cudaStream_t stream, const Options& options) {
  std::string message;
  if (Status s = validate(shape, x, w, y, alpha, options, &message); s != Status::Success)
    return detail::fail(s, std::move(message));
  const detail::ConvProblem p{shape, shape.p(), shape.q(), alpha, beta, x, w, y};
  if (p.gemm_m() == 0 || shape.k == 0) return Status::Success;
  const bool scale_only = alpha == 0.0f || shape.c == 0;
  if (scale_only && beta == 1.0f) return Status::Success;

  int ordinal = 0;
  detail::Device device;
  if (cudaError_t err = detail::stream_device(stream, &ordinal))
    return detail::from_cuda(err, "the stream's device");
  if (cudaError_t err = detail::device_facts(ordinal, &device))
    return detail::from_cuda(err, "the device's attributes");
  const detail::CurrentDevice current(ordinal);
  if (current.error()) return detail::from_cuda(current.error(), "making the stream's device current");
  if (scale_only) {
    if (cudaError_t err = detail::scale_c(y, p.gemm_m(), shape.k, shape.k, 1, 0, beta, stream))
      return detail::from_cuda(err, "scaling y");
    return Status::Success;
  }

  detail::ConvDecision decision;
  if (Status s = detail::choose_conv(p, options, device, &decision, &message); s != Status::Success)
    return detail::fail(s, std::move(message));
  void* scratch = nullptr;
  if (decision.workspace_bytes)
    if (cudaError_t err = detail::take_pooled(ordinal, decision.workspace_bytes, stream, &scratch))
      return detail::from_cuda(err, "taking the workspace");
  Status status = Status::Success;
  if (decision.kernel) {
    detail::Workspace workspace(scratch, decision.workspace_bytes);
    if (cudaError_t err = decision.kernel->launch(p, {stream, device, workspace}))
      status = detail::from_cuda(err, std::string(decision.kernel->info.slug));
  } else {
    // The lowering: x, or its patch matrix, times the filters transposed, by the GEMM library.
    const float* a = x;
    std::int64_t lda = shape.c;
    if (decision.im2col) {
      a = static_cast<const float*>(scratch);
      lda = decision.cols_ld;
      if (cudaError_t err = detail::im2col(p, static_cast<float*>(scratch), lda, stream))
        status = detail::from_cuda(err, "im2col");
    }
    if (status == Status::Success) {
      Options product;
      product.math = options.math;
      status = detail::enqueue_product(detail::lowered_product(p, a, lda), device, stream, product);
    }
  }
  if (scratch)
    if (cudaError_t err = cudaFreeAsync(scratch, stream); err && status == Status::Success)
      status = detail::from_cuda(err, "returning the workspace");
  return status;
}

}  // namespace sgemm
