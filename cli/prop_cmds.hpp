// `shlo prop`, `shlo fuzz`, `shlo replay`: the property suite, the long campaign, the corpus.
#pragma once

#include <CLI/CLI.hpp>

namespace shlo::cli {
void add_prop_commands(CLI::App& app);
}
