// Ampere's warp-wide tensor-core instruction (mma.sync) in PTX, shared by tensor-core rungs 01
// and 05.
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

}  // namespace sgemm::detail
