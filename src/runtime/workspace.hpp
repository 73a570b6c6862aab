// Scratch memory for a kernel call (the tensor-core rungs' packed operands, rung 13's partial
// tiles): taken with cudaMallocFromPoolAsync on the call's stream and given back with
// cudaFreeAsync after the call's last kernel, so concurrent calls on different streams never
// share it and nothing synchronizes.
#pragma once

#include <cuda_runtime_api.h>

namespace sgemm::detail {

// The pool of the current device, created on first use. Its release threshold is "never", so
// memory freed at the end of a call stays in the pool and the next call of the same size reuses
// it without going to the driver.
cudaError_t workspace_pool(cudaMemPool_t* pool);

}  // namespace sgemm::detail
