// Conv rung 05 — implicit GEMM on rung 13's pipeline, fed by TMA's im2col mode (Fp32).
//
// What changes from rung 02:
// - The tile loop is CUDA-core rung 13's (kernels/simt/tma_pipeline.cuh): a producer thread, two
//   consumer warpgroups of 16 x 8 results per thread, an 8-stage mbarrier ring, block tiles of
//   128 x 256, 256 x 128, 64 x 512 or 512 x 64, a persistent grid and the tail split.
// - No thread computes an address of x. An im2col tensor map describes x (NHWC) to the copy
//   engine with the convolution's padding, stride and dilation: given the input pixel under filter
//   tap (0, 0) of a tile's first output pixel and the tap's offset (s dilation_w, r dilation_h),
//   one TMA load brings that tap's 8 channels for all of the tile's output pixels, walking them
//   along W, H and N as the output rows do, zeros wherever the tap falls in the padding. That is
//   rung 02's precomputed offsets done by the hardware: the producer's only arithmetic is one
//   division of the tile's first row into (n, p, q) and of the k-tile into (tap, channels).
// - The k-tiles run per tap over ceil(C / 8) slices of 8 channels; channels past C read as zeros
//   from both x and the filters (a 3-D map, C x R S x K), so any C that is a multiple of 4 (TMA's
//   16-byte strides) works. Fewer channels (the stem's 3) run on pixel pairs (pixel_pairs.cuh):
//   two kernels pack x and w into 8-channel pixels in the workspace first.
// - The filters are a K-major B, as rung 13 reads it; the output is C (N P Q x K, row-major).
#include "kernels/conv/conv.hpp"
#include "kernels/conv/pixel_pairs.cuh"
#include "kernels/simt/tma_pipeline.cuh"

#ifdef SGEMM_HAS_SM90A
#include <algorithm>
#include <climits>
#include <cstdint>
#endif

namespace sgemm::detail {

#ifdef SGEMM_HAS_SM90A
namespace {

using namespace simt_tma;

// What the producer needs of the convolution besides its tensor maps.
struct Im2colGeometry {
  int c_tiles;  // k-tiles per filter tap: ceil(C / kBK)
  int s;        // filter width
  int pq, q;    // output pixels per image and per row
  int stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
};

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
// The pipeline's feed (tma_pipeline.cuh): per k-tile one im2col box of x (the tile's kBM output
// pixels x 8 channels of one tap) and one box of filters per panel of kBN.
template <class Tile>
struct Im2colFeed {
  const CUtensorMap& x;
  const CUtensorMap& w;
  const Im2colGeometry& g;

  __device__ void prefetch() const {
    prefetch_tensor_map(x);
    prefetch_tensor_map(w);
  }
  __device__ void load(std::uint32_t sA, std::uint32_t sB, std::uint32_t full, int m0, int n0,
                       int kt) const {
    const int tap = kt / g.c_tiles, c0 = (kt - tap * g.c_tiles) * kBK;
    const int r = tap / g.s, s = tap - r * g.s;
    const int n = m0 / g.pq, pq = m0 - n * g.pq, p = pq / g.q, q = pq - p * g.q;
    tma_load_im2col(sA, x, c0, q * g.stride_w - g.pad_w, p * g.stride_h - g.pad_h, n,
                    std::uint16_t(s * g.dilation_w), std::uint16_t(r * g.dilation_h), full);
#pragma unroll
    for (int c = 0; c < Tile::kBN; c += Tile::kPanelB)
      tma_load(sB + c * kBK * 4, w, c0, tap, n0 + c, full);
  }
};
#endif  // sm_90a device code

// kTail = false: the whole tiles; true: the tail's pieces.
template <class Tile, bool kTail>
__global__ void __launch_bounds__(kThreads, 1)
    conv_05_tma_im2col_kernel(const Canonical p, const __grid_constant__ CUtensorMap tmap_x,
                              const __grid_constant__ CUtensorMap tmap_w, const Im2colGeometry g,
                              const TileOrder order, const bool c_vec4, const TailSplit tail) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  run_pipeline<Tile, true, true, kTail>(p, Im2colFeed<Tile>{tmap_x, tmap_w, g}, order, c_vec4,
                                        tail);
#endif
}

// --- host side ---------------------------------------------------------------------------------

// The implicit GEMM as the pipeline's consumers see it: C is y, N P Q x K; the reduction is padded
// to whole k-tiles per tap (the channels past C read as zeros).
Canonical gemm_of(const ConvProblem& p) {
  const std::int64_t k = p.shape.r * p.shape.s * ceil_div(p.shape.c, kBK) * kBK;
  return Canonical{p.gemm_m(), p.gemm_n(), k, p.alpha, p.beta, p.x, p.shape.c, true, p.w,
                   p.gemm_k(), true, p.y, p.shape.k};
}

Im2colGeometry geometry(const ConvProblem& p) {
  const Conv2dShape& sh = p.shape;
  return {int(ceil_div(sh.c, kBK)), int(sh.s),         int(p.p * p.q),
          int(p.q),                 int(sh.stride_h),  int(sh.stride_w),
          int(sh.pad_h),            int(sh.pad_w),     int(sh.dilation_h),
          int(sh.dilation_w)};
}

// x as a 4-D NHWC im2col map: boxes of `pixels` output pixels x kBK channels, 32-byte rows in the
// swizzle rung 13 reads. The pixel box's corners bound where a tap's (0, 0) pixel may lie: from
// -pad to the last input pixel + pad - (R - 1) dilation, stepping by the stride; each load adds its
// tap's offset to both.
bool make_im2col_map(CUtensorMap* map, const ConvProblem& p, int pixels) {
  const Conv2dShape& sh = p.shape;
  const cuuint64_t dims[4] = {cuuint64_t(sh.c), cuuint64_t(sh.w), cuuint64_t(sh.h),
                              cuuint64_t(sh.n)};
  const cuuint64_t strides[3] = {cuuint64_t(sh.c) * 4, cuuint64_t(sh.w * sh.c) * 4,
                                 cuuint64_t(sh.h * sh.w * sh.c) * 4};
  const int lower[2] = {int(-sh.pad_w), int(-sh.pad_h)};  // innermost spatial dimension first
  const int upper[2] = {int(sh.pad_w - (sh.s - 1) * sh.dilation_w),
                        int(sh.pad_h - (sh.r - 1) * sh.dilation_h)};
  const cuuint32_t element_strides[4] = {1, cuuint32_t(sh.stride_w), cuuint32_t(sh.stride_h), 1};
  return encode_im2col()(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, const_cast<float*>(p.x), dims,
                         strides, lower, upper, kBK, cuuint32_t(pixels), element_strides,
                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
                         CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The filters (K x R x S x C) as a 3-D map C x R S x K: boxes of kBK channels of one tap for
// `rows` output channels, zeros past C and K.
bool make_filter_map(CUtensorMap* map, const ConvProblem& p, int rows) {
  const Conv2dShape& sh = p.shape;
  const cuuint64_t dims[3] = {cuuint64_t(sh.c), cuuint64_t(sh.r * sh.s), cuuint64_t(sh.k)};
  const cuuint64_t strides[2] = {cuuint64_t(sh.c) * 4, cuuint64_t(sh.r * sh.s * sh.c) * 4};
  const cuuint32_t box[3] = {kBK, 1, cuuint32_t(rows)};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  return encode_tiled()(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, const_cast<float*>(p.w), dims,
                        strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// What the maps and the pipeline need of the problem they run: p, or its pixel pairs.
std::string_view why_not_mapped(const ConvProblem& p) {
  const Conv2dShape& sh = p.shape;
  if (sh.c % 4 != 0)
    return "needs C a multiple of 4, or below 4 (TMA strides are multiples of 16 bytes)";
  if (!aligned16(p.x) || !aligned16(p.w)) return "needs x and w 16-byte aligned (TMA)";
  if (sh.k % 4 != 0 || !aligned16(p.y))
    return "needs K a multiple of 4 and y 16-byte aligned (rung 13's stores of C)";
  // The im2col map's limits for a 4-D tensor: pixel-box corners in [-128, 127], traversal strides
  // up to 8, tap offsets of 8 bits (below 255, as CUTLASS's checks have it).
  const auto corner = [](std::int64_t v) { return v >= -128 && v <= 127; };
  if (!corner(-sh.pad_h) || !corner(-sh.pad_w) ||
      !corner(sh.pad_h - (sh.r - 1) * sh.dilation_h) ||
      !corner(sh.pad_w - (sh.s - 1) * sh.dilation_w))
    return "needs pad <= 128 and pad - (R - 1) dilation in [-128, 127] (TMA im2col corners)";
  if (sh.stride_h > 8 || sh.stride_w > 8) return "needs strides of at most 8 (TMA im2col)";
  if ((sh.r - 1) * sh.dilation_h >= 255 || (sh.s - 1) * sh.dilation_w >= 255)
    return "needs (R - 1) dilation and (S - 1) dilation below 255 (TMA im2col offsets)";
  const Canonical g = gemm_of(p);
  if (std::max({g.m, g.n, g.k, sh.n, sh.h, sh.w}) > INT_MAX)
    return "needs N P Q, K, R S C, N, H and W below 2^31 (TMA coordinates)";
  // The maps' largest strides: an image of x, and one output channel's filter.
  if (double(sh.h) * double(sh.w) * double(sh.c) >= 0x1p38 ||
      double(sh.r) * double(sh.s) * double(sh.c) >= 0x1p38)
    return "needs H W C and R S C below 2^38 (TMA strides are below 2^40 bytes)";
  return {};
}

std::string_view why_not(const ConvProblem& p, const Device& device) {
  if (std::string_view r = needs_sm90_tma(device); !r.empty()) return r;
  if (p.shape.groups != 1)
    return "needs groups = 1 (a k-tile's channels past C must read as zeros)";
  // Pixel pairs are packed into the workspace, which is 16-byte aligned.
  return why_not_mapped(pixel_pairs_apply(p) ? pixel_paired(p, nullptr, nullptr) : p);
}

std::size_t workspace_bytes(const ConvProblem& p, const Device& device) {
  if (!pixel_pairs_apply(p)) return pipeline_workspace_bytes(gemm_of(p), device);
  return Workspace::rounded(std::size_t(paired_input_floats(p)) * sizeof(float)) +
         Workspace::rounded(std::size_t(paired_filter_floats(p)) * sizeof(float)) +
         pipeline_workspace_bytes(gemm_of(pixel_paired(p, nullptr, nullptr)), device);
}

// The convolution on x and w as they are (C a multiple of 4).
cudaError_t launch_mapped(const ConvProblem& p, const LaunchArgs& args) {
  const Canonical g = gemm_of(p);
  const Im2colGeometry geo = geometry(p);
  return with_block_tile(g, [&]<class Tile>() {
    CUtensorMap tmap_x, tmap_w;
    if (!make_im2col_map(&tmap_x, p, Tile::kBM) || !make_filter_map(&tmap_w, p, Tile::kPanelB))
      return cudaErrorInvalidValue;
    return launch_pipeline<Tile, true, true>(
        g, args, conv_05_tma_im2col_kernel<Tile, false>, conv_05_tma_im2col_kernel<Tile, true>,
        [&](auto kernel, unsigned ctas, const TileOrder& order, bool c_vec4,
            const TailSplit& split) {
          return launch_kernel(kernel, ctas, kThreads, Tile::Ring::kSmemBytes, args.stream, g,
                               tmap_x, tmap_w, geo, order, c_vec4, split);
        });
  });
}

cudaError_t launch(const ConvProblem& p, const LaunchArgs& args) {
  if (!pixel_pairs_apply(p)) return launch_mapped(p, args);
  float* x2 = args.workspace.take<float>(paired_input_floats(p));
  float* w2 = args.workspace.take<float>(paired_filter_floats(p));
  if (!x2 || !w2) return cudaErrorMemoryAllocation;
  if (cudaError_t e = pack_pixel_pairs(p, x2, w2, args.stream)) return e;
  return launch_mapped(pixel_paired(p, x2, w2), args);
}

}  // namespace
#endif  // SGEMM_HAS_SM90A

SGEMM_CONV_KERNEL_ENTRIES(conv_05_tma_im2col) {
#ifdef SGEMM_HAS_SM90A
  static const ConvKernelEntry entries[] = {
      {{"conv-05-tma-im2col", Track::Conv, 5,
        "implicit GEMM on CUDA-core rung 13's pipeline: TMA's im2col mode loads each tap's "
        "patches, 16 x 8 per thread, persistent, tail split",
        Math::Fp32, "seed 001's extension on rung 13",
        "compute capability 9.0 (sm_90a); groups = 1; C a multiple of 4 (x and w 16-byte "
        "aligned) or below 4; K a multiple of 4, y 16-byte aligned; TMA im2col limits on "
        "padding, stride and dilation"},
       why_not, launch, workspace_bytes}};
  return entries;
#else
  return {};
#endif
}

}  // namespace sgemm::detail
