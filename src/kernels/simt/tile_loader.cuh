// Staging tiles of A and B in shared memory: what the blocked CUDA-core rungs (04-10) share.
//
// Both operands are handled as one kind of matrix X, outer x K, staged the same way:
//
//   A: X = A    (outer = M),  X(o, kk) = A(o, kk)
//   B: X = B^T  (outer = N),  X(o, kk) = B(kk, o)
//   X(o, kk) = k_major ? x[o * ld + kk] : x[kk * ld + o]     (a_k_major / b_k_major of Canonical)
//
// A block stages a BO x BK tile of X "K-outer", s[kk * stride + o]: step kk of the outer-product
// loop then reads a contiguous run of sA and of sB whatever the storage order in global memory.
// A K-major operand is transposed on its way in; an outer-major one is copied straight.
//
// Every element outside X is staged as 0. Past K both operands are zero, so the padding of the
// last K-tile contributes exact zeros (never Inf * 0); rows past M or N only feed elements of C
// that are never stored. No address outside X is ever read.
#pragma once

#include <cstdint>

#include "kernels/kernel.hpp"

namespace sgemm::detail {

// &X(o0, 0): where a block's panel of X starts.
template <bool KMajor>
__device__ __forceinline__ const float* panel_origin(const float* x, std::int64_t ld,
                                                     std::int64_t o0) {
  return KMajor ? x + o0 * ld : x + o0;
}

// How many of a tile's `tile` rows (or k-steps) lie inside the matrix, given `left` from its start.
__device__ __forceinline__ int rows_inside(std::int64_t left, int tile) {
  return left < tile ? int(left) : tile;
}

// Rungs 04-05: one thread's share of the BO x BK tiles of a block's panel of X, one float at a
// time, staged into s[kk * BO + o]. Element e = tid + i * kThreads of the tile is
//   K-major:     (o, kk) = (e / BK, e % BK)
//   outer-major: (o, kk) = (e % BO, e / BO)
// so consecutive threads read consecutive addresses of X and a warp's loads coalesce. As in
// Vec4TileLoader below, element i of every thread lies at the same offset from its element 0,
// so one pointer per thread walks the panel.
template <int BO, int BK, int kThreads, bool KMajor>
class ScalarTileLoader {
  static_assert(KMajor ? kThreads % BK == 0 : kThreads % BO == 0 || BO % kThreads == 0,
                "a thread-independent pattern");
  static_assert(BO * BK % kThreads == 0, "every thread stages the same number of elements");
  static constexpr int kElements = BO * BK / kThreads;

 public:
  __device__ __forceinline__ ScalarTileLoader(const float* panel, std::int64_t ld, int o_left,
                                              int tid)
      : o0_(KMajor ? tid / BK : tid % BO),
        kk0_(KMajor ? tid % BK : tid / BO),
        o_left_(o_left),
        ld_(ld),
        src_(KMajor ? panel + o0_ * ld + kk0_ : panel + kk0_ * ld + o0_) {}

  // Stages the current K-tile, whose first k_left k-steps lie inside X; zeros outside X.
  __device__ __forceinline__ void stage(float* s, int k_left) const {
#pragma unroll
    for (int i = 0; i < kElements; ++i) {
      const int o = o0_ + kDeltaO(i), kk = kk0_ + kDeltaK(i);
      const float* src =
          src_ + (KMajor ? kDeltaO(i) * ld_ + kDeltaK(i) : kDeltaK(i) * ld_ + kDeltaO(i));
      s[kk * BO + o] = o < o_left_ && kk < k_left ? *src : 0.0f;
    }
  }

  __device__ __forceinline__ void advance() { src_ += KMajor ? std::int64_t(BK) : BK * ld_; }

 private:
  // Offset of element i from element 0, the same for every thread.
  static constexpr int kDeltaO(int i) {
    if constexpr (KMajor) return i * (kThreads / BK);
    else if constexpr (kThreads % BO == 0) return 0;
    else return i % (BO / kThreads) * kThreads;
  }
  static constexpr int kDeltaK(int i) {
    if constexpr (KMajor) return 0;
    else if constexpr (kThreads % BO == 0) return i * (kThreads / BO);
    else return i / (BO / kThreads);
  }

  int o0_, kk0_;  // this thread's element 0 in the tile
  int o_left_;
  std::int64_t ld_;
  const float* src_;  // &X(o0 + o0_, k0 + kk0_) of the current K-tile
};

// The plain K-outer layout: tile row kk starts at kk * Stride floats. Stride >= the tile's outer
// size, a multiple of 4 so that every aligned run of 4 is one 16-byte LDS.128/STS.128.
template <int Stride>
struct KOuterLayout {
  static_assert(Stride % 4 == 0, "rows must stay 16-byte aligned");
  static constexpr int kStride = Stride;
  __device__ static int offset(int kk, int o) { return kk * Stride + o; }
};

// Rungs 06-10: one thread's share of the BO x BK tiles of a block's panel of X, moved as float4
// chunks along X's contiguous dimension. load() fetches the current K-tile's chunks into
// registers, store() writes them to shared memory, advance() steps to the next K-tile; the split
// lets rung 10 fetch the next tile while it computes on the current one.
//
// Needs needs_vec4(): x 16-byte aligned and ld % 4 == 0, so every chunk that starts at a multiple
// of 4 is an aligned float4. A chunk that is not wholly inside X (it straddles the K edge, or the
// outer edge of an outer-major X) is read element by element, zeros past the edge: a float4 read
// there could run past the end of the allocation.
//
// Which chunks a thread moves (chunk c = tid + i * kThreads of the tile, i < kChunks):
//   outer-major: chunk c is (kk, o) = (c / (BO/4), 4 * (c % (BO/4))): a warp copies whole
//                rows of the tile, 16 contiguous bytes per thread.
//   K-major:     chunks in pairs along K. Row o = (c / 2) % BO holds chunk 2 * (c / (2*BO)) + c % 2
//                of its BK/4: consecutive threads read the two chunks (32 bytes, one sector) of a
//                row, then of the next row. A warp's transposed stores therefore touch 16 rows
//                and two chunk columns; with a row stride of 4 mod 8 floats those two columns lie
//                16 banks apart and the warp's 32 stores hit 32 different banks.
// With power-of-two sizes, chunk i of every thread lies at the same offset (kDeltaO(i), kDeltaK(i))
// from the thread's chunk 0, so one pointer per thread walks the panel and the other chunks are
// reached through constant (or warp-uniform: multiples of ld) offsets.
template <int BO, int BK, int kThreads, bool KMajor>
class Vec4TileLoader {
  static_assert(BO % 4 == 0 && BK % 8 == 0, "float4 chunks, K-major chunks in pairs");
  static constexpr int kChunksPerRow = KMajor ? BK / 4 : BO / 4;  // along the contiguous dim
  static constexpr int kSpan = KMajor ? 2 * BO : kChunksPerRow;  // chunks before the pattern wraps
  static_assert(kThreads % kSpan == 0 || kSpan % kThreads == 0, "a thread-independent pattern");
  static_assert(BO * BK / 4 % kThreads == 0, "every thread moves the same number of chunks");

 public:
  static constexpr int kChunks = BO * BK / 4 / kThreads;

  __device__ __forceinline__ Vec4TileLoader(const float* panel, std::int64_t ld, int o_left,
                                            int tid)
      : o0_(KMajor ? tid / 2 % BO : 4 * (tid % kChunksPerRow)),
        kk0_(KMajor ? 4 * (2 * (tid / (2 * BO)) + tid % 2) : tid / kChunksPerRow),
        o_left_(o_left),
        ld_(ld),
        src_(KMajor ? panel + o0_ * ld + kk0_ : panel + kk0_ * ld + o0_) {}

  // Fetches the current K-tile, whose first k_left k-steps lie inside X. The test for a tile
  // wholly inside X is the same for the whole block, so the common case runs without per-chunk
  // checks or branches.
  __device__ __forceinline__ void load(int k_left) {
    if (o_left_ == BO && k_left == BK) {
      load_whole();
    } else {
#pragma unroll
      for (int i = 0; i < kChunks; ++i) load_checked(i, k_left);
    }
  }

  // load() for a K-tile known to lie wholly inside X: no checks.
  __device__ __forceinline__ void load_whole() {
#pragma unroll
    for (int i = 0; i < kChunks; ++i) chunk_[i] = *reinterpret_cast<const float4*>(address(i));
  }

  __device__ __forceinline__ void advance() { src_ += KMajor ? std::int64_t(BK) : BK * ld_; }

  // Writes the chunks at s[Layout::offset(kk, o)]: one STS.128 for an outer-major chunk, four
  // STS.32 down a column for a K-major one (the transpose).
  template <class Layout>
  __device__ __forceinline__ void store(float* s) const {
#pragma unroll
    for (int i = 0; i < kChunks; ++i) {
      const int o = o0_ + kDeltaO(i), kk = kk0_ + kDeltaK(i);
      if constexpr (KMajor) {
        s[Layout::offset(kk + 0, o)] = chunk_[i].x;
        s[Layout::offset(kk + 1, o)] = chunk_[i].y;
        s[Layout::offset(kk + 2, o)] = chunk_[i].z;
        s[Layout::offset(kk + 3, o)] = chunk_[i].w;
      } else {
        *reinterpret_cast<float4*>(s + Layout::offset(kk, o)) = chunk_[i];
      }
    }
  }

 private:
  __device__ __forceinline__ const float* address(int i) const {
    return src_ + (KMajor ? kDeltaO(i) * ld_ + kDeltaK(i) : kDeltaK(i) * ld_ + kDeltaO(i));
  }

  __device__ __forceinline__ void load_checked(int i, int k_left) {
    const int o = o0_ + kDeltaO(i), kk = kk0_ + kDeltaK(i);
    const float* src = address(i);
    // How many of the chunk's four elements lie inside X: always a prefix of the chunk.
    const int inside = KMajor ? (o < o_left_ ? k_left - kk : 0) : (kk < k_left ? o_left_ - o : 0);
    if (inside >= 4) {
      chunk_[i] = *reinterpret_cast<const float4*>(src);
    } else {
      chunk_[i] = {inside > 0 ? src[0] : 0.0f, inside > 1 ? src[1] : 0.0f,
                   inside > 2 ? src[2] : 0.0f, 0.0f};
    }
  }

  // Offset of chunk i from chunk 0 (see the mapping above), the same for every thread.
  static constexpr int kDeltaO(int i) {
    if constexpr (kThreads % kSpan == 0) return 0;
    else return (i % (kSpan / kThreads)) * (KMajor ? kThreads / 2 : 4 * kThreads);
  }
  static constexpr int kDeltaK(int i) {
    if constexpr (kThreads % kSpan == 0) return (KMajor ? 8 : 1) * i * (kThreads / kSpan);
    else return (KMajor ? 8 : 1) * (i / (kSpan / kThreads));
  }

  int o0_, kk0_;  // this thread's chunk 0 in the tile
  int o_left_;
  std::int64_t ld_;
  const float* src_;  // &X(o0 + o0_, k0 + kk0_) of the current K-tile
  float4 chunk_[kChunks];
};

}  // namespace sgemm::detail
