#include "ast/emit.hpp"

#include "ast/template.hpp"

namespace shlo {

int g_fault_allreduce_divisor_offset = 0;

std::string emit_tokens(std::int64_t batch, const std::vector<Token>& tokens, EmitState& state) {
  std::string out;
  for (const Token& t : tokens) {
    const CtorSpec& spec = token_spec(t);
    if (spec.arity == Arity::Leaf) {  // operand: no text, its name goes on the stack
      state.stack.push_back(t.strings.at(0));
      continue;
    }
    const int arity = token_arity(t);
    if (static_cast<int>(state.stack.size()) < arity) {
      out += "    // MALFORMED token stream\n";
      continue;
    }
    if (spec.arity == Arity::Family && t.replicas <= 1) continue;  // R = 1: no text, operand stays
    const Template& tmpl = get_template(spec.templ);
    TemplateEnv env;
    env.nats["B"] = batch;
    for (std::size_t i = 0; i < spec.skel_nats.size(); ++i) env.nats[spec.skel_nats[i]] = t.nats.at(i);
    for (const auto& [template_name, ours] : spec.template_renames)
      if (env.nats.count(ours)) env.nats[template_name] = env.nats[ours];
    for (std::size_t i = 0; i < spec.skel_strings.size(); ++i) env.strings[spec.skel_strings[i]] = t.strings.at(i);
    env.ds = t.ds;
    if (spec.arity == Arity::Family) env.nats["R"] = t.replicas;
    // Operands: the right one is on top of the stack.
    for (int k = static_cast<int>(tmpl.operands.size()); k-- > 0;) {
      env.operands[tmpl.operands[static_cast<std::size_t>(k)]] = state.stack.back();
      state.stack.pop_back();
    }
    for (int k = 0; k < tmpl.fresh_count; ++k) env.fresh.push_back("%v" + std::to_string(state.counter++));
    std::string text = expand(tmpl, env);
    if (spec.arity == Arity::Family && g_fault_allreduce_divisor_offset != 0) {  // the mutation hook
      const std::string good = "dense<" + std::to_string(t.replicas) + ".0>";
      const std::string bad = "dense<" + std::to_string(t.replicas + g_fault_allreduce_divisor_offset) + ".0>";
      text.replace(text.find(good), good.size(), bad);
    }
    out += text;
    if (tmpl.comment) continue;  // printed_as_comment: the operand stays on the stack
    state.stack.push_back(spec.arity == Arity::Family ? "%armean" + t.strings.at(0) : env.fresh.back());
  }
  return out;
}

Emitted emit(std::int64_t batch, const Expr& e, std::int64_t& counter) {
  EmitState state;
  state.counter = counter;
  Emitted out;
  out.text = emit_tokens(batch, to_tokens(skel(e)), state);
  counter = state.counter;
  out.result = state.stack.size() == 1 ? state.stack.back() : "%MALFORMED";
  return out;
}

std::string emit_render(const Render& r) {
  std::string out = "module @" + r.module_name + " {\n  func.func @" + r.name + "(";
  for (std::size_t i = 0; i < r.arguments.size(); ++i)
    out += (i ? ", " : "") + r.arguments[i].first + ": " + r.arguments[i].second;
  out += ") -> ";
  std::string types;
  for (std::size_t i = 0; i < r.result_types.size(); ++i) types += (i ? ", " : "") + r.result_types[i];
  out += r.parenthesized_results ? "(" + types + ")" : types;
  out += " {\n";
  std::int64_t counter = 0;
  for (const auto& item : r.items) {
    if (!item.expr) {
      out += item.line + "\n";
      continue;
    }
    if (item.counter >= 0) counter = item.counter;
    out += emit(r.batch, *item.expr, counter).text;
  }
  out += "    return ";
  for (std::size_t i = 0; i < r.return_values.size(); ++i) out += (i ? ", " : "") + r.return_values[i];
  out += " : " + types + "\n  }\n}\n";
  return out;
}

}  // namespace shlo
