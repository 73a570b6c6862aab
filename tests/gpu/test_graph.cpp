// CUDA graphs: every kernel and `auto` in every math captured (global and thread-local modes),
// the graph replayed several times, on the capturing stream and on another, each replay checked
// against the float64 reference.
//
// GraphCold.* must run in a process of its own in which nothing has called the library yet
// (scripts/gpu-check runs it so, once per capture mode: SGEMM_CAPTURE_MODE=global or
// thread_local): its first capture holds the process's first call into the library, and each
// kernel's first call of the process is a captured one.
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <string>

#include "gpu_test.hpp"

namespace sgemm::test {
namespace {

cudaStreamCaptureMode mode_from_env() {
  const char* m = std::getenv("SGEMM_CAPTURE_MODE");
  return m && std::string(m) == "thread_local" ? cudaStreamCaptureModeThreadLocal
                                               : cudaStreamCaptureModeGlobal;
}

const char* name_of(cudaStreamCaptureMode mode) {
  return mode == cudaStreamCaptureModeGlobal ? "global" : "thread-local";
}

// Captures gemm() on the case into a graph, then replays it `replays` times, alternating between
// the capturing stream and another one, checking C against the reference after each replay.
void capture_and_replay(const ref::GemmCase& c, const Options& options,
                        cudaStreamCaptureMode mode, std::uint64_t seed, int replays = 3) {
  SCOPED_TRACE(std::string(options.kernel) + " " + to_string(options.math) + " on " +
               ref::describe(c) + ", " + name_of(mode) + " capture");
  ref::CaseBuffers buf(c);
  buf.fill_random(seed);
  buf.compute_reference(cublas());
  buf.reset_c();
  cudaStream_t streams[2];
  for (cudaStream_t& s : streams)
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(streams[0], mode), cudaSuccess);
  const Status status = call(buf, streams[0], options);
  const std::string message(last_error());
  const cudaError_t ended = cudaStreamEndCapture(streams[0], &graph);
  ASSERT_EQ(status, Status::Success) << message;
  ASSERT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int r = 0; r < replays; ++r) {
    buf.reset_c();
    ASSERT_EQ(cudaGraphLaunch(exec, streams[r % 2]), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(streams[r % 2]), cudaSuccess);
    const ref::Verdict v = buf.verify(options.math);
    EXPECT_TRUE(v.pass) << "replay " << r << ": " << v.detail;
    if (!v.pass) break;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  for (cudaStream_t s : streams) cudaStreamDestroy(s);
}

// Shapes that take each math's fast paths with their scratch memory: rung 13's tail split
// (Fp32), tc-03's packing and tail split and tc-04's passes (3xTF32 from 2^34 products, Tf32 from
// 6144 in every dimension).
ref::GemmCase auto_case(Math math, int variant) {
  if (variant == 0) return {Layout::RowMajor, Op::N, Op::N, 1024, 1024, 1024, 1.0f, 0.0f};
  switch (math) {
    case Math::Fp32: return {Layout::ColMajor, Op::T, Op::N, 300, 200, 3000, -0.5f, 0.75f};
    case Math::Fp32Tf32x3: return {Layout::RowMajor, Op::N, Op::N, 2048, 2048, 4096, 1.0f, 0.5f};
    case Math::Tf32: return {Layout::RowMajor, Op::N, Op::T, 6144, 6144, 6144, 1.0f, 0.0f};
  }
  return {};
}

// The first call into the library in this process is a captured one, in each math.
TEST(GraphCold, AutoInEveryMathFirstCallCaptured) {
  const cudaStreamCaptureMode mode = mode_from_env();
  std::uint64_t seed = 7000;
  for (Math math : built_maths())
    for (int variant : {0, 1}) {
      Options o;
      o.math = math;
      capture_and_replay(auto_case(math, variant), o, mode, seed++);
    }
}

// Each kernel's first call in this process is a captured one (then a second capture in the other
// mode), on a shape with several tiles and a long k.
TEST(GraphCold, EveryKernelFirstCallCaptured) {
  const cudaStreamCaptureMode mode = mode_from_env();
  const cudaStreamCaptureMode other = mode == cudaStreamCaptureModeGlobal
                                          ? cudaStreamCaptureModeThreadLocal
                                          : cudaStreamCaptureModeGlobal;
  std::uint64_t seed = 7100;
  for (const KernelInfo& k : kernels()) {
    ref::GemmCase c{Layout::RowMajor, Op::N, Op::N, 260, 200, 2900, -0.5f, 0.75f};
    if (!k.supports({c.layout, c.op_a, c.op_b, c.m, c.n, c.k,
                     reinterpret_cast<const float*>(256), c.k, reinterpret_cast<const float*>(256),
                     c.n, reinterpret_cast<float*>(256), c.n}))
      continue;
    Options o;
    o.kernel = k.slug;
    o.math = k.math;
    capture_and_replay(c, o, mode, seed++);
    capture_and_replay(c, o, other, seed++, 2);
  }
}

// With the caller's workspace the captured graph holds no memory allocation of the library's.
TEST(Graph, CallerWorkspaceAllocatesNothing) {
  for (Math math : built_maths()) {
    const ref::GemmCase c = auto_case(math, 1);
    ref::CaseBuffers buf(c);
    buf.fill_random(7200);
    buf.compute_reference(cublas());
    buf.reset_c();
    const ref::GemmCase& t = buf.gemm_case();
    Options o;
    o.math = math;
    std::size_t bytes = 0;
    ASSERT_EQ(gemm_workspace_size(t.layout, t.op_a, t.op_b, t.m, t.n, t.k, t.alpha, buf.a(), t.lda,
                                  buf.b(), t.ldb, t.beta, buf.c(), t.ldc, &bytes, nullptr, o),
              Status::Success)
        << last_error();
    void* workspace = nullptr;
    ASSERT_EQ(cudaMalloc(&workspace, std::max<std::size_t>(bytes, 256)), cudaSuccess);
    o.workspace = workspace;
    o.workspace_bytes = bytes;
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    cudaGraph_t graph;
    ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    const Status status = call(buf, s, o);
    ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
    ASSERT_EQ(status, Status::Success) << last_error();
    std::size_t count = 0;
    ASSERT_EQ(cudaGraphGetNodes(graph, nullptr, &count), cudaSuccess);
    std::vector<cudaGraphNode_t> nodes(count);
    ASSERT_EQ(cudaGraphGetNodes(graph, nodes.data(), &count), cudaSuccess);
    for (cudaGraphNode_t node : nodes) {
      cudaGraphNodeType type;
      ASSERT_EQ(cudaGraphNodeGetType(node, &type), cudaSuccess);
      EXPECT_NE(type, cudaGraphNodeTypeMemAlloc) << to_string(math) << " allocated in the graph";
    }
    cudaGraphExec_t exec;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    const ref::Verdict v = buf.verify(math);
    EXPECT_TRUE(v.pass) << to_string(math) << ": " << v.detail;
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
    cudaFree(workspace);
  }
}

}  // namespace
}  // namespace sgemm::test
