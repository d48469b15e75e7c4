// `shlo test`: runs the check dialect of StableHLO's interpreter tests (docs/mlir-forms.md
// section 13). A test file is cut into chunks at each `// -----` line; each chunk is a program
// whose test functions run without arguments, and whose checks compare the computed values
// with the expected ones under the reference interpreter's rules and tolerances.
#pragma once

#include <string>
#include <vector>

#include "ast/program.hpp"
#include "interp/domain/domain_spec.hpp"

namespace shlo {

/// One chunk of a test file: the whole file's text with every line outside the chunk blanked,
/// so that parse errors and check locations keep the file's line numbers.
struct TestChunk {
  std::string text;
  int first_line = 1;  // the chunk's first line in the file
};
/// Cuts `text` at each line that is `// -----` (spaces around it allowed).
std::vector<TestChunk> split_test_file(const std::string& text);

/// The functions of `m` that are tests: `main` alone when there is one; otherwise every public
/// function (no `private`) without arguments. Indices into m.functions.
std::vector<std::size_t> test_functions(const Module& m);

struct TestOutcome {
  enum class Status { Pass, Fail, Error };
  Status status = Status::Pass;
  std::string name;    // the function (empty for a chunk that did not parse)
  std::string detail;  // Fail: the first mismatch; Error: the located message; Pass: a note or ""
};

/// Parses, verifies and runs every test of every chunk of `text` (read from `file`) in
/// `domain`. In the exact and interval domains a PASS says whether the expected values are the
/// exact results or roundings of them.
std::vector<TestOutcome> run_test_file(const std::string& text, const std::string& file, const AnyDomain& domain);

}  // namespace shlo
