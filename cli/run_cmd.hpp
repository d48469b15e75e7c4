// `shlo run`: a program on inputs, in one domain, on R replicas.
#pragma once

#include <CLI/CLI.hpp>

namespace shlo::cli {
void add_run_command(CLI::App& app);
}
