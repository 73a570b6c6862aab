// Requirement checks the kernel files share (declared in kernels/kernel.hpp).
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

std::string_view needs_grid(std::int64_t blocks_x, std::int64_t blocks_y, std::int64_t blocks_z) {
  if (blocks_x > 0x7fffffff || blocks_y > 65535) return "the problem exceeds this kernel's grid";
  if (blocks_z > 65535) return "a batch above 65535 exceeds this kernel's grid";
  return {};
}

std::string_view needs_sm90(const Device& device) {
  if (device.cc != 90) return "needs a device of compute capability 9.0 (sm_90a: wgmma, TMA)";
  return {};
}

std::string_view needs_sm90_tma(const Device& device) {
  if (const auto reason = needs_sm90(device); !reason.empty()) return reason;
  if (!device.tensor_maps) return "needs cuTensorMapEncodeTiled from the driver (CUDA 12+)";
  return {};
}

std::string_view needs_tma_strides(std::int64_t ld_floats) {
  if (ld_floats >= (std::int64_t(1) << 38))
    return "needs leading dimensions below 2^38 (TMA row strides are below 2^40 bytes)";
  return {};
}

}  // namespace sgemm::detail
