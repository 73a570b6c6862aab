// Shared pieces of the GPU tests: the device check (without a device the binary prints why and
// runs nothing, which ctest reports as Skipped), and running one case through sgemm::gemm.
#pragma once

#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reference/harness.hpp"
#include "sgemm/sgemm.hpp"

namespace sgemm::test {

// Empty when a CUDA device is usable, otherwise why not.
const std::string& no_device_reason();
cublasHandle_t cublas();

// gemm() on the buffers' case, on `stream`.
Status call(ref::CaseBuffers& buf, cudaStream_t stream, const Options& options);

// Every registered kernel's slug, and a slug as a gtest parameter name (test_name).
std::vector<std::string> all_slugs();
std::string test_name(const ::testing::TestParamInfo<std::string>& p);

// The maths this build has kernels for.
std::vector<Math> built_maths();

// Runs `c` through gemm() with `options` on fresh random inputs and checks the result against
// the float64 reference (bound with the math's unit roundoff), the NaN poison and the guard
// band. A call the kernel declares unsupported must return NotSupported and leave C untouched.
// Returns the verdict; a failure is already reported through gtest.
ref::Verdict run_case(const ref::GemmCase& c, const Options& options, std::uint64_t seed);

// The checks beyond verify()'s elementwise bound: a relative Frobenius error bound per math (see
// gpu_test.cpp). `what` names the kernel and case in the failure message.
void expect_rel_fro(const ref::Verdict& v, Math math, const std::string& what);

}  // namespace sgemm::test
