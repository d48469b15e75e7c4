// What the two halves of the library's implementation (lib/api.cpp: parse, run, check;
// lib/api_tools.cpp: lift, den, prop) share. Not installed.
#pragma once

#include <string>

#include "ast/program.hpp"
#include "shlo_oracle/shlo_oracle.hpp"

namespace shlo_oracle::detail {

/// The function a program's inputs and outputs belong to: the one place the library reads a
/// module's function, so that a module of several functions changes this line only.
const shlo::Function& entry(const shlo::Module& m);

inline Error bad_input(std::string message) { return Error{Error::Kind::BadInput, std::move(message), "", 0, 0}; }
inline Error run_error(std::string message) { return Error{Error::Kind::Run, std::move(message), "", 0, 0}; }

}  // namespace shlo_oracle::detail
