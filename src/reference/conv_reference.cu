#include "reference/conv_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "reference/harness.hpp"

namespace sgemm::ref {
namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

constexpr int kThreads = 256;
// At least one block, so that an empty tensor still makes a valid launch.
unsigned blocks_for(std::int64_t n) {
  return unsigned(std::clamp<std::int64_t>((n + kThreads - 1) / kThreads, 1, 1 << 16));
}

// One thread per output element: the direct definition, in float64.
__global__ void reference_kernel(Conv2dShape sh, std::int64_t p_out, std::int64_t q_out,
                                 const float* x, const float* w, double* ref, double* abs_ref) {
  const std::int64_t total = sh.n * p_out * q_out * sh.k;
  const std::int64_t cg = sh.c / sh.groups, kg = sh.k / sh.groups;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t k = i % sh.k, q = i / sh.k % q_out, p = i / (sh.k * q_out) % p_out;
    const std::int64_t n = i / (sh.k * q_out * p_out), g = k / kg;
    double sum = 0, abs_sum = 0;
    for (std::int64_t r = 0; r < sh.r; ++r) {
      const std::int64_t h = p * sh.stride_h - sh.pad_h + r * sh.dilation_h;
      if (h < 0 || h >= sh.h) continue;
      for (std::int64_t s = 0; s < sh.s; ++s) {
        const std::int64_t wc = q * sh.stride_w - sh.pad_w + s * sh.dilation_w;
        if (wc < 0 || wc >= sh.w) continue;
        const float* xp = x + ((n * sh.h + h) * sh.w + wc) * sh.c + g * cg;
        const float* wp = w + ((k * sh.r + r) * sh.s + s) * cg;
        for (std::int64_t c = 0; c < cg; ++c) {
          const double prod = double(xp[c]) * double(wp[c]);
          sum += prod;
          abs_sum += fabs(prod);
        }
      }
    }
    ref[i] = sum;
    abs_ref[i] = abs_sum;
  }
}

// stats: [0] elements over the bound, [1] sum of squared errors, [2] sum of squared references,
// [3] the first bad element's index (as a double; -1 for none).
__global__ void verify_kernel(const float* y, const float* y0, const double* ref,
                              const double* abs_ref, std::int64_t total, double alpha, double beta,
                              double terms_plus_2, double u, double eta, double* stats) {
  double bad = 0, diff2 = 0, ref2 = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const double c0 = beta == 0 ? 0.0 : double(y0[i]);
    const double want = (alpha == 0 ? 0.0 : alpha * ref[i]) + beta * c0;
    const double bound = terms_plus_2 * (u * (fabs(alpha) * abs_ref[i] + fabs(beta * c0)) +
                                         eta * (fabs(alpha) + 1));
    const double d = double(y[i]) - want;
    diff2 += d * d, ref2 += want * want;
    if (!(fabs(d) <= bound)) {
      bad += 1;
      atomicMin(reinterpret_cast<unsigned long long*>(&stats[3]),
                static_cast<unsigned long long>(i));
    }
  }
  atomicAdd(&stats[0], bad);
  atomicAdd(&stats[1], diff2);
  atomicAdd(&stats[2], ref2);
}

}  // namespace

ConvBuffers::ConvBuffers(const Conv2dShape& shape) : shape_(shape) {
  x_count_ = shape.n * shape.h * shape.w * shape.c;
  w_count_ = shape.k * shape.r * shape.s * (shape.c / shape.groups);
  y_count_ = shape.n * shape.p() * shape.q() * shape.k;
  check(cudaMalloc(&x_, 4 * std::max<std::int64_t>(x_count_, 1)), "cudaMalloc x");
  check(cudaMalloc(&w_, 4 * std::max<std::int64_t>(w_count_, 1)), "cudaMalloc w");
  check(cudaMalloc(&y_, 4 * std::max<std::int64_t>(y_count_, 1)), "cudaMalloc y");
  check(cudaMalloc(&y0_, 4 * std::max<std::int64_t>(y_count_, 1)), "cudaMalloc y0");
  check(cudaMalloc(&ref_, 8 * std::max<std::int64_t>(y_count_, 1)), "cudaMalloc ref");
  check(cudaMalloc(&abs_ref_, 8 * std::max<std::int64_t>(y_count_, 1)), "cudaMalloc abs_ref");
  check(cudaMalloc(&stats_, 4 * sizeof(double)), "cudaMalloc stats");
}

ConvBuffers::~ConvBuffers() {
  for (void* p : {(void*)x_, (void*)w_, (void*)y_, (void*)y0_, (void*)ref_, (void*)abs_ref_,
                  (void*)stats_})
    cudaFree(p);
}

void ConvBuffers::fill_random(std::uint64_t seed) {
  fill_uniform(x_, x_count_, seed * 3 + 1);
  fill_uniform(w_, w_count_, seed * 3 + 2);
  fill_uniform(y0_, y_count_, seed * 3 + 3);
  has_reference_ = false;
  reset_y();
}

void ConvBuffers::reset_y() {
  check(cudaMemcpy(y_, y0_, 4 * y_count_, cudaMemcpyDeviceToDevice), "reset y");
  // Done before the call, whatever stream it runs on: a device-to-device cudaMemcpy does not
  // wait for the copy, and a non-blocking stream does not wait for the legacy default stream.
  check(cudaDeviceSynchronize(), "reset y");
}

void ConvBuffers::compute_reference() {
  reference_kernel<<<blocks_for(y_count_), kThreads>>>(shape_, shape_.p(), shape_.q(), x_, w_,
                                                      ref_, abs_ref_);
  check(cudaGetLastError(), "reference");
  check(cudaDeviceSynchronize(), "reference");
  has_reference_ = true;
}

ConvBuffers::Verdict ConvBuffers::verify(float alpha, float beta, Math math) const {
  if (!has_reference_) throw std::logic_error("verify() before compute_reference()");
  const double init[4] = {0, 0, 0, -1};
  check(cudaMemcpy(stats_, init, sizeof init, cudaMemcpyHostToDevice), "verify");
  // The first bad index is found with an unsigned atomicMin on the bits of stats[3]: start it
  // at all ones.
  const unsigned long long none = ~0ull;
  check(cudaMemcpy(stats_ + 3, &none, sizeof none, cudaMemcpyHostToDevice), "verify");
  const double terms = double(shape_.r * shape_.s * (shape_.c / shape_.groups));
  verify_kernel<<<blocks_for(y_count_), kThreads>>>(y_, y0_, ref_, abs_ref_, y_count_, alpha, beta,
                                                   terms + 2, unit_roundoff(math),
                                                   underflow_unit(math), stats_);
  check(cudaGetLastError(), "verify");
  double stats[4];
  check(cudaMemcpy(stats, stats_, sizeof stats, cudaMemcpyDeviceToHost), "verify");
  Verdict v;
  v.bad = std::int64_t(stats[0]);
  v.rel_fro = stats[2] > 0 ? std::sqrt(stats[1] / stats[2]) : std::sqrt(stats[1]);
  v.pass = v.bad == 0;
  if (v.bad) {
    unsigned long long first;
    std::memcpy(&first, &stats[3], sizeof first);
    float out;
    double r;
    check(cudaMemcpy(&out, y_ + first, sizeof out, cudaMemcpyDeviceToHost), "verify");
    check(cudaMemcpy(&r, ref_ + first, sizeof r, cudaMemcpyDeviceToHost), "verify");
    std::ostringstream o;
    o << v.bad << " elements outside the bound; first at " << first << ": " << out
      << ", alpha * reference " << double(alpha) * r;
    v.detail = o.str();
  }
  return v;
}

}  // namespace sgemm::ref
