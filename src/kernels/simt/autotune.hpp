// Rung 09's tuning interface: the family of compiled tile configurations, the shape classes it
// is tuned for, and the tuning cache that `sgemm-bench --tune` writes and rung 09 reads.
//
// The cache is a small text file, one line per (device, shape class):
//
//   <device name> TAB <shape class name> TAB <configuration name>
//
// Lines starting with '#', and lines naming an unknown class or configuration, are ignored.
// Rung 09 reads it once per device, on its first call on that device; a class with no line for
// the device runs its default configuration (see 09_autotuned.cu).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "kernels/kernel.hpp"

namespace sgemm::detail::autotune {

struct Config {
  std::string_view name;  // e.g. "128x128x8_8x8_256t": block tile, thread tile, threads
  int bm, bn, bk, tm, tn, threads;
  std::string_view (*why_not)(const Canonical&);
  cudaError_t (*launch)(const Canonical&, cudaStream_t);
};
std::span<const Config> configs();

// A small fixed set of problem classes, each with the shape it is tuned on.
struct ShapeClass {
  std::string_view name;
  std::int64_t m, n, k;
};
std::span<const ShapeClass> shape_classes();
int shape_class_of(const Canonical& p);  // index into shape_classes()

// $SGEMM_TUNING_CACHE if set, else $XDG_CACHE_HOME/sgemm/tuning.tsv, else
// $HOME/.cache/sgemm/tuning.tsv; empty if none of these variables is set.
std::string cache_path();

// Writes the winners for `device_name` (pairs of shape-class index, configuration index) into
// the cache at `path`, keeping the lines of other devices and creating missing directories.
// Returns false, with a message, on I/O failure or an index out of range.
bool save_cache(const std::string& path, std::string_view device_name,
                std::span<const std::pair<int, int>> class_to_config, std::string* message);

}  // namespace sgemm::detail::autotune
