#include "cli/expr_cmds.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "ast/expr_json.hpp"
#include "ast/lift.hpp"
#include "ast/mlir_parse.hpp"
#include "ast/rebatch.hpp"
#include "cli/den_cmd.hpp"

namespace shlo::cli {

namespace {

[[noreturn]] void input_error(const std::string& message) {
  std::cerr << message << "\n";
  throw CLI::RuntimeError(1);
}

void write_or_print(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text;
    return;
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) input_error(path + ": cannot write");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) input_error(path + ": cannot write");
}

// The first line where two texts differ, for a person to look at.
std::string first_difference(const std::string& a, const std::string& b) {
  std::size_t line = 1, i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) {
    if (a[i] == '\n') ++line;
    ++i;
  }
  if (i == a.size() && i == b.size()) return "";
  auto line_at = [](const std::string& s, std::size_t pos) {
    const std::size_t start = s.rfind('\n', pos == 0 ? 0 : pos - 1);
    const std::size_t from = start == std::string::npos ? 0 : start + 1;
    return s.substr(from, s.find('\n', from) - from);
  };
  return "line " + std::to_string(line) + ":\n  emitted:  " + line_at(a, i) + "\n  expected: " + line_at(b, i);
}

}  // namespace

void add_expr_commands(CLI::App& app) {
  {
    auto* cmd = app.add_subcommand("emit", "Print an SHlo expression or a render as StableHLO text, exactly as the Lean\n"
                                           "printer does. With --check FILE.mlir, compare with a file and name the first\n"
                                           "differing line (exit 1 if they differ).");
    auto file = std::make_shared<std::string>(), out = std::make_shared<std::string>(), check = std::make_shared<std::string>();
    cmd->add_option("file", *file, "expression or render JSON (see `shlo lift`)")->required();
    cmd->add_option("-o,--out", *out, "write the text here instead of standard output");
    cmd->add_option("--check", *check, "compare the text with this file");
    cmd->callback([file, out, check]() {
      std::string text;
      try {
        const auto j = parse_json_file(*file);
        if (j.contains("render")) {
          text = emit_render(render_from_json(j));
        } else {
          const std::int64_t batch = j.contains("expr") ? j.value("batch", std::int64_t{1}) : 1;
          const ExprPtr e = expr_from_json(j.contains("expr") ? j["expr"] : j, j.contains("expr") ? "/expr" : "");
          std::int64_t counter = 0;
          text = emit(batch, *e, counter).text;
        }
      } catch (const ExprError& e) {
        input_error(*file + ": " + e.what());
      }
      if (!check->empty()) {
        std::ifstream in(*check, std::ios::binary);
        if (!in) input_error(*check + ": cannot open file");
        const std::string expected((std::istreambuf_iterator<char>(in)), {});
        const std::string diff = first_difference(text, expected);
        if (!diff.empty()) input_error("emit differs from " + *check + " at " + diff);
        std::fprintf(stderr, "emit reproduces %s byte for byte (%zu bytes)\n", check->c_str(), text.size());
      }
      if (check->empty() || !out->empty()) write_or_print(*out, text);
    });
  }
  {
    auto* cmd = app.add_subcommand("lift", "Read printer text back into a render whose expressions are skeletons.\n"
                                           "Prints the share of instruction lines that became expression nodes; with\n"
                                           "--why, every line kept verbatim and the reason. Never fails on a module that parses.");
    auto file = std::make_shared<std::string>(), out = std::make_shared<std::string>();
    auto why = std::make_shared<bool>(false);
    cmd->add_option("file", *file, "the .mlir file")->required();
    cmd->add_option("-o,--out", *out, "write the render JSON here (default: standard output)");
    cmd->add_flag("--why", *why, "list the verbatim instruction lines, each with its line number and why no node took it");
    cmd->callback([file, out, why]() {
      Module m;
      try {
        m = parse_module_file(*file);
      } catch (const ParseError& e) {
        input_error(e.what());
      }
      Lifted lifted = lift(m);
      const auto& rep = lifted.report;
      const std::string json = render_to_json(lifted.render).dump(1) + "\n";
      if (out->empty()) std::cout << json;
      else write_or_print(*out, json);
      std::FILE* s = out->empty() ? stderr : stdout;
      std::fprintf(s, "%s: %d instruction lines: %d in expression nodes (%.1f%%), %d verbatim; %d comment lines\n", file->c_str(),
                   rep.instructions, rep.as_nodes, 100.0 * rep.node_share(), rep.verbatim, rep.comments);
      for (const auto& [name, n] : rep.constructors) std::fprintf(s, "  %-18s %d\n", name.c_str(), n);
      if (*why) {
        if (!rep.why.empty()) std::fprintf(s, "verbatim:\n");
        for (const auto& v : rep.why)
          std::fprintf(s, "  line %d: %s\n    why: %s\n", v.line, v.text.c_str() + std::min<std::size_t>(v.text.size(), 4),
                       v.reason.c_str());
      } else if (rep.verbatim > 0) {
        std::fprintf(s, "(--why lists the %d verbatim lines and why)\n", rep.verbatim);
      }
      for (const auto& n : rep.notes) std::fprintf(s, "note: %s\n", n.c_str());
    });
  }
  {
    auto* cmd = app.add_subcommand("rebatch", "Re-emit a printer program at another batch size, as the printer writes its\n"
                                              "batch variants: the lifted render's batch changed, and what module assembly\n"
                                              "writes by hand (the batch-led arguments %x, %onehot, dropout masks; the loss'\n"
                                              "batch-size constants; a forward pass's logits) retyped. Prints what it retyped\n"
                                              "and warns of a hand-written dense<B.0> it left. Check the result with\n"
                                              "`shlo lift` and `shlo agree`.");
    auto file = std::make_shared<std::string>(), out = std::make_shared<std::string>();
    auto batch = std::make_shared<std::int64_t>(0);
    cmd->add_option("file", *file, "the printer's .mlir file")->required();
    cmd->add_option("batch", *batch, "the new batch (examples per replica)")->required()->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
    cmd->add_option("-o,--out", *out, "write the text here instead of standard output");
    cmd->callback([file, batch, out]() {
      Rebatched r;
      try {
        r = rebatch(parse_module_file(*file), *batch);
      } catch (const ParseError& e) {
        input_error(e.what());
      } catch (const ExprError& e) {
        input_error(*file + ": " + e.what());
      }
      write_or_print(*out, r.text);
      std::string retyped;
      for (const auto& name : r.retyped) retyped += (retyped.empty() ? "" : ", ") + name;
      std::fprintf(stderr, "%s: batch %lld -> %lld; retyped: %s\n", file->c_str(), static_cast<long long>(r.from),
                   static_cast<long long>(r.to), retyped.empty() ? "nothing" : retyped.c_str());
      for (const auto& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    });
  }
  add_den_command(app);
}

}  // namespace shlo::cli
