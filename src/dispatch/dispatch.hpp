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
  std::size_t workspace_bytes = 0;       // the call's, the handoff's included
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

// The kernels `auto` tries for `math`, in order (registry slugs).
std::vector<std::string_view> auto_order(Math math);

}  // namespace sgemm::detail
