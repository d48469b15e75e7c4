// `shlo calc`: one scalar operation in one or every domain (a smoke test of the arithmetic,
// and a quick way to see what each domain makes of a literal).
#pragma once

#include <CLI/CLI.hpp>

namespace shlo::cli {
void add_calc_command(CLI::App& app);
}
