// The device a call runs on, and what the kernels' limits depend on: read once per device, kept
// per device, and safe to read while the caller captures a CUDA graph.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace sgemm::detail {

// What a kernel's why_not and launch may depend on besides the problem. Host tests build one by
// hand (an H100's, say) to check the dispatch without a GPU.
struct Device {
  int ordinal = -1;
  int cc = 0;                  // compute capability, major * 10 + minor
  int sms = 0;                 // multiprocessors
  bool tensor_maps = false;    // the driver's cuTensorMapEncodeTiled was found
  std::int64_t smem_optin = 0; // largest dynamic shared memory a block may opt in to, bytes
};

// An H100 SXM as the dispatch sees it: what `sgemm-bench --explain` and the golden dispatch test
// assume where no GPU is present.
inline constexpr Device kH100{0, 90, 132, true, 227 * 1024};

// The facts of device `ordinal`, read on the first call for that device (in relaxed capture mode:
// see RelaxedCapture) and cached; a failed read is not cached.
cudaError_t device_facts(int ordinal, Device* out);

// The device whose work `stream` carries: the current device for the legacy and per-thread
// default streams, the stream's own otherwise. Safe during a capture.
cudaError_t stream_device(cudaStream_t stream, int* ordinal);

// For the guard's lifetime this thread may make calls that a capture in global mode forbids
// (creating a memory pool, asking a stream for its device): one-time setup inside gemm() while
// the caller captures a graph. The calls made under it enqueue no work.
class RelaxedCapture {
 public:
  RelaxedCapture() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  ~RelaxedCapture() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  RelaxedCapture(const RelaxedCapture&) = delete;
  RelaxedCapture& operator=(const RelaxedCapture&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

// Makes `ordinal` the current device for the guard's lifetime when it is not already.
class CurrentDevice {
 public:
  explicit CurrentDevice(int ordinal);
  ~CurrentDevice();
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;
  cudaError_t error() const { return error_; }

 private:
  int previous_ = -1;
  cudaError_t error_ = cudaSuccess;
};

}  // namespace sgemm::detail
