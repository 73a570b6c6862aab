// The per-math policies behind dispatch.cpp: the kernels `auto` tries, in order, each with the
// rule that keeps it out of calls it supports but runs slowly.
#pragma once

#include <algorithm>
#include <span>
#include <string_view>

#include "kernels/kernel.hpp"

namespace sgemm::detail {

struct Rule {
  std::string_view slug;
  // Empty when `auto` may take this kernel for p, otherwise why not; null for "always".
  std::string_view (*unsuited)(const Canonical& p, const Device& device) = nullptr;
  // Null, or the kernel (a `batched` one) runs p as a batch of this many ranges of k, whose
  // partial sums split_sum adds (Decision::k_ranges): for calls whose tiles leave SMs idle.
  std::int64_t (*k_ranges)(const Canonical& p, const Device& device) = nullptr;
  // The kernel runs p on aligned copies of its operands (Decision::staged).
  bool staged = false;
};

// Rung 14 (small M) streams the large operand once: with m or n at most kMax the call is bound
// by that read, or close to it (seed 003's roofline: about m / 2 FLOPs per byte against an FP32
// ridge near 20), and the tiled kernels leave most of their tiles empty.
template <int kMax>
std::string_view small_m_unsuited(const Canonical& p, const Device&) {
  if (std::min(p.m, p.n) <= kMax) return {};
  return "m and n above the small-M kernel's limit for this math: tiled kernels";
}

// A single call of at most 16 x 16 x 256: rung 15's one 16 x 16 tile and one launch are the whole
// cost, in every math (FP32 is at least as accurate as both tensor-core maths). Measured on an
// H200 at 16³: rung 15 4.6 us, 1.0x cuBLAS SGEMM; rung 14 8.9 us, rung 10 6.1 us.
inline std::string_view tiny_unsuited(const Canonical& p, const Device&) {
  if (p.batch == 1 && std::max(p.m, p.n) <= 16 && p.k <= 256) return {};
  return "not a single call of at most 16 x 16 x 256";
}

// Single calls of at most 2^27 products, cut into ranges of k on rung 10 (fp32.cpp); the 3xTF32
// list takes them too, FP32 being at least as accurate.
std::string_view small_call_unsuited(const Canonical& p, const Device& device);
std::int64_t small_call_ranges(const Canonical& p, const Device& device);

// Rung 15 (fp32.cpp), which the 3xTF32 list runs too, FP32 being at least as accurate.
// - A batch of matrices up to 64 x 64, or of ones up to 128 on a side its 64-wide tiles cover
//   with less padding than rung 10's tiles (rung15_takes_batch).
// - A single call of at most 64 x 64 x 256, or of over 16 rows and columns with k <= 192 up to
//   512 x 512 x 128 (on 16-wide tiles): a launch and one pass over k are the cost.
// - A single call of 17 to 64 rows and columns with a long k, in ranges of k run as one batch
//   (rung 14 keeps 16 rows and fewer, where the read of the large operand is the cost); the Tf32
//   list runs those of at most 32 x 32 (tensorcore.cpp).
bool rung15_takes_batch(const Canonical& p);
std::string_view rung15_unsuited(const Canonical& p, const Device& device);
std::string_view rung15_single_unsuited(const Canonical& p, const Device& device);
std::string_view rung15_split_unsuited(const Canonical& p, const Device& device);
std::int64_t rung15_k_ranges(const Canonical& p, const Device& device);

std::span<const Rule> fp32_rules();    // fp32.cpp
std::span<const Rule> tf32_rules();    // tensorcore.cpp
std::span<const Rule> tf32x3_rules();  // tensorcore.cpp

// The kernels that may take over a call at run time (LaunchArgs::handoff), in order of
// preference for each math (tensorcore.cpp).
std::span<const std::string_view> handoff_order(Math math);

}  // namespace sgemm::detail
