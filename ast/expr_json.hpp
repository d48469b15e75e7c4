// JSON forms of expressions and renders (read and written), with located errors.
//
//   expression: {"constructor": "dotIn", "nats": {"m": 2, "n": 3}, "strings": {"wName": "%W"},
//                "reals": {"W": ["1/2", "-0.125", ...]}, "children": [ ... ]}
//     batchOp:  {"constructor": "batchOp", "op": "dense", ...}
//     allReduceMeanF: {"constructor": "allReduceMeanF", "R": 2, "strings": {"t": "W1"},
//                      "ds": [16, 3, 3, 3], "nats": {"n": 432}, "children": [R replicas]}
//     Leaves with no "reals" make a skeleton-only expression (what `shlo lift` writes).
//   render:     {"render": {"module": "m", "name": "f", "arguments": [["%x", "tensor<2x3xf32>"]],
//                "results": ["tensor<3xf32>"], "parenthesized": false, "batch": 2,
//                "items": [{"line": "    // a comment"}, {"expr": {...}, "counter": 0}],
//                "return": ["%v3"]}}
//   a lone expression to print: {"batch": 2, "expr": {...}} (or the bare expression, batch 1).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "ast/emit.hpp"
#include "ast/expr.hpp"

namespace shlo {

nlohmann::json expr_to_json(const Expr& e);
/// The deepest expression read or walked: far beyond any program the printer writes (the lifted
/// artifacts nest 6 deep), and far from the end of the stack even under AddressSanitizer (whose
/// frames overflowed 8 MiB before 1000 levels), so that a hostile document is an error, never a crash.
inline constexpr int kMaxExprDepth = 200;

/// `path` locates errors inside the document ("/children/0"); nesting beyond kMaxExprDepth is
/// an error.
ExprPtr expr_from_json(const nlohmann::json& j, const std::string& path = "");

nlohmann::json render_to_json(const Render& r);
Render render_from_json(const nlohmann::json& j);

/// Parses JSON text; a syntax error names file, line and column.
nlohmann::json parse_json_file(const std::string& path);

}  // namespace shlo
