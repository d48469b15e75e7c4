// Skeleton (values erased) and postorder tokens, SHLO_SEMANTICS.md section 4.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ast/expr.hpp"

namespace shlo {

/// A token: a constructor kind and the fields the skeleton keeps, without children.
struct Token {
  std::string kind;                  // "dotIn", "operand", "batched", "batched2", "allReduceMean"
  std::string tag;                   // batched tag ("conv", "selectPosP", ...)
  std::vector<std::string> strings;  // kept string fields, in the constructor's order
  std::vector<std::int64_t> nats;    // kept shape naturals (info for batched)
  std::vector<std::int64_t> ds;
  std::int64_t replicas = 0;         // R, allReduceMean
  bool operator==(const Token&) const = default;
};

/// The constructor a token came from (kind and tag identify it).
const CtorSpec& token_spec(const Token& t);
int token_arity(const Token& t);
/// "dotIn %W0 784 10", "batched conv [%W1, %b1] [128, 3, 16, 32, 32, 3, 3]".
std::string to_string(const Token& t);

struct Skel {
  Token token;
  std::vector<Skel> children;  // allReduceMean: replica 0's only
  bool operator==(const Skel&) const = default;
};

Skel skel(const Expr& e);
/// Postorder: children's tokens, then the node's.
std::vector<Token> to_tokens(const Skel& s);
/// The stack parser: the skeleton whose tokens these are; throws ExprError on underflow or
/// when more than one tree is left.
Skel parse_tokens(const std::vector<Token>& tokens);

/// The SPMD hypothesis for every allReduceMeanF node in `e`: all R children share one
/// skeleton. The report names the first replica and node where they differ.
struct SpmdReport {
  bool spmd = true;
  std::string message;  // empty when spmd
};
SpmdReport is_spmd(const Expr& e);

}  // namespace shlo
