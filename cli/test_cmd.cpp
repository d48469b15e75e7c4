#include "cli/test_cmd.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

#include "interp/domain/domain_spec.hpp"
#include "oracle/check_dialect.hpp"

namespace shlo::cli {

namespace {

struct TestArgs {
  std::vector<std::string> files;
  std::string domain = "ieee";
};

int run_tests(const TestArgs& args) {
  AnyDomain domain;
  try {
    domain = parse_domain(args.domain);
  } catch (const std::exception& e) {
    std::cerr << "shlo test: --domain: " << e.what() << "\n";
    return 2;
  }
  bool failed = false, bad = false;
  for (const auto& file : args.files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::cout << "ERROR " << file << ": cannot read the file\n";
      bad = true;
      continue;
    }
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& o : run_test_file(text.str(), file, domain)) {
      switch (o.status) {
        case TestOutcome::Status::Pass:
          std::cout << "PASS " << o.name << (o.detail.empty() ? "" : " (" + o.detail + ")") << "\n";
          break;
        case TestOutcome::Status::Fail:
          std::cout << "FAIL " << o.name << ": " << o.detail << "\n";
          failed = true;
          break;
        case TestOutcome::Status::Error:
          std::cout << "ERROR " << (o.name.empty() ? "" : o.name + ": ") << o.detail << "\n";
          bad = true;
          break;
      }
    }
  }
  return bad ? 2 : failed ? 1 : 0;
}

}  // namespace

void add_test_command(CLI::App& app) {
  auto args = std::make_shared<TestArgs>();
  auto* cmd = app.add_subcommand(
      "test",
      "Run test files written with StableHLO's check dialect.\n"
      "Each file is cut at every line `// -----`; each chunk is a program (a module, or bare\n"
      "functions). The tests of a chunk: @main alone when it has one, otherwise every public\n"
      "function without arguments (private helpers such as @inputs and @expected are not tests).\n"
      "Checks: check.expect_eq, expect_eq_const, expect_almost_eq (absolute tolerance, default\n"
      "1e-4), expect_almost_eq_const, expect_close (max_ulp_difference, min_ulp_difference), and\n"
      "stablehlo.custom_call @check.expect_eq / @check.expect_close (3 ULP) /\n"
      "@check.expect_almost_eq (1e-3). Values are compared as numbers of the element type.\n"
      "One line per test: PASS name, or FAIL name: the check, its line and the first mismatch\n"
      "(index, got, expected); ERROR for a program that does not parse, verify or run. In the\n"
      "exact and interval domains a PASS also says whether the expected values are the exact\n"
      "results or roundings of them. The default domain, ieee, computes each float type as\n"
      "StableHLO's interpreter does: f64 in double, f32 in float, f16 and bf16 rounded to their\n"
      "format after every operation, exp/log/sin/... in double rounded once to the type (f32 values\n"
      "are bit for bit those of -d f32, which computes every float type in float).\n"
      "Exit status: 0 every check passed; 1 a check failed; 2 bad input (parse, verify or run\n"
      "error, unreadable file).");
  cmd->add_option("files", args->files, "test files (.mlir)")->required();
  cmd->add_option("--domain,-d", args->domain, std::string("arithmetic: ") + kDomainForms)->capture_default_str();
  cmd->callback([args]() {
    const int status = run_tests(*args);
    if (status != 0) throw CLI::RuntimeError(status);
  });
}

}  // namespace shlo::cli
