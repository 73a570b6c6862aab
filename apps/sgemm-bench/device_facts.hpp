// What the bench reports about the GPU it runs on.
#pragma once

#include <cstddef>
#include <string>

#include "roofline.hpp"

namespace sgemm::bench {

struct DeviceFacts {
  std::string name;
  int sms = 0, clock_mhz = 0, mem_clock_mhz = 0, bus_width = 0, cc = 0, runtime = 0, driver = 0;
  std::size_t l2_bytes = 0;
  Peaks peaks;
};

DeviceFacts read_device_facts(int device);  // throws CudaFailure
std::string version(int v);                  // 13000 -> "13.0"
std::string today();                         // UTC, YYYY-MM-DD

}  // namespace sgemm::bench
