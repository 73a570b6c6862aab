// The precomputed offsets of an implicit-GEMM convolution ("Implicit Precomp GEMM", as in cuDNN),
// shared by the conv rungs from 02 on and by the FP32 fallback of the tensor-core conv rung.
//
// Per filter tap (r, s) the host computes once per problem the offset of that tap's input pixel
// from the pixel under tap (0, 0), (r dilation_h W + s dilation_w) C, and the tap's row and
// column shift for the padding test; the table travels in the kernel's parameters (constant
// memory), up to kMaxTaps taps. Each thread decomposes its output rows into (n, p, q) once,
// before the k-loop, and carries its reduction index as (tap, c): the loop only adds and
// compares.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/conv/implicit_gemm.cuh"

namespace sgemm::detail {

inline constexpr int kMaxTaps = 64;  // 8 x 8 filters

struct TapTable {
  std::int64_t offset[kMaxTaps];   // (r dilation_h W + s dilation_w) C
  int dh[kMaxTaps], dw[kMaxTaps];  // r dilation_h, s dilation_w
};

struct PrecompArgs {
  ConvProblem p;
  TapTable taps;
};

// The table of p's taps (precomp_why_not(p) is empty).
PrecompArgs precomp_args(const ConvProblem& p);

// Empty when the offsets of p fit the loaders' 32-bit coordinates and the table, else why not.
std::string_view precomp_why_not(const ConvProblem& p);

// Where a thread's output row starts in x: the offset of its tap-(0, 0) pixel at channel g C/G,
// and that pixel's coordinates (negative inside the padding).
struct PrecompRow {
  std::int64_t base;
  int h0, w0;
  bool in;  // a row of the output (row < m)

  PrecompRow() = default;
  __device__ PrecompRow(const ConvProblem& p, int group, std::int64_t row) {
    const Conv2dShape& sh = p.shape;
    in = row < p.gemm_m();
    const std::int64_t q = row % p.q, pq = row / p.q, pp = pq % p.p, n = pq / p.p;
    h0 = int(pp * sh.stride_h - sh.pad_h);
    w0 = int(q * sh.stride_w - sh.pad_w);
    base = ((n * sh.h + h0) * sh.w + w0) * sh.c + group * (sh.c / sh.groups);
  }
  // Whether tap (dh, dw) of this row reads the input rather than the padding.
  __device__ bool reads(const Conv2dShape& sh, int dh, int dw) const {
    const int h = h0 + dh, w = w0 + dw;
    return in && h >= 0 && h < sh.h && w >= 0 && w < sh.w;
  }
};

// conv_tile's loader of A (implicit_gemm.cuh): one reduction column per thread, carried as
// (tap, c) and advanced by kConvBK per k-step.
struct PrecompLoader {
  const PrecompArgs& args;
  PrecompRow rows[kConvLoads];
  int cg, tap, c;  // channels per group; where this thread's reduction column is

  __device__ PrecompLoader(const PrecompArgs& a, int group, std::int64_t row0, int tid) : args(a) {
#pragma unroll
    for (int i = 0; i < kConvLoads; ++i)
      rows[i] = PrecompRow(a.p, group, row0 + tid / kConvBK + i * (kConvThreads / kConvBK));
    cg = int(a.p.shape.c / a.p.shape.groups);
    const int kk = tid % kConvBK;  // the divisions happen once, here
    tap = kk / cg;
    c = kk % cg;
  }

  __device__ void load(std::int64_t, float (&v)[kConvLoads]) {
    const ConvProblem& p = args.p;
    const bool k_in = tap < p.shape.r * p.shape.s;
    const std::int64_t offset = k_in ? args.taps.offset[tap] + c : 0;
    const int dh = k_in ? args.taps.dh[tap] : 0, dw = k_in ? args.taps.dw[tap] : 0;
#pragma unroll
    for (int i = 0; i < kConvLoads; ++i)
      v[i] = k_in && rows[i].reads(p.shape, dh, dw) ? p.x[rows[i].base + offset] : 0.0f;
    c += kConvBK;  // the next k-step's column
    while (c >= cg) c -= cg, ++tap;
  }
};

// y = alpha conv(x, w) + beta y on the CUDA cores (conv_tile with PrecompLoader), every block
// returning at once unless *flag != 0 when it starts: the fallback of the 3xTF32 conv rung for
// inputs its split cannot carry. precomp_why_not(p) must be empty.
cudaError_t conv_fp32_if(const ConvProblem& p, const int* flag, cudaStream_t stream);

}  // namespace sgemm::detail
