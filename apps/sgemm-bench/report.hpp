// `sgemm-bench --list`: the registry, with each kernel's resources from the build-time report.
#pragma once

#include <ostream>

namespace sgemm::bench {

void print_registry(std::ostream& out);

}  // namespace sgemm::bench
