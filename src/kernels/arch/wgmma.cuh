// Hopper wgmma in PTX, shared by the wgmma rungs (tensor-core 02 to 04): shared-memory matrix
// descriptors, the fence / commit / wait protocol, TF32 m64nNk8 with the A operand either in
// shared memory ("SS") or in registers ("RS"), FP16 m64n256k16 (SS), and the tensor map of a
// K-major operand.
//
// Layouts, from the PTX ISA (wgmma, register fragments, .tf32 m64nNk8):
// - D (accumulator), N/2 floats per thread: thread t of warp w in the warpgroup holds d[4j + {0,1}]
//   at row 16w + t/4, columns 8j + 2(t%4) + {0,1}, and d[4j + {2,3}] eight rows below.
// - A in registers, 4 x .b32 per thread (TF32 bit patterns): a[0] at row 16w + t/4, column t%4;
//   a[1] eight rows below; a[2] and a[3] the same rows at column t%4 + 4.
// - An operand in shared memory is K-major with the 128-byte swizzle: rows of 32 floats, the
//   16-byte chunk index XORed with row % 8 inside each 8-row, 1024-byte atom.
#pragma once

#ifdef SGEMM_HAS_SM90A
#include <cstdint>

#include "kernels/arch/hopper.cuh"

namespace sgemm::detail {

inline constexpr int kWgmmaM = 64, kWgmmaK = 8;
inline constexpr int kSwizzleRowFloats = 32;  // one 128-byte swizzle row: the k-tile depth

// Byte offset of element (row, col) in a box of kSwizzleRowFloats-float rows written with the
// 128-byte swizzle: the row's 16-byte pieces are permuted by XOR with row % 8.
__host__ __device__ constexpr int swizzled_offset(int row, int col) {
  return row * 128 + (((col / 4) ^ (row % 8)) << 4) + (col % 4) * 4;
}

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Matrix descriptor of a K-major, 128-byte-swizzled tile starting at shared address `addr`:
// bits 0-13 start address >> 4, 16-29 leading byte offset >> 4 (unused here, 1 by
// convention), 32-45 stride byte offset >> 4 (1024: the next 8-row group), 62-63 swizzle
// mode (1 = 128 bytes). Base offset (bits 49-51) is 0 because every tile is 1024-aligned.
// The k8 step inside a swizzle row is +32 bytes of start address: +2 in descriptor units.
__device__ __forceinline__ std::uint64_t smem_desc(std::uint32_t addr) {
  return std::uint64_t((addr & 0x3FFFF) >> 4) | (std::uint64_t(1) << 16) |
         (std::uint64_t(1024 >> 4) << 32) | (std::uint64_t(1) << 62);
}
inline constexpr int kDescK8Step = kWgmmaK * 4 >> 4;

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}
// Tells the compiler the wgmma writes these registers behind its back: no read of them may
// move above the preceding wgmma_wait.
template <int kN>
__device__ __forceinline__ void fence_operands(float (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

#define SGEMM_D4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define SGEMM_D16(i) SGEMM_D4(i), SGEMM_D4(i + 4), SGEMM_D4(i + 8), SGEMM_D4(i + 12)
#define SGEMM_D32(i) SGEMM_D16(i), SGEMM_D16(i + 16)
#define SGEMM_D64(i) SGEMM_D16(i), SGEMM_D16(i + 16), SGEMM_D16(i + 32), SGEMM_D16(i + 48)
#define SGEMM_D_REGS_32                                                                    \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
  "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define SGEMM_D_REGS_64                                                                    \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
  "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "  \
  "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "  \
  "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define SGEMM_D_REGS_128                                                                     \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "   \
  "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "    \
  "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "    \
  "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, "    \
  "%70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, "    \
  "%87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, "      \
  "%103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, "     \
  "%117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}"

// The shared-memory ("SS") form of a wgmma at N = 64, 128 or 256: `op64`, `op128` and `op256`
// name the instruction, `tail` holds the immediates after the scale-d predicate.
#define SGEMM_WGMMA_SS(op64, op128, op256, tail)                                  \
  if constexpr (kN == 64) {                                                       \
    asm volatile("{ .reg .pred p;\n"                                              \
                 "setp.ne.b32 p, %34, 0;\n" op64 " " SGEMM_D_REGS_32               \
                 ", %32, %33, p, " tail "; }"                                     \
                 : SGEMM_D32(0)                                                   \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));                       \
  } else if constexpr (kN == 128) {                                               \
    asm volatile("{ .reg .pred p;\n"                                              \
                 "setp.ne.b32 p, %66, 0;\n" op128 " " SGEMM_D_REGS_64              \
                 ", %64, %65, p, " tail "; }"                                     \
                 : SGEMM_D64(0)                                                   \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));                       \
  } else {                                                                        \
    static_assert(kN == 256);                                                     \
    asm volatile("{ .reg .pred p;\n"                                              \
                 "setp.ne.b32 p, %130, 0;\n" op256 " " SGEMM_D_REGS_128            \
                 ", %128, %129, p, " tail "; }"                                   \
                 : SGEMM_D64(0), SGEMM_D64(64)                                    \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));                       \
  }

// d (+)= A * B for a 64 x N x 8 TF32 tile, A and B in shared memory (both K-major: B's rows are
// the N columns of the product); scale_d == 0 overwrites
// d instead of adding.
template <int kN>
__device__ __forceinline__ void wgmma_tf32(float (&d)[kN / 2], std::uint64_t desc_a,
                                           std::uint64_t desc_b, int scale_d) {
  SGEMM_WGMMA_SS("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32",
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32",
                 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", "1, 1")
}

// The same with A in registers (the fragment layout above), B in shared memory.
template <int kN>
__device__ __forceinline__ void wgmma_tf32(float (&d)[kN / 2], const std::uint32_t (&a)[4],
                                           std::uint64_t desc_b, int scale_d) {
  if constexpr (kN == 64) {
    asm volatile(
        "{ .reg .pred p;\n"
        "setp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 " SGEMM_D_REGS_32
        ", {%32, %33, %34, %35}, %36, p, 1, 1; }"
        : SGEMM_D32(0)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
  } else if constexpr (kN == 128) {
    asm volatile(
        "{ .reg .pred p;\n"
        "setp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " SGEMM_D_REGS_64
        ", {%64, %65, %66, %67}, %68, p, 1, 1; }"
        : SGEMM_D64(0)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
  } else {
    static_assert(kN == 256);
    asm volatile(
        "{ .reg .pred p;\n"
        "setp.ne.b32 p, %133, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " SGEMM_D_REGS_128
        ", {%128, %129, %130, %131}, %132, p, 1, 1; }"
        : SGEMM_D64(0), SGEMM_D64(64)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
  }
}

// d (+)= A * B for a 64 x N x 16 FP16 tile, both operands K-major in shared memory (the same
// 128-byte-swizzled rows as above, 64 halves each; the k16 step is again +32 bytes), FP32
// accumulators; scale_d == 0 overwrites d. The last two immediates say neither operand is
// transposed, which only the 16-bit types can ask for.
template <int kN>
__device__ __forceinline__ void wgmma_f16(float (&d)[kN / 2], std::uint64_t desc_a,
                                          std::uint64_t desc_b, int scale_d) {
  SGEMM_WGMMA_SS("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16",
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16",
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", "1, 1, 0, 0")
}

#undef SGEMM_WGMMA_SS
#undef SGEMM_D_REGS_128
#undef SGEMM_D_REGS_64
#undef SGEMM_D64
#undef SGEMM_D16
#undef SGEMM_D4

#endif  // sm_90a device code

// A K-major operand as a 3-D tensor [parts][rows][cols] with rows `ld` floats apart and parts
// `part_floats` floats apart (0: rows * ld, one part after the other), read in boxes of
// 32 x box_rows x 1 and written into shared memory with the 128-byte swizzle. Boxes that hang
// past `rows` or `cols` are filled with zeros by the TMA unit. `round_to_tf32` loads the user's
// raw FP32 as TFLOAT32 (the TMA unit reduces it to TF32); packed data is rounded already and must
// stay bit-exact (3xTF32 small parts), so it is loaded as FLOAT32.
inline bool make_k_major_map(CUtensorMap* map, const float* data, std::int64_t parts,
                             std::int64_t rows, std::int64_t cols, std::int64_t ld, int box_rows,
                             bool round_to_tf32, std::int64_t part_floats = 0) {
  if (part_floats == 0) part_floats = rows * ld;
  const cuuint64_t dims[3] = {cuuint64_t(cols), cuuint64_t(rows), cuuint64_t(parts)};
  const cuuint64_t strides[2] = {cuuint64_t(ld) * 4, cuuint64_t(part_floats) * 4};
  const cuuint32_t box[3] = {kSwizzleRowFloats, cuuint32_t(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUtensorMapDataType type =
      round_to_tf32 ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  return encode_tiled()(map, type, 3, const_cast<float*>(data), dims, strides, box,
                        element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace sgemm::detail
#endif  // SGEMM_HAS_SM90A
