// Rung 11 — double-buffered prefetch: the next k-tile is on its way while this one is multiplied.
//
// Seed 001 (the MegEngine guide, prefetch and ping-pong buffers). A block of 256 threads computes
// a 128 x 128 tile of C, each thread 8 x 8 results as 2 x 2 sub-tiles of 4 x 4, so every
// fragment read is one LDS.128. What this rung adds is overlap, at two levels:
//
//   shared memory  two stages. While the FFMAs of k-tile t read stage s, the float4 loads of
//                  k-tile t+1 are already in flight into registers; they are written to stage
//                  s^1 only after the last fragment of tile t has been read.
//   registers      two fragments. The LDS.128s of step kk+1 are issued before the FFMAs of
//                  step kk, so shared-memory latency hides behind 64 FFMAs.
//
// So the main loop is, per k-tile:
//
//   LDG tile t+1 -> registers                       (lands during the 8 steps below)
//   kk = 0..6:  LDS fragment kk+1 | FFMA fragment kk
//   kk = 7:     STS registers -> stage s^1, __syncthreads, LDS fragment 0 of stage s^1
//                                | FFMA fragment 7
//
// One barrier per k-tile is enough. The stage written at the end of tile t was last read during
// tile t-1, and every thread read it for the last time before the barrier that ended tile t-1;
// the barrier that ends tile t orders those writes before anyone reads them.
//
// The block tile (its threads' interleaved lanes, fragment reads, FFMAs and float4 stores of C) is
// shared with rung 12 and lives in 11_prefetch.cuh.
//
// float4 global loads need 16-byte aligned rows (needs_vec4); every shape still works because
// the tile loader zero-fills, element by element, whatever lies past the edges of A and B.
#include "kernels/operand.cuh"
#include "kernels/simt/11_prefetch.cuh"
#include "runtime/launch.hpp"

namespace sgemm::detail {
namespace {

// One thread's float4 chunk of each 128 x 8 tile of X (A, or B^T: see tile_loader.cuh), carried
// from k-tile to k-tile as a pointer. The prefetched tile keeps 8 registers live across the whole
// k-tile; with Vec4TileLoader, which rebuilds its addresses from the panel origin every k-tile,
// two of this kernel's four instantiations spilled at the 128-register limit of two blocks per
// SM. Carrying the pointer needs fewer registers.
//   K-major:  thread t takes row t / 2, k 4 * (t % 2) .. +3     (a warp reads 16 rows x 32 bytes)
//   MN-major: thread t takes k t / 32, rows 4 * (t % 32) .. +3  (a warp reads 512 bytes of a row)
// Whatever lies outside X reads as zero, and no address outside X is read.
template <bool KMajor>
struct ChunkCursor {
  const float* src;  // &X(o0 + o, k0 + kk) for the current k-tile k0
  int o, kk;         // the chunk's first element within the tile
  bool row_inside;   // K-major: row o0 + o exists

  __device__ ChunkCursor(const float* x, std::int64_t ld, std::int64_t o0, std::int64_t rows,
                         int tid)
      : o(KMajor ? tid / 2 : tid % 32 * 4), kk(KMajor ? tid % 2 * 4 : tid / 32) {
    row_inside = o0 + o < rows;
    src = KMajor ? x + (row_inside ? o0 + o : 0) * ld + kk : x + kk * ld + o0 + o;
  }

  // k_left, o_left: k-steps and rows of X inside this tile (rows_inside: at most the tile).
  __device__ float4 load(int k_left, int o_left) const {
    // How many of the chunk's four elements lie inside X: always a prefix of the chunk.
    const int inside = KMajor ? (row_inside ? k_left - kk : 0) : (kk < k_left ? o_left - o : 0);
    if (inside >= 4) return *reinterpret_cast<const float4*>(src);
    return {inside > 0 ? src[0] : 0.0f, inside > 1 ? src[1] : 0.0f, inside > 2 ? src[2] : 0.0f,
            0.0f};
  }

  // Into s[Layout::offset(kk, o)]: one STS.128, or four STS.32 down a column (the transpose).
  __device__ void store(float* s, float4 v) const {
    if constexpr (KMajor) {
      s[Layout::offset(kk + 0, o)] = v.x;
      s[Layout::offset(kk + 1, o)] = v.y;
      s[Layout::offset(kk + 2, o)] = v.z;
      s[Layout::offset(kk + 3, o)] = v.w;
    } else {
      *reinterpret_cast<float4*>(s + Layout::offset(kk, o)) = v;
    }
  }
};

template <bool AKMajor, bool BKMajor>
__global__ void __launch_bounds__(kThreads, 2) simt_11_prefetch_kernel(Canonical p) {
  // sA[stage][kk * kStride + i] = A(m0 + i, k0 + kk)
  // sB[stage][kk * kStride + j] = B(k0 + kk, n0 + j)
  __shared__ __align__(16) float sA[2][kBK * kStride];
  __shared__ __align__(16) float sB[2][kBK * kStride];

  const int tid = threadIdx.x, tm = thread_tm(tid), tn = thread_tn(tid);
  const std::int64_t m0 = std::int64_t(blockIdx.y) * kBM, n0 = std::int64_t(blockIdx.x) * kBN;
  const int m_left = rows_inside(p.m - m0, kBM), n_left = rows_inside(p.n - n0, kBN);
  // Per k-tile a K-major cursor moves kBK floats along its row, an MN-major one kBK rows down.
  const std::int64_t step_a = AKMajor ? kBK : kBK * p.lda, step_b = BKMajor ? kBK : kBK * p.ldb;

  ChunkCursor<AKMajor> ldg_a(p.a, p.lda, m0, p.m, tid);
  ChunkCursor<BKMajor> ldg_b(p.b, p.ldb, n0, p.n, tid);
  float acc[8][8] = {};
  float a[2][8], b[2][8];  // fragments of steps kk (computing) and kk + 1 (loading)

  ldg_a.store(sA[0], ldg_a.load(rows_inside(p.k, kBK), m_left));
  ldg_b.store(sB[0], ldg_b.load(rows_inside(p.k, kBK), n_left));
  __syncthreads();
  load_fragment(a[0], sA[0], 0, tm);
  load_fragment(b[0], sB[0], 0, tn);

  int stage = 0;
  for (std::int64_t k_rest = p.k; k_rest > 0; k_rest -= kBK) {  // k-steps from this tile on
    const bool has_next = k_rest > kBK;  // uniform over the block: the barrier below is safe
    float4 next_a, next_b;               // the next tile, in flight during this one
    if (has_next) {
      ldg_a.src += step_a;
      ldg_b.src += step_b;
      const int k_left = rows_inside(k_rest - kBK, kBK);
      next_a = ldg_a.load(k_left, m_left);
      next_b = ldg_b.load(k_left, n_left);
    }
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      if (kk + 1 < kBK) {
        load_fragment(a[(kk + 1) % 2], sA[stage], kk + 1, tm);
        load_fragment(b[(kk + 1) % 2], sB[stage], kk + 1, tn);
      } else if (has_next) {
        ldg_a.store(sA[stage ^ 1], next_a);
        ldg_b.store(sB[stage ^ 1], next_b);
        __syncthreads();
        stage ^= 1;
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
    return launch_kernel(simt_11_prefetch_kernel<AKMajor, BKMajor>, grid, kThreads, 0, args.stream, p);
  });
}

}  // namespace

SGEMM_KERNEL_ENTRIES(simt_11_prefetch) {
  static const KernelEntry entries[] = {{
      {"simt-11-prefetch", Track::Simt, 11,
       "double-buffered prefetch: two smem stages, next tile in registers, one barrier per k-tile",
       Math::Fp32, "seed 001 (MegEngine guide: prefetch, ping-pong shared memory, LDS.128)",
       kVec4Requirement},
      why_not, launch}};
  return entries;
}

}  // namespace sgemm::detail
