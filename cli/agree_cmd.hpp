// `shlo agree`: den of a program's lifted expressions against the op-level run of its text.
#pragma once

#include <CLI/CLI.hpp>

namespace shlo::cli {
void add_agree_command(CLI::App& app);
}
