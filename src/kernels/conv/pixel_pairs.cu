// Pixel pairs (pixel_pairs.cuh).
#include "kernels/conv/pixel_pairs.cuh"

#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

// The packed problem's taps along w and its width.
std::int64_t paired_taps(const Conv2dShape& sh) { return (sh.s + 1) / 2; }
std::int64_t paired_width(const ConvProblem& p) {
  const Conv2dShape& sh = p.shape;
  return (p.q - 1) * sh.stride_w + (paired_taps(sh) - 1) * 2 * sh.dilation_w + 1;
}

// One thread per packed pixel: two float4 stores, consecutive threads along the row.
__global__ void pack_input_kernel(const ConvProblem p, std::int64_t width, float4* x2) {
  const Conv2dShape& sh = p.shape;
  const std::int64_t total = sh.n * sh.h * width;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t j = i % width, row = i / width;  // row: n H + h
    const float* x_row = p.x + row * sh.w * sh.c;
#pragma unroll
    for (int slot = 0; slot < 2; ++slot) {
      const std::int64_t w = j - sh.pad_w + slot * sh.dilation_w;
      float v[kPairSlot] = {};
      if (w >= 0 && w < sh.w)
        for (int c = 0; c < sh.c; ++c) v[c] = x_row[w * sh.c + c];
      x2[2 * i + slot] = {v[0], v[1], v[2], v[3]};
    }
  }
}

// One thread per float4 of w2: output channel k, tap (r, s'), slot.
__global__ void pack_filter_kernel(const ConvProblem p, std::int64_t taps_w, float4* w2) {
  const Conv2dShape& sh = p.shape;
  const std::int64_t total = sh.k * sh.r * taps_w * 2;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t slot = i % 2, tap = i / 2 % taps_w, kr = i / (2 * taps_w);  // kr: k R + r
    const std::int64_t s = 2 * tap + slot;
    float v[kPairSlot] = {};
    if (s < sh.s)
      for (int c = 0; c < sh.c; ++c) v[c] = p.w[(kr * sh.s + s) * sh.c + c];
    w2[i] = {v[0], v[1], v[2], v[3]};
  }
}

}  // namespace

ConvProblem pixel_paired(const ConvProblem& p, const float* x2, const float* w2) {
  ConvProblem packed = p;
  Conv2dShape& sh = packed.shape;
  sh.w = paired_width(p);
  sh.c = 2 * kPairSlot;
  sh.s = paired_taps(p.shape);
  sh.pad_w = 0;
  sh.dilation_w = 2 * p.shape.dilation_w;
  packed.x = x2;
  packed.w = w2;
  return packed;
}

std::int64_t paired_input_floats(const ConvProblem& p) {
  return p.shape.n * p.shape.h * paired_width(p) * 2 * kPairSlot;
}

std::int64_t paired_filter_floats(const ConvProblem& p) {
  return p.shape.k * p.shape.r * paired_taps(p.shape) * 2 * kPairSlot;
}

cudaError_t pack_pixel_pairs(const ConvProblem& p, float* x2, float* w2, cudaStream_t stream) {
  const std::int64_t width = paired_width(p), taps_w = paired_taps(p.shape);
  const std::int64_t pixels = p.shape.n * p.shape.h * width;
  if (cudaError_t e = launch_kernel(pack_input_kernel, grid_stride_blocks(pixels, 256), 256, 0,
                                    stream, p, width, reinterpret_cast<float4*>(x2)))
    return e;
  const std::int64_t filter_float4s = p.shape.k * p.shape.r * taps_w * 2;
  return launch_kernel(pack_filter_kernel, grid_stride_blocks(filter_float4s, 256), 256, 0, stream,
                       p, taps_w, reinterpret_cast<float4*>(w2));
}

}  // namespace sgemm::detail
