// The float64 reference for conv2d and its verdict, shared by the GPU tests and the bench.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "sgemm/sgemm.hpp"

namespace sgemm::ref {

// Device buffers of one convolution: x, w and y (with y0, y's values before the call), random
// inputs, the direct float64 reference sum_{r,s,c} x w and sum |x| |w| per output element, and
// the verdict. Throws std::runtime_error on CUDA failure.
class ConvBuffers {
 public:
  explicit ConvBuffers(const Conv2dShape& shape);
  ~ConvBuffers();
  ConvBuffers(const ConvBuffers&) = delete;
  ConvBuffers& operator=(const ConvBuffers&) = delete;

  const Conv2dShape& shape() const { return shape_; }
  std::int64_t x_count() const { return x_count_; }
  std::int64_t w_count() const { return w_count_; }
  std::int64_t y_count() const { return y_count_; }
  const float* x() const { return x_; }
  const float* w() const { return w_; }
  float* y() { return y_; }

  void fill_random(std::uint64_t seed);  // x, w and y0 uniform in [-1, 1)
  void reset_y();                        // y back to y0
  void compute_reference();              // the float64 sums, on the device

  struct Verdict {
    bool pass = false;
    double rel_fro = 0;     // ||y - y_ref||_F / ||y_ref||_F
    std::int64_t bad = 0;   // elements outside their bound
    std::string detail;     // the first one, readable
  };
  // y against alpha * ref + beta * y0, each element within
  //   (RSC/G + 2) (u (|alpha| sum|x||w| + |beta| |y0|) + eta (|alpha| + 1)).
  Verdict verify(float alpha, float beta, Math math) const;

 private:
  Conv2dShape shape_;
  std::int64_t x_count_, w_count_, y_count_;
  float *x_ = nullptr, *w_ = nullptr, *y_ = nullptr, *y0_ = nullptr;
  double *ref_ = nullptr, *abs_ref_ = nullptr, *stats_ = nullptr;
  bool has_reference_ = false;
};

}  // namespace sgemm::ref
