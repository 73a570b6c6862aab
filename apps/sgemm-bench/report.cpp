#include "report.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "sgemm/sgemm.hpp"

namespace sgemm::bench {
namespace {

// The TSV tools/sass/resource_report.py wrote from the compiled library (see docs/ladder.md).
constexpr std::string_view kResourcesTsv =
#include "kernel_resources.inc"
    ;

using Record = std::map<std::string, std::string>;

std::vector<Record> parse_tsv(std::string_view text) {
  std::vector<Record> records;
  std::vector<std::string> header;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    std::vector<std::string> cells;
    std::istringstream ls(line);
    for (std::string cell; std::getline(ls, cell, '\t');) cells.push_back(cell);
    if (header.empty()) {
      header = cells;
      continue;
    }
    Record r;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) r[header[i]] = cells[i];
    records.push_back(std::move(r));
  }
  return records;
}

std::string get(const Record& r, const char* key) {
  auto it = r.find(key);
  return it == r.end() ? "?" : it->second;
}

}  // namespace

void print_registry(std::ostream& out) {
  const std::vector<Record> resources = parse_tsv(kResourcesTsv);
  out << "Registered kernels (" << kernels().size() << "), in ladder order. Resources per compiled\n"
         "instantiation (majorness of A/B, configuration) from the build-time SASS report:\n"
         "regs, static smem bytes, stack (spill) bytes, FFMA count, LDS.128 count, .reuse share of FFMA operands,\n"
         "main loop (the innermost loop with the most FFMA): instructions / FFMAs per pass.\n";
  for (const KernelInfo& k : kernels()) {
    out << "\n" << k.slug << "  [" << to_string(k.track) << " rung " << k.rung << ", "
        << to_string(k.math) << "]\n  " << k.title << "\n  from: " << k.source
        << "\n  requires: " << k.requirements << "\n";
    int shown = 0;
    for (const Record& r : resources) {
      if (get(r, "slug") != k.slug) continue;
      out << "  " << std::left << std::setw(52) << get(r, "symbol").substr(0, 52) << " regs "
          << get(r, "registers") << ", smem " << get(r, "shared_bytes") << ", spill "
          << get(r, "stack_bytes") << ", FFMA " << get(r, "ffma") << ", LDS.128 "
          << get(r, "lds128") << ", reuse " << get(r, "ffma_reuse_pct") << "%, loop "
          << get(r, "loop_instructions") << " / " << get(r, "loop_ffma") << "\n";
      ++shown;
    }
    if (!shown) out << "  (no resource report for this kernel in this build)\n";
  }
}

}  // namespace sgemm::bench
