// `shlo run`: a program on inputs, in one domain, on R replicas.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace shlo {
struct RunProgress;
}

namespace shlo::cli {
void add_run_command(CLI::App& app);
/// "[12/326] %v11 = stablehlo.convolution  4.2 s": where a run is, for a progress line
/// (shlo run's, and shlo agree's before its counts).
std::string run_progress_text(const RunProgress& p);
}
