// The contract between gemm() and a kernel file. Every file under src/kernels/<track>/ defines
//
//   std::span<const sgemm::detail::KernelEntry> sgemm::detail::entries_<track>_<NN>_<name>();
//
// (SGEMM_KERNEL_ENTRIES below spells it), which the registry calls in ladder order. CMake
// generates that list from the file names, so adding a rung is adding a file.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "runtime/device.hpp"
#include "runtime/workspace.hpp"
#include "sgemm/sgemm.hpp"

#ifdef __CUDACC__
#define SGEMM_HOST_DEVICE __host__ __device__
#else
#define SGEMM_HOST_DEVICE
#endif

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
  // A strided batch (gemm_strided_batched): `batch` products, matrix i of X at x + i * stride_x.
  // Only a kernel with KernelEntry::batched sees batch > 1; the others get one matrix per launch.
  std::int64_t batch = 1, stride_a = 0, stride_b = 0, stride_c = 0;

  // Matrix i of the batch, as a call of its own.
  SGEMM_HOST_DEVICE Canonical matrix(std::int64_t i) const {
    Canonical q = *this;
    q.a += i * stride_a;
    q.b += i * stride_b;
    q.c += i * stride_c;
    q.batch = 1;
    return q;
  }

  // C^T = B^T A^T as a problem of its own: m and n, A and B swap places, and its row-major
  // (n x m) result is C stored column-major, C(i, j) at c[j * ldc + i]. Kernels that want the
  // small dimension of C in their rows compute a call this way.
  SGEMM_HOST_DEVICE Canonical transposed() const {
    Canonical q = *this;
    q.m = n, q.n = m;
    q.a = b, q.lda = ldb, q.a_k_major = b_k_major;
    q.b = a, q.ldb = lda, q.b_k_major = a_k_major;
    q.stride_a = stride_b, q.stride_b = stride_a;
    return q;
  }
};

Canonical to_canonical(const Problem& p, float alpha = 1.0f, float beta = 0.0f);

struct KernelEntry;

// What a launcher gets besides the problem.
struct LaunchArgs {
  cudaStream_t stream;
  const Device& device;    // the stream's device, current during the launch
  Workspace& workspace;    // at least workspace_bytes(p, device) bytes, for this call alone
  // Null, or every kernel of the call returns at once unless *run_if != 0 when it starts: a call
  // enqueued in case an earlier kernel raises that flag (a kernel with accepts_run_if only).
  const int* run_if = nullptr;
  // The kernel that takes the call over at run time when this one finds operands it cannot carry
  // (a kernel with needs_handoff only; the dispatch chooses it, and it accepts run_if).
  const KernelEntry* handoff = nullptr;
};

struct KernelEntry {
  KernelInfo info;
  // Empty when the kernel computes `p` correctly on `device`, otherwise the reason it cannot:
  // every limit of the kernel (alignment, leading dimensions, TMA strides and coordinates, grid
  // dimensions, k ranges) is a reason here, so that a launch of a supported call cannot fail on
  // it. Argument validity (ld >= rows, ...) is checked by gemm(), not here.
  std::string_view (*why_not)(const Canonical& p, const Device& device);
  // Enqueues the kernel on args.stream. Precondition: why_not(p, device) is empty. Returns the
  // first launch error, or cudaErrorMemoryAllocation if args.workspace is short.
  cudaError_t (*launch)(const Canonical& p, const LaunchArgs& args);
  // The scratch bytes a launch of `p` with this handoff (or none) takes from args.workspace,
  // its handoff's included; null for none.
  std::size_t (*workspace_bytes)(const Canonical& p, const Device& device,
                                 const KernelEntry* handoff) = nullptr;
  bool accepts_run_if = false;  // honours LaunchArgs::run_if
  bool needs_handoff = false;   // hands calls it cannot carry to LaunchArgs::handoff
  // Runs every matrix of a batch (Canonical::batch) in one launch; without it a batched call
  // launches the kernel once per matrix.
  bool batched = false;
  // How a launch of `p` covers it (tiles, splits), in words for `sgemm-bench --explain`; null
  // where the kernel's description says it all.
  std::string (*configuration)(const Canonical& p, const Device& device) = nullptr;
};

// --- requirement helpers shared by the kernel files ---------------------------------------

inline bool aligned16(const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0; }

// 16-byte alignment of A, B and C and leading dimensions that keep every row 16-byte aligned:
// what float4 global accesses need.
std::string_view needs_vec4(const Canonical& p);
// CUDA's grid limits: blocks_x < 2^31, blocks_y and blocks_z <= 65535.
std::string_view needs_grid(std::int64_t blocks_x, std::int64_t blocks_y,
                            std::int64_t blocks_z = 1);
SGEMM_HOST_DEVICE inline std::int64_t ceil_div(std::int64_t x, std::int64_t d) { return (x + d - 1) / d; }
inline std::int64_t round_up(std::int64_t x, std::int64_t d) { return ceil_div(x, d) * d; }
// A device of compute capability 9.0 (sm_90a instructions: wgmma, setmaxnreg).
std::string_view needs_sm90(const Device& device);
// sm_90a, and the driver's tensor-map encoder (TMA).
std::string_view needs_sm90_tma(const Device& device);
// A tensor map's limits (cuTensorMapEncodeTiled): every stride below 2^40 bytes and a multiple of
// 16 bytes, every dimension below 2^32, coordinates below 2^31 (they are ints in PTX).
std::string_view needs_tma_strides(std::int64_t ld_floats);

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
