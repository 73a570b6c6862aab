// Rung 12 — multi-stage asynchronous copies: cp.async (LDGSTS) keeps several k-tiles in flight.
//
// Seed 001's closing remark (Ampere's LDGSTS), the design every Ampere GEMM uses. Rung 11 staged
// the next tile through registers: it could look only one tile ahead, and paid global loads,
// shared stores and 8 registers held across the whole k-tile. cp.async copies global memory
// straight into shared memory: no registers, no store instructions, and as many tiles in flight
// as there are stages. With kStages = 4, tiles t+1 .. t+3 are on their way while tile t is multiplied:
//
//   prologue:   issue tiles 0 .. kStages-1 into stages 0 .. kStages-1, one commit group each
//   k-tile t:   kk = 0..6: LDS fragment kk+1 | FFMA fragment kk
//               kk = 7:    wait until tile t+1 has landed, __syncthreads,
//                          issue tile t+kStages into tile t's stage, LDS fragment 0 of tile t+1
//                                              | FFMA fragment 7
//
// The barrier does both jobs: after it every thread's copies of tile t+1 are visible, and every
// thread has read tile t's stage for the last time (fragment 7 is already in registers), so the
// copies issued right after it may overwrite that stage. One barrier per k-tile.
//
// The compute (128 x 128 block tile, 8 x 8 per thread as 2 x 2 sub-tiles of 4 x 4, two fragment
// registers, lanes interleaved so that every LDS.128 takes 2 cycles) is rung 11's, shared through
// 11_prefetch.cuh. Shared memory keeps the K-outer layout s[kk][o] that the fragment reads want.
// A 16-byte cp.async cannot transpose, so:
//   MN-major operand: one 16-byte cp.async.cg per thread and tile, straight into a row of s;
//   K-major operand:  four 4-byte cp.async.ca per thread and tile, each element to its place in
//                     the transposed tile: the copy does the transpose, still without registers.
//
// Edges: cp.async's src-size operand copies only the bytes inside the matrix and zero-fills the
// rest of the destination, so a tile hanging over any edge is filled with zeros and nothing
// outside A or B is read. The 16-byte copies need 16-byte aligned rows: needs_vec4.
#include "kernels/arch/cp_async.cuh"
#include "kernels/operand.cuh"
#include "kernels/simt/11_prefetch.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

constexpr int kStages = 4;  // 4 x 8.25 KB: two blocks per SM still fit many times over

// One thread's share of each 128 x 8 tile of X (A, or B^T: see tile_loader.cuh), carried from
// k-tile to k-tile as a pointer.
//   MN-major: thread t copies the 16-byte chunk at k t / 32, rows 4 * (t % 32) .. +3
//             (a warp copies 512 contiguous bytes of one row of X's storage);
//   K-major:  thread t copies the four elements at row t / 2, k 4 * (t % 2) + {0..3}, one
//             4-byte copy each, to s[kk][o]: a warp's 32 stores land on (4 kk + o) mod 32, 32
//             different banks. Its four copies share one source pointer (immediate offsets); the
//             first brings a row's 32-byte sector into L1 (.ca), the other three hit it there.
template <bool KMajor>
struct TileCopy {
  const float* src;  // &X(o0 + o, k0 + kk) in the current k-tile
  int o, kk;         // the thread's first element within the tile
  bool row_inside;   // K-major: row o0 + o exists (else src stays on row 0)

  __device__ TileCopy(const float* x, std::int64_t ld, std::int64_t o0, std::int64_t rows,
                      int tid)
      : o(KMajor ? tid / 2 : tid % 32 * 4), kk(KMajor ? tid % 2 * 4 : tid / 32) {
    row_inside = o0 + o < rows;
    src = KMajor ? x + (row_inside ? o0 + o : 0) * ld + kk : x + kk * ld + o0 + o;
  }

  // Copies this k-tile into s when the whole tile lies inside X: plain copies.
  __device__ void copy(float* s) const {
    if constexpr (KMajor) {
#pragma unroll
      for (int j = 0; j < 4; ++j)
        cp_async4(smem_address(s + Layout::offset(kk + j, o)), src + j, 4);
    } else {
      cp_async16(smem_address(s + Layout::offset(kk, o)), src, 16);
    }
  }

  // The same at an edge of X (k_left, o_left: k-steps and rows of X inside the tile): each copy
  // reads only what lies inside X. One that only zero-fills reads nothing, yet gets X's first
  // element x as its source, so that no address outside X is ever formed.
  __device__ void copy_edge(float* s, int k_left, int o_left, const float* x) const {
    if constexpr (KMajor) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const bool inside = row_inside && kk + j < k_left;
        cp_async4(smem_address(s + Layout::offset(kk + j, o)), inside ? src + j : x,
                  inside ? 4 : 0);
      }
    } else {
      const int inside = kk < k_left ? min(max(o_left - o, 0), 4) : 0;  // a prefix of the chunk
      cp_async16(smem_address(s + Layout::offset(kk, o)), inside > 0 ? src : x, inside * 4);
    }
  }
};

template <bool AKMajor, bool BKMajor>
__global__ void __launch_bounds__(kThreads, 2) simt_12_cp_async_kernel(Canonical p) {
  // sA[stage][kk * kStride + i] = A(m0 + i, k0 + kk)
  // sB[stage][kk * kStride + j] = B(k0 + kk, n0 + j)
  __shared__ __align__(16) float sA[kStages][kBK * kStride];
  __shared__ __align__(16) float sB[kStages][kBK * kStride];

  const int tid = threadIdx.x, tm = thread_tm(tid), tn = thread_tn(tid);
  const std::int64_t m0 = std::int64_t(blockIdx.y) * kBM, n0 = std::int64_t(blockIdx.x) * kBN;
  const int m_left = rows_inside(p.m - m0, kBM), n_left = rows_inside(p.n - n0, kBN);
  // Per k-tile a K-major copy moves kBK floats along its rows, an MN-major one kBK rows down.
  const std::int64_t step_a = AKMajor ? kBK : kBK * p.lda, step_b = BKMajor ? kBK : kBK * p.ldb;

  TileCopy<AKMajor> cp_a(p.a, p.lda, m0, p.m, tid);
  TileCopy<BKMajor> cp_b(p.b, p.ldb, n0, p.n, tid);
  // Copies the next tile not yet issued into stage s, or only commits an empty group past K:
  // either way one group per tile, which keeps the counting of cp_async_wait simple.
  std::int64_t k_issue = p.k;  // k-steps from the next tile to issue on
  const auto issue_next = [&](int s) {
    if (k_issue > 0) {
      const int k_left = rows_inside(k_issue, kBK);
      if (k_left == kBK && m_left == kBM && n_left == kBN) {  // uniform: no divergence
        cp_a.copy(sA[s]);
        cp_b.copy(sB[s]);
      } else {
        cp_a.copy_edge(sA[s], k_left, m_left, p.a);
        cp_b.copy_edge(sB[s], k_left, n_left, p.b);
      }
      cp_a.src += step_a;
      cp_b.src += step_b;
    }
    cp_async_commit();
    k_issue -= kBK;
  };

  float acc[8][8] = {};
  float a[2][8], b[2][8];  // fragments of steps kk (computing) and kk + 1 (loading)

#pragma unroll
  for (int s = 0; s < kStages; ++s) issue_next(s);
  cp_async_wait<kStages - 1>();  // tile 0 has landed
  __syncthreads();
  load_fragment(a[0], sA[0], 0, tm);
  load_fragment(b[0], sB[0], 0, tn);

  int stage = 0;  // the stage of the tile being multiplied
  for (std::int64_t k_rest = p.k; k_rest > 0; k_rest -= kBK) {  // k-steps from this tile on
    const bool has_next = k_rest > kBK;  // uniform over the block: the barrier below is safe
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      if (kk + 1 < kBK) {
        load_fragment(a[(kk + 1) % 2], sA[stage], kk + 1, tm);
        load_fragment(b[(kk + 1) % 2], sB[stage], kk + 1, tn);
      } else if (has_next) {
        // kStages + t groups are committed (tiles 0 .. t + kStages - 1); leaving the newest
        // kStages - 2 in flight means tiles 0 .. t+1 have landed.
        cp_async_wait<kStages - 2>();
        __syncthreads();
        issue_next(stage);  // tile t + kStages, into the stage tile t no longer needs
        stage = stage + 1 == kStages ? 0 : stage + 1;
        load_fragment(a[0], sA[stage], 0, tm);  // (kBK - 1 + 1) % 2 == 0
        load_fragment(b[0], sB[stage], 0, tn);
      }
      outer_product(acc, a[kk % 2], b[kk % 2]);
    }
  }

  store_tile(p, acc, m0, n0, m_left, n_left, tm, tn);
}

std::string_view why_not(const Canonical& p, const Device&) {
  if (const auto reason = needs_vec4(p); !reason.empty()) return reason;
  return needs_grid(ceil_div(p.n, kBN), ceil_div(p.m, kBM));
}

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  const dim3 grid(ceil_div(p.n, kBN), ceil_div(p.m, kBM));
  return with_majorness(p, [&]<bool AKMajor, bool BKMajor>() {
    return launch_kernel(simt_12_cp_async_kernel<AKMajor, BKMajor>, grid, kThreads, 0, args.stream, p);
  });
}

}  // namespace

SGEMM_KERNEL_ENTRIES(simt_12_cp_async) {
  static const KernelEntry entries[] = {{
      {"simt-12-cp-async", Track::Simt, 12,
       "multi-stage cp.async: 4 shared-memory stages filled without registers",
       Math::Fp32, "seed 001 (LDGSTS on Ampere); the multistage pipeline of Ampere GEMMs",
       kVec4Requirement},
      why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail
