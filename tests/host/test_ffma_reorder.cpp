// The build step that reorders rung 13's k-loop FFMAs in SASS (tools/sass/ffma_reorder.py) ran and
// did its work: ffma_reorder.tsv has one row per rung-13 kernel instantiation, every kernel is
// either reordered (with fewer FFMAs that read three registers from the register file) or kept
// with a reason, and the four whole-tile kernels, which carry nearly all the work, are reordered.
// A new ptxas whose loops the script cannot read shows up here instead of as a silent slowdown.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#ifndef SGEMM_FFMA_REORDER_TSV
#error "SGEMM_FFMA_REORDER_TSV must name the build's ffma_reorder.tsv"
#endif
#ifndef SGEMM_FFMA_REORDER_BUILT
#error "SGEMM_FFMA_REORDER_BUILT must say whether the build targets sm_90a"
#endif

namespace {

struct Row {
  std::string kernel, loop_ffma, before, after, status;
};

std::vector<Row> read_report(std::string* header) {
  std::ifstream in(SGEMM_FFMA_REORDER_TSV);
  std::vector<Row> rows;
  std::string line;
  if (!std::getline(in, *header)) return rows;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    Row r;
    std::string cubin;
    std::getline(fields, r.kernel, '\t');
    std::getline(fields, cubin, '\t');
    std::getline(fields, r.loop_ffma, '\t');
    std::getline(fields, r.before, '\t');
    std::getline(fields, r.after, '\t');
    std::getline(fields, r.status, '\t');
    rows.push_back(r);
  }
  return rows;
}

TEST(FfmaReorder, Rung13KernelsAreReordered) {
  if (!SGEMM_FFMA_REORDER_BUILT)
    GTEST_SKIP() << "rung 13 keeps ptxas' order in this build (no sm_90a target, or SGEMM_SASS_REORDER=OFF)";
  std::string header;
  const std::vector<Row> rows = read_report(&header);
  ASSERT_EQ(header, "kernel\tcubin\tloop_ffma\tthree_read_before\tthree_read_after\tstatus")
      << SGEMM_FFMA_REORDER_TSV << " is empty or not the script's: was the build step skipped "
      << "(cuobjdump or Python 3 missing; run scripts/install-deps)?";
  ASSERT_EQ(rows.size(), 32u) << "rung 13 has 4 block tiles x 2 x 2 layouts x {whole tiles, tail}";
  int whole_tiles_reordered = 0;
  for (const Row& r : rows) {
    SCOPED_TRACE(r.kernel);
    const bool whole_tiles = r.kernel.find("ELb0EEEv") != std::string::npos;
    if (r.status == "reordered") {
      EXPECT_LT(std::stoi(r.after), std::stoi(r.before));
      whole_tiles_reordered += whole_tiles;
    } else {
      EXPECT_EQ(r.status.rfind("kept: ", 0), 0u) << r.status;
    }
  }
  EXPECT_EQ(whole_tiles_reordered, 16) << "each block tile's and layout's whole-tile kernel";
}

}  // namespace
