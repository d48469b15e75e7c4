#include "cli/parse_cmd.hpp"

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

#include "ast/mlir_parse.hpp"
#include "ast/mlir_print.hpp"

namespace shlo::cli {

namespace {

void count_ops(const std::vector<Instruction>& body, std::map<std::string, int>& counts) {
  for (const auto& inst : body) {
    ++counts[op_name(inst.op)];
    for (const auto& r : inst.regions) count_ops(r.body, counts);
  }
}

void summary(const Module& m) {
  const Function& f = m.function();
  std::printf("%s: module @%s, func @%s\n", m.file.c_str(), m.name.c_str(), f.name.c_str());
  std::printf("  arguments (%zu):\n", f.arguments.size());
  for (const auto& a : f.arguments) std::printf("    %-12s %s\n", a.name.c_str(), to_string(a.type).c_str());
  std::printf("  results (%zu):\n", f.return_values.size());
  for (std::size_t i = 0; i < f.return_values.size(); ++i)
    std::printf("    %-12s %s\n", f.return_values[i].c_str(), to_string(f.return_types[i]).c_str());
  std::map<std::string, int> counts;
  std::vector<Instruction> top;
  int comments = 0, calls = 0, checks = 0;
  for (const auto& item : f.body) {
    if (const auto* inst = std::get_if<Instruction>(&item)) top.push_back(*inst);
    else if (std::holds_alternative<Comment>(item)) ++comments;
    else if (std::holds_alternative<Call>(item)) ++calls;
    else ++checks;
  }
  count_ops(top, counts);
  if (m.functions.size() > 1) std::printf("  (the entry function of %zu)\n", m.functions.size());
  if (calls + checks > 0) std::printf("  calls: %d, checks: %d\n", calls, checks);
  std::printf("  instructions: %zu (+ %d comment lines); per op, regions included:\n", top.size(), comments);
  for (const auto& [name, n] : counts) std::printf("    %-20s %d\n", name.c_str(), n);
}

}  // namespace

void add_parse_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("parse", "Parse and verify StableHLO text (the Lean printer's forms).\n"
                                          "Prints a summary, or with --print the normalised text. Exit 1 with\n"
                                          "file:line:column and what was expected on any error.");
  auto file = std::make_shared<std::string>();
  auto print = std::make_shared<bool>(false);
  cmd->add_option("file", *file, "the .mlir file")->required();
  cmd->add_flag("--print", *print, "print the normalised text instead of the summary");
  cmd->callback([file, print]() {
    Module m;
    try {
      m = parse_module_file(*file);
    } catch (const ParseError& e) {
      std::cerr << e.what() << "\n";
      throw CLI::RuntimeError(1);
    }
    if (*print) std::cout << print_module(m);
    else summary(m);
  });
}

}  // namespace shlo::cli
