#include "fuzz/coverage.hpp"

#include <cstdio>
#include <set>

#include "ast/expr.hpp"
#include "ast/mlir_parse.hpp"
#include "fuzz/gen_ops.hpp"

namespace shlo::fuzz {

namespace {

bool g_on = false;
std::map<std::string, std::map<std::string, std::int64_t>> g_counts;

const std::string kAnyUse = "(cases)";

std::string op_key(const std::string& op, const std::string& attribute) { return "op " + op + "\t" + attribute; }
std::string ctor_key(const std::string& name) { return "constructor\t" + name; }

void constructors_in(const Expr& e, std::set<std::string>& keys) {
  keys.insert(ctor_key(e.spec->name));
  for (const auto& c : e.children) constructors_in(*c, keys);
}

// Sums over the properties: key -> cases, and key -> (property -> cases).
std::map<std::string, std::map<std::string, std::int64_t>> by_key() {
  std::map<std::string, std::map<std::string, std::int64_t>> out;
  for (const auto& [property, counts] : g_counts)
    for (const auto& [key, n] : counts) out[key][property] += n;
  return out;
}

std::int64_t total(const std::map<std::string, std::int64_t>& per_property) {
  std::int64_t n = 0;
  for (const auto& [p, k] : per_property) n += k;
  return n;
}

}  // namespace

void set_coverage(bool on) { g_on = on; }
bool coverage_enabled() { return g_on; }
void clear_coverage() { g_counts.clear(); }

void count_case(const std::string& property, const Instance& inst) {
  std::set<std::string> keys;
  if (inst.expr) constructors_in(*inst.expr, keys);
  if (inst.data.is_object() && inst.data.contains("program")) {
    try {
      const Module m = parse_module(inst.data["program"].get<std::string>(), "case.mlir");
      for (const Instruction* i : instructions(m.function)) {
        keys.insert(op_key(op_name(i->op), kAnyUse));
        for (const auto& a : drawn_attributes(*i)) keys.insert(op_key(op_name(i->op), a));
      }
    } catch (const std::exception&) {
      keys.insert(op_key("(unparsable program)", kAnyUse));
    }
  }
  auto& counts = g_counts[property];
  for (const auto& k : keys) ++counts[k];
}

const std::map<std::string, std::map<std::string, std::int64_t>>& coverage_counts() { return g_counts; }

std::string coverage_report() {
  const auto keys = by_key();
  auto cases = [&](const std::string& key) {
    const auto it = keys.find(key);
    return it == keys.end() ? std::int64_t{0} : total(it->second);
  };
  std::string out;
  char line[512];
  // Ops: every (op, attribute) of the table, and every op seen.
  std::map<std::string, std::set<std::string>> rows;
  for (const auto& [op, attribute] : attribute_table()) rows[op].insert(attribute);
  for (const auto& [key, per_property] : keys)
    if (key.rfind("op ", 0) == 0) rows[key.substr(3, key.find('\t') - 3)];
  out += "\nop-level programs: cases that drew each attribute (all properties together)\n";
  std::snprintf(line, sizeof line, "%-20s %-28s %8s\n", "op", "attribute", "cases");
  out += line;
  for (const auto& [op, attributes] : rows) {
    std::snprintf(line, sizeof line, "%-20s %-28s %8lld\n", op.c_str(), kAnyUse.c_str(), static_cast<long long>(cases(op_key(op, kAnyUse))));
    out += line;
    for (const auto& a : attributes) {
      const auto n = cases(op_key(op, a));
      std::snprintf(line, sizeof line, "%-20s %-28s %8lld%s\n", "", a.c_str(), static_cast<long long>(n), n ? "" : "  never drawn");
      out += line;
    }
  }
  // Constructors: every one of the table, with the cases of each property that drew it.
  out += "\nSHlo constructors: cases that contained each constructor, per property\n";
  std::snprintf(line, sizeof line, "%-24s %8s  %s\n", "constructor", "cases", "per property");
  out += line;
  for (const auto& c : constructors()) {
    const auto it = keys.find(ctor_key(c.name));
    std::string detail = "never drawn";
    std::int64_t n = 0;
    if (it != keys.end()) {
      n = total(it->second);
      detail.clear();
      for (const auto& [property, k] : it->second) detail += (detail.empty() ? "" : ", ") + property + " " + std::to_string(k);
    }
    std::snprintf(line, sizeof line, "%-24s %8lld  ", c.name, static_cast<long long>(n));
    out += line + detail + "\n";
  }
  return out;
}

nlohmann::json coverage_json() {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [property, counts] : g_counts)
    for (const auto& [key, n] : counts) j[property][key] = n;
  return j;
}

}  // namespace shlo::fuzz
