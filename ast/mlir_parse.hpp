// Text -> op-level program: a recursive-descent parser for every form the Lean printer
// writes (SHLO_SEMANTICS.md section 2.10 and the region blocks), plus slice, pad,
// concatenate and iota in their usual pretty forms. After parsing, every instruction is
// verified against the spec's type rules (ast/verify). Every error is a ParseError naming
// file, line and column, what was expected and what was found.
#pragma once

#include <string>
#include <string_view>

#include "ast/mlir_lexer.hpp"
#include "ast/program.hpp"

namespace shlo {

/// Parses and verifies a module.
Module parse_module(std::string_view text, const std::string& file = "<input>");
/// Reads a file and parses it; an unreadable file is a ParseError at 0:0.
Module parse_module_file(const std::string& path);

}  // namespace shlo
