// The contract between gemm() and a kernel file. Every file under src/kernels/<track>/ defines
//
//   std::span<const sgemm::detail::KernelEntry> sgemm::detail::entries_<track>_<NN>_<name>();
//
// (SGEMM_KERNEL_ENTRIES below spells it), which the registry calls in ladder order. CMake
// generates that list from the file names, so adding a rung is adding a file.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>
#include <string_view>

#include "sgemm/sgemm.hpp"

namespace sgemm::detail {

// The one problem every kernel solves: C is row-major (m x n, leading dimension ldc) and
//
//   C = alpha * A * B + beta * C,   A is m x k, B is k x n,
//   A(i, p) = a_k_major ? a[i * lda + p] : a[p * lda + i]
//   B(p, j) = b_k_major ? b[j * ldb + p] : b[p * ldb + j]
//
// gemm() maps every (layout, op_a, op_b) onto this form; a column-major C is the row-major
// C^T = op(B)^T op(A)^T, so there A and B swap places. Kernels see m, n, k > 0 and alpha != 0
// (the quick returns of reference BLAS are taken before), and must not read C when beta == 0.
struct Canonical {
  std::int64_t m, n, k;
  float alpha, beta;
  const float* a;
  std::int64_t lda;
  bool a_k_major;
  const float* b;
  std::int64_t ldb;
  bool b_k_major;
  float* c;
  std::int64_t ldc;
};

Canonical to_canonical(const Problem& p, float alpha = 1.0f, float beta = 0.0f);

struct KernelEntry {
  KernelInfo info;
  // Empty when the kernel computes `p` correctly, otherwise the reason it cannot.
  std::string_view (*why_not)(const Canonical& p);
  // Enqueues the kernel on `stream`. Precondition: why_not(p) is empty. Returns the launch error.
  cudaError_t (*launch)(const Canonical& p, cudaStream_t stream);
  // Preference of `auto` among the kernels of one math that support a call: higher wins.
  // Set from measurements (docs/perf-notes.md); 0 means "never chosen by auto".
  int auto_priority;
  // Optional: whether `auto` should consider this kernel for `p` at all (a shape it is slow
  // on, though correct). Null means every supported call.
  bool (*auto_suits)(const Canonical& p) = nullptr;
};

// --- requirement helpers shared by the kernel files ---------------------------------------

inline bool aligned16(const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0; }

// 16-byte alignment of A, B and C and leading dimensions that keep every row 16-byte aligned:
// what float4 global accesses need.
std::string_view needs_vec4(const Canonical& p);
// CUDA's grid limits: blocks_x < 2^31, blocks_y <= 65535.
std::string_view needs_grid(std::int64_t blocks_x, std::int64_t blocks_y);
inline std::int64_t ceil_div(std::int64_t x, std::int64_t d) { return (x + d - 1) / d; }
inline std::int64_t round_up(std::int64_t x, std::int64_t d) { return ceil_div(x, d) * d; }
// A device of compute capability 9.0 (sm_90a instructions: wgmma, setmaxnreg).
std::string_view needs_sm90(const Canonical& p);
// The current device's multiprocessor count (read once per device); 0 when there is none.
int device_sm_count();

inline constexpr std::string_view kVec4Requirement =
    "A, B, C 16-byte aligned; lda, ldb, ldc multiples of 4";

// Calls f.template operator()<AKMajor, BKMajor>() with the call's majorness as template arguments:
// the blocked rungs compile one kernel per storage order of A and of B.
template <class F>
decltype(auto) with_majorness(const Canonical& p, F&& f) {
  if (p.a_k_major)
    return p.b_k_major ? f.template operator()<true, true>() : f.template operator()<true, false>();
  return p.b_k_major ? f.template operator()<false, true>() : f.template operator()<false, false>();
}

}  // namespace sgemm::detail

#define SGEMM_KERNEL_ENTRIES(token) \
  std::span<const ::sgemm::detail::KernelEntry> entries_##token()
