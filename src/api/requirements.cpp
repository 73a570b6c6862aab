// Requirement checks the kernel files share (declared in kernels/kernel.hpp).
#include <atomic>
#include <cstdint>

#include "kernels/kernel.hpp"

namespace sgemm::detail {

namespace {
bool aligned16(const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0; }
}  // namespace

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

std::string_view needs_sm90(const Canonical&) {
  // Compute capability per device, read once: cudaGetDevice is cheap, attribute queries less so.
  static std::atomic<int> cc_cache[64];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64)
    return "needs a device of compute capability 9.0";
  int cc = cc_cache[device].load(std::memory_order_relaxed);
  if (cc == 0) {
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    cc = major * 10 + minor;
    cc_cache[device].store(cc, std::memory_order_relaxed);
  }
  if (cc != 90) return "needs a device of compute capability 9.0 (sm_90a: wgmma, TMA)";
  return {};
}

int device_sm_count() {
  static std::atomic<int> sm_cache[64];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= 64) return 0;
  int sms = sm_cache[device].load(std::memory_order_relaxed);
  if (sms == 0 &&
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess)
    sm_cache[device].store(sms, std::memory_order_relaxed);
  return sms;
}

}  // namespace sgemm::detail
