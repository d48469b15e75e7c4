// Text -> render, for any text the printer writes (it never fails on a parsed module): the
// printer's instruction blocks matched against the constructor templates
// (the same templates the printer expands), trees rebuilt bottom-up with the printer's own
// stack discipline, every value that is used more than once, by a verbatim line or out of
// order kept as a named `operand` leaf; an instruction no template explains, or whose node
// would be inconsistent, stays a verbatim line with the reason in the report.
// emit_render(lift(m)) reproduces the text.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ast/emit.hpp"
#include "ast/program.hpp"

namespace shlo {

/// A line kept verbatim, and why: no template matches it, or one matches but its node is
/// refused (inconsistent lengths, fresh names out of order, another batch).
struct VerbatimLine {
  int line = 0;        // in the source text (0 when unknown)
  std::string text;    // the instruction as printed
  std::string reason;
};

struct LiftReport {
  int instructions = 0;        // top-level instructions
  int as_nodes = 0;            // of them, inside a recognised constructor block
  int verbatim = 0;            // kept as verbatim lines
  int comments = 0;
  std::vector<std::string> verbatim_lines;           // the instructions kept verbatim
  std::map<std::string, int> constructors;           // node counts per constructor
  std::vector<VerbatimLine> why;                     // the verbatim instructions and why
  std::vector<std::string> notes;                    // canonical choices and unrecoverable fields

  /// The share of instruction lines inside expression nodes (1 when there are none).
  double node_share() const { return instructions ? static_cast<double>(as_nodes) / instructions : 1.0; }
};

struct Lifted {
  Render render;
  LiftReport report;
};

Lifted lift(const Module& m);

}  // namespace shlo
