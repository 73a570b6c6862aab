// Kernel launches that report their own error and leave the caller's alone.
//
// `kernel<<<...>>>` followed by cudaGetLastError() would return (and clear) an error an earlier,
// unrelated call of the caller left pending. cudaLaunchKernelEx returns this launch's error only,
// and a successful launch leaves the thread's pending error as it was.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace sgemm::detail {

// The launch with `attributes` (count of them) set; launch_kernel and launch_dependent_kernel.
template <class... Params, class... Args>
cudaError_t launch_with(const cudaLaunchAttribute* attributes, unsigned count,
                        void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem,
                        cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = const_cast<cudaLaunchAttribute*>(attributes);
  config.numAttrs = count;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

template <class... Params, class... Args>
cudaError_t launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem,
                          cudaStream_t stream, Args&&... args) {
  return launch_with(nullptr, 0, kernel, grid, block, smem, stream, std::forward<Args>(args)...);
}

// launch_kernel for a kernel that reads what the kernel before it on the stream wrote, and
// begins with wait_for_previous_kernel(): where `programmatic` (compute capability 9.0 and up), a
// programmatic dependent launch, so that its launch overlaps the end of that kernel instead of
// following it; else a plain launch.
template <class... Params, class... Args>
cudaError_t launch_dependent_kernel(bool programmatic, void (*kernel)(Params...), dim3 grid,
                                    dim3 block, std::size_t smem, cudaStream_t stream,
                                    Args&&... args) {
  cudaLaunchAttribute overlap{};
  overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  return launch_with(&overlap, programmatic ? 1 : 0, kernel, grid, block, smem, stream,
                     std::forward<Args>(args)...);
}

#ifdef __CUDACC__
// The start of a kernel launched by launch_dependent_kernel: waits until the kernel before it has
// finished and its writes are visible (a plain launch has already waited).
__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
#endif

// Blocks of `block_threads` for a grid-stride loop over `elements` (one element per thread at
// most, at least one block, at most 2^20 blocks).
inline unsigned grid_stride_blocks(std::int64_t elements, int block_threads) {
  return unsigned(std::clamp<std::int64_t>((elements + block_threads - 1) / block_threads, 1,
                                           std::int64_t(1) << 20));
}

// Raises `kernel`'s dynamic shared-memory limit on the current device to at least `bytes`; the
// attribute changes only when a launch needs more than any before it on that device (in relaxed
// capture mode, so that a first call inside a graph capture sets it too).
cudaError_t set_max_dynamic_smem(const void* kernel, int bytes);

template <class... Params>
cudaError_t set_max_dynamic_smem(void (*kernel)(Params...), int bytes) {
  return set_max_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes);
}

}  // namespace sgemm::detail
