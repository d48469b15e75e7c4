#include "ast/rebatch.hpp"

#include <cctype>

#include "ast/expr.hpp"
#include "ast/lift.hpp"
#include "ast/mlir_parse.hpp"

namespace shlo {

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// `tensor<Bx` followed by a digit (a type of rank 2 or more led by the batch) -> `tensor<Nx`.
std::string retype_batch_led(const std::string& text, std::int64_t from, std::int64_t to) {
  const std::string old = "tensor<" + std::to_string(from) + "x", now = "tensor<" + std::to_string(to) + "x";
  std::string out;
  std::size_t at = 0;
  for (std::size_t p; (p = text.find(old, at)) != std::string::npos; at = p + old.size()) {
    const std::size_t next = p + old.size();
    const bool led = next < text.size() && std::isdigit(static_cast<unsigned char>(text[next]));
    out += text.substr(at, p - at) + (led ? now : old);
  }
  return out + text.substr(at);
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

// The name a verbatim line defines (`%name = ...`), or the line's first word.
std::string defined_name(const std::string& line) {
  const std::size_t start = line.find_first_not_of(' ');
  if (start == std::string::npos) return "";
  return line.substr(start, line.find(' ', start) - start);
}

}  // namespace

Rebatched rebatch(const Module& m, std::int64_t batch) {
  if (batch < 1) throw ExprError("rebatch: the batch must be at least 1, got " + std::to_string(batch));
  Lifted lifted = lift(m);
  // Without a constructor node the render's batch is no reading of the text: refuse rather than
  // retype whatever happens to lead with it.
  if (lifted.report.as_nodes == 0)
    throw ExprError("rebatch: no instruction is a printer constructor's (shlo lift --why), so the batch is unknown");
  Render& r = lifted.render;
  Rebatched out;
  out.from = r.batch;
  out.to = batch;
  const std::string per_example = "tensor<" + std::to_string(r.batch) + "xf32>", per_example_now = "tensor<" + std::to_string(batch) + "xf32>";
  auto retype = [&](const std::string& type, bool per_example_too) {
    const std::string led = retype_batch_led(type, r.batch, batch);
    return per_example_too ? replace_all(led, per_example, per_example_now) : led;
  };
  for (auto& [name, type] : r.arguments) {
    if (name != "%x" && name != "%onehot" && name != "%do" && !starts_with(name, "%dp")) continue;
    const std::string now = retype(type, true);
    if (now != type) out.retyped.push_back(name);
    type = now;
  }
  const std::string constant = "dense<" + std::to_string(r.batch) + ".0>", constant_now = "dense<" + std::to_string(batch) + ".0>";
  for (RenderItem& item : r.items) {
    if (item.expr) continue;
    const std::string& line = item.line;
    const std::string name = defined_name(line);
    std::string now = retype(line, !starts_with(name, "%zb"));
    if (now.find(constant) != std::string::npos) {
      if (now != line || name == "%lbf" || name == "%lbfc" || name == "%bsc") now = replace_all(now, constant, constant_now);
      else out.warnings.push_back("a verbatim constant equal to B is left as it is: " + now.substr(now.find_first_not_of(' ')));
    }
    if (now != line) out.retyped.push_back(name);
    item.line = now;
  }
  if (r.name.size() >= 4 && r.name.compare(r.name.size() - 4, 4, "_fwd") == 0)
    for (auto& type : r.result_types) type = retype_batch_led(type, r.batch, batch);
  r.batch = batch;
  out.text = emit_render(r);
  // The variant must be a program: a text whose batch the lift misread (a lone elementwise node
  // reads as batch 1) retypes some operands and not others, which the verifier refuses.
  try {
    parse_module(out.text, "the text at batch " + std::to_string(batch));
  } catch (const ParseError& e) {
    throw ExprError("rebatch: the re-emitted text does not verify, so this is not a batch the printer reads from the text: " +
                    std::string(e.what()));
  }
  return out;
}

}  // namespace shlo
