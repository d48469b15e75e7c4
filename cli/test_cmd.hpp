// `shlo test`: runs the check dialect's test files.
#pragma once

#include <CLI/CLI.hpp>

namespace shlo::cli {
void add_test_command(CLI::App& app);
}
