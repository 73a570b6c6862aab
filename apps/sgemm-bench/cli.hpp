// sgemm-bench's command line: parsed into BenchOptions, host-only so CI can test it.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sgemm/sgemm.hpp"

namespace sgemm::bench {

struct Shape {
  std::int64_t m, n, k;
  friend bool operator==(const Shape&, const Shape&) = default;
};

struct BenchOptions {
  std::vector<Shape> shapes;                 // default: 4096^3
  std::vector<std::string> kernels;          // slugs or prefixes ending in '*'; empty = all
  std::optional<Math> math;                  // only kernels of this math
  Layout layout = Layout::RowMajor;
  std::vector<std::pair<Op, Op>> ops;        // default: {N, N}
  float alpha = 1.0f, beta = 0.0f;
  int reps = 20, warmup = 3;
  double warmup_ms = 0;                      // at least this much warm-up per kernel and shape
  double cooldown_ms = 0;                    // idle time before each kernel's warm-up
  double budget_s = 30.0;                    // per kernel and shape, before timing is cut short
  std::string csv_path, json_path;
  bool normal_values = false;                // A and B from N(0, 1) instead of uniform [-1, 1)
  bool cpu = false, cublas_tf32 = false, list = false, tune = false, help = false;
  bool explain = false, suite = false, batched = false;
  bool conv_suite = false;                   // --conv-suite: ResNet-50's convolutions against cuDNN
  std::vector<Conv2dShape> convs;            // --conv: convolutions of one's own against cuDNN
  std::int64_t batch = 1;                    // --explain: a strided batch of this many matrices
  int pairs = 15;                            // --suite, --batched, --conv*: timed pairs per call and math
  int device = 0;
};

struct CliError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws CliError with a one-line message on bad arguments.
BenchOptions parse_cli(const std::vector<std::string>& args);
std::vector<Shape> named_sweep(const std::string& name);  // throws CliError for unknown names
const char* usage();

// Whether `slug` is selected by the patterns of --kernels (exact slugs or "prefix*").
bool kernel_selected(const BenchOptions& options, std::string_view slug);

}  // namespace sgemm::bench
