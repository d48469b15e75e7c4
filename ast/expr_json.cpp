#include "ast/expr_json.hpp"

#include <fstream>
#include <set>
#include <sstream>

namespace shlo {

using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw ExprError("at " + (path.empty() ? std::string("/") : path) + ": " + what);
}

}  // namespace

json expr_to_json(const Expr& e) {
  json j;
  const std::string name = e.spec->name;
  if (name.rfind("batchOp/", 0) == 0) {
    j["constructor"] = "batchOp";
    j["op"] = name.substr(8);
  } else {
    j["constructor"] = name;
  }
  if (!e.nats.empty()) j["nats"] = e.nats;
  if (!e.strings.empty()) j["strings"] = e.strings;
  if (!e.ds.empty() || e.spec->has_ds) j["ds"] = e.ds;
  if (e.replicas) j["R"] = e.replicas;
  if (!e.reals.empty()) {
    json reals = json::object();
    for (const auto& [k, v] : e.reals) {
      json arr = json::array();
      for (const auto& q : v) arr.push_back(rational_to_string(q));
      reals[k] = arr;
    }
    j["reals"] = reals;
  }
  if (!e.children.empty()) {
    json kids = json::array();
    for (const auto& c : e.children) kids.push_back(expr_to_json(*c));
    j["children"] = kids;
  }
  return j;
}

namespace {
ExprPtr expr_from_json_at(const json& j, const std::string& path, int depth);
}  // namespace

ExprPtr expr_from_json(const json& j, const std::string& path) { return expr_from_json_at(j, path, 0); }

namespace {

ExprPtr expr_from_json_at(const json& j, const std::string& path, int depth) {
  if (depth > kMaxExprDepth) fail(path, "expression nested more than " + std::to_string(kMaxExprDepth) + " deep");
  if (!j.is_object()) fail(path, "expected an expression object");
  if (!j.contains("constructor") || !j["constructor"].is_string()) fail(path, "missing \"constructor\"");
  std::string name = j["constructor"];
  if (name == "batchOp") {
    if (!j.contains("op") || !j["op"].is_string()) fail(path, "batchOp needs \"op\" (dense, conv, relu, maxPool, expe, softmaxDiv, dotOut)");
    name += "/" + j["op"].get<std::string>();
  }
  Expr e;
  e.spec = find_constructor(name);
  if (!e.spec) fail(path, "unknown constructor '" + name + "'");
  static const std::set<std::string> keys = {"constructor", "op", "nats", "strings", "ds", "R", "reals", "children"};
  for (const auto& [k, v] : j.items())
    if (!keys.count(k)) fail(path, "unknown key \"" + k + "\"");
  try {
    if (j.contains("nats"))
      for (const auto& [k, v] : j["nats"].items()) {
        if (!v.is_number_integer()) fail(path + "/nats/" + k, "expected an integer");
        e.nats[k] = v.get<std::int64_t>();
      }
    if (j.contains("strings"))
      for (const auto& [k, v] : j["strings"].items()) {
        if (!v.is_string()) fail(path + "/strings/" + k, "expected a string");
        e.strings[k] = v.get<std::string>();
      }
    if (j.contains("ds")) {
      if (!j["ds"].is_array()) fail(path + "/ds", "expected a list of integers");
      for (const auto& v : j["ds"]) {
        if (!v.is_number_integer()) fail(path + "/ds", "expected a list of integers");
        e.ds.push_back(v.get<std::int64_t>());
      }
    }
    if (j.contains("R")) {
      if (!j["R"].is_number_integer()) fail(path + "/R", "expected an integer");
      e.replicas = j["R"].get<std::int64_t>();
    }
    if (j.contains("reals"))
      for (const auto& [k, v] : j["reals"].items()) {
        if (!v.is_array()) fail(path + "/reals/" + k, "expected a list of rationals in strings (\"3/4\", \"-0.125\")");
        std::vector<Rational> values;
        for (std::size_t i = 0; i < v.size(); ++i) {
          const std::string at = path + "/reals/" + k + "/" + std::to_string(i);
          if (!v[i].is_string()) fail(at, "expected a rational in a string, such as \"3/4\" or \"-0.125\"");
          Literal lit;
          try {
            lit = parse_literal(v[i].get<std::string>());
          } catch (const DomainError& err) {
            fail(at, err.what());
          }
          if (lit.kind != Literal::Kind::Finite) fail(at, "a real field holds finite rationals only");
          values.push_back(lit.value);
        }
        e.reals[k] = std::move(values);
      }
    if (j.contains("children")) {
      if (!j["children"].is_array()) fail(path + "/children", "expected a list");
      for (std::size_t i = 0; i < j["children"].size(); ++i)
        e.children.push_back(expr_from_json_at(j["children"][i], path + "/children/" + std::to_string(i), depth + 1));
    }
    // A leaf without values makes the whole tree a skeleton.
    return make_expr(std::move(e), j.contains("reals") || e.spec->reals.empty());
  } catch (const ExprError& err) {
    const std::string msg = err.what();
    if (msg.rfind("at ", 0) == 0) throw;
    fail(path, msg);
  }
}

}  // namespace

json render_to_json(const Render& r) {
  json items = json::array();
  for (const auto& item : r.items) {
    if (item.expr) {
      json it = {{"expr", expr_to_json(*item.expr)}};
      if (item.counter >= 0) it["counter"] = item.counter;
      items.push_back(it);
    } else {
      items.push_back({{"line", item.line}});
    }
  }
  json args = json::array();
  for (const auto& [n, t] : r.arguments) args.push_back({n, t});
  return {{"render",
           {{"module", r.module_name}, {"name", r.name}, {"arguments", args}, {"results", r.result_types},
            {"parenthesized", r.parenthesized_results}, {"batch", r.batch}, {"items", items}, {"return", r.return_values}}}};
}

Render render_from_json(const json& doc) {
  if (!doc.is_object() || !doc.contains("render")) fail("", "expected {\"render\": {...}}");
  const json& j = doc["render"];
  Render r;
  auto need = [&](const char* key) -> const json& {
    if (!j.contains(key)) fail(std::string("/render/") + key, "missing");
    return j[key];
  };
  try {
    r.module_name = j.value("module", "m");
    r.name = need("name").get<std::string>();
    for (const auto& a : need("arguments")) r.arguments.emplace_back(a.at(0).get<std::string>(), a.at(1).get<std::string>());
    r.result_types = need("results").get<std::vector<std::string>>();
    r.parenthesized_results = j.value("parenthesized", true);
    r.batch = need("batch").get<std::int64_t>();
    r.return_values = need("return").get<std::vector<std::string>>();
  } catch (const json::exception& e) {
    fail("/render", std::string("malformed render: ") + e.what());
  }
  const json& items = need("items");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string path = "/render/items/" + std::to_string(i);
    RenderItem item;
    if (items[i].contains("line")) {
      item.line = items[i]["line"].get<std::string>();
    } else if (items[i].contains("expr")) {
      item.expr = expr_from_json(items[i]["expr"], path + "/expr");
      item.counter = items[i].value("counter", std::int64_t{-1});
    } else {
      fail(path, "an item is {\"line\": ...} or {\"expr\": ..., \"counter\": k}");
    }
    r.items.push_back(std::move(item));
  }
  return r;
}

json parse_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ExprError(path + ": cannot open file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  // The parser keeps its own stack, but copying and printing a value recurse: nesting is limited
  // to what an expression of kMaxExprDepth levels needs (two per level) plus the case around it.
  constexpr int kMaxJsonDepth = 2 * kMaxExprDepth + 16;
  const json::parser_callback_t limit_depth = [&](int depth, json::parse_event_t, json&) {
    if (depth > kMaxJsonDepth) throw ExprError(path + ": JSON nested more than " + std::to_string(kMaxJsonDepth) + " deep");
    return true;
  };
  try {
    return json::parse(text, limit_depth);
  } catch (const json::parse_error& e) {
    // Byte offset -> line and column.
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string what = e.what();
    const auto colon = what.find("syntax error");
    throw ExprError(path + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " +
                    (colon == std::string::npos ? what : what.substr(colon)));
  } catch (const json::out_of_range& e) {
    // A number beyond a double's range ("1e999999", found by the corpus JSON fuzzer): the
    // library's text without its "[json.exception.out_of_range.406] " tag.
    const std::string what = e.what();
    const auto tag_end = what.find("] ");
    throw ExprError(path + ": " + (tag_end == std::string::npos ? what : what.substr(tag_end + 2)));
  }
}

}  // namespace shlo
