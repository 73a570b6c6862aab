// im2col (im2col.cuh).
#include "kernels/conv/im2col.cuh"

#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

// One thread per element of the patch matrix, consecutive threads along its row, whose
// channels are contiguous in x.
__global__ void im2col_kernel(const ConvProblem p, float* cols, std::int64_t ld) {
  const Conv2dShape& sh = p.shape;
  const std::int64_t cg = sh.c / sh.groups, row_length = sh.r * sh.s * sh.c;
  const std::int64_t total = p.gemm_m() * row_length;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t row = i / row_length, col = i % row_length;
    // Column col: group g's reduction index kk, that is tap (r, s) and channel c of the group.
    const std::int64_t g = col / (row_length / sh.groups), kk = col % (row_length / sh.groups);
    const std::int64_t c = kk % cg, rs = kk / cg, s = rs % sh.s, r = rs / sh.s;
    const std::int64_t q = row % p.q, pq = row / p.q, pp = pq % p.p, n = pq / p.p;
    const std::int64_t h = pp * sh.stride_h - sh.pad_h + r * sh.dilation_h;
    const std::int64_t w = q * sh.stride_w - sh.pad_w + s * sh.dilation_w;
    const bool in = h >= 0 && h < sh.h && w >= 0 && w < sh.w;
    cols[row * ld + col] = in ? p.x[((n * sh.h + h) * sh.w + w) * sh.c + g * cg + c] : 0.0f;
  }
}

}  // namespace

bool conv_input_is_a(const ConvProblem& p) {
  const Conv2dShape& sh = p.shape;
  return sh.r == 1 && sh.s == 1 && sh.stride_h == 1 && sh.stride_w == 1 && sh.pad_h == 0 &&
         sh.pad_w == 0;
}

cudaError_t im2col(const ConvProblem& p, float* cols, std::int64_t ld, cudaStream_t stream) {
  const std::int64_t total = p.gemm_m() * p.shape.r * p.shape.s * p.shape.c;
  return launch_kernel(im2col_kernel, grid_stride_blocks(total, 256), 256, 0, stream, p, cols, ld);
}

}  // namespace sgemm::detail
