// The library's lift and den: the expression layer, as `shlo lift` and `shlo den` reach it.
#include <nlohmann/json.hpp>

#include "ast/expr_json.hpp"
#include "ast/lift.hpp"
#include "interp/den.hpp"
#include "interp/domain/domain_spec.hpp"
#include "lib/api_internal.hpp"

namespace shlo_oracle {

using detail::bad_input;
using detail::run_error;

Expected<LiftResult> lift(const Program& p) {
  const shlo::Lifted lifted = shlo::lift(p.module());
  LiftResult out;
  out.render_json = shlo::render_to_json(lifted.render).dump(1) + "\n";
  out.instructions = lifted.report.instructions;
  out.as_nodes = lifted.report.as_nodes;
  out.verbatim = lifted.report.verbatim;
  out.constructors = lifted.report.constructors;
  out.emitted = shlo::emit_render(lifted.render);
  return out;
}

Expected<DenValues> den(const std::string& expression_json, const std::string& domain) {
  shlo::ExprPtr e;
  shlo::AnyDomain any;
  try {
    const auto j = nlohmann::json::parse(expression_json);
    const bool wrapped = j.is_object() && j.contains("expr");
    e = shlo::expr_from_json(wrapped ? j["expr"] : j, wrapped ? "/expr" : "");
    any = shlo::parse_domain(domain);
  } catch (const std::exception& err) {  // not JSON, not an expression, an unknown domain
    return bad_input(err.what());
  }
  return shlo::with_domain(any, [&](const auto& d) -> Expected<DenValues> {
    try {
      const auto r = shlo::denote(d, *e);
      DenValues out;
      for (const auto& x : r.value) {
        out.text.push_back(d.to_string(x));
        out.nearest.push_back(d.to_double(x));
      }
      for (const auto& ev : r.events)
        out.events.push_back(ev.kind + " at " + ev.node + " (" + ev.constructor + "), index " + std::to_string(ev.index));
      return out;
    } catch (const std::exception& err) {  // a skeleton without values, an irrational value in exact
      return run_error(err.what());
    }
  });
}

}  // namespace shlo_oracle
