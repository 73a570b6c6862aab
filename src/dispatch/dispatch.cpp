// The choice of kernel for a call (dispatch.hpp), from the per-math policies in policy.hpp.
#include "dispatch/dispatch.hpp"

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
Verdict try_kernel(const KernelEntry& e, const Canonical& p, const Device& device,
                   std::size_t workspace_limit, Decision* d) {
  if (std::string_view why = e.why_not(p, device); !why.empty()) return {why};
  const KernelEntry* handoff = nullptr;
  if (e.needs_handoff) {
    handoff = pick_handoff(p, e.info.math, device);
    if (!handoff) return {"no kernel to hand unfit operands to"};
  }
  const std::size_t bytes = e.workspace_bytes ? e.workspace_bytes(p, device, handoff) : 0;
  if (bytes > workspace_limit) return {{}, bytes};
  d->kernel = &e;
  d->handoff = handoff;
  d->workspace_bytes = bytes;
  return {};
}

// The chosen configuration in words, for --explain.
std::string describe(const Decision& d) {
  std::string text = "workspace " + bytes_text(d.workspace_bytes);
  if (d.handoff) text += "; operands FP16 cannot carry go to " + std::string(d.handoff->info.slug);
  return text;
}

}  // namespace

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
    if (explain) out->detail = describe(*out);
    return Status::Success;
  }
  for (const Rule& rule : rules_for(options.math)) {
    const KernelEntry* e = find_kernel(rule.slug);
    if (!e) continue;  // not built for this target
    if (rule.unsuited)
      if (std::string_view reason = rule.unsuited(p, device); !reason.empty()) {
        record(e, "policy: " + std::string(reason));
        continue;
      }
    const Verdict v = try_kernel(*e, p, device, workspace_limit, out);
    if (v.ok()) {
      record(e, "chosen");
      if (explain) out->detail = describe(*out);
      return Status::Success;
    }
    record(e, v.text(workspace_limit));
  }
  *message = std::string("auto: no kernel computes this call in ") + to_string(options.math) +
             " math";
  return Status::NotSupported;
}

}  // namespace sgemm::detail
