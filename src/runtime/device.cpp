// Per-device facts, the stream's device, and the guards of device.hpp.
#include "runtime/device.hpp"

#include <cuda.h>

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

// The device of a stream under capture, through the driver: the stream's context, and that
// context's device. Where the driver refuses, the current device (the caller's capture of a
// stream of another device would have failed at its own first launch anyway).
cudaError_t captured_stream_device(cudaStream_t stream, int* ordinal) {
  using GetStreamCtx = CUresult (*)(CUstream, CUcontext*);
  using GetCtx = CUresult (*)(CUcontext*);
  using PushCtx = CUresult (*)(CUcontext);
  using PopCtx = CUresult (*)(CUcontext*);
  using GetDevice = CUresult (*)(CUdevice*);
  static const auto stream_ctx = reinterpret_cast<GetStreamCtx>(driver_entry("cuStreamGetCtx"));
  static const auto current_ctx = reinterpret_cast<GetCtx>(driver_entry("cuCtxGetCurrent"));
  static const auto push_ctx = reinterpret_cast<PushCtx>(driver_entry("cuCtxPushCurrent"));
  static const auto pop_ctx = reinterpret_cast<PopCtx>(driver_entry("cuCtxPopCurrent"));
  static const auto ctx_device = reinterpret_cast<GetDevice>(driver_entry("cuCtxGetDevice"));
  CUcontext ctx = nullptr, current = nullptr;
  if (stream_ctx && current_ctx && push_ctx && pop_ctx && ctx_device &&
      stream_ctx(stream, &ctx) == CUDA_SUCCESS && current_ctx(&current) == CUDA_SUCCESS &&
      ctx != current && push_ctx(ctx) == CUDA_SUCCESS) {
    CUdevice device = -1;
    const CUresult got = ctx_device(&device);
    CUcontext popped;
    pop_ctx(&popped);
    if (got == CUDA_SUCCESS) {
      *ordinal = device;
      return cudaSuccess;
    }
  }
  return cudaGetDevice(ordinal);
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
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaError_t e = cudaStreamIsCapturing(stream, &capturing)) return e;
  if (capturing == cudaStreamCaptureStatusNone) return cudaStreamGetDevice(stream, ordinal);
  // cudaStreamGetDevice is refused on a stream being captured. The stream's context says the
  // same: it is the current one (the usual case), or its device is read with it made current.
  return captured_stream_device(stream, ordinal);
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
