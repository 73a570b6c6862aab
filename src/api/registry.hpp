#pragma once

#include <span>
#include <string_view>

#include "kernels/kernel.hpp"

namespace sgemm::detail {

std::span<const KernelEntry> registry();  // in ladder order
const KernelEntry* find_kernel(std::string_view slug);

}  // namespace sgemm::detail
