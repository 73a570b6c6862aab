// Pixel pairs: a convolution over fewer than 4 channels recast as one over 8, for the kernels
// whose loads need 16-byte pixels (TMA's im2col mode cannot address the stem's 12-byte pixels).
//
// The packed input x2 holds, at column j of each input row, two pixels of 4 channel slots each:
// x(j - pad_w) and x(j - pad_w + dilation_w), zeros past C and outside the input. A tap pair
// (2 s', 2 s' + 1) of the filter then reads one packed pixel, so the convolution becomes
//   S' = ceil(S / 2) taps along w, dilation_w' = 2 dilation_w, no padding along w, C' = 8,
// with w2 (K x R x S' x 8) holding taps 2 s' and 2 s' + 1 in the two slots (zeros past S and C).
// x2 is W2 = (Q - 1) stride_w + (S' - 1) dilation_w' + 1 columns wide: exactly Q output columns,
// its padding along w stored rather than supplied by the loads. Rows, padding along h, strides
// and the output are the call's own. The reduction, R S' 8 against R S C, costs 224 against 147
// on the 7 x 7 stem; the 7-pixel-wide alternative, one 8-channel slice per tap, costs 392.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/conv/conv.hpp"

namespace sgemm::detail {

inline constexpr int kPairSlot = 4;  // channels per pixel in a packed pair

// Whether p is one that pixel pairs recast: fewer than kPairSlot channels, one group.
inline bool pixel_pairs_apply(const ConvProblem& p) {
  return p.shape.c < kPairSlot && p.shape.groups == 1;
}

// The recast problem (pixel_pairs_apply(p)), reading x2 and w2.
ConvProblem pixel_paired(const ConvProblem& p, const float* x2, const float* w2);

// Floats of x2 and of w2.
std::int64_t paired_input_floats(const ConvProblem& p);
std::int64_t paired_filter_floats(const ConvProblem& p);

// Writes x2 and w2 for p on `stream`.
cudaError_t pack_pixel_pairs(const ConvProblem& p, float* x2, float* w2, cudaStream_t stream);

}  // namespace sgemm::detail
