// The GPU path: copies one host-memory call's operands to device buffers kept between calls,
// runs sgemm::gemm there and copies C back. One mutex serializes the calls: they share the
// buffers and the stream, and each call is synchronous anyway (BLAS returns with C written).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string_view>

#include "blas/paths.hpp"
#include "sgemm/sgemm.hpp"

namespace sgemm_blas {
namespace {

// A device (or pinned host) allocation that only grows, so that a program's stream of
// same-sized SGEMMs pays for the allocation once.
template <bool kPinnedHost>
struct Buffer {
  float* ptr = nullptr;
  std::size_t count = 0;

  cudaError_t reserve(std::size_t n) {
    if (n <= count) return cudaSuccess;
    release();
    void* p = nullptr;
    const std::size_t bytes = n * sizeof(float);
    if (cudaError_t err = kPinnedHost ? cudaMallocHost(&p, bytes) : cudaMalloc(&p, bytes))
      return err;
    ptr = static_cast<float*>(p);
    count = n;
    return cudaSuccess;
  }
  void release() {
    if (ptr) kPinnedHost ? cudaFreeHost(ptr) : cudaFree(ptr);
    ptr = nullptr;
    count = 0;
  }
};

struct Gpu {
  std::mutex mutex;
  bool probed = false;
  cudaError_t unusable = cudaSuccess;  // after probing: why there is no device to use
  int device = 0;                      // the device current on the thread of the first call
  cudaStream_t stream = nullptr;
  Buffer<false> a, b, c;
  Buffer<true> c_host;  // C's result lands here first: the caller's C is written only once
                        // the whole result is back
};

// Never destroyed: static destructors may run after the CUDA runtime has shut down.
Gpu& gpu() {
  static Gpu* const g = new Gpu;
  return *g;
}

// Makes `device` current for the scope and restores the caller's device after, so that a
// program that uses CUDA itself finds its own device current again.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    if (cudaGetDevice(&saved_) != cudaSuccess || saved_ == device) return;
    error_ = cudaSetDevice(device);
    restore_ = error_ == cudaSuccess;
  }
  ~DeviceScope() {
    if (restore_) cudaSetDevice(saved_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  cudaError_t error() const { return error_; }

 private:
  int saved_ = 0;
  bool restore_ = false;
  cudaError_t error_ = cudaSuccess;
};

// First call only: is there a device, and its stream. A machine without one (or without a
// driver) answers here once, and every call after goes straight to the CPU.
cudaError_t probe(Gpu& g) {
  if (g.probed) return g.unusable;
  g.probed = true;
  int count = 0;
  g.unusable = cudaGetDeviceCount(&count);
  if (g.unusable == cudaSuccess && count == 0) g.unusable = cudaErrorNoDevice;
  if (g.unusable == cudaSuccess) g.unusable = cudaGetDevice(&g.device);
  if (g.unusable == cudaSuccess) {
    DeviceScope scope(g.device);
    g.unusable = scope.error();
    if (g.unusable == cudaSuccess)
      g.unusable = cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking);
  }
  if (g.unusable != cudaSuccess) cudaGetLastError();  // leave no error behind for the program
  return g.unusable;
}

// A rows x cols column-major host matrix with leading dimension ld, to a packed device copy.
cudaError_t upload(float* dst, const float* src, int rows, int cols, int ld, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  const std::size_t width = std::size_t(rows) * sizeof(float);
  return cudaMemcpy2DAsync(dst, width, src, std::size_t(ld) * sizeof(float), width,
                           std::size_t(cols), cudaMemcpyHostToDevice, stream);
}

sgemm::Op op(bool trans) { return trans ? sgemm::Op::T : sgemm::Op::N; }

// The call on the device; false (C untouched) on any failure, with the reason in `why`.
bool multiply(Gpu& g, const Call& call, char* why, std::size_t why_size) {
  // Waits for whatever of this call was enqueued (the next call reuses the buffers), and clears
  // the error so that a later call, or the program's own CUDA work, starts clean.
  auto give_up = [&] {
    cudaStreamSynchronize(g.stream);
    cudaGetLastError();
    return false;
  };
  auto cuda_failed = [&](cudaError_t err, const char* what) {
    std::snprintf(why, why_size, "GPU failed: %s: %s", what, cudaGetErrorName(err));
    return give_up();
  };
  // With alpha == 0 or k == 0 sgemm::gemm only scales C and reads neither A nor B.
  const bool reads_ab = call.alpha != 0.0f && call.k != 0;
  const int rows_a = call.trans_a ? call.k : call.m, cols_a = call.trans_a ? call.m : call.k;
  const int rows_b = call.trans_b ? call.n : call.k, cols_b = call.trans_b ? call.k : call.n;
  const std::size_t c_count = std::size_t(call.m) * std::size_t(call.n);

  if (cudaError_t err = g.c.reserve(c_count)) return cuda_failed(err, "allocating C");
  if (cudaError_t err = g.c_host.reserve(c_count))
    return cuda_failed(err, "allocating C's staging");
  if (reads_ab) {
    if (cudaError_t err = g.a.reserve(std::size_t(rows_a) * std::size_t(cols_a)))
      return cuda_failed(err, "allocating A");
    if (cudaError_t err = g.b.reserve(std::size_t(rows_b) * std::size_t(cols_b)))
      return cuda_failed(err, "allocating B");
    if (cudaError_t err = upload(g.a.ptr, call.a, rows_a, cols_a, call.lda, g.stream))
      return cuda_failed(err, "copying A");
    if (cudaError_t err = upload(g.b.ptr, call.b, rows_b, cols_b, call.ldb, g.stream))
      return cuda_failed(err, "copying B");
  }
  if (call.beta != 0.0f)  // with beta == 0, C is not read (reference BLAS: it may hold NaN)
    if (cudaError_t err = upload(g.c.ptr, call.c, call.m, call.n, call.ldc, g.stream))
      return cuda_failed(err, "copying C");

  const sgemm::Status status = sgemm::gemm(
      sgemm::Layout::ColMajor, op(call.trans_a), op(call.trans_b), call.m, call.n, call.k,
      call.alpha, reads_ab ? g.a.ptr : nullptr, std::max(1, rows_a), reads_ab ? g.b.ptr : nullptr,
      std::max(1, rows_b), call.beta, g.c.ptr, call.m, g.stream, sgemm::Options{});
  if (status != sgemm::Status::Success) {
    const std::string_view detail = sgemm::last_error();
    std::snprintf(why, why_size, "GPU failed: sgemm::gemm: %s: %.*s", sgemm::to_string(status),
                  int(detail.size()), detail.data());
    return give_up();
  }
  if (cudaError_t err = cudaMemcpyAsync(g.c_host.ptr, g.c.ptr, c_count * sizeof(float),
                                        cudaMemcpyDeviceToHost, g.stream))
    return cuda_failed(err, "copying C back");
  if (cudaError_t err = cudaStreamSynchronize(g.stream)) return cuda_failed(err, "the multiply");

  for (int j = 0; j < call.n; ++j)
    std::memcpy(call.c + std::size_t(j) * call.ldc, g.c_host.ptr + std::size_t(j) * call.m,
                std::size_t(call.m) * sizeof(float));
  return true;
}

}  // namespace

bool run_on_gpu(const Call& call, char* why, std::size_t why_size) noexcept {
  Gpu& g = gpu();
  const std::lock_guard lock(g.mutex);
  if (cudaError_t err = probe(g)) {
    std::snprintf(why, why_size, "no GPU: %s", cudaGetErrorName(err));
    return false;
  }
  const DeviceScope scope(g.device);
  if (scope.error()) {
    std::snprintf(why, why_size, "GPU failed: making device %d current: %s", g.device,
                  cudaGetErrorName(scope.error()));
    return false;
  }
  return multiply(g, call, why, why_size);
}

}  // namespace sgemm_blas
