// A printer program re-emitted at another batch size, the way the printer writes its batch
// variants (`shlo rebatch`). The lifted render's batch B is set to the new one (the constructor
// templates print B themselves); what module assembly writes by hand is retyped by rule:
// - the batch-led arguments (%x, %onehot, the dropout masks %dp<i> and %do);
// - in verbatim lines, batch-led types of rank 2 or more (tensor<Bx...>) and rank-1 tensor<Bxf32>
//   (one value per example: the loss), except the zero-bias constants %zb<n>;
// - the constant dense<B.0> on a retyped line and on the loss' batch-size constants (%bsc,
//   %lbf, %lbfc); one left elsewhere is reported as a warning, to be checked by hand;
// - a forward pass's results (its function's name ends in "_fwd"): the logits, B rows.
// Whether the variant is right is for `shlo lift` (the same share of lines in nodes) and `shlo
// agree` (den against the text) to say; the tests check both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ast/program.hpp"

namespace shlo {

struct Rebatched {
  std::string text;
  std::int64_t from = 0, to = 0;          // the batch read and the batch written
  std::vector<std::string> retyped;       // the arguments and verbatim lines changed, by name
  std::vector<std::string> warnings;      // verbatim dense<B.0> constants left as they are
};

/// m's text at `batch` examples (batch >= 1). Throws ExprError where no instruction lifts to a
/// constructor (not a printer program: its batch is unknown) or the render cannot be re-emitted.
Rebatched rebatch(const Module& m, std::int64_t batch);

}  // namespace shlo
