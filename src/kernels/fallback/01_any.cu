// fallback-01-any — the library's last resort: any shape, leading dimension, alignment and k.
//
// Not a rung of the ladder: the kernel of fallback/fp32_any.cuh registered, so that the dispatch
// can always find a kernel (in every math: FP32 arithmetic is at least as accurate as 3xTF32 and
// Tf32), and so that the case matrix tests it like any other.
#include "kernels/fallback/fp32_any.cuh"

namespace sgemm::detail {
namespace {

std::string_view why_not(const Canonical&, const Device&) { return {}; }

cudaError_t launch(const Canonical& p, const LaunchArgs& args) {
  return fp32_any(p, args.run_if, args.device, args.stream);
}

}  // namespace

SGEMM_KERNEL_ENTRIES(fallback_01_any) {
  static const KernelEntry entries[] = {
      {{"fallback-01-any", Track::Fallback, 1,
        "the last resort: 64 x 64 tiles of FFMA, blocks striding over C; any shape and alignment",
        Math::Fp32, "the library's own (seed 000's shared-memory tiling)", "none"},
       why_not, launch, nullptr, /*accepts_run_if=*/true, /*needs_handoff=*/false,
       /*batched=*/true}};
  return entries;
}

}  // namespace sgemm::detail
