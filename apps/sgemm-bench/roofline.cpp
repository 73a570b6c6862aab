#include "roofline.hpp"

#include <algorithm>

namespace sgemm::bench {

Peaks hopper_peaks(int sms, double sm_clock_mhz, double memory_clock_mhz, int bus_width_bits) {
  const double per_clock = sms * sm_clock_mhz * 1e6 / 1e12;  // TFLOPS per flop per SM and clock
  Peaks p;
  p.fp32_core = per_clock * 128 * 2;
  p.tf32_tensor = per_clock * 1024 * 2;
  p.fp16_tensor = per_clock * 2048 * 2;
  p.memory_tbs = memory_clock_mhz * 1e6 * 2 * bus_width_bits / 8 / 1e12;
  return p;
}

double unit_peak_tflops(const Peaks& peaks, Unit unit) {
  switch (unit) {
    case Unit::Fp32Core: return peaks.fp32_core;
    case Unit::Tf32Tensor: return peaks.tf32_tensor;
    case Unit::Fp16Tensor: return peaks.fp16_tensor;
  }
  return peaks.fp32_core;
}

Roofline roofline(const Peaks& peaks, Unit unit, std::int64_t m, std::int64_t n, std::int64_t k,
                  bool reads_c) {
  Roofline r;
  const double dm = double(m), dn = double(n), dk = double(k);
  r.flops = 2 * dm * dn * dk;
  r.bytes = 4 * (dm * dk + dk * dn + dm * dn * (reads_c ? 2 : 1));
  r.intensity = r.flops / r.bytes;
  const double peak = unit_peak_tflops(peaks, unit);
  r.ridge = peaks.memory_tbs > 0 ? peak / peaks.memory_tbs : 0;
  r.compute_bound = r.intensity >= r.ridge;
  const double compute_ms = peak > 0 ? r.flops / (peak * 1e12) * 1e3 : 0;
  const double memory_ms = peaks.memory_tbs > 0 ? r.bytes / (peaks.memory_tbs * 1e12) * 1e3 : 0;
  r.bound_ms = std::max(compute_ms, memory_ms);
  return r;
}

}  // namespace sgemm::bench
