#include "fuzz/runner.hpp"

#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <unordered_map>

#include "ast/expr_json.hpp"
#include "fuzz/coverage.hpp"
#include "fuzz/gen.hpp"
#include "interp/domain/domain_spec.hpp"
#include "oracle/text_case.hpp"

namespace rc::detail {
// Defined in the RapidCheck library (used by its own configuration parser).
std::string reproduceMapToString(const std::unordered_map<std::string, Reproduce>& reproduceMap);
}  // namespace rc::detail

namespace fs = std::filesystem;
using nlohmann::json;

namespace shlo::fuzz {

namespace {

// Our runner reports failures itself (with the corpus path and the reproduction string), so
// RapidCheck's own listener, which prints a summary at exit, is not used.
class QuietListener : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

}  // namespace

Verdict judge(const std::function<Verdict(const Instance&)>& check, const Instance& inst) {
  try {
    return check(inst);
  } catch (const std::exception& e) {
    // An enclosure that cannot decide a comparison (an exact zero sum that Lean's total
    // division handles, say) makes the case meaningless, not failed; anything else fails.
    const std::string what = e.what();
    return what.find("undecided") != std::string::npos ? Verdict::discard("undecidable comparison")
                                                       : Verdict::fail("exception: " + what);
  }
}

PropertyRun run_property(const Property& p, std::uint64_t seed, int runs, int max_size) {
  // RapidCheck announces its global configuration (a random seed we never use: ours are
  // explicit) on first use; load it once with standard error silenced.
  static std::once_flag quiet;
  std::call_once(quiet, [] {
    std::streambuf* saved = std::cerr.rdbuf(nullptr);
    (void)rc::detail::configuration();
    std::cerr.rdbuf(saved);
    std::cerr.clear();
  });
  PropertyRun out;
  out.name = p.name;
  std::optional<Instance> last_failure;
  std::string last_detail;
  std::int64_t judged = 0, discarded = 0;
  const auto start = std::chrono::steady_clock::now();
  auto property = [&] {
    const Instance inst = *p.gen();
    const Verdict v = judge(p.check, inst);
    if (v.status == Verdict::Status::Discard) {
      ++discarded;
      RC_DISCARD(v.detail);
    }
    ++judged;
    if (coverage_enabled() && !last_failure && v.passed()) count_case(p.name, inst);  // not the shrinking steps
    if (!v.passed()) {
      last_failure = inst;
      last_detail = v.detail;
    }
    RC_ASSERT(v.passed());
  };
  rc::detail::TestParams params;
  params.seed = seed;
  params.maxSuccess = runs;
  params.maxSize = max_size;
  params.maxDiscardRatio = 20;
  rc::detail::TestMetadata metadata;
  metadata.id = p.name;
  metadata.description = p.name;
  QuietListener listener;
  const auto result = rc::detail::checkProperty(rc::detail::toProperty(property), metadata, params, listener);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.discarded = discarded;
  rc::detail::SuccessResult ok;
  rc::detail::FailureResult bad;
  rc::detail::GaveUpResult gave;
  rc::detail::Error error;
  if (result.match(ok)) {
    out.runs = out.passed = ok.numSuccess;
  } else if (result.match(bad)) {
    out.passed = bad.numSuccess;
    out.runs = bad.numSuccess + 1;
    out.failed = 1;
    out.counterexample = last_failure;
    out.detail = last_detail.empty() ? bad.description : last_detail;
    std::unordered_map<std::string, rc::detail::Reproduce> map;
    map.emplace(p.name, bad.reproduce);
    out.reproduce = rc::detail::reproduceMapToString(map);
  } else if (result.match(gave)) {
    out.runs = out.passed = gave.numSuccess;
    out.detail = "gave up: " + gave.description;
  } else if (result.match(error)) {
    out.failed = 1;
    out.detail = "error: " + error.description;
  }
  return out;
}

namespace {

void write_atomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error(path.string() + ": cannot write");
  }
  fs::rename(tmp, path);
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

}  // namespace

std::string save_case(const std::string& corpus, const Property& p, const PropertyRun& run, std::uint64_t seed) {
  const json instance = run.counterexample ? instance_to_json(*run.counterexample) : json::object();
  const std::string id = std::to_string(std::hash<std::string>{}(instance.dump()) % 1000000007ULL);
  const fs::path dir = fs::path(corpus) / p.name / id;
  fs::create_directories(dir);
  json c = {{"property", p.name},   {"statement", p.statement}, {"seed", seed},
            {"reproduce", run.reproduce}, {"verdict", "fail"},   {"detail", run.detail},
            {"first_seen", today()},  {"instance", instance}};
  if (run.counterexample && run.counterexample->expr) {
    try {
      const TextCase tc = text_case(*run.counterexample->expr);
      c["replicas"] = tc.replicas;
      json inputs = json::array();
      for (const auto& replica : tc.inputs) {
        json r = json::object();
        for (const auto& [name, values] : replica) {
          json v = json::array();
          for (const auto& q : values) v.push_back(q.str());
          r[name] = v;
        }
        inputs.push_back(r);
      }
      c["inputs"] = inputs;
      write_atomically(dir / "program.mlir", tc.text);
    } catch (const std::exception&) {
      // An instance whose text cannot be built keeps only its JSON.
    }
  }
  write_atomically(dir / "case.json", c.dump(1) + "\n");
  return dir.string();
}

namespace {

// Same JSON kind, numbers counted as one kind (a saved 24 and a generated 53 are both numbers).
bool same_kind(const json& a, const json& b) {
  return (a.is_number() && b.is_number()) || a.type() == b.type();
}

// Does `saved` have the form of `sample` (what the property's generator writes)? Top-level keys
// must match exactly; below, an object is a map (every value has the form of the sample's
// first value) and an array's elements have the form of the sample's first element.
std::string form_mismatch(const json& saved, const json& sample, const std::string& at, bool exact_keys) {
  if (!same_kind(saved, sample)) return at + ": expected " + sample.type_name() + ", found " + saved.type_name();
  if (sample.is_object()) {
    if (exact_keys) {
      for (const auto& [k, v] : sample.items())
        if (!saved.contains(k)) return at + ": missing \"" + k + "\"";
      for (const auto& [k, v] : saved.items()) {
        if (!sample.contains(k)) return at + ": unknown key \"" + k + "\"";
        if (auto m = form_mismatch(v, sample[k], at + "/" + k, false); !m.empty()) return m;
      }
    } else if (!sample.empty()) {
      for (const auto& [k, v] : saved.items())
        if (auto m = form_mismatch(v, sample.begin().value(), at + "/" + k, false); !m.empty()) return m;
    }
  } else if (sample.is_array() && !sample.empty()) {
    for (std::size_t i = 0; i < saved.size(); ++i)
      if (auto m = form_mismatch(saved[i], sample[0], at + "/" + std::to_string(i), false); !m.empty()) return m;
  }
  return "";
}

// Why a saved instance cannot be judged by `p`, or "" when it can.
std::string unreadable_instance(const Property& p, const Instance& saved) {
  const Instance sample = p.gen()(rc::Random(), 10).value();
  if (sample.expr && !saved.expr) return "/instance: missing \"expr\"";
  if (saved.expr && !saved.expr->has_values()) return "/instance/expr: the expression has no values (a skeleton)";
  if (auto m = form_mismatch(saved.data, sample.data, "/instance/data", true); !m.empty()) return m;
  if (saved.data.contains("precision")) {
    const json& bits = saved.data["precision"];
    if (!bits.is_number_integer() || bits.get<std::int64_t>() < kMinPrecisionBits || bits.get<std::int64_t>() > kMaxPrecisionBits)
      return "/instance/data/precision: expected a number of bits from " + std::to_string(kMinPrecisionBits) + " to " +
             std::to_string(kMaxPrecisionBits) + ", found " + bits.dump();
  }
  return "";
}

}  // namespace

Replay replay_case(const std::string& path) {
  Replay out;
  fs::path file = path;
  std::error_code ec;
  if (fs::is_directory(file, ec)) file /= "case.json";
  out.path = file.string();
  auto unreadable = [&](const std::string& why) {
    out.unreadable = true;
    out.verdict = Verdict::fail("unreadable case: " + why);
    return out;
  };
  Instance instance;
  const Property* p = nullptr;
  try {
    const json c = parse_json_file(file.string());
    if (!c.is_object() || !c.contains("property") || !c["property"].is_string()) return unreadable("no \"property\" name");
    out.property = c["property"].get<std::string>();
    p = find_property(out.property);
    if (!p) return unreadable("unknown property '" + out.property + "'");
    if (!c.contains("instance") || !c["instance"].is_object()) return unreadable("no \"instance\" object");
    instance = instance_from_json(c["instance"]);
    if (const std::string why = unreadable_instance(*p, instance); !why.empty()) return unreadable(why);
  } catch (const std::exception& e) {
    return unreadable(e.what());
  }
  out.verdict = judge(p->check, instance);
  return out;
}

}  // namespace shlo::fuzz
