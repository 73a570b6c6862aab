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
};

// Rung 14 (small M) streams the large operand once: with m or n at most kMax the call is bound
// by that read, or close to it (seed 003's roofline: about m / 2 FLOPs per byte against an FP32
// ridge near 20), and the tiled kernels leave most of their tiles empty.
template <int kMax>
std::string_view small_m_unsuited(const Canonical& p, const Device&) {
  if (std::min(p.m, p.n) <= kMax) return {};
  return "m and n above the small-M kernel's limit for this math: tiled kernels";
}

std::span<const Rule> fp32_rules();    // fp32.cpp
std::span<const Rule> tf32_rules();    // tensorcore.cpp
std::span<const Rule> tf32x3_rules();  // tensorcore.cpp

// The kernels that may take over a call at run time (LaunchArgs::handoff), in order of
// preference for each math (tensorcore.cpp).
std::span<const std::string_view> handoff_order(Math math);

}  // namespace sgemm::detail
