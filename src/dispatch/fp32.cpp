// `auto` in Fp32 math.
//
// Rung 13 (128 x 256 tiles, or 256 x 128, 64 x 512 and 512 x 64 where those pad C less; a
// persistent grid, the last round cut along k) is the fastest FP32 kernel wherever its tiles
// fill the GPU; rung 10 (128 x 128 tiles, two blocks per SM) takes the calls where rung 13's
// tiles would run half empty or its fixed costs dominate; cute-02 takes
// what the float4 rungs cannot (unaligned pointers, leading dimensions not multiples of 4)
// unless the call is large enough for rung 13 on aligned copies;
// fallback-01-any takes everything else.
#include <algorithm>
#include <array>

#include "dispatch/policy.hpp"
#include "kernels/pipeline/tail_costs.hpp"
#include "kernels/simt/batched_small_tiles.hpp"
#include "kernels/simt/tma_tiles.hpp"

namespace sgemm::detail {
namespace {

// Rung 13's k-tile (tma_pipeline.cuh: kBK) and the costs of its tail split, in its k-tile times
// (its tiles: tma_tiles.hpp); rung 10's tile (10_warptile.cu).
constexpr int kRung13K = 8;
constexpr TailCosts kRung13Tail{11.0, 11.0};
constexpr int kRung10Tile = 128;
// Rung 10 runs calls of at most 64 rows on 64 x 256 tiles, and of at most 64 columns on 256 x 64
// (as many values as its 128 x 128).
constexpr int kRung10Narrow = 64, kRung10Long = 256;
std::int64_t rung10_tiles(const Canonical& p) {
  if (p.m <= kRung10Narrow) return ceil_div(p.n, kRung10Long);
  if (p.n <= kRung10Narrow) return ceil_div(p.m, kRung10Long);
  return ceil_div(p.m, kRung10Tile) * ceil_div(p.n, kRung10Tile);
}
// The share of rung 10's tiles (all of 128 x 128 values) and rung 13's that C fills.
double rung10_fill(const Canonical& p) {
  return double(p.m) * double(p.n) / (double(rung10_tiles(p)) * kRung10Tile * kRung10Tile);
}
double rung13_fill(const Canonical& p) {
  const Rung13Tile t = rung13_tile(p);
  return double(p.m) * double(p.n) / (double(rung13_tile_count(p)) * t.rows() * t.cols());
}

// Against rung 10, measured on an H200:
// - Where C fills at most half of rung 13's tiles and more of rung 10's, rung 10 wins once its
//   tiles occupy at least half the SMs (with 128 x 256 tiles only: 11008 x 128 x 4096 0.83x,
//   32768 x 128 x 2048 0.52x). Rung 13's 256 x 128, 64 x 512 and 512 x 64 tiles now fill such
//   calls: 11008 x 128 x 4096 1.01x, 32768 x 128 x 2048 1.07x, 16384 x 64 x 4096 1.09x cuBLAS.
// - Otherwise, with at least as many tiles as SMs, rung 13 is faster (1.2-1.3x at 2560³-3072³).
// - With fewer, each kernel runs one round, and the estimates below, in rung 13's k-tile times,
//   pick the faster: rung 13 split over all SMs (512³ 2.2x, 256 x 256 x 1024 4.9x, 1536³ 1.7x
//   faster than rung 10) or whole (2048³ 1.04x), and rung 10 where k is too short for rung 13's
//   fixed costs (512 x 512 x 128, 2048 x 1024 x 256: rung 10 1.2-1.3x faster).
// An M-major A with a K-major B (RowMajor TT) ran 0.83-0.85x cuBLAS against rung 10's
// 0.92-0.94x at 4096³ and 8192³: rung 10 takes those calls.
std::string_view rung13_unsuited(const Canonical& p, const Device& device) {
  if (!p.a_k_major && p.b_k_major) return "an M-major A with a K-major B: rung 10 is faster";
  const int sms = device.sms;
  const std::int64_t tiles = rung13_tile_count(p), tiles10 = rung10_tiles(p);
  if (rung13_fill(p) <= 0.5 && rung10_fill(p) > rung13_fill(p) && 2 * tiles10 >= sms)
    return "C fills at most half its tiles, rung 10's are fuller and fill half the SMs";
  if (tiles >= sms) return {};
  // One round each. Its start and store of C cost ~5.4 of rung 13's k-tiles in rung 13 and ~4.6
  // in rung 10; rung 10's 8-deep k-tile takes 0.58 of rung 13's with one block per SM, and 1.8
  // times that with two.
  const std::int64_t k_tiles = ceil_div(p.k, kRung13K);
  constexpr double kRung13Round = 5.4, kRung10Round = 4.6, kRung10KTile = 0.58, kTwoBlocks = 1.8;
  const double rung13 = tail_tiles(tiles, k_tiles, sms, kRung13Tail) > 0
                            ? kRung13Round + kRung13Tail.fixed + double(tiles * k_tiles) / sms
                            : kRung13Round + double(k_tiles);
  const double rung10 =
      kRung10Round + kRung10KTile * double(k_tiles) * (tiles10 > sms ? kTwoBlocks : 1.0);
  if (rung13 < rung10) return {};
  return "fewer tiles than SMs and a short k: rung 10's estimate is lower";
}

// Rung 14 up to 16 rows (or columns), and where both m and n are at most 32, after rung 15 has
// taken the single calls up to 64 x 64 x 256 or of a short k and those of 17 to 32 rows and
// columns with a long k (unless both operands are K-major). Measured on an H200 against rung 13's 64 x 512 (or 512 x
// 64) tiles, x cuBLAS SGEMM: 16 x 11008 x 4096 NN 1.73 against 1.35, NT 0.86 against 0.73; 32
// rows NN 0.56-0.80 against 0.73-1.03, NT 0.59-0.69 against 0.77-1.00. Up to 64 rows on calls of
// fewer than 2^20 products, where launch and latency are the cost (64 x 64 x 64 took 10.6 us on
// rung 14, 12.8 on rung 10 and 8.3 on rung 15).
constexpr int kRung14Rows = 16;
std::string_view rung14_unsuited(const Canonical& p, const Device& device) {
  if (small_m_unsuited<kRung14Rows>(p, device).empty() || std::max(p.m, p.n) <= 32) return {};
  if (std::min(p.m, p.n) <= 64 && double(p.m) * double(p.n) * double(p.k) < 0x1p20) return {};
  return "above 16 rows (32 x 32, 64 below 2^20 products): tiled kernels";
}
// Calls whose tiles leave SMs idle with a long k, cut into ranges of k that the batched grids run
// as one batch (Decision::k_ranges): rung 15's 64 x 64 tiles for 17 to 64 rows and columns, rung
// 10's 128 x 128 where rung 13's 128 x 256 tiles, fewer than the SMs, would be half as full (rung
// 13's tail split multiplies the empty part too; rung 10 runs calls of at most 64 rows on 64 x 256
// tiles). Ranges of at least 512 k, until two blocks per SM (rung 15's 64-wide tile fits four;
// ranges for four ran 64 x 64 x 262144 10% faster and 48 x 48 x 200000 6% slower). Measured on
// an H200 against rung 13 alone: 64 x 64 x 262144 0.200 against 0.350 ms, 128 x 128 x 65536
// 0.073 against 0.101, 8192 x 128 x 8192 0.467 against 0.672, 16384 x 64 x 4096 0.489 against
// 0.675, 64 x 4096 x 4096 NT 0.076 against 0.117.
constexpr std::int64_t kMinRangeK = 512;
std::int64_t k_ranges_for(const Canonical& p, const Device& device, std::int64_t tiles,
                          std::int64_t blocks_per_sm = 2, std::int64_t min_range_k = kMinRangeK) {
  if (p.batch != 1) return 1;
  return std::min(ceil_div(blocks_per_sm * device.sms, tiles), p.k / min_range_k);
}
std::int64_t rung10_k_ranges(const Canonical& p, const Device& device) {
  return k_ranges_for(p, device, rung10_tiles(p));
}
std::string_view rung10_split_unsuited(const Canonical& p, const Device& device) {
  // Rung 10's tiles at least twice as full as rung 13's (with 128 x 128 tiles both were half
  // empty at 64 x 4096 x 4096, where rung 13 alone was faster: 0.106 against 0.120 ms).
  const bool fuller = rung10_fill(p) >= 2 * rung13_fill(p);
  if (p.batch == 1 && rung13_tile_count(p) < device.sms && fuller &&
      rung10_k_ranges(p, device) > 1)
    return {};
  return "rung 13's tiles are as full, or fill the GPU, or k is short";
}

// Single calls of at most 2^27 products (512³), where a launch and a round of tiles are the
// cost: rung 10's tiles in ranges of at least 32 k-values, until about one block per SM.
// Measured on an H200 against the choice before (rung 13 cut by its tail split, or rung 10
// whole): 128³ 11.8 against 16.8 us, 256³ 12.4 against 16.0, 384³ 14.1 against 20.9, 512 x 512
// x 128 13.1 against 16.9, 512³ 17.5 against 24.5; rung 15's 64 x 64 tiles did as well up to
// 256³ and worse above (512³ 51 us). Larger calls lost in such ranges (768³ 45.3 against 41.8
// us, 1024³ 81.6 against 59.5). Rung 15's 16-wide tiles take those of k <= 192 whole, before
// this rule (kRung15ShortK).
constexpr double kMaxSmallProducts = 0x1p27;
constexpr std::int64_t kMinSmallRangeK = 32;

}  // namespace

std::int64_t small_call_ranges(const Canonical& p, const Device& device) {
  if (p.batch != 1) return 1;
  return std::min(ceil_div(device.sms, rung10_tiles(p)), p.k / kMinSmallRangeK);
}
std::string_view small_call_unsuited(const Canonical& p, const Device& device) {
  if (double(p.m) * double(p.n) * double(p.k) <= kMaxSmallProducts &&
      small_call_ranges(p, device) > 1)
    return {};
  return "above 2^27 products, a batch, or a k too short for ranges: no split of a small call";
}

// Rung 15 (policy.hpp lists what it takes). Measured on an H200 (sgemm-bench --suite and
// --batched, x cuBLAS SGEMM):
// - a batch of 512 x [128 x 64 x 128]: rung 15's 64 x 64 tiles 0.044 ms, rung 10's half-empty
//   256 x 64 ones 0.065 (0.88x against 0.59x); where rung 10's tiles are as full it is faster
//   (96 x [512 x 64 x 512] 0.108 against 0.121 ms, 64 x [197 x 768 x 768] 0.456 against 0.638);
// - single calls up to 64 x 64 x 256: 64³ 1.00x against rung 14's 0.61x, 32 x 64 x 128 0.76x
//   against 0.61x; single calls of a short k on its 16-wide tiles (kRung15ShortK);
// - 17 to 64 rows and columns with a long k, in ranges: 32 x 32 x 1048576 2.60x (NN) and 2.12x
//   (NT, 0.146 against rung 14's 0.178 ms), 64 x 64 x 262144 0.92x.
// Its tiles: batched_small_tiles.hpp. Where they pad less than rung 10's, it takes matrices up to
// 128 on a side: its k-loop runs at half rung 10's rate, which more padding on larger matrices
// does not pay for.
constexpr int kRung15MaxFillSide = 128;
double rung15_fill(const Canonical& p) {
  const double tile = rung15_tile(p);
  return double(p.m) * double(p.n) / (double(rung15_tile_count(p)) * tile * tile);
}

bool rung15_takes_batch(const Canonical& p) {
  const std::int64_t side = std::max(p.m, p.n);
  return side <= kRung15MaxTile || (side <= kRung15MaxFillSide && rung15_fill(p) > rung10_fill(p));
}
std::string_view rung15_unsuited(const Canonical& p, const Device& device) {
  if (p.batch == 1) return rung15_single_unsuited(p, device);
  if (rung15_takes_batch(p)) return {};
  return "matrices above 128 on a side, or above 64 x 64 and covered as fully by rung 10's tiles: "
         "rung 10's batched grid";
}
// Single calls of a short k up to 2^25 products (512 x 512 x 128) on its 16-wide tiles
// (kRung15ShortK has the numbers), above rung 14's rows.
constexpr double kMaxShortKProducts = 0x1p25;
std::string_view rung15_single_unsuited(const Canonical& p, const Device&) {
  if (p.batch != 1) return "a batch";
  if (std::max(p.m, p.n) <= kRung15MaxTile && p.k <= 256) return {};
  if (std::min(p.m, p.n) > kRung14Rows && p.k <= kRung15ShortK &&
      double(p.m) * double(p.n) * double(p.k) <= kMaxShortKProducts)
    return {};
  return "not a single call of at most 64 x 64 x 256, or of over 16 rows and columns, k <= 192 "
         "and 2^25 products";
}
// Rung 15's 32-wide tile runs on 64 threads, 16 blocks per SM: its ranges fill them all, down
// to ranges of 128 k-values (8 of its k-steps). Measured on an H200 against its 256 threads of
// 2 x 2 results in ranges for two blocks per SM: 32 x 32 x 1048576 0.131 against 0.188 ms,
// 32 x 32 x 65536 0.022 against 0.024.
std::int64_t rung15_k_ranges(const Canonical& p, const Device& device) {
  if (rung15_tile(p) == 32) return k_ranges_for(p, device, rung15_tile_count(p), 16, 128);
  return k_ranges_for(p, device, rung15_tile_count(p));
}
std::string_view rung15_split_unsuited(const Canonical& p, const Device& device) {
  if (p.batch == 1 && std::min(p.m, p.n) > kRung14Rows && std::max(p.m, p.n) <= kRung15MaxTile &&
      rung15_k_ranges(p, device) > 1)
    return {};
  return "not a single call of 17 to 64 rows and columns with a long k";
}

namespace {

// Calls the float4 kernels cannot read in place (a pointer not 16-byte aligned, or a leading
// dimension not a multiple of 4) run on aligned copies (Decision::staged) where rung 13 suits
// the shape and the product is large enough that the copies (a read and a write of A and B, a
// pass over C) cost little against it; cute-02 reads the others in place.
constexpr double kMinStagedProducts = 0x1p27;
std::string_view staged_rung13_unsuited(const Canonical& p, const Device& device) {
  if (needs_vec4(p).empty()) return "A, B and C aligned: read in place, no copies";
  if (p.batch != 1) return "a batch: no copies";
  if (double(p.m) * double(p.n) * double(p.k) < kMinStagedProducts)
    return "fewer than 2^27 products: the copies would cost more than they save";
  return rung13_unsuited(p, device);
}

constexpr std::array kRules = {
    Rule{"simt-15-batched-small", rung15_unsuited},
    Rule{"simt-15-batched-small", rung15_split_unsuited, rung15_k_ranges},
    Rule{"simt-14-small-m", rung14_unsuited},
    Rule{"simt-10-warptile", small_call_unsuited, small_call_ranges},
    Rule{"simt-10-warptile", rung10_split_unsuited, rung10_k_ranges},
    Rule{"simt-13-tma", rung13_unsuited},
    Rule{"simt-10-warptile"},
    Rule{"simt-13-tma", staged_rung13_unsuited, nullptr, /*staged=*/true},
    Rule{"cute-02-fast"},
    Rule{"simt-05-blocktile-2d"},
    Rule{"fallback-01-any"},
};

}  // namespace

std::span<const Rule> fp32_rules() { return kRules; }

}  // namespace sgemm::detail
