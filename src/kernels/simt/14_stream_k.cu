// Rung 14 — stream-K: the tiles that do not fill a whole round are shared out along k, so every
// SM gets the same amount of work.
//
// Rung 13 gives its G CTAs (one per SM) whole tiles. When the T tiles are not a multiple of G the
// last round leaves SMs idle: 4096³ has T = 512 tiles of 128 x 256 for G = 132, four rounds of
// which the last is 116/132 full, so 3% of the SM time is idle; 8192³ (2048 tiles, 15.5 rounds)
// loses the same 3%, 16384³ 1.5%. Stream-K (Osama, Merrill, Cecka, Garland and Owens, 2023)
// measures work in k-tile iterations instead of tiles and gives each CTA an equal share.
//
// The hybrid used here keeps rung 13 wherever it is already balanced:
// - the first T - S tiles go round-robin as whole tiles, exactly as in rung 13;
// - the last S tiles (S = G + T mod G, or T when T < 2G) are S * k_tiles iterations in tile
//   order, cut into G contiguous ranges of equal length, one per CTA. A range holds at least one
//   tile's iterations, so it ends in at most one tile it does not finish.
// Shapes whose tiles fill whole rounds (or fit in one) run exactly as rung 13.
//
// A tile split between CTAs is finished by the CTA that holds its last k-tile. Each CTA walks its
// range backwards, so its first piece is the one at the range's end: if that piece stops short of
// its tile's last k-tile, the CTA writes its raw sums to its own slot of a workspace and raises
// its flag; some CTA after it finishes the tile as the last piece of its walk, long after: it
// waits for the flags of the CTAs before it that hold pieces of the tile (normally already up),
// adds their slots to its sums in a fixed order, and stores C with alpha and beta. A CTA waits
// only for CTAs with lower indices, whose flags go up before they wait for anything (the rule
// CUB's decoupled look-back relies on), and every run sums the same pieces in the same order:
// the result is deterministic.
//
// The workspace (one 128 KB slot per CTA and the flags) comes from the library's stream-ordered
// pool for the call and goes back after the kernel; the flags are cleared with a memset on the
// call's stream.
#include "kernels/common/workspace.cuh"
#include "kernels/simt/13_tma.cuh"

namespace sgemm::detail {

#ifdef SGEMM_HAS_SM90A
namespace {

constexpr int kConsumerThreads = kConsumerWarps * 32;
constexpr int kSlotFloat4s = kTM * kTN / 4 * kConsumerThreads;  // one tile's sums: 128 KB

struct StreamKParams {
  std::int64_t dp_tiles;  // tiles [0, dp_tiles): whole, round-robin
  int share;              // the other tiles' k-tile iterations (fewer than 2^31), shared out:
  int extra;              // `share` to every CTA, one more to the first `extra`
  int k_tiles;            // per tile
  std::uint64_t div_magic;  // i / k_tiles = i * div_magic >> div_shift for 0 <= i < 2^31
  int div_shift;
  float4* slots;          // gridDim.x slots of kSlotFloat4s
  int* flags;             // gridDim.x flags, zero at launch
};

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)

struct StreamK {
  // The kernel's parameter itself (__grid_constant__), read from the constant bank when needed.
  const StreamKParams& sk;
  int next_tile;  // the next whole tile (launch_as checks that tile numbers fit in an int)
  int unwalked;   // the first `unwalked` iterations of this CTA's range are still to do

  // Everything here is computed from blockIdx, the parameters and itself with integer adds,
  // multiplies and compares, so the compiler keeps it, and the main loop's counters, in uniform
  // registers. (A division, or a load from memory, yields a per-thread value: the counters then
  // take ordinary registers from rung 13's main loop, which has none to spare, and it spilled and
  // ran 4-5% slower; docs/perf-notes.md.)
  __device__ explicit StreamK(const StreamKParams& params)
      : sk(params),
        next_tile(int(blockIdx.x)),
        unwalked(range_begin(blockIdx.x + 1) - range_begin(blockIdx.x)) {}

  // First iteration of CTA `cta`'s range (iterations counted from the first shared tile), in
  // 32 bits: launch_as takes the stream-K path only when the iterations fit.
  __device__ int range_begin(int cta) const {
    return cta * sk.share + (cta < sk.extra ? cta : sk.extra);
  }

  // i / k_tiles for 0 <= i < 2^31, as a multiply and a shift (launch_as computes the constants).
  __device__ int tile_of(int i) const {
    return int(std::uint64_t(i) * sk.div_magic >> sk.div_shift);
  }

  __device__ bool next(WorkItem& w) {
    if (next_tile < sk.dp_tiles) {
      w = {next_tile, 0, sk.k_tiles};
      next_tile += int(gridDim.x);
      return true;
    }
    if (unwalked == 0) return false;
    const int begin = range_begin(blockIdx.x), end = begin + unwalked;
    const int tile = tile_of(end - 1), tile_start = tile * sk.k_tiles;
    const int piece_begin = tile_start > begin ? tile_start : begin;
    w = {sk.dp_tiles + tile, piece_begin - tile_start, end - tile_start};
    unwalked = piece_begin - begin;
    return true;
  }

  template <class Store>
  __device__ void finish(const WorkItem& w, float (&acc)[kTM][kTN], const Store& store) const {
    const int consumer = threadIdx.x - kWarpgroup;  // read again: not held through the main loop
    // Thread `consumer` keeps its sums acc[i / 2][4 (i % 2) .. + 3] at float4 i * 256 + consumer
    // of a slot: the warps' accesses are coalesced. Every thread publishes its own part with a
    // release add on the slot's flag and reads another CTA's part after its own acquire of the
    // flag at 256, so no thread branches on its index and nothing waits at a barrier.
    if (w.k_end < sk.k_tiles) {  // the tile's end is another CTA's: leave the sums to it
      float4* slot = sk.slots + std::int64_t(blockIdx.x) * kSlotFloat4s;
#pragma unroll
      for (int i = 0; i < kTM * kTN / 4; ++i) {
        const float* v = &acc[i / 2][4 * (i % 2)];
        __stcg(slot + i * kConsumerThreads + consumer, float4{v[0], v[1], v[2], v[3]});
      }
      asm volatile("red.release.gpu.global.add.s32 [%0], 1;" ::"l"(sk.flags + blockIdx.x)
                   : "memory");
      return;
    }
    // The CTAs before this one whose ranges start inside the tile hold its other pieces. (A
    // piece that does not start the tile starts this CTA's range: the tile began k_begin
    // iterations earlier.)
    const int tile_start = range_begin(blockIdx.x) - w.k_begin;
    for (int cta = blockIdx.x; range_begin(cta) > tile_start;) {
      --cta;
      int published = 0;
      do {
        asm volatile("ld.acquire.gpu.global.b32 %0, [%1];"
                     : "=r"(published)
                     : "l"(sk.flags + cta)
                     : "memory");
      } while (published < kConsumerThreads);
      const float4* slot = sk.slots + std::int64_t(cta) * kSlotFloat4s;
#pragma unroll
      for (int i = 0; i < kTM * kTN / 4; ++i) {
        // Four loads at a time: left free, the compiler issues all 32 first (128 registers on
        // top of the 128 sums), and the register pressure spills into the main loop.
        if (i % 4 == 0) asm volatile("" ::: "memory");
        const float4 v = __ldcg(slot + i * kConsumerThreads + consumer);
        float* s = &acc[i / 2][4 * (i % 2)];
        s[0] += v.x, s[1] += v.y, s[2] += v.z, s[3] += v.w;
      }
    }
    store(acc);
  }
};
#endif  // sm_90a device code

template <bool AKMajor, bool BKMajor>
__global__ void __launch_bounds__(kThreads, 1)
    simt_14_stream_k_kernel(const Canonical p, const __grid_constant__ CUtensorMap tmap_a,
                            const __grid_constant__ CUtensorMap tmap_b, const TileOrder order,
                            const bool c_vec4, const __grid_constant__ StreamKParams sk) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  tma_gemm<AKMajor, BKMajor>(p, tmap_a, tmap_b, order, c_vec4, StreamK(sk));
#endif
}

template <bool AKMajor, bool BKMajor>
cudaError_t launch_as(const Canonical& p, cudaStream_t stream) {
  PipelineArgs args;
  if (!make_pipeline_args<AKMajor, BKMajor>(p, args)) return cudaErrorInvalidValue;
  const auto kernel = simt_14_stream_k_kernel<AKMajor, BKMajor>;
  const int sms = device_sm_count();
  if (sms == 0) return cudaErrorNoDevice;
  if (cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             kSmemBytes);
      err != cudaSuccess)
    return err;
  const std::int64_t tiles = args.order.tiles_m * args.order.tiles_n;
  if (tiles > INT_MAX) return cudaErrorInvalidValue;  // why_not refuses these
  const std::int64_t ctas = std::min<std::int64_t>(tiles, sms);
  const int k_tiles = int(ceil_div(p.k, kBK));
  StreamKParams sk{tiles, 0, 0, k_tiles, 0, 0, nullptr, nullptr};
  // Division by k_tiles as a multiply (Granlund and Montgomery): with 2^l >= k_tiles and
  // magic = ceil(2^(31 + l) / k_tiles) <= 2^32, i * magic >> (31 + l) is i / k_tiles for every
  // i < 2^31, and i * magic < 2^63.
  int l = 0;
  while ((std::int64_t(1) << l) < k_tiles) ++l;
  sk.div_shift = 31 + l;
  sk.div_magic = std::uint64_t(((std::int64_t(1) << sk.div_shift) + k_tiles - 1) / k_tiles);

  void* workspace = nullptr;
  const std::int64_t shared = tiles < 2 * ctas ? tiles : ctas + tiles % ctas;
  // Stream-K when the tiles leave a round part-full, and their iterations count in 32 bits (k up
  // to 2^34 / (2 x SMs): 65 million on 132 SMs); otherwise whole tiles, as rung 13.
  if (tiles > ctas && tiles % ctas != 0 && shared * k_tiles <= INT_MAX) {
    sk.dp_tiles = tiles - shared;
    // A share is at least one tile's iterations, since shared > ctas.
    sk.share = int(shared * k_tiles / ctas);
    sk.extra = int(shared * k_tiles % ctas);
    cudaMemPool_t pool;
    if (cudaError_t err = workspace_pool(&pool); err != cudaSuccess) return err;
    constexpr std::int64_t kFlagBytes = 4096;  // room for the flags of up to 1024 CTAs
    static_assert(kFlagBytes % 256 == 0);
    if (ctas * std::int64_t(sizeof(int)) > kFlagBytes) return cudaErrorInvalidConfiguration;
    const std::int64_t bytes = kFlagBytes + ctas * kSlotFloat4s * std::int64_t(sizeof(float4));
    if (cudaError_t err = cudaMallocFromPoolAsync(&workspace, std::size_t(bytes), pool, stream);
        err != cudaSuccess)
      return err;
    sk.flags = static_cast<int*>(workspace);
    sk.slots = reinterpret_cast<float4*>(static_cast<char*>(workspace) + kFlagBytes);
  }
  cudaError_t err = cudaSuccess;
  if (workspace) err = cudaMemsetAsync(sk.flags, 0, ctas * sizeof(int), stream);
  if (err == cudaSuccess) {
    kernel<<<unsigned(ctas), kThreads, kSmemBytes, stream>>>(p, args.tmap_a, args.tmap_b,
                                                             args.order, args.c_vec4, sk);
    err = cudaGetLastError();
  }
  if (workspace) {
    const cudaError_t free_err = cudaFreeAsync(workspace, stream);
    if (err == cudaSuccess) err = free_err;
  }
  return err;
}

// Rung 13's requirements, and tile numbers that fit in an int (a C of 2^46 elements would not).
std::string_view why_not_14(const Canonical& p) {
  if (const auto reason = why_not(p); !reason.empty()) return reason;
  if (ceil_div(p.m, kBM) * ceil_div(p.n, kBN) > INT_MAX) return "needs fewer than 2^31 tiles of C";
  return {};
}

cudaError_t launch(const Canonical& p, cudaStream_t stream) {
  return with_majorness(
      p, [&]<bool AKMajor, bool BKMajor>() { return launch_as<AKMajor, BKMajor>(p, stream); });
}

}  // namespace
#endif  // SGEMM_HAS_SM90A

SGEMM_KERNEL_ENTRIES(simt_14_stream_k) {
#ifdef SGEMM_HAS_SM90A
  static const KernelEntry entries[] = {{
      {"simt-14-stream-k", Track::Simt, 14,
       "rung 13's pipeline; the tiles past the last whole round shared out along k (stream-K)",
       Math::Fp32, "beyond the seeds: stream-K work decomposition (Osama et al., 2023)",
       "compute capability 9.0 (sm_90a); A, B 16-byte aligned; lda, ldb multiples of 4"},
      why_not_14, launch, 21, auto_suits}};
  return entries;
#else
  return {};
#endif
}

}  // namespace sgemm::detail
