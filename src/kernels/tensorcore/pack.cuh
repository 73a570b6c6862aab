// What the TF32 tensor-core rungs (01 to 03) share: the packing pass that turns A and B into
// K-major, tile-padded TF32 operands, and the FP32 fallback for inputs the 3xTF32 split cannot
// carry.
//
// tf32_gemm() enqueues, on the call's stream and without any host synchronization (for every
// matrix of a strided batch at once, where the tile kernel is `batched`):
//
//   1. from the call's workspace: [nonfinite flag | A parts (parts x mp x kp) | B parts
//      (parts x np x kp)], then the tile kernel's own (tf32_workspace_bytes counts it all)
//   2. pack A and B: X_big = tf32(x), and for 3xTF32 also X_small = tf32(x - X_big), stored
//      K-major (B as N x K), zero past m, n and k, so the main kernels load whole 16-byte
//      aligned tiles with no edge checks and both operands are zero past K. An operand the
//      rung reads in place (Tf32Direct) is not packed. In 3xTF32 mode such an A still has its
//      small part packed (a_big); such a B is scanned for values the split cannot carry, or not
//      even that where the tile kernel checks them and nothing reads C (b_checked);
//   3. the rung's own tile kernel (launch_tiles);
//   4. 3xTF32 only: the FP32 fallback (fallback/fp32_any.cuh), which does nothing unless the
//      pack, the scan or the tile kernel saw a value the split cannot carry (see splittable) —
//      then it recomputes all of C with FP32 FMA (and the tile kernel, reading the same flag, did
//      nothing, or with beta == 0 wrote values the fallback overwrites).
//
// 3xTF32 with k < kMinSplitK skips all of this and runs the FP32 kernel alone: with a handful
// of products per element the split's own error (a truncating tensor-core sum, the dropped
// small*small term) is not below FP32's single rounding, and such a problem is bound by the
// traffic of C, so FP32 FMA costs nothing extra.
#pragma once

#include <cstdint>

#include "kernels/kernel.hpp"

namespace sgemm::detail {

enum class Tf32Mode { Tf32, Tf32x3 };

// Packed sizes are multiples of these, so a 128 x 128 block tile with a 16- or 32-deep k-tile
// never needs a bounds check.
inline constexpr int kPackTileMN = 128;
inline constexpr int kPackTileK = 32;
inline constexpr std::int64_t kMinSplitK = 16;

// Round to nearest TF32, ties to even, kept as an FP32 bit pattern with the low 13 bits zero.
// A TFLOAT32 tensor map rounds the same way, bit for bit (a probe of 1M values on an H200), so
// an operand gets the same TF32 values whether it is packed or read in place. One instruction
// (F2FP.TF32.F32.PACK_B); ties away (cvt.rna) takes four.
__device__ __forceinline__ float to_tf32(float x) {
#if __CUDA_ARCH__ >= 900
  std::uint32_t bits;
  asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(bits) : "f"(x));
  return __uint_as_float(bits);
#else
  // Before sm_90, cvt rounds to TF32 only with ties away (.rna); the same ties-to-even rounding
  // in integer arithmetic. NaN stays NaN; a carry out of the mantissa raises the exponent.
  std::uint32_t u = __float_as_uint(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return x;
  u += 0xfffu + ((u >> 13) & 1u);
  return __uint_as_float(u & 0xffffe000u);
#endif
}

// Whether the 3xTF32 split carries x within 3xTF32's error bound: zero, or a magnitude in
// [2^-52, 2^48). NaN fails the comparisons too.
// - Below 2^48 every product of two inputs stays below 2^96 and every sum of up to 2^31 of them
//   below FLT_MAX, so no part of the split overflows.
// - From 2^-52 up every product of two inputs is at least 2^-104, and every partial product
//   the tensor cores form (big * big, big * small, small * big) either is a normal float or, if
//   it falls below 2^-126 and is flushed, loses at most 2^-126 <= 2^-22 |a b|: inside the bound.
//   Smaller values (subnormals among them, which the tensor cores flush) would lose the product.
__device__ __forceinline__ bool splittable(float x) {
  // On the magnitude's bits: [2^-52, 2^48) is one unsigned range (NaN lies above it).
  const std::uint32_t m = __float_as_uint(x) & 0x7fffffffu;
  constexpr std::uint32_t kLow = 0x25800000u, kHigh = 0x57800000u;  // 2^-52, 2^48
  return m - kLow < kHigh - kLow || m == 0;
}

// The operands as the tile kernels see them. Packed: part 0 is the big part, part 1 (3xTF32
// only) the small part, element (r, p) of part q at x[(q * rows_p + r) * kp + p].
// Direct (only as the launcher's Tf32Direct asks): the user's own matrix as Canonical
// describes it, not rounded, valid for r < m (or n) and p < k only.
struct Tf32Operands {
  const float* a;  // A: parts x mp x kp, or the user's A when a_direct
  const float* a_small;  // 3xTF32: A's small part (mp x kp); with a_direct A's only packed part
  const float* b;  // B^T: parts x np x kp, or the user's B when b_direct
  int* nonfinite;  // 3xTF32: nonzero when the split cannot be trusted; null for Tf32
  const int* run_if;  // null, or the call's kernels return at once while *run_if == 0
  std::int64_t mp, np, kp;
  bool a_direct, b_direct;
  // A batch (Canonical::batch, packed only): floats from one matrix's packed A, B to the next's.
  std::int64_t a_matrix_floats = 0, b_matrix_floats = 0;
};

// Whether a tile kernel has nothing to do: its call is gated off (run_if), or the 3xTF32 split
// failed and the FP32 fallback computes the call (nonfinite).
__device__ __forceinline__ bool tile_kernel_idle(const Tf32Operands& ops) {
  return (ops.run_if != nullptr && *ops.run_if == 0) ||
         (ops.nonfinite != nullptr && *ops.nonfinite != 0);
}

// Launches a rung's tile kernel on ops; it may take its own scratch from args.workspace.
using Tf32TileLauncher = cudaError_t (*)(const Canonical& p, const Tf32Operands& ops,
                                         const LaunchArgs& args);

// Which operands a launcher reads from the user's memory instead of a packed copy.
struct Tf32Direct {
  // Tf32 mode: an operand that is K-major with 16-byte aligned rows and k >= kDirectMinK (see
  // tf32_pack.cu for why), read through TMA with zero fill past the edges.
  bool k_major = false;
  // 3xTF32: the big part of an A that is K-major with 16-byte aligned rows is read in place
  // through a TFLOAT32 map, which rounds it as the pack would; only the small part is packed.
  bool a_big = false;
  // Every mode: B as it is (the launcher's why_not vouches for its layout). The launcher rounds
  // or splits it itself; in 3xTF32 mode B is scanned for values the split cannot carry.
  bool b_always = false;
  // 3xTF32 with B in place: the tile kernel tests every value of B it splits and raises the
  // flag itself. Used only when beta == 0: nothing reads C then, so the fallback can overwrite
  // what the tile kernel wrote, and the scan (a pass over B) is skipped.
  bool b_checked = false;
  // The above hold in a batch too: the launcher reads matrix i of an operand in place at
  // x + i * stride_x. Otherwise every matrix of a batch is packed.
  bool batch = false;
};
inline constexpr std::int64_t kDirectMinK = 8;

// Raises *flag when the 3xTF32 split cannot carry a value of x (splittable above): `rows` rows
// of `cols` contiguous floats, `ld` apart. For kernels that split an operand read in place.
cudaError_t scan_unsplittable(const float* x, std::int64_t rows, std::int64_t cols,
                              std::int64_t ld, int* flag, cudaStream_t stream);

// Empty when tf32_gemm can handle p (the tile kernels' 32-bit row coordinates), otherwise why
// not.
std::string_view tf32_why_not(const Canonical& p);

// Whether an operand of `rows` rows is read in place (Tf32Direct) rather than packed, as
// tf32_gemm decides.
bool direct_ok(const float* x, std::int64_t ld, bool k_major, std::int64_t rows, std::int64_t k);

// The workspace tf32_gemm takes for p: the flag and the packed operands, plus tile_bytes for the
// tile kernel's own.
std::size_t tf32_workspace_bytes(const Canonical& p, Tf32Mode mode, Tf32Direct direct,
                                 std::size_t tile_bytes);

// Steps 1-4 above. Returns the first error. Operands that `direct` lets through are passed to
// launch_tiles as the user's matrices. With args.run_if, every kernel of the call returns at
// once unless *run_if != 0 when it starts.
cudaError_t tf32_gemm(const Canonical& p, Tf32Mode mode, Tf32TileLauncher launch_tiles,
                      const LaunchArgs& args, Tf32Direct direct = {});

}  // namespace sgemm::detail
