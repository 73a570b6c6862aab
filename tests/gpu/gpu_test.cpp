#include "gpu_test.hpp"

#include <cuda_runtime_api.h>

#include <cctype>
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

Status call(ref::CaseBuffers& buf, cudaStream_t stream, const Options& options) {
  const ref::GemmCase& t = buf.gemm_case();
  return gemm(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, t.alpha, buf.a(), t.lda, buf.b(), t.ldb,
              t.beta, buf.c(), t.ldc, stream, options);
}

std::vector<std::string> all_slugs() {
  std::vector<std::string> slugs;
  for (const KernelInfo& k : kernels()) slugs.emplace_back(k.slug);
  return slugs;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& p) {
  std::string name = p.param;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

std::vector<Math> built_maths() {
  std::vector<Math> maths;
  for (Math math : {Math::Fp32, Math::Fp32Tf32x3, Math::Tf32})
    for (const KernelInfo& k : kernels())
      if (k.math == math) {
        maths.push_back(math);
        break;
      }
  return maths;
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
  ref::Verdict v = buf.verify(options.math);
  EXPECT_TRUE(v.pass) << options.kernel << " on " << ref::describe(t) << ": " << v.detail;
  expect_rel_fro(v, options.math, std::string(options.kernel) + " on " + ref::describe(t));
  return v;
}

void expect_rel_fro(const ref::Verdict& v, Math math, const std::string& what) {
  // The elementwise bound, (k + 2) u |A||B|, grows with k faster than the errors do: at k in the
  // thousands a misplaced tile passes it in Tf32 (a mutant of tc-03's tail split, at k = 2401 on
  // an H100), and at k = 2700 a 3xTF32 pack that wrote A's small parts into the neighbouring
  // rows passed it (a mutant, on an H200).
  // Relative Frobenius errors: Tf32 near 2^-12 (cuBLAS TF32: 2.6e-4 in the Api tests), 4 * 2^-11
  // leaves a margin of ~7x; 3xTF32 at most 4.7e-7, up to 16384³ (docs/ladder.md's accuracy
  // tables), 2^-19 (1.9e-6) leaves 4x, and a wrong small part gives ~1e-4.
  if (math == Math::Tf32) EXPECT_LE(v.rel_fro, 4 * 0x1p-11) << what << ": relative Frobenius error";
  if (math == Math::Fp32Tf32x3) EXPECT_LE(v.rel_fro, 0x1p-19) << what << ": relative Frobenius error";
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
