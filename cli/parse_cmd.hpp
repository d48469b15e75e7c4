// `shlo parse`: read and verify StableHLO text; a summary or the normalised text.
#pragma once

#include <CLI/CLI.hpp>

namespace shlo::cli {
void add_parse_command(CLI::App& app);
}
