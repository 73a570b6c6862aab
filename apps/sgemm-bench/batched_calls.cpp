// The batched suite's calls (batched.hpp).
#include <sstream>

#include "batched.hpp"

namespace sgemm::bench {

std::vector<BatchedCall> batched_calls() {
  const Op N = Op::N, T = Op::T;
  return {
      {N, N, 64, 197, 768, 768},   // ViT-B tokens through a per-sample projection
      {N, T, 512, 128, 128, 64},   // attention scores Q K^T, 128 tokens, head size 64
      {N, N, 512, 128, 64, 128},   // attention output P V
      {N, T, 96, 512, 512, 64},    // BERT-base scores: batch 8 x 12 heads, 512 tokens
      {N, N, 96, 512, 64, 512},    // BERT-base P V
      {N, N, 1024, 64, 64, 64},    // many small products
      {N, N, 4096, 16, 16, 16},    // many tiny products: launch and memory bound
      {T, N, 256, 64, 256, 1024},  // per-group weight gradients (A transposed)
      {N, N, 32, 1024, 1024, 1024},
      {N, N, 16, 2048, 2048, 2048},
      {N, T, 32, 128, 4096, 4096, true},  // a Linear layer over 32 sequences: one shared weight
  };
}

std::string describe(const BatchedCall& c) {
  std::ostringstream o;
  o << c.batch << " x [" << (c.op_a == Op::N ? 'N' : 'T') << (c.op_b == Op::N ? 'N' : 'T') << ' '
    << c.m << 'x' << c.n << 'x' << c.k << (c.shared_b ? " shared B" : "") << ']';
  return o.str();
}

}  // namespace sgemm::bench
