// `sgemm-bench --tune`: times rung 09's configurations on this GPU, one representative shape per
// shape class, and writes the winners into the tuning cache that rung 09 (and so `auto`) reads.
#pragma once

#include <string>

#include "cli.hpp"

namespace sgemm::bench {

int run_tuning(const BenchOptions& options, const std::string& device_name);

}  // namespace sgemm::bench
