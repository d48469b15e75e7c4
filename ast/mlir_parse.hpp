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
/// Every call names a function of `m` with a body, with the operand and result types of its
/// signature; throws a ParseError located at the call otherwise.
void verify_calls(const Module& m);

/// For the commands that read the Lean printer's programs only (agree, check, dp-check): a
/// ParseError located at the first call, check or second function of `m`, if any.
void require_single_function(const Module& m, const std::string& command);

/// Reads a file and parses it; an unreadable file is a ParseError at 0:0.
Module parse_module_file(const std::string& path);

}  // namespace shlo
