#include "runtime/launch.hpp"

#include <map>
#include <mutex>
#include <utility>

#include "runtime/device.hpp"

namespace sgemm::detail {

cudaError_t set_max_dynamic_smem(const void* kernel, int bytes) {
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, int> limit;  // (kernel, device) -> bytes set
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device)) return e;
  std::lock_guard lock(mutex);
  int& set = limit[{kernel, device}];
  if (bytes <= set) return cudaSuccess;  // a larger limit serves smaller launches too
  const RelaxedCapture relaxed;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           bytes))
    return e;
  set = bytes;
  return cudaSuccess;
}

}  // namespace sgemm::detail
