#include "cli/check_cmd.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ast/mlir_parse.hpp"
#include "cli/progress_line.hpp"
#include "interp/program_inputs.hpp"
#include "interp/ops/common.hpp"
#include "interp/memory.hpp"
#include "interp/run.hpp"
#include "oracle/float_check.hpp"

namespace shlo::cli {

namespace {

struct CheckArgs {
  std::string file, inputs_dir, outputs_dir, profile = "ieee", report;
  std::vector<std::string> allow;  // FN=ULPS
  int replicas = 1;
  double delta = 1e-9;
  bool json = false, no_profile_search = false, sampled = false;
};

[[noreturn]] void bad_input(const std::string& message) {
  std::cerr << "shlo check: " << message << "\n";
  throw CLI::RuntimeError(2);
}

// The first NaN of a float array, if any.
std::optional<std::int64_t> first_nan(const NpyArray& a) {
  return std::visit(
      [](const auto& v) -> std::optional<std::int64_t> {
        for (std::size_t k = 0; k < v.size(); ++k)
          if constexpr (std::is_floating_point_v<std::decay_t<decltype(v[k])>>)
            if (v[k] != v[k]) return static_cast<std::int64_t>(k);
        return std::nullopt;
      },
      a.data);
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
    require_single_function(m, "shlo check");
  } catch (const ParseError& e) {
    bad_input(e.what());
  }
  if (!(args.delta > 0 && args.delta <= 0.5)) bad_input("--delta must lie in (0, 0.5], got " + std::to_string(args.delta));
  FloatProfile profile;
  try {
    profile = float_profile(args.profile);
    for (const std::string& spec : args.allow) {
      const auto eq = spec.find('=');
      if (eq == std::string::npos) throw std::invalid_argument("--allow takes FUNCTION=ULPS (e.g. exp=2.5), got '" + spec + "'");
      const std::string number = spec.substr(eq + 1);
      std::size_t used = 0;
      double ulps = std::nan("");
      try {
        ulps = std::stod(number, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != number.size()) throw std::invalid_argument("--allow " + spec + ": '" + number + "' is not a number of ulps");
      profile = with_allowance(std::move(profile), spec.substr(0, eq), ulps);
    }
  } catch (const std::invalid_argument& e) {
    bad_input(e.what());
  }
  const Function& f = m.function();
  // The bound analysis keeps one BoundScalar per element: refuse what cannot fit, before reading.
  if (const std::uint64_t available = available_memory(); available > 0) {
    try {
      check_memory(m, "the bound analysis", sizeof(BoundScalar), args.replicas, available, "the machine's available memory");
    } catch (const MemoryLimitError& e) {
      bad_input(e.what());
    }
  }
  InputArrays inputs;
  try {
    inputs = read_inputs(f, args.inputs_dir, args.replicas);
  } catch (const InputError& e) {
    bad_input(e.what());
  }
  std::vector<std::vector<NpyArray>> outputs(static_cast<std::size_t>(args.replicas));
  for (int r = 0; r < args.replicas; ++r) {
    for (std::size_t i = 0; i < f.arguments.size(); ++i) {
      const NpyArray& a = inputs.arrays[static_cast<std::size_t>(r)][i];
      if (const auto nan = first_nan(a))
        bad_input(inputs.sources[static_cast<std::size_t>(r)][i] + ": element " + index_string(a.shape, *nan) + " of input " +
                  f.arguments[i].name + " is NaN, which has no exact value to check against");
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
  ProgressLine line;
  auto progress = [&](const std::string& text) { line.update(text); };
  CheckReport report;
  try {
    CheckOptions options;
    options.delta = args.delta;
    options.find_consistent_profiles = !args.no_profile_search;
    options.sampled = args.sampled;
    report = check_float_outputs(m, profile, inputs.arrays, outputs, args.replicas, progress, options);
  } catch (const RunError& e) {
    line.clear();
    bad_input(std::string("the bound analysis cannot run: ") + e.what());
  } catch (const std::invalid_argument& e) {
    bad_input(e.what());
  }
  line.clear();
  std::cout << (args.json ? format_json(report) : format_table(report));
  if (!args.report.empty()) {
    std::ofstream html(args.report);
    html << format_html(report);
    if (!html) bad_input("cannot write " + args.report);
    if (!args.json) std::cout << "report written to " << args.report << "\n";
  }
  if (report.verdict() != Verdict::Pass) throw CLI::RuntimeError(static_cast<int>(report.verdict()));
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand(
      "check",
      "Check float32 outputs computed elsewhere (a GPU) against the exact value, in two tiers, under an\n"
      "accuracy profile (ieee; cuda; tf32 or bf16: matmul operands reduced to that precision).\n"
      "Sound tier: a bound on |any float32 evaluation - exact|, valid for every summation order; an\n"
      "element outside it is a bug, never rounding (FAIL). Statistical tier: a bound that holds with\n"
      "probability >= 1 - DELTA for the whole check when rounding errors behave as independent\n"
      "mean-zero random variables (sums of n terms within about lambda sqrt(n) u of their terms'\n"
      "magnitudes); an element outside it is IMPROBABLE: a bug (a TF32 or bf16 matmul, a wrong\n"
      "order of magnitude) unless rounding behaved far worse than random; the probability is printed.\n"
      "An element whose sound bound is infinite (the float evaluation may overflow under it) is judged\n"
      "by the statistical tier alone (counted in the report); where that bound is infinite too, it has\n"
      "NO VERDICT: its exact value and the first op where the sound bound became infinite are named.\n"
      "Where every float evaluation overflows (an exp beyond 88.72 whatever the rounding, and what\n"
      "IEEE 754 makes of it: inf - inf, 0 * inf, NaN in a sum), the element is judged on that value: inf\n"
      "or NaN passes, a finite number fails (counted in the report). The statistical tier decides such\n"
      "overflows too (the exp's operand beyond 88.72 by more than its statistical bound): there every\n"
      "evaluation gives that inf or NaN but for an improbable event, and a finite number is IMPROBABLE\n"
      "(with --sampled, on the sampled tier's bound as well: under tf32 and bf16 often the only one\n"
      "narrow enough).\n"
      "Where a comparison may take a branch that every evaluation makes NaN (a relu's gradient after\n"
      "such an overflow), NaN is one of the element's values: it passes, and a number is judged by the\n"
      "bounds.\n"
      "One row per output: max abs, rel and ulps error, the worst error over each tier's bound and\n"
      "where, elements over the sound bound, improbable, whose bound covers a comparison that may flip\n"
      "(relu, max pool, select; in their own op or upstream), unbounded, and the verdict. The report\n"
      "also says which of the profiles ieee, tf32, bf16 the outputs are consistent with (a wider\n"
      "profile costs one more analysis, only when the outputs fail the narrower one or, with --sampled,\n"
      "when their errors together are unlikely under it).\n"
      "Files: INPUTS/<arg>.npy and OUTPUTS/result<i>.npy, or .../r<k>/... per replica, as shlo run\n"
      "writes them (after shlo run --random-inputs S --out D: --inputs D/inputs, or D on R > 1).\n"
      "Exit 0: all PASS; 1: some FAIL; 3: none FAIL, some IMPROBABLE; 4: none FAIL or IMPROBABLE,\n"
      "some NO VERDICT; 2: bad input (the file is named).");
  cmd->add_option("file", args->file, "the .mlir file")->required();
  cmd->add_option("--inputs,-i", args->inputs_dir, "folder of the input .npy files")->required();
  cmd->add_option("--outputs,-o", args->outputs_dir, "folder of the float32 output .npy files to check")->required();
  cmd->add_option("--replicas,-r", args->replicas, "number of replicas R")->capture_default_str()->check(CLI::Range(1, 4096));
  cmd->add_option("--profile,-p", args->profile, std::string("accuracy profile: ") + kProfileNames)->capture_default_str();
  cmd->add_option("--allow", args->allow,
                  std::string("FUNCTION=ULPS[,...]: the largest error of that function in the evaluation, in ulps of its result against "
                              "the exact value, in place of the profile's (ieee: exp and log 1, tanh and rsqrt 2, logistic 4, "
                              "div and sqrt 0.5); for a library less accurate than the profile says, e.g. NumPy's SIMD exp and log. "
                              "Functions: ") + kAllowanceFunctions)
      ->delimiter(',');
  cmd->add_option("--delta", args->delta,
                  "the statistical tier's failure probability for the whole check: an honest evaluation is IMPROBABLE "
                  "with probability at most DELTA")
      ->capture_default_str();
  cmd->add_flag("--no-profile-search", args->no_profile_search,
                "when the outputs fail the profile, do not run the wider ones (tf32, bf16) to say which they fit");
  cmd->add_flag("--sampled", args->sampled,
                "also run the sampled statistical tier (docs/sampled_tier.md): the program once more in doubles carrying "
                "64 samples of its rounding error under the standard model (each op taking each sample through it) and 64 "
                "Cauchy samples of what the model does not make random, which keeps "
                "every correlation between rounding errors (a channel's mean in every element, a weight in every product) "
                "that the analysis must bound apart; an element outside either statistical bound is IMPROBABLE (DELTA split "
                "between them). Catches TF32 and bf16 matmuls in deep batch-normalised networks where the analysis alone "
                "cannot; costs about 1 KB per element and 128 coordinate updates per operation. It also tests all outputs "
                "together (their errors' root mean square over the sampled deviations, against the limit honest errors "
                "exceed with probability 1e-3 given the correlations the samples show): a statement at that probability, "
                "not a verdict, which names the profile the errors fit where several are consistent (bf16 outputs often "
                "pass tf32's bounds element by element)");
  cmd->add_flag("--json", args->json, "print the report as JSON");
  cmd->add_option("--report", args->report, "write a self-contained HTML page: both tiers, with histograms of error over each bound and of ulps");
  cmd->callback([args]() { run_check(*args); });
}

}  // namespace shlo::cli
