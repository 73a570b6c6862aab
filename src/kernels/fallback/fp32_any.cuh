// The library's FP32 kernel of last resort: correct for every shape, leading dimension,
// alignment and k that gemm() accepts, and nothing more. A plain 64 x 64 shared-memory tiled FFMA
// kernel, 4 x 4 results per thread, whose blocks stride over the tiles of C.
//
// Two users: the dispatch, for calls no faster kernel supports (registered as fallback-01-any),
// and the TF32 tensor-core rungs, which enqueue it behind their tile kernels gated on a device
// flag that their passes raise when the 3xTF32 split cannot carry an operand.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/kernel.hpp"

namespace sgemm::detail {

// C = alpha A B + beta C with FP32 FMA. With `flag`, every block returns at once unless
// *flag != 0 when it starts.
cudaError_t fp32_any(const Canonical& p, const int* flag, const Device& device,
                     cudaStream_t stream);

}  // namespace sgemm::detail
