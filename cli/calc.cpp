#include "cli/calc.hpp"

#include <cstdio>
#include <iostream>
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "interp/domain/domain_spec.hpp"

namespace shlo::cli {

namespace {

const std::vector<std::string> kUnary = {"neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "logistic"};
const std::vector<std::string> kBinary = {"add", "sub", "mul", "div", "max", "min",
                                          "EQ", "NE", "LT", "LE", "GT", "GE"};

template <class D>
std::string apply(const D& d, const std::string& op, const std::vector<std::string>& args) {
  auto arg = [&](std::size_t i) {
    const std::string& a = args.at(i);
    if (a.rfind("0x", 0) == 0 || a.rfind("0X", 0) == 0)
      return d.from_bits(std::stoull(a.substr(2), nullptr, 16),
                         a.size() > 10 ? FloatFormat::Binary64 : FloatFormat::Binary32);
    return d.parse(a);
  };
  if (op == "neg") return d.to_string(d.neg(arg(0)));
  if (op == "abs") return d.to_string(d.abs(arg(0)));
  if (op == "exp") return d.to_string(d.exp(arg(0)));
  if (op == "log") return d.to_string(d.log(arg(0)));
  if (op == "sqrt") return d.to_string(d.sqrt(arg(0)));
  if (op == "rsqrt") return d.to_string(d.rsqrt(arg(0)));
  if (op == "tanh") return d.to_string(d.tanh(arg(0)));
  if (op == "logistic") return d.to_string(d.logistic(arg(0)));
  if (op == "add") return d.to_string(d.add(arg(0), arg(1)));
  if (op == "sub") return d.to_string(d.sub(arg(0), arg(1)));
  if (op == "mul") return d.to_string(d.mul(arg(0), arg(1)));
  if (op == "div") return d.to_string(d.div(arg(0), arg(1)));
  if (op == "max") return d.to_string(d.max(arg(0), arg(1)));
  if (op == "min") return d.to_string(d.min(arg(0), arg(1)));
  return to_string(d.compare(parse_compare_direction(op), arg(0), arg(1)));
}

}  // namespace

void add_calc_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "calc", "Apply one scalar operation in one domain, or in every domain with --domain all.\n"
              "  Example: shlo calc exp 0.5 --domain interval:64");
  struct Options {
    std::string op;
    std::vector<std::string> args;
    std::string domain = "all";
  };
  auto opts = std::make_shared<Options>();
  std::string ops;
  for (const auto& o : kUnary) ops += o + " ";
  for (const auto& o : kBinary) ops += o + " ";
  cmd->add_option("op", opts->op, "operation: " + ops)->required();
  cmd->add_option("args", opts->args, "operands: decimal literals (0.1, 1.0e-05, 3/4, -inf) or hex bit patterns (0xFF800000)")
      ->required();
  cmd->add_option("--domain,-d", opts->domain, std::string("domain: ") + kDomainForms + ", or all")
      ->capture_default_str();
  cmd->callback([opts]() {
    const bool unary = std::find(kUnary.begin(), kUnary.end(), opts->op) != kUnary.end();
    const bool binary = std::find(kBinary.begin(), kBinary.end(), opts->op) != kBinary.end();
    if (!unary && !binary) throw CLI::ValidationError("op", "unknown operation '" + opts->op + "'");
    const std::size_t arity = unary ? 1 : 2;
    if (opts->args.size() != arity)
      throw CLI::ValidationError("args", opts->op + " takes " + std::to_string(arity) + " operand(s), got " +
                                              std::to_string(opts->args.size()));
    std::vector<std::string> specs = {opts->domain};
    if (opts->domain == "all") specs = {"exact", "interval:256", "mpfr:256", "f64", "f32"};
    int failures = 0;
    for (const auto& spec : specs) {
      std::string result;
      try {
        AnyDomain d = parse_domain(spec);
        result = with_domain(d, [&](const auto& dom) { return apply(dom, opts->op, opts->args); });
      } catch (const DomainError& e) {
        result = std::string("error: ") + e.what();
        ++failures;
      }
      std::printf("%-14s %s\n", spec.c_str(), result.c_str());
    }
    if (failures == static_cast<int>(specs.size())) throw CLI::RuntimeError(1);
  });
}

}  // namespace shlo::cli
