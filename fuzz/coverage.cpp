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

const std::vector<std::string>& lean_constructors() {
  static const std::vector<std::string> names = {
#define SHLO_LEAN_CTOR(NAME) #NAME,
#define SHLO_LEAN_BATCH_OP(NAME)
#include "fuzz/lean_constructors.def"
#undef SHLO_LEAN_CTOR
#undef SHLO_LEAN_BATCH_OP
  };
  return names;
}

const std::vector<std::string>& lean_batch_ops() {
  static const std::vector<std::string> names = {
#define SHLO_LEAN_CTOR(NAME)
#define SHLO_LEAN_BATCH_OP(NAME) #NAME,
#include "fuzz/lean_constructors.def"
#undef SHLO_LEAN_CTOR
#undef SHLO_LEAN_BATCH_OP
  };
  return names;
}

std::vector<ConstructorRow> constructor_rows(const std::vector<std::string>& lean) {
  const auto keys = by_key();
  std::set<std::string> listed;
  std::vector<ConstructorRow> rows;
  auto add = [&](const std::string& name) {
    ConstructorRow r;
    r.name = name;
    listed.insert(name);
    if (!find_constructor(name)) {
      rows.push_back(r);
      return;
    }
    r.status = ConstructorRow::Status::NeverDrawn;
    if (const auto it = keys.find(ctor_key(name)); it != keys.end()) {
      r.per_property = it->second;
      r.cases = total(it->second);
      if (r.cases > 0) r.status = ConstructorRow::Status::Drawn;
    }
    rows.push_back(r);
  };
  for (const auto& name : lean) {
    if (name != "batchOp") {
      add(name);
      continue;
    }
    for (const auto& op : lean_batch_ops()) add("batchOp/" + op);
  }
  for (const auto& c : constructors())
    if (!listed.count(c.name)) {
      add(c.name);
      rows.back().status = ConstructorRow::Status::NotInLean;
    }
  return rows;
}

void set_coverage(bool on) { g_on = on; }
bool coverage_enabled() { return g_on; }
void clear_coverage() { g_counts.clear(); }

void count_case(const std::string& property, const Instance& inst) {
  std::set<std::string> keys;
  if (inst.expr) constructors_in(*inst.expr, keys);
  if (inst.data.is_object() && inst.data.contains("program")) {
    try {
      const Module m = parse_module(inst.data["program"].get<std::string>(), "case.mlir");
      for (const Instruction* i : instructions(m.function())) {
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
  // Constructors: every one of the Lean inductive, and any other row of the registry.
  const auto table = constructor_rows();
  std::int64_t no_row = 0, never = 0;
  for (const auto& r : table) {
    no_row += r.status == ConstructorRow::Status::NoRow;
    never += r.status == ConstructorRow::Status::NeverDrawn;
  }
  std::snprintf(line, sizeof line, "\nSHlo constructors of the Lean inductive (%zu, batchOp as its %zu descriptors): cases per property\n",
                lean_constructors().size(), lean_batch_ops().size());
  out += line;
  std::snprintf(line, sizeof line, "%-32s %8s  %s\n", "constructor", "cases", "per property");
  out += line;
  for (const auto& r : table) {
    std::string detail;
    switch (r.status) {
      case ConstructorRow::Status::NoRow: detail = "no row (not implemented)"; break;
      case ConstructorRow::Status::NeverDrawn: detail = "never drawn"; break;
      case ConstructorRow::Status::NotInLean:
      case ConstructorRow::Status::Drawn:
        for (const auto& [property, k] : r.per_property) detail += (detail.empty() ? "" : ", ") + property + " " + std::to_string(k);
        if (r.status == ConstructorRow::Status::NotInLean) detail += (detail.empty() ? "" : "; ") + std::string("not a Lean constructor");
        break;
    }
    std::snprintf(line, sizeof line, "%-32s %8lld  ", r.name.c_str(), static_cast<long long>(r.cases));
    out += line + detail + "\n";
  }
  std::snprintf(line, sizeof line, "%zu rows: %lld with no row in the registry, %lld never drawn\n", table.size(),
                static_cast<long long>(no_row), static_cast<long long>(never));
  out += line;
  return out;
}

nlohmann::json coverage_json() {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [property, counts] : g_counts)
    for (const auto& [key, n] : counts) j[property][key] = n;
  return j;
}

void add_coverage(const nlohmann::json& counts) {
  for (const auto& [property, keys] : counts.items())
    for (const auto& [key, n] : keys.items()) g_counts[property][key] += n.get<std::int64_t>();
}

}  // namespace shlo::fuzz
