#include "gpu_test.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

namespace sgemm::test {

const std::string& no_device_reason() {
  static const std::string reason = [] {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) return std::string(cudaGetErrorString(err));
    if (count == 0) return std::string("cudaGetDeviceCount found 0 devices");
    return std::string();
  }();
  return reason;
}

cublasHandle_t cublas() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) h = nullptr;
    return h;
  }();
  return handle;
}

ref::Verdict run_case(const ref::GemmCase& c, const Options& options, std::uint64_t seed) {
  ref::CaseBuffers buf(c);
  buf.fill_random(seed);
  buf.compute_reference(cublas());
  buf.reset_c();
  const ref::GemmCase& t = buf.gemm_case();
  const Status s = gemm(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, t.alpha, buf.a(), t.lda, buf.b(),
                        t.ldb, t.beta, buf.c(), t.ldc, nullptr, options);
  const cudaError_t sync = cudaDeviceSynchronize();
  EXPECT_EQ(sync, cudaSuccess) << cudaGetErrorString(sync) << " after " << options.kernel << " on "
                               << ref::describe(t);
  if (sync != cudaSuccess) std::abort();  // a kernel fault poisons the context for every later test
  EXPECT_EQ(s, Status::Success) << options.kernel << " on " << ref::describe(t) << ": "
                                << last_error();
  ref::Verdict v = buf.verify(ref::unit_roundoff(options.math));
  EXPECT_TRUE(v.pass) << options.kernel << " on " << ref::describe(t) << ": " << v.detail;
  return v;
}

}  // namespace sgemm::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Without a device no test can run: say so once (ctest's SKIP_REGULAR_EXPRESSION matches this
  // line and reports the test Skipped) instead of skipping each of them.
  if (!sgemm::test::no_device_reason().empty()) {
    std::printf("sgemm-gpu-tests: every test skipped: no CUDA device (%s)\n",
                sgemm::test::no_device_reason().c_str());
    return 0;
  }
  return RUN_ALL_TESTS();
}
