// The suite's calls (suite.hpp).
#include <sstream>
#include <tuple>

#include "suite.hpp"

namespace sgemm::bench {

std::vector<SuiteCall> suite_calls() {
  const Layout row = Layout::RowMajor, col = Layout::ColMajor;
  const Op N = Op::N, T = Op::T;
  std::vector<SuiteCall> v;
  for (std::int64_t s : {256, 512, 1024, 2048, 4096, 8192, 16384})
    v.push_back({"squares", row, N, N, s, s, s});
  for (std::int64_t s : {2048, 4096, 8192, 16384}) v.push_back({"k1024", row, N, N, s, s, 1024});
  // The decode regime: x (m x k) times a weight (n x k, stored as nn.Linear keeps it) transposed.
  for (std::int64_t m : {1, 2, 4, 8, 16, 32, 64}) {
    v.push_back({"small-m", row, N, T, m, 11008, 4096});
    v.push_back({"small-m", row, N, T, m, 4096, 11008});
    v.push_back({"small-m", row, N, N, m, 4096, 4096});
  }
  v.push_back({"small-m", row, N, T, 16, 28672, 4096});
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{8192, 128, 8192},
                         {128, 8192, 8192}, {16384, 64, 4096}, {32, 16384, 8192},
                         {4096, 256, 16384}, {256, 4096, 4096}})
    v.push_back({"skinny", row, N, N, m, n, k});
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{128, 128, 65536},
                         {64, 64, 262144}, {256, 256, 131072}, {32, 32, 1048576}})
    v.push_back({"long-k", row, N, N, m, n, k});
  v.push_back({"odd", row, N, N, 4095, 4097, 4093});
  v.push_back({"odd", row, N, N, 1000, 999, 1001});
  v.push_back({"odd", col, N, N, 3001, 2999, 1537});
  v.push_back({"odd", row, N, N, 4095, 4097, 4093, 1, true});
  v.push_back({"odd", row, T, N, 777, 1025, 3333, 3});
  for (Layout l : {row, col})
    for (Op a : {N, T})
      for (Op b : {N, T}) v.push_back({"layouts", l, a, b, 4096, 4096, 4096});
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{16, 11008, 4096},
                         {128, 4096, 4096}, {2048, 4096, 4096}, {4096, 11008, 4096}})
    v.push_back({"linear", row, N, T, m, n, k});
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{16, 16, 16},
                         {64, 64, 64}, {128, 128, 128}, {32, 64, 128}})
    v.push_back({"tiny", row, N, N, m, n, k});
  return v;
}

std::string describe(const SuiteCall& c) {
  std::ostringstream o;
  o << (c.layout == Layout::RowMajor ? "row " : "col ") << (c.op_a == Op::N ? 'N' : 'T')
    << (c.op_b == Op::N ? 'N' : 'T') << ' ' << c.m << 'x' << c.n << 'x' << c.k;
  if (c.pad) o << " ld+" << c.pad;
  if (c.unaligned) o << " unaligned";
  return o.str();
}

}  // namespace sgemm::bench
