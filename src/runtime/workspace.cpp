// The per-device pools behind the calls' stream-ordered workspaces (workspace.hpp).
#include "runtime/workspace.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>

#include "runtime/device.hpp"

namespace sgemm::detail {
namespace {

constexpr int kMaxDevices = 64;
constexpr std::size_t kDefaultCacheLimit = std::size_t(1) << 30;

std::atomic<std::size_t> g_cache_limit{kDefaultCacheLimit};

struct Pools {
  std::mutex mutex;
  std::array<cudaMemPool_t, kMaxDevices> pool{};
  std::array<std::size_t, kMaxDevices> limit{};  // the release threshold the pool was given
};
Pools& pools() {
  static Pools p;
  return p;
}

// The pool of `device`, created on first use (in relaxed capture mode: creating a pool is
// refused during a global-mode capture), its release threshold kept at the cache limit.
cudaError_t pool_of(int device, cudaMemPool_t* out) {
  if (device < 0 || device >= kMaxDevices) return cudaErrorInvalidDevice;
  Pools& p = pools();
  std::lock_guard lock(p.mutex);
  const std::size_t limit = g_cache_limit.load();
  if (p.pool[device] == nullptr || p.limit[device] != limit) {
    const RelaxedCapture relaxed;
    if (p.pool[device] == nullptr) {
      cudaMemPoolProps props{};
      props.allocType = cudaMemAllocationTypePinned;
      props.handleTypes = cudaMemHandleTypeNone;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id = device;
      if (cudaError_t e = cudaMemPoolCreate(&p.pool[device], &props)) {
        p.pool[device] = nullptr;
        return e;
      }
    }
    std::uint64_t threshold = limit;
    if (cudaError_t e = cudaMemPoolSetAttribute(p.pool[device], cudaMemPoolAttrReleaseThreshold,
                                                &threshold))
      return e;
    p.limit[device] = limit;
  }
  *out = p.pool[device];
  return cudaSuccess;
}

}  // namespace

cudaError_t take_pooled(int device, std::size_t bytes, cudaStream_t stream, void** out) {
  *out = nullptr;
  if (bytes == 0) return cudaSuccess;
  cudaMemPool_t pool;
  if (cudaError_t e = pool_of(device, &pool)) return e;
  return cudaMallocFromPoolAsync(out, bytes, pool, stream);
}

void set_pool_cache_limit(std::size_t bytes) { g_cache_limit.store(bytes); }
std::size_t pool_cache_limit() { return g_cache_limit.load(); }

cudaError_t trim_pools() {
  Pools& p = pools();
  std::lock_guard lock(p.mutex);
  for (cudaMemPool_t pool : p.pool)
    if (pool != nullptr)
      if (cudaError_t e = cudaMemPoolTrimTo(pool, 0)) return e;
  return cudaSuccess;
}

}  // namespace sgemm::detail
