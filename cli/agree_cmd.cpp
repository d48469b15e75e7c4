#include "cli/agree_cmd.hpp"

#include <cstdio>
#include <iostream>
#include <memory>

#include "ast/expr.hpp"
#include "ast/mlir_parse.hpp"
#include "cli/progress_line.hpp"
#include "cli/run_cmd.hpp"
#include "interp/domain/domain_spec.hpp"
#include "interp/program_inputs.hpp"
#include "interp/run.hpp"
#include "oracle/program_agree.hpp"

namespace shlo::cli {

namespace {

struct AgreeArgs {
  std::string file, domain = "f64", inputs_dir, range = "0,1", run_instead;
  int replicas = 1;
  std::int64_t seed = -1;
};

[[noreturn]] void bad_input(const std::string& message) {
  std::cerr << "shlo agree: " << message << "\n";
  throw CLI::RuntimeError(2);
}

template <class D>
void agree_in(const D& d, const Module& m, const Module* run_instead, const AgreeArgs& args) {
  if constexpr (!kAgreeDomain<D>) {
    bad_input("--domain " + d.name() +
              ": agree runs in exact, interval:P, f64 or f32; an mpfr:P value is one rounded point, which says less than the "
              "certain enclosures of interval:P at the same precision (use --domain interval:" +
              std::to_string(d.precision()) + ")");
  } else {
    std::vector<std::vector<Value<D>>> inputs;
    try {
      InputArrays in = args.seed >= 0 ? [&] {
        const auto [lo, hi] = parse_range(args.range);
        return random_inputs(m.function(), static_cast<std::uint64_t>(args.seed), args.replicas, lo, hi);
      }()
                                      : read_inputs(m.function(), args.inputs_dir, args.replicas);
      inputs = npy_values(d, m.function(), in);
    } catch (const InputError& e) {
      bad_input(e.what());
    }
    ProgramAgreement a;
    // A network's train step takes many minutes: say where the run is (on a terminal one line
    // redrawn, in a log a line every 30 s; nothing for the first 2 s).
    ProgressLine progress(stderr, {.redraw = 0.5, .log_every = 30.0, .delay = 2.0});
    const auto show = [&](const AgreeProgress& p) {
      progress.update([&] {
        return run_progress_text(p.run) + "  nodes judged " + std::to_string(p.judged) + ", disagreeing " + std::to_string(p.failed);
      });
    };
    try {
      a = agree_program(m, d, std::move(inputs), args.replicas, run_instead, show);
    } catch (const RunError& e) {
      progress.clear();
      bad_input(std::string("the text does not run in ") + d.name() + ": " + e.what());
    } catch (const ExprError& e) {
      progress.clear();
      bad_input(m.file + ": the lift stopped: " + e.what());
    }
    progress.clear();
    std::fputs(format_agreement(a).c_str(), stdout);
    if (!a.pass()) throw CLI::RuntimeError(1);
  }
}

}  // namespace

void add_agree_command(CLI::App& app) {
  auto args = std::make_shared<AgreeArgs>();
  auto* cmd = app.add_subcommand(
      "agree",
      "den against the text on a whole program: lift it, run the text op by op, and compare every\n"
      "lifted node's den (on the text's values of its inputs) with the text's value of that node.\n"
      "exact: equal; interval:P: the enclosures overlap; f64, f32: within a per-node rounding\n"
      "allowance, gamma_K (|den| + |text| + M), K the scalars the node reads and M a running error\n"
      "bound of den's formula (it follows cancellations into quotients and roots).\n"
      "Verbatim lines run as text. Not in mpfr:P: a rounded point at P bits says less than\n"
      "interval:P's certain enclosures, so agree refuses it (exit 2).\n"
      "Values are freed after their last use and judgement: memory as for shlo run.\n"
      "One row per output (PASS, FAIL, TEXT: no node gives it, N/C: not comparable), then the count\n"
      "of values compared and the first disagreeing node with its line.\n"
      "Exit 0: every compared value agrees; 1: a disagreement (or nothing compared); 2: bad input.");
  cmd->add_option("file", args->file, "the .mlir file")->required();
  cmd->add_option("--domain,-d", args->domain, "exact | interval:P | f64 | f32")->capture_default_str();
  cmd->add_option("--replicas,-r", args->replicas, "number of replicas R")->capture_default_str()->check(CLI::Range(1, 4096));
  auto* in = cmd->add_option("--inputs,-i", args->inputs_dir, "folder of input .npy files (as shlo run reads them)");
  auto* rnd = cmd->add_option("--random-inputs", args->seed, "draw inputs from this seed instead")->check(CLI::NonNegativeNumber);
  cmd->add_option("--range", args->range, "LO,HI for --random-inputs")->capture_default_str()->needs(rnd);
  in->excludes(rnd);
  cmd->add_option("--run-instead", args->run_instead,
                  "a control: run this text (the same names, one change) against FILE's lift; it must fail");
  cmd->callback([args]() {
    if (args->inputs_dir.empty() && args->seed < 0) bad_input("give --inputs DIR or --random-inputs SEED");
    Module m;
    try {
      m = parse_module_file(args->file);
      require_single_function(m, "shlo agree");
    } catch (const ParseError& e) {
      bad_input(e.what());
    }
    Module other;
    if (!args->run_instead.empty()) {
      try {
        other = parse_module_file(args->run_instead);
        require_single_function(other, "shlo agree");
      } catch (const ParseError& e) {
        bad_input(e.what());
      }
    }
    AnyDomain domain;
    try {
      domain = parse_domain(args->domain);
    } catch (const DomainError& e) {
      bad_input(e.what());
    }
    with_domain(domain, [&](const auto& d) { agree_in(d, m, args->run_instead.empty() ? nullptr : &other, *args); });
  });
}

}  // namespace shlo::cli
