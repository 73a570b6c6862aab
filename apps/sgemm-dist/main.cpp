// sgemm-dist: one rank of a distributed GEMM, one process per GPU, no MPI. Rank 0 writes the
// NCCL unique id to a file the other ranks wait for.
//
//   rm -f /tmp/sgemm.id; for r in 0 1 2 3; do sgemm-dist --rank $r --ranks 4 --id-file /tmp/sgemm.id \
//       --m 16384 --n 16384 --k 16384 --math fp32 & done; wait
//
// Each rank builds its rows of A and C and its rows of B from a formula of the global indices,
// times dist::gemm, and checks sampled elements of its C against a float64 sum on the host.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "sgemm/dist.hpp"

namespace {

struct Args {
  int rank = -1, ranks = 0, device = -1;
  std::string id_file;
  std::int64_t m = 8192, n = 8192, k = 8192;
  sgemm::Math math = sgemm::Math::Fp32;
  int repeats = 5;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "sgemm-dist: %s\nusage: sgemm-dist --rank R --ranks P --id-file PATH [--m M] "
               "[--n N] [--k K] [--math fp32|tf32x3|tf32] [--repeats N] [--device D]\n",
               why);
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + flag).c_str());
    const char* v = argv[++i];
    if (flag == "--rank") a.rank = std::atoi(v);
    else if (flag == "--ranks") a.ranks = std::atoi(v);
    else if (flag == "--device") a.device = std::atoi(v);
    else if (flag == "--id-file") a.id_file = v;
    else if (flag == "--m") a.m = std::atoll(v);
    else if (flag == "--n") a.n = std::atoll(v);
    else if (flag == "--k") a.k = std::atoll(v);
    else if (flag == "--repeats") a.repeats = std::atoi(v);
    else if (flag == "--math") {
      const std::string m = v;
      if (m == "fp32") a.math = sgemm::Math::Fp32;
      else if (m == "tf32x3") a.math = sgemm::Math::Fp32Tf32x3;
      else if (m == "tf32") a.math = sgemm::Math::Tf32;
      else usage("--math is fp32, tf32x3 or tf32");
    } else {
      usage(("unknown flag " + flag).c_str());
    }
  }
  if (a.ranks < 1 || a.rank < 0 || a.rank >= a.ranks) usage("need 0 <= --rank < --ranks");
  if (a.id_file.empty()) usage("need --id-file");
  if (a.m < 1 || a.n < 1 || a.k < 1 || a.repeats < 1) usage("m, n, k and --repeats must be >= 1");
  return a;
}

// Rank 0 writes the id (to a temporary name, then renames it, so no rank reads half a file);
// the others wait for it for up to a minute.
ncclUniqueId exchange_id(const Args& a) {
  ncclUniqueId id;
  if (a.rank == 0) {
    if (ncclGetUniqueId(&id) != ncclSuccess) usage("ncclGetUniqueId failed");
    const std::string tmp = a.id_file + ".tmp";
    std::ofstream(tmp, std::ios::binary).write(id.internal, sizeof id.internal);
    if (std::rename(tmp.c_str(), a.id_file.c_str()) != 0) usage("cannot write --id-file");
    return id;
  }
  for (int tries = 0; tries < 600; ++tries) {
    std::ifstream in(a.id_file, std::ios::binary);
    if (in.read(id.internal, sizeof id.internal)) return id;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  usage("no id from rank 0 within a minute");
}

float value(std::int64_t i, std::int64_t j, int which) {
  return float(std::sin(0.37 * double(i % 9973) + 0.11 * double(j % 7919) + which)) * 0.5f;
}

int run(const Args& a) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) usage("no CUDA device");
  cudaSetDevice(a.device >= 0 ? a.device : a.rank % devices);
  const ncclUniqueId id = exchange_id(a);
  ncclComm_t comm = nullptr;
  if (ncclCommInitRank(&comm, a.ranks, id, a.rank) != ncclSuccess) usage("ncclCommInitRank failed");

  // This rank's rows of A and C, and its rows of B.
  const std::int64_t m0 = a.m * a.rank / a.ranks, m1 = a.m * (a.rank + 1) / a.ranks;
  const std::int64_t k0 = a.k * a.rank / a.ranks, k1 = a.k * (a.rank + 1) / a.ranks;
  const std::int64_t mr = m1 - m0, kr = k1 - k0;
  std::vector<float> ha(std::size_t(mr * a.k)), hb(std::size_t(kr * a.n));
  for (std::int64_t i = 0; i < mr; ++i)
    for (std::int64_t p = 0; p < a.k; ++p) ha[i * a.k + p] = value(m0 + i, p, 0);
  for (std::int64_t p = 0; p < kr; ++p)
    for (std::int64_t j = 0; j < a.n; ++j) hb[p * a.n + j] = value(k0 + p, j, 1);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  cudaMalloc(&da, std::max<std::size_t>(ha.size(), 1) * sizeof(float));
  cudaMalloc(&db, std::max<std::size_t>(hb.size(), 1) * sizeof(float));
  cudaMalloc(&dc, std::max<std::size_t>(std::size_t(mr * a.n), 1) * sizeof(float));
  cudaMemcpy(da, ha.data(), ha.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, hb.data(), hb.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  sgemm::Options options;
  options.math = a.math;

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float best_ms = 0;
  for (int rep = 0; rep <= a.repeats; ++rep) {  // the first call warms up
    cudaEventRecord(start, stream);
    const sgemm::Status s = sgemm::dist::gemm(comm, mr, a.n, kr, 1.0f, da, a.k, db, a.n, 0.0f,
                                              dc, a.n, stream, options);
    cudaEventRecord(stop, stream);
    if (s != sgemm::Status::Success) {
      std::fprintf(stderr, "rank %d: %s\n", a.rank, std::string(sgemm::last_error()).c_str());
      return 1;
    }
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (rep > 0 && (best_ms == 0 || ms < best_ms)) best_ms = ms;
  }

  // Sampled elements against float64.
  double worst = 0;
  for (int s = 0; s < 16 && mr > 0; ++s) {
    const std::int64_t i = (s * 7919) % mr, j = (s * 104729) % a.n;
    float got = 0;
    cudaMemcpy(&got, dc + i * a.n + j, sizeof(float), cudaMemcpyDeviceToHost);
    double sum = 0, size = 0;
    for (std::int64_t p = 0; p < a.k; ++p) {
      const double x = double(value(m0 + i, p, 0)) * value(p, j, 1);
      sum += x;
      size += std::fabs(x);
    }
    worst = std::max(worst, std::fabs(got - sum) / size);
  }
  const double tflops = 2.0 * double(a.m) * double(a.n) * double(a.k) / (best_ms * 1e-3) / 1e12;
  std::printf("rank %d of %d: %lld x %lld x %lld, %.3f ms (best of %d), %.1f TFLOPS in all, "
              "sampled error %.2e of sum |a b|\n",
              a.rank, a.ranks, static_cast<long long>(a.m), static_cast<long long>(a.n),
              static_cast<long long>(a.k), best_ms, a.repeats, tflops, worst);
  cudaFree(da), cudaFree(db), cudaFree(dc);
  ncclCommDestroy(comm);
  if (a.rank == 0) std::remove(a.id_file.c_str());
  return worst < 1e-2 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return run(parse(argc, argv)); }
