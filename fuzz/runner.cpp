#include "fuzz/runner.hpp"

#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <new>
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

// In a child process (run_property_for, replay_case): sends one message to the parent, written
// through before the work it announces, so that it survives the child's death. Cases are
// announced only when a crashed batch is run again to find its case.
std::function<void(const json&)> g_tell_parent;
bool g_announce_cases = false;

// The batch a child is running, in memory it shares with the parent (no system call per batch).
struct BatchInProgress {
  std::uint64_t seed = 0;
  bool started = false;
};
BatchInProgress* g_batch = nullptr;

void tell_parent(const json& message) {
  if (g_tell_parent) g_tell_parent(message);
}

// How a child ended: its answer ("answer"), the last batch seed and case it announced (no case
// when it died drawing one), and why there is no answer ("" when there is one).
struct ChildEnd {
  std::optional<json> answer, last_case;
  std::optional<std::uint64_t> last_batch;
  std::int64_t cases = 0;
  std::string crash;
};

// Runs `work` in a child process. A signal (SIGSEGV from a wild read, SIGABRT from an abort in
// GMP, MPFR or std::terminate) ends only the child; the parent learns which and what case.
ChildEnd in_child(const std::function<json()>& work) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  void* shared = mmap(nullptr, sizeof(BatchInProgress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error(std::string("cannot map shared memory: ") + std::strerror(errno));
  }
  auto* batch = new (shared) BatchInProgress();
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    munmap(shared, sizeof(BatchInProgress));
    throw std::runtime_error(std::string("cannot fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    // The default actions, not a test framework's handlers: the parent reports the signal.
    for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, SIG_DFL);
    FILE* out = fdopen(fds[1], "w");
    g_batch = batch;
    g_tell_parent = [out](const json& m) {
      const std::string line = m.dump() + "\n";
      std::fwrite(line.data(), 1, line.size(), out);
      std::fflush(out);
    };
    json answer;
    try {
      answer = work();
    } catch (const std::exception& e) {
      answer = {{"escaped", e.what()}};
    } catch (...) {
      answer = {{"escaped", "an object that is not a std::exception"}};
    }
    tell_parent({{"answer", answer}});
    std::fflush(nullptr);
    _exit(0);
  }
  close(fds[1]);
  ChildEnd end;
  FILE* in = fdopen(fds[0], "r");
  char* line = nullptr;
  std::size_t capacity = 0;
  while (getline(&line, &capacity, in) > 0) {
    const json m = json::parse(line, nullptr, false);  // a line cut short by the child's death is dropped
    if (m.is_discarded() || !m.is_object()) continue;
    if (m.contains("drawing")) end.last_case.reset();
    if (m.contains("case")) {
      end.last_case = m["case"];
      ++end.cases;
    }
    if (m.contains("answer")) end.answer = m["answer"];
  }
  std::free(line);
  std::fclose(in);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (batch->started) end.last_batch = batch->seed;
  munmap(shared, sizeof(BatchInProgress));
  if (WIFSIGNALED(status))
    end.crash = "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    end.crash = "exited with status " + std::to_string(WEXITSTATUS(status));
  else if (!end.answer)
    end.crash = "ended without an answer";
  else if (end.answer->contains("escaped"))
    end.crash = "an exception escaped: " + (*end.answer)["escaped"].get<std::string>();
  if (!end.crash.empty()) end.answer.reset();
  return end;
}

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
  } catch (...) {
    return Verdict::fail("exception: an object that is not a std::exception");
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
    if (g_announce_cases) tell_parent({{"drawing", true}});
    const Instance inst = *p.gen();
    if (g_announce_cases) tell_parent({{"case", instance_to_json(inst)}});
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

json run_to_json(const PropertyRun& r) {
  json j = {{"runs", r.runs}, {"passed", r.passed}, {"failed", r.failed}, {"discarded", r.discarded},
            {"seconds", r.seconds}, {"reproduce", r.reproduce}, {"detail", r.detail}, {"seed", r.seed}};
  if (r.counterexample) j["counterexample"] = instance_to_json(*r.counterexample);
  return j;
}

PropertyRun run_from_json(const std::string& name, const json& j) {
  PropertyRun r;
  r.name = name;
  r.runs = j.at("runs");
  r.passed = j.at("passed");
  r.failed = j.at("failed");
  r.discarded = j.at("discarded");
  r.seconds = j.at("seconds");
  r.reproduce = j.at("reproduce");
  r.detail = j.at("detail");
  r.seed = j.at("seed");
  if (j.contains("counterexample")) r.counterexample = instance_from_json(j["counterexample"]);
  return r;
}

}  // namespace

namespace {

// Batches under successive seeds until `seconds` are used (one batch when 0); the first
// failure ends it. In a child, each batch's seed is told to the parent first.
PropertyRun run_batches(const Property& p, std::uint64_t seed, int batch, double seconds) {
  PropertyRun sum;
  sum.name = p.name;
  for (;; ++seed) {
    if (g_batch) *g_batch = {seed, true};
    PropertyRun r = run_property(p, seed, batch);
    sum.runs += r.runs;
    sum.passed += r.passed;
    sum.discarded += r.discarded;
    sum.seconds += r.seconds;
    sum.seed = seed;
    if (r.failed) {
      r.runs = sum.runs;
      r.passed = sum.passed;
      r.discarded = sum.discarded;
      r.seconds = sum.seconds;
      r.seed = seed;
      return r;
    }
    if (sum.seconds >= seconds) return sum;
  }
}

}  // namespace

PropertyRun run_property_for(const Property& p, std::uint64_t seed, int batch, double seconds) {
  const auto start = std::chrono::steady_clock::now();
  const ChildEnd end = in_child([&] {
    clear_coverage();  // the child's copy: only what this run counts goes back
    const PropertyRun r = run_batches(p, seed, batch, seconds);
    const json counts = coverage_json();
    return json{{"run", run_to_json(r)}, {"coverage", counts}};
  });
  if (end.answer) {
    add_coverage((*end.answer)["coverage"]);
    return run_from_json(p.name, (*end.answer)["run"]);
  }
  // The child died. Its batch is run again in a child that announces every case: the last one
  // announced is the case that crashes (a case is a function of the seed).
  PropertyRun r;
  r.name = p.name;
  r.failed = 1;
  r.seed = end.last_batch.value_or(seed);
  const ChildEnd again = in_child([&] {
    g_announce_cases = true;
    run_property(p, r.seed, batch);
    return json::object();
  });
  r.runs = static_cast<int>(std::max<std::int64_t>(again.cases, 1));
  r.passed = r.runs - 1;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.detail = "the property crashed (" + end.crash + ")";
  if (again.answer)
    r.detail += "; its batch (seed " + std::to_string(r.seed) + ") did not crash when run again";
  else if (again.last_case) {
    r.counterexample = instance_from_json(*again.last_case);
    r.detail += " judging the saved case";
  } else
    r.detail += " drawing a case";
  return r;
}

PropertyRun run_property_isolated(const Property& p, std::uint64_t seed, int runs) {
  return run_property_for(p, seed, runs, 0);
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
  const ChildEnd end = in_child([&] {
    const Verdict v = judge(p->check, instance);
    return json{{"status", static_cast<int>(v.status)}, {"detail", v.detail}};
  });
  if (!end.answer) {
    out.verdict = Verdict::fail("the check crashed (" + end.crash + ")");
    return out;
  }
  out.verdict.status = static_cast<Verdict::Status>((*end.answer)["status"].get<int>());
  out.verdict.detail = (*end.answer)["detail"].get<std::string>();
  return out;
}

}  // namespace shlo::fuzz
