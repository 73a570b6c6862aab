// `sgemm-bench --explain`: what `auto` decides for a call, and why.
#pragma once

#include <ostream>

#include "cli.hpp"

namespace sgemm::bench {

// For every shape and op combination of `options` and each math (or --math's), the kernels auto
// tried in order with why each was passed over, the chosen kernel and its configuration. Uses
// the GPU's facts when there is one, an H100's otherwise (and says so). Returns the exit status.
int run_explain(const BenchOptions& options, std::ostream& out);

}  // namespace sgemm::bench
