// Ampere's asynchronous copies (cp.async, LDGSTS) in PTX, shared by CUDA-core rung 12,
// tensor-core rung 01 and the conv rungs from 03: global memory straight into shared memory, with
// no registers in between.
#pragma once

#include <cstdint>

namespace sgemm::detail {

// The 32-bit shared-state-space address of a pointer into shared memory, as PTX wants it.
__device__ __forceinline__ std::uint32_t smem_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// 16 bytes from src to shared address dst, bypassing L1 (.cg).
__device__ __forceinline__ void cp_async16(std::uint32_t dst, const float* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
// The same, copying only src_bytes (0..16) and zero-filling dst up to 16 bytes.
__device__ __forceinline__ void cp_async16(std::uint32_t dst, const float* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
               "r"(src_bytes) : "memory");
}
// 4 bytes, or zero when src_bytes is 0. Copies this small must go through L1 (.ca).
__device__ __forceinline__ void cp_async4(std::uint32_t dst, const float* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(src),
               "r"(src_bytes) : "memory");
}
// Closes this thread's copies issued since the last commit into one group.
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
// Waits until at most `kPending` of this thread's commit groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}

}  // namespace sgemm::detail
