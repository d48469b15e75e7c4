// The `shlo` command: argument parsing and printing only; the work is in ast/, interp/,
// oracle/ and fuzz/.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/agree_cmd.hpp"
#include "cli/calc.hpp"
#include "cli/check_cmd.hpp"
#include "cli/dp_check_cmd.hpp"
#include "cli/expr_cmds.hpp"
#include "cli/prop_cmds.hpp"
#include "cli/parse_cmd.hpp"
#include "cli/run_cmd.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "shlo-oracle: an exact and certified interpreter and differential tester for SHlo,\n"
      "the StableHLO subset whose meaning is defined in a Lean 4 project.\n\n"
      "Domains (the arithmetic a run uses):\n"
      "  exact        GMP rationals (+-inf allowed); an irrational result is an error\n"
      "  interval:P   MPFI enclosures with P-bit endpoints; undecidable comparisons are reported\n"
      "  mpfr:P       MPFR point values of P bits\n"
      "  f64, f32     the IEEE hardware types, reproducible bit for bit\n",
      "shlo"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "shlo-oracle 0.1.0");
  shlo::cli::add_prop_commands(app);
  shlo::cli::add_parse_command(app);
  shlo::cli::add_run_command(app);
  shlo::cli::add_expr_commands(app);
  shlo::cli::add_calc_command(app);
  shlo::cli::add_check_command(app);
  shlo::cli::add_agree_command(app);
  shlo::cli::add_dp_check_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "shlo: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
