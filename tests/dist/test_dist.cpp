// dist::gemm on the GPUs of this machine, one rank per GPU in one process (ncclCommInitAll):
// results against a float64 product on the host, and the statuses every rank must agree on.
// On a machine with one GPU the communicator has one rank; the broadcasts and the overlap then
// run on it alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "sgemm/dist.hpp"

namespace {

struct Ranks {
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  explicit Ranks(int count) : comms(count), streams(count) {
    std::vector<int> devices(count);
    for (int r = 0; r < count; ++r) devices[r] = r;
    EXPECT_EQ(ncclCommInitAll(comms.data(), count, devices.data()), ncclSuccess);
    for (int r = 0; r < count; ++r) {
      cudaSetDevice(r);
      cudaStreamCreate(&streams[r]);
    }
  }
  ~Ranks() {
    for (std::size_t r = 0; r < comms.size(); ++r) {
      cudaSetDevice(int(r));
      cudaStreamDestroy(streams[r]);
      ncclCommDestroy(comms[r]);
    }
  }
};

int gpus() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

// The global matrices on the host, split by rows into the ranks' blocks.
float value(std::int64_t i, std::int64_t j, int which) {
  return float(std::sin(0.37 * double(i) + 0.11 * double(j) + which)) * 0.5f;
}

// Runs dist::gemm with m and k split as evenly as the rank count allows, each rank's call from
// a thread of its own (the call waits on the host for its argument exchange, which needs every
// rank).
void run_and_check(int count, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                   float beta, sgemm::Math math) {
  Ranks ranks(count);
  std::vector<std::int64_t> m0(count + 1), k0(count + 1);
  for (int r = 0; r <= count; ++r) m0[r] = m * r / count, k0[r] = k * r / count;
  std::vector<float*> a(count), b(count), c(count);
  for (int r = 0; r < count; ++r) {
    cudaSetDevice(r);
    const std::int64_t mr = m0[r + 1] - m0[r], kr = k0[r + 1] - k0[r];
    std::vector<float> ha(std::size_t(mr * k)), hb(std::size_t(kr * n)), hc(std::size_t(mr * n));
    for (std::int64_t i = 0; i < mr; ++i)
      for (std::int64_t p = 0; p < k; ++p) ha[i * k + p] = value(m0[r] + i, p, 0);
    for (std::int64_t p = 0; p < kr; ++p)
      for (std::int64_t j = 0; j < n; ++j) hb[p * n + j] = value(k0[r] + p, j, 1);
    for (std::int64_t i = 0; i < mr; ++i)
      for (std::int64_t j = 0; j < n; ++j) hc[i * n + j] = value(m0[r] + i, j, 2);
    ASSERT_EQ(cudaMalloc(&a[r], std::max<std::size_t>(ha.size(), 1) * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&b[r], std::max<std::size_t>(hb.size(), 1) * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&c[r], std::max<std::size_t>(hc.size(), 1) * 4), cudaSuccess);
    cudaMemcpy(a[r], ha.data(), ha.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(b[r], hb.data(), hb.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(c[r], hc.data(), hc.size() * 4, cudaMemcpyHostToDevice);
  }
  sgemm::Options options;
  options.math = math;
  std::vector<sgemm::Status> status(count);
  std::vector<std::string> message(count);
  std::vector<std::thread> threads;
  for (int r = 0; r < count; ++r)
    threads.emplace_back([&, r] {
      cudaSetDevice(r);
      status[r] = sgemm::dist::gemm(ranks.comms[r], m0[r + 1] - m0[r], n, k0[r + 1] - k0[r],
                                    alpha, a[r], std::max<std::int64_t>(k, 1), b[r], n, beta,
                                    c[r], n, ranks.streams[r],
                                    options);
      if (status[r] != sgemm::Status::Success) message[r] = std::string(sgemm::last_error());
      cudaStreamSynchronize(ranks.streams[r]);
    });
  for (std::thread& t : threads) t.join();
  // Each element within the math's bound relative to alpha sum |a b| + |beta c|: FP32's
  // (k + 2) 2^-24, 3xTF32's (k + 2) 2^-21 (docs/design.md), and for Tf32 2^-10 per product (both
  // operands rounded to TF32) on top of FP32's accumulation.
  const double u = math == sgemm::Math::Fp32Tf32x3 ? 0x1p-21 : 0x1p-24;
  const double tolerance = double(k + 2) * u + (math == sgemm::Math::Tf32 ? 0x1p-10 : 0.0);
  for (int r = 0; r < count; ++r) {
    ASSERT_EQ(status[r], sgemm::Status::Success) << "rank " << r << ": " << message[r];
    cudaSetDevice(r);
    const std::int64_t mr = m0[r + 1] - m0[r];
    std::vector<float> hc(std::size_t(mr * n));
    cudaMemcpy(hc.data(), c[r], hc.size() * 4, cudaMemcpyDeviceToHost);
    double worst = 0;
    for (std::int64_t i = 0; i < mr; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double sum = 0, size = 0;
        for (std::int64_t p = 0; p < k; ++p) {
          const double x = double(value(m0[r] + i, p, 0)) * value(p, j, 1);
          sum += x;
          size += std::fabs(x);
        }
        const double want = alpha * sum + beta * double(value(m0[r] + i, j, 2));
        const double scale = std::fabs(alpha) * size + std::fabs(beta) + 1e-30;
        worst = std::max(worst, std::fabs(hc[i * n + j] - want) / scale);
      }
    EXPECT_LT(worst, tolerance) << "rank " << r;
    cudaFree(a[r]), cudaFree(b[r]), cudaFree(c[r]);
  }
}

TEST(Dist, MatchesFloat64InEveryMath) {
  for (sgemm::Math math : {sgemm::Math::Fp32, sgemm::Math::Fp32Tf32x3, sgemm::Math::Tf32}) {
    SCOPED_TRACE(int(math));
    run_and_check(gpus(), 300, 200, 515, 1.5f, -0.5f, math);
  }
}

TEST(Dist, RanksWithoutRowsOrBlocks) {
  // More ranks' worth of rows than exist leaves some ranks empty when there are several.
  run_and_check(gpus(), 1, 64, 3, 1.0f, 0.0f, sgemm::Math::Fp32);
  run_and_check(gpus(), 7, 5, 0, 2.0f, 0.5f, sgemm::Math::Fp32);  // k = 0: C = beta C
}

TEST(Dist, InvalidArgumentsReturnOnEveryRank) {
  const int count = gpus();
  Ranks ranks(count);
  std::vector<sgemm::Status> status(count);
  std::vector<std::string> message(count);
  std::vector<std::thread> threads;
  float* buffer = nullptr;
  ASSERT_EQ(cudaMalloc(&buffer, 4096), cudaSuccess);
  for (int r = 0; r < count; ++r)
    threads.emplace_back([&, r] {
      cudaSetDevice(r);
      // Rank 0's lda is below k: every rank must refuse, not hang.
      status[r] = sgemm::dist::gemm(ranks.comms[r], 4, 4, 4, 1.0f, buffer, r == 0 ? 2 : 64,
                                    buffer, 4, 0.0f, buffer, 4, ranks.streams[r]);
      message[r] = std::string(sgemm::last_error());
    });
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < count; ++r) {
    EXPECT_EQ(status[r], sgemm::Status::InvalidValue) << r;
    EXPECT_NE(message[r].find("lda"), std::string::npos) << message[r];
  }
  cudaFree(buffer);
  EXPECT_EQ(sgemm::dist::gemm(nullptr, 1, 1, 1, 1.0f, buffer, 1, buffer, 1, 0.0f, buffer, 1,
                              nullptr),
            sgemm::Status::InvalidValue);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (gpus() == 0) {
    std::printf("sgemm-dist-tests: every test skipped: no CUDA device\n");
    return 0;
  }
  return RUN_ALL_TESTS();
}
