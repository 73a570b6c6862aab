// The library-owned memory pool behind the kernels' stream-ordered workspaces (workspace.cuh).
#include "runtime/workspace.hpp"

#include <cstdint>
#include <mutex>

namespace sgemm::detail {
namespace {
constexpr int kMaxDevices = 64;
}  // namespace

// One pool per device, created on first use (see workspace.cuh).
cudaError_t workspace_pool(cudaMemPool_t* pool) {
  static std::once_flag once[kMaxDevices];
  static cudaMemPool_t pools[kMaxDevices];
  static cudaError_t errors[kMaxDevices];
  int device = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
  if (device < 0 || device >= kMaxDevices) return cudaErrorInvalidDevice;
  std::call_once(once[device], [device] {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    errors[device] = cudaMemPoolCreate(&pools[device], &props);
    if (errors[device] != cudaSuccess) return;
    std::uint64_t keep_everything = UINT64_MAX;
    errors[device] =
        cudaMemPoolSetAttribute(pools[device], cudaMemPoolAttrReleaseThreshold, &keep_everything);
  });
  *pool = pools[device];
  return errors[device];
}

}  // namespace sgemm::detail
