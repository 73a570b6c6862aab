#include "device_facts.hpp"

#include <cuda_runtime_api.h>

#include <ctime>

#include "timer.hpp"

namespace sgemm::bench {

DeviceFacts read_device_facts(int device) {
  DeviceFacts f;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  f.name = prop.name;
  f.sms = prop.multiProcessorCount;
  f.l2_bytes = prop.l2CacheSize;
  f.cc = prop.major * 10 + prop.minor;
  int khz = 0;
  check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device), "clock rate");
  f.clock_mhz = khz / 1000;
  check(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device), "memory clock rate");
  f.mem_clock_mhz = khz / 1000;
  check(cudaDeviceGetAttribute(&f.bus_width, cudaDevAttrGlobalMemoryBusWidth, device), "bus width");
  cudaRuntimeGetVersion(&f.runtime);
  cudaDriverGetVersion(&f.driver);
  f.peaks = hopper_peaks(f.sms, f.clock_mhz, f.mem_clock_mhz, f.bus_width);
  return f;
}

std::string version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

std::string today() {
  const std::time_t t = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

}  // namespace sgemm::bench
