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

// Whether `e` can run p on device within workspace_limit; fills the decision's kernel, handoff
// and workspace when it can, else says why not.
std::string try_kernel(const KernelEntry& e, const Canonical& p, const Device& device,
                       std::size_t workspace_limit, Decision* d) {
  if (std::string_view why = e.why_not(p, device); !why.empty()) return std::string(why);
  const KernelEntry* handoff = nullptr;
  if (e.needs_handoff) {
    handoff = pick_handoff(p, e.info.math, device);
    if (!handoff) return "no kernel to hand unfit operands to";
  }
  const std::size_t bytes = e.workspace_bytes ? e.workspace_bytes(p, device, handoff) : 0;
  if (bytes > workspace_limit)
    return "needs " + bytes_text(bytes) + " of workspace, the caller gave " +
           bytes_text(workspace_limit);
  d->kernel = &e;
  d->handoff = handoff;
  d->workspace_bytes = bytes;
  d->detail = "workspace " + bytes_text(bytes);
  if (handoff)
    d->detail += "; operands FP16 cannot carry go to " + std::string(handoff->info.slug);
  return {};
}

}  // namespace

std::vector<std::string_view> auto_order(Math math) {
  std::vector<std::string_view> order;
  for (const Rule& r : rules_for(math)) order.push_back(r.slug);
  return order;
}

Status choose(const Canonical& p, const Options& options, const Device& device,
              std::size_t workspace_limit, Decision* out, std::string* message) {
  *out = Decision{};
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
    std::string why = try_kernel(*e, p, device, workspace_limit, out);
    out->considered.push_back({e, why.empty() ? "chosen" : why});
    if (!why.empty()) {
      *message = std::string(e->info.slug) + ": " + why;
      return Status::NotSupported;
    }
    return Status::Success;
  }
  for (const Rule& rule : rules_for(options.math)) {
    const KernelEntry* e = find_kernel(rule.slug);
    if (!e) continue;  // not built for this target
    std::string why;
    if (rule.unsuited)
      if (std::string_view reason = rule.unsuited(p, device); !reason.empty())
        why = "policy: " + std::string(reason);
    if (why.empty()) why = try_kernel(*e, p, device, workspace_limit, out);
    out->considered.push_back({e, why.empty() ? "chosen" : why});
    if (why.empty()) return Status::Success;
  }
  *message = std::string("auto: no kernel computes this call in ") + to_string(options.math) +
             " math";
  return Status::NotSupported;
}

}  // namespace sgemm::detail
