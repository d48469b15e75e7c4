// Building SHlo expressions in tests, briefly.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ast/expr.hpp"

namespace shlo::test {

using Nats = std::map<std::string, std::int64_t>;
using Reals = std::map<std::string, std::vector<std::string>>;

/// A node: string fields not given default to "%<field>"; `reals` as decimal or p/q strings.
inline ExprPtr node(const char* ctor, Nats nats, Reals reals = {}, std::vector<ExprPtr> kids = {},
                    std::map<std::string, std::string> strings = {}, std::vector<std::int64_t> ds = {}, std::int64_t R = 0) {
  Expr e;
  e.spec = find_constructor(ctor);
  if (!e.spec) throw ExprError(std::string("test: no constructor ") + ctor);
  e.nats = std::move(nats);
  for (const char* s : e.spec->strings)
    if (!strings.count(s) && std::string(s) != "rnd") strings[s] = std::string("%") + s;
  e.strings = std::move(strings);
  for (const auto& [k, v] : reals)
    for (const auto& x : v) e.reals[k].push_back(parse_literal(x).value);
  e.children = std::move(kids);
  e.ds = std::move(ds);
  e.replicas = R;
  return make_expr(std::move(e));
}

/// operand(name, v).
inline ExprPtr leaf(const std::string& name, const std::vector<std::string>& v) {
  return node("operand", {{"n", static_cast<std::int64_t>(v.size())}}, {{"v", v}}, {}, {{"name", name}});
}

/// A skeleton-only node (no real fields), for the printer.
inline ExprPtr skel_node(const char* ctor, Nats nats, std::vector<ExprPtr> kids = {}, std::map<std::string, std::string> strings = {},
                         std::vector<std::int64_t> ds = {}, std::int64_t R = 0) {
  return make_skeleton(ctor, std::move(nats), std::move(kids), std::move(strings), std::move(ds), R);
}

inline ExprPtr name(const std::string& n, std::int64_t width) {
  return skel_node("operand", {{"n", width}}, {}, {{"name", n}});
}

}  // namespace shlo::test
