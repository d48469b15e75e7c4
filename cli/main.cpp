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
#include "cli/test_cmd.hpp"
#include "interp/memory.hpp"

int main(int argc, char** argv) {
  shlo::install_thread_limb_caches();  // before any GMP value exists: out of memory is an error, not an abort
  shlo::keep_freed_memory_for_reuse();
  CLI::App app{
      "shlo-oracle: an exact and certified interpreter and differential tester for SHlo,\n"
      "the StableHLO subset whose meaning is defined in a Lean 4 project.\n\n"
      "Domains (the arithmetic a run uses):\n"
      "  exact        GMP rationals (+-inf allowed); an irrational result is an error\n"
      "  interval:P   MPFI enclosures with P-bit endpoints; undecidable comparisons are reported\n"
      "  mpfr:P       MPFR point values of P bits\n"
      "  f64, f32     the IEEE hardware types, reproducible bit for bit\n\n"
      "Exit status: 0 done (or PASS); 1 the program is wrong (a located parse, verify or run error)\n"
      "or a check FAILs; 2 bad options, unreadable input files, or a run refused for its memory.\n",
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
  shlo::cli::add_test_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // a command's own status (shlo check: 3 IMPROBABLE, 4 NO VERDICT)
  } catch (const CLI::ParseError& e) {
    // CLI11 gives its own usage errors codes of their own (105 for a failed check, 106 for a
    // missing option): every refused command line is exit 2, as --help documents.
    const int code = app.exit(e);
    return code <= 2 ? code : 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "shlo: out of memory (the run needed more than the machine could give; see --max-memory and a lower precision)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "shlo: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
