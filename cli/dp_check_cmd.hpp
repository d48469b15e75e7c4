// `shlo dp-check`: a data-parallel program on R replicas against the full-batch program.
#pragma once

#include <CLI/CLI.hpp>

namespace shlo::cli {
void add_dp_check_command(CLI::App& app);
}
