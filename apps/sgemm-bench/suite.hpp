// `sgemm-bench --suite`: `auto` in each math against cuBLAS on the calls real programs make.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli.hpp"
#include "sgemm/sgemm.hpp"

namespace sgemm::bench {

struct SuiteCall {
  std::string group;  // squares, k1024, small-m, skinny, long-k, odd, layouts, linear, tiny
  Layout layout;
  Op op_a, op_b;
  std::int64_t m, n, k;
  std::int64_t pad = 0;    // added to every leading dimension
  bool unaligned = false;  // A, B and C one float past 16-byte alignment
};

// The suite, in order. Host-only, so that CI can check what it covers.
std::vector<SuiteCall> suite_calls();
std::string describe(const SuiteCall& call);

struct DeviceFacts;
// Times auto against cuBLAS in alternating pairs for every call and every selected math; prints
// the table, the geometric mean and the worst ratio per math; writes --csv. Returns the exit
// status (1 when a result fails verification).
int run_suite(const BenchOptions& options, const DeviceFacts& facts);

}  // namespace sgemm::bench
