// Scratch memory of a call (the tensor-core rungs' packed operands, the tail split's partial
// tiles): one buffer per call, carved up by the kernels in the order they declared it.
//
// The buffer is the caller's (Options::workspace), or is taken with cudaMallocFromPoolAsync on
// the call's stream from the device's pool and given back with cudaFreeAsync after the call's
// last kernel: concurrent calls on different streams never share it, nothing synchronizes, and
// under stream capture the two become a graph's allocation and free nodes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace sgemm::detail {

// A bump allocator over one buffer. Every piece starts kAlign-aligned (TMA wants 16 bytes, the
// tensor maps of packed operands 128).
class Workspace {
 public:
  static constexpr std::size_t kAlign = 256;
  static constexpr std::size_t rounded(std::size_t bytes) {
    return (bytes + kAlign - 1) / kAlign * kAlign;
  }

  Workspace() = default;
  Workspace(void* base, std::size_t bytes) : base_(static_cast<char*>(base)), bytes_(bytes) {}

  // `bytes` (rounded up to kAlign) from the buffer; null when it has too little left, which the
  // launcher reports as cudaErrorMemoryAllocation (the kernel's declared size was too small).
  void* take(std::size_t bytes) {
    const std::size_t size = rounded(bytes);
    if (base_ == nullptr || size > bytes_ - used_) return nullptr;
    void* p = base_ + used_;
    used_ += size;
    return p;
  }
  template <class T>
  T* take(std::int64_t count) {
    return static_cast<T*>(take(std::size_t(count) * sizeof(T)));
  }
  // Everything taken after mark() is given back by release(mark): later kernels of the call, in
  // stream order after the ones that used it, may reuse that memory.
  std::size_t mark() const { return used_; }
  void release(std::size_t mark) { used_ = mark; }

 private:
  char* base_ = nullptr;
  std::size_t bytes_ = 0, used_ = 0;
};

// Takes `bytes` for one call from `device`'s pool on `stream` (*out = null for 0 bytes).
cudaError_t take_pooled(int device, std::size_t bytes, cudaStream_t stream, void** out);

// How much freed memory each device's pool keeps for later calls at a synchronization (see
// sgemm::set_workspace_cache_limit); above it the pool gives memory back to the driver.
void set_pool_cache_limit(std::size_t bytes);
std::size_t pool_cache_limit();
// Gives every pool's unused memory back to the driver (sgemm::release_workspace_cache).
cudaError_t trim_pools();

}  // namespace sgemm::detail
