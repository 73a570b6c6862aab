// Requirement checks the kernel files share (declared in kernels/kernel.hpp).
#include <atomic>
#include <cstdint>

#include "kernels/kernel.hpp"

namespace sgemm::detail {

std::string_view needs_vec4(const Canonical& p) {
  if (!aligned16(p.a) || !aligned16(p.b) || !aligned16(p.c))
    return "needs A, B and C 16-byte aligned (float4 accesses)";
  if (p.lda % 4 || p.ldb % 4 || p.ldc % 4)
    return "needs lda, ldb and ldc to be multiples of 4 (float4 accesses)";
  return {};
}

std::string_view needs_grid(std::int64_t blocks_x, std::int64_t blocks_y) {
  if (blocks_x > 0x7fffffff || blocks_y > 65535) return "the problem exceeds this kernel's grid";
  return {};
}

namespace {

// Compute capability and multiprocessor count of the current device, read once per device
// (cudaGetDevice is cheap, attribute queries are not). Zeros when there is no usable device.
struct DeviceFacts {
  int cc = 0, sms = 0;
};
DeviceFacts current_device() {
  static std::atomic<int> cc_cache[64], sm_cache[64];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64) return {};
  DeviceFacts f{cc_cache[device].load(std::memory_order_relaxed),
                sm_cache[device].load(std::memory_order_relaxed)};
  if (f.cc == 0 || f.sms == 0) {
    int major = 0, minor = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
      return {};
    f.cc = major * 10 + minor;
    cc_cache[device].store(f.cc, std::memory_order_relaxed);
    sm_cache[device].store(f.sms, std::memory_order_relaxed);
  }
  return f;
}

}  // namespace

std::string_view needs_sm90(const Canonical&) {
  if (current_device().cc != 90)
    return "needs a device of compute capability 9.0 (sm_90a: wgmma, TMA)";
  return {};
}

int device_sm_count() { return current_device().sms; }

}  // namespace sgemm::detail
