#pragma once
#include <CLI/CLI.hpp>

namespace shlo::cli {
/// `shlo check FILE.mlir --inputs DIR --outputs DIR`: float32 outputs against the sound bound.
void add_check_command(CLI::App& app);
}  // namespace shlo::cli
