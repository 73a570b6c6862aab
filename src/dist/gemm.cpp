// sgemm::dist::gemm (include/sgemm/dist.hpp): the 1D decomposition over an NCCL communicator.
#include "sgemm/dist.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "api/gemm.hpp"

namespace sgemm::dist {
namespace {

// What each rank tells the others before any product: its own arguments, and whether they passed
// the checks it can make alone.
struct Record {
  std::int64_t local_ok, m_local, n, k_local, lda, math;
  std::uint32_t alpha_bits, beta_bits;
};
constexpr int kRecordWords = sizeof(Record) / sizeof(std::int64_t);
static_assert(sizeof(Record) % sizeof(std::int64_t) == 0);

std::uint32_t bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// The checks one rank makes alone (lda against k needs every rank's k_local).
std::string local_problem(std::int64_t m_local, std::int64_t n, std::int64_t k_local,
                          const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                          const float* c, std::int64_t ldc, const Options& options) {
  if (m_local < 0 || n < 0 || k_local < 0) return "m_local, n and k_local must be >= 0";
  if (ldb < std::max<std::int64_t>(1, n)) return "ldb = " + std::to_string(ldb) + " < max(1, n)";
  if (ldc < std::max<std::int64_t>(1, n)) return "ldc = " + std::to_string(ldc) + " < max(1, n)";
  if (lda < 1) return "lda = " + std::to_string(lda) + " < 1";
  if (!detail::valid_math(options.math)) return "options.math is not a Math value";
  if (m_local > 0 && n > 0 && !c) return "c is null";
  if (m_local > 0 && !a) return "a is null";
  if (k_local > 0 && n > 0 && !b) return "b is null";
  return {};
}

// The call's arguments as every rank sees them, or why they do not make one product.
std::string agreed_problem(const std::vector<Record>& all, int rank) {
  std::string bad;
  for (std::size_t r = 0; r < all.size(); ++r)
    if (!all[r].local_ok) bad += (bad.empty() ? "" : ", ") + std::to_string(r);
  if (!bad.empty()) return "invalid arguments on rank(s) " + bad;
  const Record& me = all[rank];
  std::int64_t k = 0;
  for (const Record& r : all) {
    if (r.n != me.n) return "the ranks pass different n";
    if (r.math != me.math) return "the ranks pass different options.math";
    if (r.alpha_bits != me.alpha_bits || r.beta_bits != me.beta_bits)
      return "the ranks pass different alpha or beta";
    k += r.k_local;
  }
  for (std::size_t r = 0; r < all.size(); ++r)
    if (all[r].lda < std::max<std::int64_t>(1, k))
      return "lda = " + std::to_string(all[r].lda) + " on rank " + std::to_string(r) +
             " < max(1, k), k = " + std::to_string(k);
  return {};
}

// Streams, events and buffers of one call, released in its destructor (stream-ordered frees).
struct Resources {
  cudaStream_t stream, comm_stream = nullptr;
  cudaEvent_t ready = nullptr, arrived[2] = {}, consumed[2] = {};
  float* panels[2] = {};
  ~Resources() {
    for (float* p : panels)
      if (p) cudaFreeAsync(p, stream);
    for (cudaEvent_t e : {ready, arrived[0], arrived[1], consumed[0], consumed[1]})
      if (e) cudaEventDestroy(e);
    if (comm_stream) cudaStreamDestroy(comm_stream);
  }
};

Status nccl_failure(ncclComm_t comm, ncclResult_t result, const std::string& what) {
  ncclCommAbort(comm);
  return detail::fail(Status::CudaError, what + ": " + ncclGetErrorString(result) +
                                             " (the communicator was aborted)");
}
Status cuda_failure(ncclComm_t comm, cudaError_t err, const std::string& what) {
  ncclCommAbort(comm);
  return detail::from_cuda(err, what + " (the communicator was aborted)");
}

}  // namespace

Status gemm(ncclComm_t comm, std::int64_t m_local, std::int64_t n, std::int64_t k_local,
            float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
            float beta, float* c, std::int64_t ldc, cudaStream_t stream, const Options& options) {
  if (!comm) return detail::fail(Status::InvalidValue, "dist::gemm: comm is null");
  int ranks = 0, rank = 0;
  if (ncclCommCount(comm, &ranks) != ncclSuccess || ncclCommUserRank(comm, &rank) != ncclSuccess)
    return detail::fail(Status::InvalidValue, "dist::gemm: comm is not a usable communicator");

  // Every rank's arguments, gathered on every rank before any product.
  const std::string local = local_problem(m_local, n, k_local, a, lda, b, ldb, c, ldc, options);
  const Record mine{local.empty(), m_local, n, k_local, lda, std::int64_t(options.math),
                    bits(alpha), bits(beta)};
  std::vector<Record> all(ranks);
  {
    std::int64_t* records = nullptr;
    if (cudaError_t err = cudaMallocAsync(&records, sizeof(Record) * (ranks + 1), stream))
      return cuda_failure(comm, err, "dist::gemm: the argument exchange's buffer");
    cudaError_t err = cudaMemcpyAsync(records + kRecordWords * ranks, &mine, sizeof(Record),
                                      cudaMemcpyHostToDevice, stream);
    ncclResult_t nccl = ncclSuccess;
    if (!err)
      nccl = ncclAllGather(records + kRecordWords * ranks, records, kRecordWords, ncclInt64, comm,
                           stream);
    if (!err && nccl == ncclSuccess)
      err = cudaMemcpyAsync(all.data(), records, sizeof(Record) * ranks, cudaMemcpyDeviceToHost,
                            stream);
    if (!err && nccl == ncclSuccess) err = cudaFreeAsync(records, stream);
    if (!err && nccl == ncclSuccess) err = cudaStreamSynchronize(stream);
    if (nccl != ncclSuccess) return nccl_failure(comm, nccl, "dist::gemm: the argument exchange");
    if (err) return cuda_failure(comm, err, "dist::gemm: the argument exchange");
  }
  if (!local.empty()) return detail::fail(Status::InvalidValue, "dist::gemm: " + local);
  if (std::string why = agreed_problem(all, rank); !why.empty())
    return detail::fail(Status::InvalidValue, "dist::gemm: " + why);
  // Nothing to write on any rank: every rank returns here alike.
  if (n == 0 || std::all_of(all.begin(), all.end(), [](const Record& r) { return r.m_local == 0; }))
    return Status::Success;

  // Block j of B: k_block[j] rows starting at row k_first[j] of B (a column offset into A_r).
  std::vector<std::int64_t> k_first(ranks), k_block(ranks);
  std::int64_t k = 0, k_max = 0;
  for (int j = 0; j < ranks; ++j) {
    k_first[j] = k;
    k_block[j] = all[j].k_local;
    k += k_block[j];
    k_max = std::max(k_max, k_block[j]);
  }

  Resources res{stream};
  auto fail_cuda = [&](cudaError_t err, const std::string& what) {
    return cuda_failure(comm, err, "dist::gemm: " + what);
  };
  if (cudaError_t err = cudaStreamCreateWithFlags(&res.comm_stream, cudaStreamNonBlocking))
    return fail_cuda(err, "its communication stream");
  for (cudaEvent_t* e : {&res.ready, &res.arrived[0], &res.arrived[1], &res.consumed[0],
                         &res.consumed[1]})
    if (cudaError_t err = cudaEventCreateWithFlags(e, cudaEventDisableTiming))
      return fail_cuda(err, "its events");
  const std::size_t panel_bytes = std::size_t(k_max) * std::size_t(n) * sizeof(float);
  for (float*& p : res.panels)
    if (panel_bytes > 0)
      if (cudaError_t err = cudaMallocAsync(&p, panel_bytes, stream))
        return fail_cuda(err, "the panels of B");
  // The communication stream starts once `stream` has the buffers and the caller's inputs.
  if (cudaError_t err = cudaEventRecord(res.ready, stream)) return fail_cuda(err, "an event");
  if (cudaError_t err = cudaStreamWaitEvent(res.comm_stream, res.ready))
    return fail_cuda(err, "an event");

  // Block j into panel j % 2 on the communication stream, once product j - 2 has read it: its
  // owner copies it there (its rows are ldb apart) and broadcasts it.
  auto send_block = [&](int j) -> Status {
    const int slot = j % 2;
    if (j >= 2)
      if (cudaError_t err = cudaStreamWaitEvent(res.comm_stream, res.consumed[slot]))
        return fail_cuda(err, "an event");
    if (k_block[j] > 0 && n > 0) {
      float* panel = res.panels[slot];
      if (j == rank)
        if (cudaError_t err = cudaMemcpy2DAsync(panel, n * sizeof(float), b, ldb * sizeof(float),
                                                n * sizeof(float), k_block[j],
                                                cudaMemcpyDeviceToDevice, res.comm_stream))
          return fail_cuda(err, "packing this rank's block of B");
      if (ncclResult_t r = ncclBroadcast(panel, panel, std::size_t(k_block[j] * n), ncclFloat, j,
                                         comm, res.comm_stream);
          r != ncclSuccess)
        return nccl_failure(comm, r, "dist::gemm: broadcasting block " + std::to_string(j));
    }
    if (cudaError_t err = cudaEventRecord(res.arrived[slot], res.comm_stream))
      return fail_cuda(err, "an event");
    return Status::Success;
  };

  if (Status s = send_block(0); s != Status::Success) return s;
  bool first_product = true;
  for (int j = 0; j < ranks; ++j) {
    if (j + 1 < ranks)
      if (Status s = send_block(j + 1); s != Status::Success) return s;
    const int slot = j % 2;
    if (cudaError_t err = cudaStreamWaitEvent(stream, res.arrived[slot]))
      return fail_cuda(err, "an event");
    // The first product applies beta (with k == 0 everywhere it is C = beta C alone).
    if (k_block[j] > 0 || (first_product && j == ranks - 1)) {
      const Status s = sgemm::gemm(Layout::RowMajor, Op::N, Op::N, m_local, n, k_block[j], alpha,
                                   a ? a + k_first[j] : nullptr, lda, res.panels[slot],
                                   std::max<std::int64_t>(1, n), first_product ? beta : 1.0f, c,
                                   ldc, stream, options);
      if (s != Status::Success) {
        ncclCommAbort(comm);
        return detail::fail(s, "dist::gemm: the product with block " + std::to_string(j) + ": " +
                                   std::string(last_error()) + " (the communicator was aborted)");
      }
      first_product = false;
    }
    if (cudaError_t err = cudaEventRecord(res.consumed[slot], stream))
      return fail_cuda(err, "an event");
  }
  // The caller's stream ends after the last broadcast too (none is left behind unwaited).
  if (cudaError_t err = cudaEventRecord(res.ready, res.comm_stream))
    return fail_cuda(err, "an event");
  if (cudaError_t err = cudaStreamWaitEvent(stream, res.ready)) return fail_cuda(err, "an event");
  return Status::Success;
}

}  // namespace sgemm::dist
