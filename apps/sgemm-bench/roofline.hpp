// Seed 003's roofline arithmetic for one call: the FLOPs against the bytes a call must move, and
// the time bound that follows from the device's peak rate and memory bandwidth. Host-only, so that
// CI can test it.
#pragma once

#include <cstdint>

#include "sgemm/sgemm.hpp"

namespace sgemm::bench {

// A device's peak rates, TFLOPS per unit and TB/s of memory bandwidth.
struct Peaks {
  double fp32_core = 0, tf32_tensor = 0, fp16_tensor = 0, memory_tbs = 0;
};

// Hopper's rates per SM and clock (dense): 128 FP32 FMAs on the CUDA cores, 1024 TF32 and 2048
// FP16 FMAs on the tensor cores; memory: clock x bus width x 2 (double data rate).
Peaks hopper_peaks(int sms, double sm_clock_mhz, double memory_clock_mhz, int bus_width_bits);

double unit_peak_tflops(const Peaks& peaks, Unit unit);

struct Roofline {
  double flops = 0;        // 2 m n k
  double bytes = 0;        // A and B read once, C written once (and read once when beta != 0)
  double intensity = 0;    // flops / bytes
  double ridge = 0;        // the intensity where the unit's peak meets the memory bandwidth
  bool compute_bound = false;
  double bound_ms = 0;     // max(flops / peak, bytes / bandwidth)
};

Roofline roofline(const Peaks& peaks, Unit unit, std::int64_t m, std::int64_t n, std::int64_t k,
                  bool reads_c);

}  // namespace sgemm::bench
