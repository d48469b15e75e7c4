// `shlo emit`, `shlo lift` and `shlo den`: the SHlo expression layer on the command line.
#pragma once

#include <CLI/CLI.hpp>

namespace shlo::cli {
void add_expr_commands(CLI::App& app);
}
