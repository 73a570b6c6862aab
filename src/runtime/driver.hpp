// Driver functions the runtime does not wrap (the tensor-map encoders), found through the runtime
// so that the library does not link against libcuda.
#pragma once

namespace sgemm::detail {

// The driver's entry point `name` (CUDA 12.0 ABI), looked up once; null where the driver has none.
void* driver_entry(const char* name);

}  // namespace sgemm::detail
