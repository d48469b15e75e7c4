#include "cli/check_cmd.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "ast/mlir_parse.hpp"
#include "cli/files.hpp"
#include "interp/memory.hpp"
#include "interp/run.hpp"
#include "oracle/float_check.hpp"

namespace shlo::cli {

namespace {

struct CheckArgs {
  std::string file, inputs_dir, outputs_dir, profile = "ieee", report;
  int replicas = 1;
  bool json = false;
};

[[noreturn]] void bad_input(const std::string& message) {
  std::cerr << "shlo check: " << message << "\n";
  throw CLI::RuntimeError(2);
}

NpyArray load(const std::string& path, const std::string& what) {
  try {
    return read_npy(path);
  } catch (const NpyError& e) {
    bad_input(std::string(e.what()) + " (" + what + ")");
  }
}

void run_check(const CheckArgs& args) {
  Module m;
  try {
    m = parse_module_file(args.file);
  } catch (const ParseError& e) {
    bad_input(e.what());
  }
  FloatProfile profile;
  try {
    profile = float_profile(args.profile);
  } catch (const std::invalid_argument& e) {
    bad_input(e.what());
  }
  const Function& f = m.function;
  // The bound analysis keeps one BoundScalar per element: refuse what cannot fit, before reading.
  if (const std::uint64_t available = available_memory(); available > 0) {
    try {
      check_memory(m, "the bound analysis", sizeof(BoundScalar), args.replicas, available, "the machine's available memory");
    } catch (const MemoryLimitError& e) {
      bad_input(e.what());
    }
  }
  std::vector<std::vector<NpyArray>> inputs(static_cast<std::size_t>(args.replicas)), outputs(inputs.size());
  for (int r = 0; r < args.replicas; ++r) {
    for (const auto& arg : f.arguments) {
      const std::string path = replica_input(args.inputs_dir, r, arg.name.substr(1) + ".npy");
      NpyArray a = load(path, "input " + arg.name + " of replica " + std::to_string(r));
      if (a.shape != arg.type.shape)
        bad_input(path + ": shape is " + shape_to_string(a.shape) + ", " + arg.name + " needs " + to_string(arg.type));
      if (a.dtype() == NpyDtype::F64 && arg.type.element != ElementType::F64)  // its values may not be float32 values
        bad_input(path + ": dtype is f64, " + arg.name + " needs " + to_string(arg.type.element));
      inputs[static_cast<std::size_t>(r)].push_back(std::move(a));
    }
    for (std::size_t i = 0; i < f.return_values.size(); ++i) {
      const std::string path = replica_file(args.outputs_dir, r, "result" + std::to_string(i) + ".npy");
      NpyArray a = load(path, "output " + f.return_values[i] + " of replica " + std::to_string(r));
      if (a.shape != f.return_types[i].shape)
        bad_input(path + ": shape is " + shape_to_string(a.shape) + ", " + f.return_values[i] + " is " + to_string(f.return_types[i]));
      const bool pred = f.return_types[i].element == ElementType::I1;
      if (pred != (a.dtype() == NpyDtype::Bool) || a.dtype() == NpyDtype::I64)
        bad_input(path + ": dtype is " + to_string(a.dtype()) + ", " + f.return_values[i] + " needs " + (pred ? "bool" : "f32"));
      outputs[static_cast<std::size_t>(r)].push_back(std::move(a));
    }
  }
  const bool tty = isatty(2);
  bool shown = false;
  auto progress = [&](const std::string& line) {
    if (!tty) return;
    shown = true;
    std::fprintf(stderr, "\r%s\033[K", line.c_str());
  };
  CheckReport report;
  try {
    report = check_float_outputs(m, profile, inputs, outputs, args.replicas, progress);
  } catch (const RunError& e) {
    if (shown) std::fprintf(stderr, "\r\033[K");
    bad_input(std::string("the bound analysis cannot run: ") + e.what());
  } catch (const std::invalid_argument& e) {
    bad_input(e.what());
  }
  if (shown) std::fprintf(stderr, "\r\033[K");
  std::cout << (args.json ? format_json(report) : format_table(report));
  if (!args.report.empty()) {
    std::ofstream html(args.report);
    html << format_html(report);
    if (!html) bad_input("cannot write " + args.report);
    if (!args.json) std::cout << "report written to " << args.report << "\n";
  }
  if (!report.pass()) throw CLI::RuntimeError(1);
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand(
      "check",
      "Check float32 outputs computed elsewhere (a GPU) against the exact value and a sound bound on\n"
      "|any float32 evaluation - exact|, valid for every summation order, under an accuracy profile.\n"
      "An element outside its bound is a bug, not rounding. One row per output: max abs, rel and ulps\n"
      "error, the worst error/bound and where, elements over the bound, elements whose bound covers a\n"
      "comparison that may flip (relu, max pool, select; in their own op or upstream), PASS or FAIL.\n"
      "Files: INPUTS/<arg>.npy and OUTPUTS/result<i>.npy, or .../r<k>/... per replica, as shlo run\n"
      "writes them (after shlo run --random-inputs S --out D: --inputs D/inputs, or D on R > 1).\n"
      "Exit 0: all PASS; 1: some FAIL; 2: bad input (the file is named).");
  cmd->add_option("file", args->file, "the .mlir file")->required();
  cmd->add_option("--inputs,-i", args->inputs_dir, "folder of the input .npy files")->required();
  cmd->add_option("--outputs,-o", args->outputs_dir, "folder of the float32 output .npy files to check")->required();
  cmd->add_option("--replicas,-r", args->replicas, "number of replicas R")->capture_default_str()->check(CLI::Range(1, 4096));
  cmd->add_option("--profile,-p", args->profile, std::string("accuracy profile: ") + kProfileNames)->capture_default_str();
  cmd->add_flag("--json", args->json, "print the report as JSON");
  cmd->add_option("--report", args->report, "write a self-contained HTML page with histograms of error/bound and ulps");
  cmd->callback([args]() { run_check(*args); });
}

}  // namespace shlo::cli
