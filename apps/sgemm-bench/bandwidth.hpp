// The device's read bandwidth as a kernel sees it: what the memory-bound calls of the suite are
// measured against.
#pragma once

namespace sgemm::bench {

// TB/s of a kernel summing 2 GiB of floats (16-byte loads), the median of 5 timed runs.
double measure_read_bandwidth();

}  // namespace sgemm::bench
