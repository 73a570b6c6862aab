// Hopper PTX wrappers shared by the TMA-fed rungs (CUDA-core 13, tensor-core 02 to 04):
// mbarriers, TMA loads and stores, named barriers, register reallocation, and the driver's
// tensor-map encoder.
//
// Everything here exists only in a build with sm_90a (SGEMM_HAS_SM90A); the device code only in
// the host pass and the sm_90a device pass, so the other targets of a multi-architecture build
// still compile.
#pragma once

#ifdef SGEMM_HAS_SM90A
#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdint>

#include "kernels/arch/cp_async.cuh"  // smem_address
#include "runtime/driver.hpp"

namespace sgemm::detail {

// cuTensorMapEncodeTiled from the driver, through the runtime (no link against libcuda); null
// when the driver has none (why_not checks Device::tensor_maps first).
inline PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const auto fn =
      reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(driver_entry("cuTensorMapEncodeTiled"));
  return fn;
}

// cuTensorMapEncodeIm2col, the same way (conv-05-tma-im2col).
inline PFN_cuTensorMapEncodeIm2col_v12000 encode_im2col() {
  static const auto fn =
      reinterpret_cast<PFN_cuTensorMapEncodeIm2col_v12000>(driver_entry("cuTensorMapEncodeIm2col"));
  return fn;
}

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)

__device__ __forceinline__ void mbar_init(std::uint32_t bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// Makes the initialized barriers visible to the other threads and to the TMA unit (async proxy).
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n\tfence.proxy.async.shared::cta;" ::
                   : "memory");
}
__device__ __forceinline__ void mbar_arrive(std::uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// Arrives and announces `bytes` still to come from the TMA unit: the phase completes when both
// the arrival count and the bytes are in.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint32_t bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}
// Returns once the phase of parity `parity` has completed. A fresh barrier is in phase 0 and the
// phase before it (parity 1) counts as completed, so the producer's first pass over the ring
// finds every stage empty.
__device__ __forceinline__ void mbar_wait(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done;
  do {
    asm volatile(
        "{ .reg .pred p;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}

// The box of a 2-D `map` at coordinates (c0 innermost, c1) into shared memory at dst, its bytes
// counted on `bar`. Elements outside the tensor arrive as zeros.
__device__ __forceinline__ void tma_load(std::uint32_t dst, const CUtensorMap& map, int c0, int c1,
                                         std::uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}
// The same for a 3-D `map`, at (c0 innermost, c1, c2).
__device__ __forceinline__ void tma_load(std::uint32_t dst, const CUtensorMap& map, int c0, int c1,
                                         int c2, std::uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
      : "memory");
}
// An im2col `map` (4-D NHWC): the box's pixels from input pixel (w, h) of image n on, in the
// map's traversal order, each read at (w + off_w, h + off_h), channels c .. c + channelsPerPixel.
__device__ __forceinline__ void tma_load_im2col(std::uint32_t dst, const CUtensorMap& map, int c,
                                                int w, int h, int n, std::uint16_t off_w,
                                                std::uint16_t off_h, std::uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(c), "r"(w), "r"(h), "r"(n), "r"(bar),
      "h"(off_w), "h"(off_h)
      : "memory");
}

// --- TMA stores ---------------------------------------------------------------------------------

// Makes this thread's ordinary shared-memory writes visible to the TMA unit (the async proxy).
__device__ __forceinline__ void fence_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// The box of a 2-D `map` at (c0 innermost, c1) from shared memory at src to global memory, in
// the current bulk group. Rows outside the tensor are not written, but within a row the copy
// engine writes whole 16-byte pieces: a row that ends inside one gets its neighbours written
// too (on an H200 such stores overwrote the padding after C's last column; docs/experiments.md,
// section 8).
__device__ __forceinline__ void tma_store(const CUtensorMap& map, int c0, int c1,
                                          std::uint32_t src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   reinterpret_cast<std::uint64_t>(&map)),
               "r"(c0), "r"(c1), "r"(src)
               : "memory");
}
// The same for a 3-D `map`, at (c0 innermost, c1, c2).
__device__ __forceinline__ void tma_store(const CUtensorMap& map, int c0, int c1, int c2,
                                          std::uint32_t src) {
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];" ::"l"(
          reinterpret_cast<std::uint64_t>(&map)),
      "r"(c0), "r"(c1), "r"(c2), "r"(src)
      : "memory");
}
__device__ __forceinline__ void bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Waits until at most kPending of this thread's bulk groups still read their shared memory.
template <int kPending>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kPending) : "memory");
}
// Waits until every bulk group of this thread has completed (its writes performed).
__device__ __forceinline__ void bulk_wait_all() {
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
// A barrier for `threads` threads (a multiple of 32) on hardware barrier `id` (not 0, which
// __syncthreads uses).
__device__ __forceinline__ void named_barrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// Warp specialization: a producer warpgroup gives registers back, the consumers take them.
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegisters));
}
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegisters));
}

#endif  // sm_90a device code

}  // namespace sgemm::detail
#endif  // SGEMM_HAS_SM90A
