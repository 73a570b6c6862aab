// The choice of kernel for a call (dispatch.hpp), from the per-math policies in policy.hpp.
#include "dispatch/dispatch.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "api/registry.hpp"
#include "dispatch/policy.hpp"

namespace sgemm::detail {
namespace {

// The rules of `math`, then (for the tensor-core maths) the FP32 ones.
std::vector<Rule> rules_for(Math math) {
  std::vector<Rule> rules;
  if (math == Math::Tf32) rules.assign(tf32_rules().begin(), tf32_rules().end());
  if (math == Math::Fp32Tf32x3) rules.assign(tf32x3_rules().begin(), tf32x3_rules().end());
  rules.insert(rules.end(), fp32_rules().begin(), fp32_rules().end());
  return rules;
}

// The first kernel of `math`'s handoff order that supports p and honours run_if.
const KernelEntry* pick_handoff(const Canonical& p, Math math, const Device& device) {
  for (std::string_view slug : handoff_order(math)) {
    const KernelEntry* e = find_kernel(slug);
    if (e && e->accepts_run_if && e->why_not(p, device).empty()) return e;
  }
  return nullptr;
}

std::string bytes_text(std::size_t bytes) {
  if (bytes >= (std::size_t(1) << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// Why a kernel cannot take a call; empty `why` and no workspace shortfall when it can.
struct Verdict {
  std::string_view why;          // the kernel's own reason, or the dispatch's
  std::size_t needs_bytes = 0;   // > 0: the workspace it needs, more than the caller gave
  bool ok() const { return why.empty() && needs_bytes == 0; }
  std::string text(std::size_t workspace_limit) const {
    if (needs_bytes)
      return "needs " + bytes_text(needs_bytes) + " of workspace, the caller gave " +
             bytes_text(workspace_limit);
    return std::string(why);
  }
};

// Whether `e` can run p on device within workspace_limit; fills the decision's kernel, handoff
// and workspace when it can. No strings are built on this path: gemm() takes it on every call.
Verdict try_kernel(const KernelEntry& e, const Canonical& call, const Device& device,
                   std::size_t workspace_limit, Decision* d) {
  // A kernel without `batched` runs each matrix as a call of its own. Matrix i starts i strides
  // after matrix 0, so its pointers' offsets from 16-byte alignment repeat every 4 matrices:
  // the first 4 stand for all (what a kernel supports, the handoff, the scratch).
  const Canonical p = e.batched ? call : call.matrix(0);
  if (std::string_view why = e.why_not(p, device); !why.empty()) return {why};
  const std::int64_t alignment_classes = std::min<std::int64_t>(call.batch, 4);
  for (std::int64_t i = 1; i < alignment_classes; ++i)
    if (std::string_view why = e.why_not(call.matrix(i), device); !why.empty()) return {why};
  const KernelEntry* handoff = nullptr;
  std::size_t bytes = 0;
  for (std::int64_t i = 0; i < (e.batched ? 1 : alignment_classes); ++i) {
    const Canonical q = e.batched ? p : call.matrix(i);
    const KernelEntry* h = nullptr;
    if (e.needs_handoff) {
      h = pick_handoff(q, e.info.math, device);
      if (!h) return {"no kernel to hand unfit operands to"};
      if (handoff && h != handoff) return {"its matrices would hand off to different kernels"};
    }
    handoff = h;
    bytes = std::max(bytes, e.workspace_bytes ? e.workspace_bytes(q, device, handoff) : 0);
  }
  if (bytes > workspace_limit) return {{}, bytes};
  d->kernel = &e;
  d->handoff = handoff;
  d->workspace_bytes = bytes;
  return {};
}

// Whether `e` can run p as `ranges` ranges of k (Rule::k_ranges); fills the decision as
// try_kernel does, the partial sums' workspace included.
Verdict try_k_ranges(const KernelEntry& e, const Canonical& p, std::int64_t ranges,
                     const Device& device, std::size_t workspace_limit, Decision* d) {
  // Ranges of a multiple of 16 k-values keep every range's A and B 16-byte aligned.
  const std::int64_t k_range = round_up(ceil_div(p.k, ranges), 16);
  const KRanges split = k_ranges_of(p, k_range, nullptr);
  Decision part;
  if (Verdict v = try_kernel(e, split.whole, device, SIZE_MAX, &part); !v.ok()) return v;
  const KernelEntry* handoff = part.handoff;
  std::size_t bytes = part.workspace_bytes;
  if (split.rest.k > 0) {
    if (Verdict v = try_kernel(e, split.rest, device, SIZE_MAX, &part); !v.ok()) return v;
    if (part.handoff != handoff) return {"its ranges would hand off to different kernels"};
    bytes = std::max(bytes, part.workspace_bytes);
  }
  const std::int64_t count = ceil_div(p.k, k_range);
  bytes += k_ranges_bytes(p, count);
  if (bytes > workspace_limit) return {{}, bytes};
  d->kernel = &e;
  d->handoff = handoff;
  d->workspace_bytes = bytes;
  d->k_ranges = count;
  d->k_range = k_range;
  return {};
}

// Whether `e` can run p on aligned copies (Rule::staged); fills the decision as try_kernel does,
// the copies' workspace included.
Verdict try_staged(const KernelEntry& e, const Canonical& p, const Device& device,
                   std::size_t workspace_limit, Decision* d) {
  const Staging s = staging_of(p);
  // The copies start at workspace offsets, 256-byte aligned: such an address stands for them.
  float* aligned = reinterpret_cast<float*>(std::uintptr_t(Workspace::kAlign));
  Decision part;
  if (Verdict v = try_kernel(e, staged_call(p, s, aligned, aligned, aligned), device, SIZE_MAX,
                             &part);
      !v.ok())
    return v;
  const std::size_t bytes = part.workspace_bytes + s.a_bytes + s.b_bytes + s.c_bytes;
  if (bytes > workspace_limit) return {{}, bytes};
  d->kernel = &e;
  d->handoff = part.handoff;
  d->workspace_bytes = bytes;
  d->staged = true;
  return {};
}

// The chosen configuration in words, for --explain.
std::string describe(const Decision& d, const Canonical& p, const Device& device) {
  std::string text;
  if (d.kernel->configuration) {
    const Canonical run = d.k_ranges > 1 ? k_ranges_of(p, d.k_range, nullptr).whole : p;
    text = d.kernel->configuration(run, device) + "; ";
  }
  text += "workspace " + bytes_text(d.workspace_bytes);
  if (d.k_ranges > 1)
    text += "; k cut into " + std::to_string(d.k_ranges) + " ranges of " +
            std::to_string(d.k_range) + ", run as one batch, added by split_sum";
  if (d.staged)
    text += "; A and B copied with leading dimensions rounded up to multiples of 4, C computed "
            "aside and added by split_sum";
  if (d.handoff) text += "; operands FP16 cannot carry go to " + std::string(d.handoff->info.slug);
  return text;
}

// One launch per matrix of a batch leaves most SMs idle unless each matrix fills the GPU on its
// own: `auto` takes such a kernel for a batch only when a matrix has a 128 x 128 tile per SM.
std::string_view batch_unsuited(const KernelEntry& e, const Canonical& p, const Device& device) {
  if (p.batch == 1 || e.batched) return {};
  if (ceil_div(p.m, 128) * ceil_div(p.n, 128) >= device.sms) return {};
  return "launches once per matrix, and a matrix this small leaves most SMs idle";
}

}  // namespace

KRanges k_ranges_of(const Canonical& p, std::int64_t k_range, float* partial) {
  KRanges r;
  Canonical q = p;
  q.k = k_range;
  q.alpha = 1.0f, q.beta = 0.0f;
  q.c = partial, q.ldc = k_ranges_ld(p);
  q.stride_a = p.a_k_major ? k_range : k_range * p.lda;
  q.stride_b = p.b_k_major ? k_range : k_range * p.ldb;
  q.stride_c = p.m * q.ldc;
  q.batch = p.k / k_range;
  r.whole = q;
  r.rest = q.matrix(q.batch);
  r.rest.k = p.k - q.batch * k_range;
  return r;
}

Staging staging_of(const Canonical& p) {
  Staging s;
  s.a_lines = p.a_k_major ? p.m : p.k, s.a_length = p.a_k_major ? p.k : p.m;
  s.b_lines = p.b_k_major ? p.n : p.k, s.b_length = p.b_k_major ? p.k : p.n;
  s.lda = round_up(s.a_length, 4), s.ldb = round_up(s.b_length, 4), s.ldc = k_ranges_ld(p);
  s.a_bytes = Workspace::rounded(std::size_t(s.a_lines * s.lda) * sizeof(float));
  s.b_bytes = Workspace::rounded(std::size_t(s.b_lines * s.ldb) * sizeof(float));
  s.c_bytes = k_ranges_bytes(p, 1);
  return s;
}

Canonical staged_call(const Canonical& p, const Staging& s, const float* a, const float* b,
                      float* c) {
  Canonical q = p;
  q.a = a, q.lda = s.lda;
  q.b = b, q.ldb = s.ldb;
  q.c = c, q.ldc = s.ldc;
  q.alpha = 1.0f, q.beta = 0.0f;
  return q;
}

Canonical fold_batch(const Canonical& p) {
  if (p.batch == 1) return p;
  Canonical q = p;
  q.batch = 1;
  q.stride_a = q.stride_b = q.stride_c = 0;
  // B shared, A's and C's matrices one below the other: rows i * m + r of one taller A and C
  // (an M-major A's columns must then hold all of them, as a legal call's would).
  const bool a_stacks = p.a_k_major ? p.stride_a == p.m * p.lda
                                    : p.stride_a == p.m && p.lda >= p.m * p.batch;
  if (p.stride_b == 0 && a_stacks && p.stride_c == p.m * p.ldc) {
    q.m = p.m * p.batch;
    return q;
  }
  // A shared, B's and C's matrices side by side: columns i * n + j of one wider B and C.
  const bool b_stacks = p.b_k_major ? p.stride_b == p.n * p.ldb
                                    : p.stride_b == p.n && p.ldb >= p.n * p.batch;
  if (p.stride_a == 0 && b_stacks && p.stride_c == p.n && p.ldc >= p.n * p.batch) {
    q.n = p.n * p.batch;
    return q;
  }
  return p;
}

std::vector<std::string_view> auto_order(Math math) {
  std::vector<std::string_view> order;
  for (const Rule& r : rules_for(math)) order.push_back(r.slug);
  return order;
}

Status choose(const Canonical& p, const Options& options, const Device& device,
              std::size_t workspace_limit, Decision* out, std::string* message, bool explain) {
  *out = Decision{};
  auto record = [&](const KernelEntry* e, std::string verdict) {
    if (explain) out->considered.push_back({e, std::move(verdict)});
  };
  if (options.kernel != "auto") {
    const KernelEntry* e = find_kernel(options.kernel);
    if (!e) {
      *message = "options.kernel: no kernel named '" + std::string(options.kernel) + "'";
      return Status::InvalidValue;
    }
    if (e->info.math != options.math) {
      *message = "options.kernel: '" + std::string(e->info.slug) + "' computes " +
                 to_string(e->info.math) + " math but options.math is " + to_string(options.math);
      return Status::InvalidValue;
    }
    const Verdict v = try_kernel(*e, p, device, workspace_limit, out);
    if (!v.ok()) {
      *message = std::string(e->info.slug) + ": " + v.text(workspace_limit);
      record(e, v.text(workspace_limit));
      return Status::NotSupported;
    }
    record(e, "chosen");
    if (explain) out->detail = describe(*out, p, device);
    return Status::Success;
  }
  for (const Rule& rule : rules_for(options.math)) {
    const KernelEntry* e = find_kernel(rule.slug);
    if (!e) continue;  // not built for this target
    std::string_view reason = batch_unsuited(*e, p, device);
    if (reason.empty() && rule.unsuited) reason = rule.unsuited(p, device);
    if (!reason.empty()) {
      record(e, "policy: " + std::string(reason));
      continue;
    }
    const std::int64_t ranges = rule.k_ranges ? rule.k_ranges(p, device) : 1;
    const Verdict v = rule.staged ? try_staged(*e, p, device, workspace_limit, out)
                      : ranges > 1 ? try_k_ranges(*e, p, ranges, device, workspace_limit, out)
                                   : try_kernel(*e, p, device, workspace_limit, out);
    if (v.ok()) {
      record(e, "chosen");
      if (explain) out->detail = describe(*out, p, device);
      return Status::Success;
    }
    record(e, v.text(workspace_limit));
  }
  *message = std::string("auto: no kernel computes this call in ") + to_string(options.math) +
             " math";
  return Status::NotSupported;
}

}  // namespace sgemm::detail
