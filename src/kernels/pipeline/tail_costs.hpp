// When the tail split pays (tail_split.cuh): its cost model, host code only, so that the host
// tests can check it without a GPU.
#pragma once

#include <cstdint>
#include <string>

namespace sgemm::detail {

// The tail split's costs, in k-tile times of the kernel that takes it: `fixed` for any split
// (the workspace, the tail kernel's start and pipeline fill, publishing and adding the slots:
// nearly flat in the slot count since many-slot tiles are summed on all SMs), and `after_whole`
// more when a whole-tile kernel runs first (the tail then starts after that kernel's slowest
// block). The unit moves with the k-tile's depth, so each kernel asserts the depth its costs were
// measured at.
struct TailCosts {
  double fixed, after_whole;
};

// How many of `tiles` tiles on `blocks` blocks go to the tail kernel: R = tiles mod blocks (all
// of them when tiles < blocks), when cutting them along k pays, else 0. The tail kernel saves the
// idle share of a round, k_tiles * (blocks - R) / blocks, and costs costs.fixed, plus
// costs.after_whole when tiles > blocks.
std::int64_t tail_tiles(std::int64_t tiles, std::int64_t k_tiles, int blocks, TailCosts costs);

// A tiled kernel's plan in words, for `sgemm-bench --explain` (KernelEntry::configuration):
// "T block tiles of R x C, N of them cut along k over all SMs" (tail > 0: the tail split's).
std::string tile_plan_text(std::int64_t tiles, int rows, int cols, std::int64_t tail);

}  // namespace sgemm::detail
