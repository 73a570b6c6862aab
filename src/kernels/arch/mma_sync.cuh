// Ampere's warp-wide tensor-core instruction (mma.sync) in PTX, and the ldmatrix loads that feed
// it from shared memory; shared by tensor-core rungs 01 and 05 and conv rung 03.
#pragma once

#include <cstdint>

namespace sgemm::detail {

// d += a * b on one 16 x 8 x 8 TF32 tile. Fragments, with g = lane / 4 and t = lane % 4:
// a = {A(g, t), A(g + 8, t), A(g, t + 4), A(g + 8, t + 4)}, b = {B(t, g), B(t + 4, g)},
// d = {C(g, 2t), C(g, 2t + 1), C(g + 8, 2t), C(g + 8, 2t + 1)}.
__device__ __forceinline__ void mma_tf32(float (&d)[4], const std::uint32_t (&a)[4],
                                         std::uint32_t b0, std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Four 8 x 8 b16 matrices from shared memory; lanes 8i .. 8i + 7 address the rows of matrix i.
// On 32-bit data each matrix is 8 rows x 4 floats and lane l receives the float at
// (row l / 4, col l % 4): exactly one register of an m16n8k8 TF32 fragment.
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// Tiles of rows of 16 floats (four 16-byte chunks) that ldmatrix reads: the float offset of
// (row, chunk). A warp's ldmatrix phase reads one chunk column of 8 consecutive rows; rows r and
// r ^ 1 share a 128-byte line, and XOR-ing the chunk with (r >> 1) & 3 spreads the four row
// pairs over the four chunk slots, so both 16-byte cp.async writes and ldmatrix reads are free
// of bank conflicts.
inline constexpr int kK16Floats = 16;
__device__ __forceinline__ int swizzled_k16(int row, int chunk) {
  return row * kK16Floats + ((chunk ^ ((row >> 1) & 3)) << 2);
}

}  // namespace sgemm::detail
