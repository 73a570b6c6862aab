// Per-device facts, the stream's device, and the guards of device.hpp.
#include "runtime/device.hpp"

#include <array>
#include <mutex>

#include "runtime/driver.hpp"

namespace sgemm::detail {
namespace {

constexpr int kMaxDevices = 64;

struct FactsCache {
  std::mutex mutex;
  std::array<Device, kMaxDevices> facts{};
  std::array<bool, kMaxDevices> known{};
};
FactsCache& facts_cache() {
  static FactsCache cache;
  return cache;
}

cudaError_t read_facts(int ordinal, Device* out) {
  Device d;
  d.ordinal = ordinal;
  int major = 0, minor = 0, optin = 0;
  if (cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal))
    return e;
  if (cudaError_t e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, ordinal))
    return e;
  if (cudaError_t e = cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, ordinal))
    return e;
  if (cudaError_t e =
          cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal))
    return e;
  d.cc = major * 10 + minor;
  d.smem_optin = optin;
  d.tensor_maps = driver_entry("cuTensorMapEncodeTiled") != nullptr;
  *out = d;
  return cudaSuccess;
}

}  // namespace

cudaError_t device_facts(int ordinal, Device* out) {
  if (ordinal < 0 || ordinal >= kMaxDevices) return cudaErrorInvalidDevice;
  FactsCache& cache = facts_cache();
  std::lock_guard lock(cache.mutex);
  if (!cache.known[ordinal]) {
    const RelaxedCapture relaxed;
    if (cudaError_t e = read_facts(ordinal, &cache.facts[ordinal])) return e;
    cache.known[ordinal] = true;
  }
  *out = cache.facts[ordinal];
  return cudaSuccess;
}

cudaError_t stream_device(cudaStream_t stream, int* ordinal) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
    return cudaGetDevice(ordinal);
  // cudaStreamGetDevice is refused while a capture in global mode is under way.
  const RelaxedCapture relaxed;
  return cudaStreamGetDevice(stream, ordinal);
}

CurrentDevice::CurrentDevice(int ordinal) {
  int current = -1;
  error_ = cudaGetDevice(&current);
  if (error_ == cudaSuccess && current != ordinal) {
    const RelaxedCapture relaxed;
    error_ = cudaSetDevice(ordinal);
    if (error_ == cudaSuccess) previous_ = current;
  }
}

CurrentDevice::~CurrentDevice() {
  if (previous_ >= 0) {
    const RelaxedCapture relaxed;
    cudaSetDevice(previous_);
  }
}

}  // namespace sgemm::detail
