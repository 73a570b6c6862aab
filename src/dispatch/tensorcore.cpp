// `auto` in Tf32 and Fp32Tf32x3 math.
//
// Rung 14 and tc-05 (3xTF32, and Tf32's fewest rows) take the calls with a few rows (or columns),
// bound by the read of the other operand; rung 13 the calls of many rows and at most 64 columns.
// tc-04 (FP16 tensor cores, operands scaled per row and column) is the fastest tile kernel, but its
// passes over A and B cost more than they save below the sizes in its rules; tc-03 reads A and B in
// place and takes the rest; tc-02 and tc-01 take the alignments tc-03 cannot. After them come the
// FP32 kernels: FP32 arithmetic is at least as accurate as both tensor-core maths, so a call no
// tensor-core kernel supports still runs.
#include <algorithm>
#include <array>
#include <span>

#include "dispatch/policy.hpp"

namespace sgemm::detail {
namespace {

// Measured on an H200 from an idle GPU. Tf32: from 6144 in every dimension, where tc-04 ran
// 1.24x tc-03 (6144³); at 4096³, 4096 x 4096 x 1024, 8192 x 8192 x 1024 and 2048 x 11008 x 4096
// its passes cost more than its tile kernel saves against tc-03.
std::string_view tc04_tf32_unsuited(const Canonical& p, const Device&) {
  if (std::min({p.m, p.n, p.k}) >= 6144) return {};
  return "a dimension below 6144: its scaling passes cost more than they save against tc-03";
}
// 3xTF32: from 2^34 products with m and n at least 2048 (1.04-1.27x tc-03's 3xTF32 at six such
// shapes, 1.26-1.31x at 8192³; 0.97x at 2048³, 0.79x at 512 x 11008 x 4096).
std::string_view tc04_tf32x3_unsuited(const Canonical& p, const Device&) {
  if (double(p.m) * double(p.n) * double(p.k) >= 0x1p34 && std::min(p.m, p.n) >= 2048) return {};
  return "fewer than 2^34 products, or m or n below 2048: tc-03 is faster";
}

// tc-02 and tc-01 run a strided batch in one launch (every matrix packed, then one grid);
// the other tensor-core kernels take a batch only as one launch per large matrix. Measured on
// an H200 with sgemm-bench --batched against the FP32 batched grids (rungs 10 and 15):
// - 3xTF32: tc-02 from k = 512 with m, n >= 128 (0.37 against rung 10's 0.45 ms at
//   64 x 197 x 768 x 768, 0.85 against 1.41 at 32 x 1024³); below that the packing pass loses
//   (0.088 against 0.037 ms at 512 x 128 x 128 x 64, 0.56 against 0.43 at 256 x 64 x 256 x 1024).
//   tc-01 was slower than rung 10 on every batch.
// - Tf32: the tensor cores from k = 256 (tc-02 0.23 against rung 10's 0.45 ms at k = 768,
//   0.13 against 0.22 at 96 x 512 x 64 x 512); below, the FP32 grids where tc-03 (below) does
//   not take the batch (0.037 against tc-02's 0.069 ms at 512 x 128 x 128 x 64).
std::string_view tc02_tf32x3_batch_unsuited(const Canonical& p, const Device&) {
  if (p.batch == 1 || (p.k >= 512 && std::min(p.m, p.n) >= 128)) return {};
  return "a batch with k below 512 or m or n below 128: the FP32 batched grids are faster";
}
std::string_view tf32_batch_unsuited(const Canonical& p, const Device&) {
  if (p.batch == 1 || p.k >= 256) return {};
  return "a batch with k below 256: its packing pass costs more than the tensor cores save";
}
// tc-03 runs a batch in one persistent launch, the matrices' tiles one after another (its maps'
// third dimension), A and B read in place as in a single call. Measured on an H200 with
// sgemm-bench --batched against tc-02 and the FP32 batched grids:
// - Tf32: faster than both from 128 x 64 x 128 matrices up (64 x 197 x 768 x 768: 0.079 against
//   tc-02's 0.232 ms; 512 x 128 x 64 x 128: 0.033 against rung 10's 0.066), and with its 64-row
//   tiles at 64 x 64 too (1024 x 64³: 0.0215 against rung 15's 0.0269 ms); at 16 x 16 rung 15's
//   grid, which sizes its tiles to the matrix, is faster (4096 x 16³: 0.018 against 0.054).
// - 3xTF32: rung 15's FP32 wherever it takes the batch (1024 x 64³: 0.027 against 0.048 ms), and
//   rung 10's FP32 for an M-major A of at most 64 rows, which tc-03 packs into half-empty tiles
//   (256 x 64 x 256 x 1024, A transposed: 0.192 against 0.245 ms), and for n of at most 64 under
//   more rows, which rung 10's 256 x 64 tiles fill (96 x 512 x 64 x 512: 0.108-0.111 against
//   0.131-0.135 ms).
// Rung 10's narrow tiles (64 x 256, 256 x 64) and the largest matrices Tf32 leaves rung 15.
constexpr std::int64_t kRung10Narrow = 64, kTf32Rung15MaxMatrix = 32;
std::string_view tc03_tf32_batch_unsuited(const Canonical& p, const Device&) {
  if (p.batch > 1 && std::max(p.m, p.n) <= kTf32Rung15MaxMatrix)
    return "a batch of matrices of at most 32 x 32: rung 15's grid is faster";
  return {};
}
std::string_view tc03_tf32x3_batch_unsuited(const Canonical& p, const Device& device) {
  if (p.batch > 1 && rung15_takes_batch(p))
    return "a batch rung 15's grid takes: its FP32 is faster";
  if (p.batch > 1 && !p.a_k_major && p.m <= kRung10Narrow)
    return "a batch whose M-major A of at most 64 rows is packed into half-empty tiles: rung 10's "
           "FP32 grid is faster";
  if (p.batch > 1 && p.n <= kRung10Narrow && p.m > kRung10Narrow)
    return "a batch of at most 64 columns: rung 10's FP32 256 x 64 tiles are faster";
  return tc03_tf32_batch_unsuited(p, device);
}

// A single call whose tc-03 tiles leave SMs idle, with a long k: cut into ranges of at least
// kTc03MinRangeK k-values that tc-03 runs as one batch, until the tiles of all ranges fill the
// SMs once (Decision::k_ranges). Tiles are counted at tc-03's widest (03_wgmma_rs.cu): 256 x 128
// in Tf32, 128 x 128 in 3xTF32 (tc-03's tile_rows narrows them itself to 128 or 64 rows where
// they would idle SMs or be half empty). Measured on an H200 against tc-03 alone, whose tail
// split cuts k within the call:
// - faster with 4 or more tiles: Tf32 4096 x 256 x 16384 0.115 against 0.195 ms, 128 x 8192 x
//   8192 0.136 against 0.166, 64 x 4096 x 4096 0.046 against 0.055; 3xTF32 256 x 256 x 131072
//   0.239 against 0.279, 32 x 4096 x 11008 NT 0.108 against 0.117;
// - slower with ranges of 512 (1024³: Tf32 0.027 against 0.025 ms), and with one or two tiles,
//   where the tail split serves as well (3xTF32 64 x 64 x 262144: 0.165 against 0.146 ms).
constexpr int kTc03Tf32M = 256, kTc03Tf32x3M = 128, kTc03N = 128;
constexpr std::int64_t kTc03MinTiles = 4, kTc03MinRangeK = 1024;
template <int kTileM>
std::int64_t tc03_k_ranges(const Canonical& p, const Device& device) {
  const std::int64_t tiles = ceil_div(p.m, kTileM) * ceil_div(p.n, kTc03N);
  if (p.batch != 1 || tiles < kTc03MinTiles) return 1;
  std::int64_t ranges = std::min<std::int64_t>(device.sms / tiles, p.k / kTc03MinRangeK);
  // Only ranges of equal, 16-aligned length: a shorter last range runs as a launch of its own
  // after the batch, on a fraction of the SMs (777 x 1025 x 3333 TN in 2 ranges: 0.71x whole).
  while (ranges > 1 && p.k % (16 * ranges) != 0) --ranges;
  return ranges;
}
template <int kTileM>
std::string_view tc03_split_unsuited(const Canonical& p, const Device& device) {
  if (tc03_k_ranges<kTileM>(p, device) > 1) return {};
  return "fewer than 4 tiles, tiles that fill half the SMs, or a short k: no ranges of k";
}

std::string_view tc01_tf32x3_unsuited(const Canonical& p, const Device&) {
  if (p.batch == 1) return {};
  return "a batch: rung 10's FP32 batched grid is faster and at least as accurate";
}

// With m or n at most 64 a call is bound by the read of its large operand, or nearly (rung 14's
// file). Measured on an H200 (sgemm-bench and --suite, n and k 4096 to 28672, row-major NN, NT):
// - Tf32: rung 14's FP32 up to 4 rows, where the read is the whole cost and it streams B faster
//   (1 x 11008 x 4096 NT: 1.19x cuBLAS TF32 against tc-05's 1.00x); tc-05 up to 8 rows (8 x 11008
//   x 4096 NT 1.00x); above, tc-03's 64-row tiles in ranges of k. Where n is the small dimension
//   tc-03's tiles keep their 128 columns, and tc-05 its limits measured against them (16 columns,
//   32 with a K-major large operand). Against tc-05 the 64-row tiles were faster on 11 of 16
//   calls of 16 to 32 rows (16 x 4096 x 4096 NN 0.99x cuBLAS TF32 against 0.79x, 32 x 11008 x
//   4096 NT 0.99x against 0.72x, 32 x 32 x 1048576 NT 0.74x against 0.54x), within 2% on three,
//   and 4-8% slower on two (16 x 11008 x 4096: NN 0.83x against 0.86x, NT 0.90x against 0.97x).
// - 3xTF32: rung 14's FP32 (more accurate, and as fast where the read is the whole cost) up to
//   8 rows, 16 with an N-major large operand (16 x 4096 x 4096 NN: 0.042 against tc-03's 0.052
//   ms), and on calls of fewer than 2^24 products, where launches are the cost (32 x 64 x 128:
//   0.64x against tc-03's 0.51x cuBLAS); tc-05 up to 16 rows (16 x 11008 x 4096 NT: 1.18x
//   against tc-03's 0.92x cuBLAS SGEMM); from 17 rows tc-03 (32 x 11008 x 4096 NT 1.23x against
//   tc-05's 0.97x, 64 rows 1.35x against 0.65x).
constexpr std::int64_t kSmallRows = 64;
bool large_operand_k_major(const Canonical& p) {
  return p.m <= kSmallRows ? p.b_k_major : p.a_k_major;
}
std::string_view rung14_tf32_unsuited(const Canonical& p, const Device&) {
  if (std::min(p.m, p.n) <= 4) return {};
  return "above 4 rows: tc-05's tensor cores are faster";
}
std::string_view tc05_tf32_unsuited(const Canonical& p, const Device&) {
  const std::int64_t rows = std::min(p.m, p.n);
  if (rows <= 8) return {};
  // tc-03's tiles narrow to 64 rows but keep 128 columns, which few columns leave mostly empty.
  if (p.n < p.m &&
      (rows <= 16 || (rows <= 32 && (large_operand_k_major(p) || std::max(p.m, p.n) <= 32))))
    return {};
  return "above 8 rows (of m; 16 or 32 of n): tc-03's tiles are faster";
}
std::string_view rung14_tf32x3_unsuited(const Canonical& p, const Device&) {
  const std::int64_t rows = std::min(p.m, p.n);
  if (rows <= 8 || (rows <= 16 && !large_operand_k_major(p))) return {};
  if (rows <= kSmallRows && double(p.m) * double(p.n) * double(p.k) < 0x1p24) return {};
  return "above 8 rows (16 with an N-major large operand) and 2^24 products: the tensor cores "
         "are faster";
}

// 3xTF32 single calls of at most 2^27 products above 64 rows run on FP32 rung 10 in ranges of k
// (small_call_unsuited): measured on an H200, 128³ 11.8 against tc-03's 16.4 us, 256³ 12.4
// against 20.5, 512³ 17.5 against 26.8. The small-M kernels keep 64 rows and fewer.
std::string_view small_call_tf32x3_unsuited(const Canonical& p, const Device& device) {
  if (std::min(p.m, p.n) <= kSmallRows) return "64 rows or fewer: the small-M rules";
  return small_call_unsuited(p, device);
}

// Rung 13's FP32 (at least as accurate) where m is large and n at most 64: its 512 x 64 tiles are
// full where tc-03's have 128 columns, and it reads an M-major A in place where Tf32 tc-03 packs
// it. Measured on an H200, x cuBLAS SGEMM, rung 13 against auto's tensor-core choice:
// - 3xTF32: 0.75-1.20 against 0.37-0.78 (16384, 8192, 4096 and 65536 rows, n 32-64; NN, NT, TN);
// - Tf32, M-major A (TN): 0.75-1.20 against 0.55-0.85; with a K-major A tc-03 runs 1.2-2.7x.
std::string_view rung13_narrow_unsuited(const Canonical& p) {
  if (p.n <= kSmallRows && p.m > kSmallRows) return {};
  return "n above 64, or m at most 64: the tensor cores";
}
std::string_view rung13_tf32x3_unsuited(const Canonical& p, const Device&) {
  return rung13_narrow_unsuited(p);
}
std::string_view rung13_tf32_unsuited(const Canonical& p, const Device&) {
  if (p.a_k_major) return "a K-major A: tc-03 reads it in place";
  return rung13_narrow_unsuited(p);
}

// Tf32 calls of 17 to 32 rows and columns with a long k run on rung 15's FP32 in ranges of k
// (its 32-wide tile on 64 threads, 16 blocks per SM): measured on an H200, 32 x 32 x 1048576
// 0.131 against tc-03's 0.176 ms, 32 x 32 x 65536 0.022 against 0.025, 24 x 32 x 131072 0.030
// against 0.035. From 48 x 48 tc-03 is faster (48 x 48 x 200000: 0.048 against 0.090 ms).
std::string_view rung15_split_tf32_unsuited(const Canonical& p, const Device& device) {
  if (std::max(p.m, p.n) > 32) return "above 32 rows or columns: tc-03's tiles are faster";
  return rung15_split_unsuited(p, device);
}

constexpr std::array kTf32Rules = {
    Rule{"simt-15-batched-small", tiny_unsuited},
    Rule{"simt-15-batched-small", rung15_split_tf32_unsuited, rung15_k_ranges},
    Rule{"simt-14-small-m", rung14_tf32_unsuited},
    Rule{"tc-05-mma-small-m-tf32", tc05_tf32_unsuited},
    Rule{"simt-13-tma", rung13_tf32_unsuited},
    Rule{"tc-03-wgmma-rs-tf32", tc03_split_unsuited<kTc03Tf32M>, tc03_k_ranges<kTc03Tf32M>},
    Rule{"tc-04-wgmma-f16-tf32", tc04_tf32_unsuited},
    Rule{"tc-03-wgmma-rs-tf32", tc03_tf32_batch_unsuited},
    Rule{"tc-02-wgmma-tf32", tf32_batch_unsuited},
    Rule{"tc-01-mma-sync-tf32", tf32_batch_unsuited},
};
constexpr std::array kTf32x3Rules = {
    Rule{"simt-15-batched-small", rung15_single_unsuited},
    Rule{"simt-15-batched-small", rung15_split_unsuited, rung15_k_ranges},
    Rule{"simt-14-small-m", rung14_tf32x3_unsuited},
    Rule{"tc-05-mma-small-m-tf32x3", small_m_unsuited<16>},
    Rule{"simt-10-warptile", small_call_tf32x3_unsuited, small_call_ranges},
    Rule{"simt-13-tma", rung13_tf32x3_unsuited},
    Rule{"tc-03-wgmma-rs-tf32x3", tc03_split_unsuited<kTc03Tf32x3M>,
         tc03_k_ranges<kTc03Tf32x3M>},
    Rule{"tc-04-wgmma-f16-tf32x3", tc04_tf32x3_unsuited},
    Rule{"tc-03-wgmma-rs-tf32x3", tc03_tf32x3_batch_unsuited},
    Rule{"tc-02-wgmma-tf32x3", tc02_tf32x3_batch_unsuited},
    Rule{"tc-01-mma-sync-tf32x3", tc01_tf32x3_unsuited},
};

// tc-04 hands the calls whose operands FP16 cannot carry to the next tensor-core rung of its
// math that supports them, else to the FP32 kernel of last resort.
constexpr std::array<std::string_view, 4> kTf32Handoff = {
    "tc-03-wgmma-rs-tf32", "tc-02-wgmma-tf32", "tc-01-mma-sync-tf32", "fallback-01-any"};
constexpr std::array<std::string_view, 4> kTf32x3Handoff = {
    "tc-03-wgmma-rs-tf32x3", "tc-02-wgmma-tf32x3", "tc-01-mma-sync-tf32x3", "fallback-01-any"};
constexpr std::array<std::string_view, 1> kFp32Handoff = {"fallback-01-any"};

}  // namespace

std::span<const Rule> tf32_rules() { return kTf32Rules; }
std::span<const Rule> tf32x3_rules() { return kTf32x3Rules; }

std::span<const std::string_view> handoff_order(Math math) {
  switch (math) {
    case Math::Tf32: return kTf32Handoff;
    case Math::Fp32Tf32x3: return kTf32x3Handoff;
    case Math::Fp32: break;
  }
  return kFp32Handoff;
}

}  // namespace sgemm::detail
