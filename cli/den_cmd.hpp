// `shlo den`: the denotation of an SHlo expression in one domain.
#pragma once

#include <CLI/CLI.hpp>

namespace shlo::cli {
void add_den_command(CLI::App& app);
}
