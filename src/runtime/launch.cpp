#include "runtime/launch.hpp"

#include <mutex>
#include <set>
#include <tuple>

#include "runtime/device.hpp"

namespace sgemm::detail {

cudaError_t set_max_dynamic_smem(const void* kernel, int bytes) {
  static std::mutex mutex;
  static std::set<std::tuple<const void*, int, int>> done;  // (kernel, device, bytes)
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device)) return e;
  std::lock_guard lock(mutex);
  if (done.contains({kernel, device, bytes})) return cudaSuccess;
  const RelaxedCapture relaxed;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           bytes))
    return e;
  done.insert({kernel, device, bytes});
  return cudaSuccess;
}

}  // namespace sgemm::detail
