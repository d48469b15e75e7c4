// Text -> render: the printer's instruction blocks matched against the constructor templates
// (the same templates the printer expands), trees rebuilt bottom-up with the printer's own
// stack discipline, every value that is used more than once, by a verbatim line or out of
// order kept as a named `operand` leaf. emit_render(lift(m)) reproduces the text.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ast/emit.hpp"
#include "ast/program.hpp"

namespace shlo {

struct LiftReport {
  int instructions = 0;        // top-level instructions
  int as_nodes = 0;            // of them, inside a recognised constructor block
  int verbatim = 0;            // kept as verbatim lines
  int comments = 0;
  std::vector<std::string> verbatim_lines;           // the instructions kept verbatim
  std::map<std::string, int> constructors;           // node counts per constructor
  std::vector<std::string> notes;                    // canonical choices and unrecoverable fields
};

struct Lifted {
  Render render;
  LiftReport report;
};

Lifted lift(const Module& m);

}  // namespace shlo
