// What `auto` decides, in one place: for each math, the kernels it tries in order, the rules
// that keep a kernel out of a call it supports but runs slowly, the fallbacks, and the kernel a
// rung hands a call over to at run time. A kernel file says only what it supports (why_not) and
// how it launches; `sgemm-bench --explain` prints what this file decided and why.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/kernel.hpp"

namespace sgemm::detail {

// One kernel that the choice looked at, and what it found.
struct Considered {
  const KernelEntry* kernel;
  std::string verdict;  // "chosen", or why the kernel was passed over
};

struct Decision {
  const KernelEntry* kernel = nullptr;
  const KernelEntry* handoff = nullptr;  // for a kernel that needs_handoff
  std::size_t workspace_bytes = 0;       // the call's, the handoff's and k ranges' included
  // > 1: the kernel runs the call as a batch of this many ranges of k_range k-values (the last
  // may be shorter), into partial sums that split_sum adds into C (k_ranges_of).
  std::int64_t k_ranges = 1, k_range = 0;
  // The kernel runs the call on aligned copies in the workspace (Staging).
  bool staged = false;
  std::string detail;                    // explain only: the chosen configuration
  std::vector<Considered> considered;    // explain only: in the order tried
};

// Chooses the kernel for `p` on `device`: options.kernel if it names one (checked: math, why_not,
// workspace), else `auto`'s choice in options.math. A call whose workspace must fit in
// `workspace_limit` bytes (the caller's own) passes over kernels that need more. Returns
// InvalidValue or NotSupported with *message on failure; `auto` fails only where no kernel of any
// math supports the call, which no legal call meets (fallback-01-any supports every one). With
// `explain` the decision also records every kernel looked at and the configuration in words.
Status choose(const Canonical& p, const Options& options, const Device& device,
              std::size_t workspace_limit, Decision* out, std::string* message,
              bool explain = false);

// A batch that is one larger product, as that product; otherwise `p` unchanged. With B shared
// (stride_b == 0) and A's and C's matrices stacked row after row, the batch is one call with
// batch * m rows; with A shared and B's and C's side by side, one with batch * n columns.
Canonical fold_batch(const Canonical& p);

// A call cut into ranges of k: `whole` is the batch of its ranges of k_range k-values, `rest`
// (when rest.k > 0) the last, shorter one, as its own call. Range r computes the partial sum
// partial + r * m * ld, row-major with ldc = ld = k_ranges_ld(p) (n rounded up to a multiple of
// 4, so that every range's C is 16-byte aligned), alpha 1 and beta 0 (p.batch == 1).
struct KRanges {
  Canonical whole, rest;
};
KRanges k_ranges_of(const Canonical& p, std::int64_t k_range, float* partial);
inline std::int64_t k_ranges_ld(const Canonical& p) { return round_up(p.n, 4); }
inline std::size_t k_ranges_bytes(const Canonical& p, std::int64_t ranges) {
  return Workspace::rounded(std::size_t(ranges * p.m * k_ranges_ld(p)) * sizeof(float));
}

// A call run on aligned copies (Decision::staged): A and B copied into the workspace as they are
// stored, with leading dimensions rounded up to multiples of 4 (every row 16-byte aligned), the
// product into an aligned C there with alpha 1 and beta 0, then added into the caller's C with
// alpha and beta by split_sum (one range). For the float4 kernels on calls whose pointers or
// leading dimensions they cannot read in place.
struct Staging {
  // Stored A: a_lines lines of a_length floats (m rows of k when K-major, else k rows of m);
  // stored B likewise (n rows of k, or k rows of n).
  std::int64_t a_lines, a_length, b_lines, b_length;
  std::int64_t lda, ldb, ldc;             // the copies' leading dimensions
  std::size_t a_bytes, b_bytes, c_bytes;  // each rounded to the workspace's alignment
};
Staging staging_of(const Canonical& p);
// The call on copies at a, b and c (staging_of's sizes; p.batch == 1).
Canonical staged_call(const Canonical& p, const Staging& s, const float* a, const float* b,
                      float* c);

// The kernels `auto` tries for `math`, in order (registry slugs).
std::vector<std::string_view> auto_order(Math math);

}  // namespace sgemm::detail
