#include "cli/prop_cmds.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/progress_line.hpp"
#include "fuzz/coverage.hpp"
#include "fuzz/runner.hpp"

namespace shlo::cli {

using namespace shlo::fuzz;
using nlohmann::json;

namespace {

std::vector<const Property*> selected(const std::vector<std::string>& only) {
  std::vector<const Property*> out;
  for (const auto& p : catalogue()) {
    bool take = only.empty();
    for (const auto& o : only) take = take || p.name == o || p.name.rfind(o + ".", 0) == 0;
    if (take) out.push_back(&p);
  }
  for (const auto& o : only) {
    bool known = false;
    for (const auto& p : catalogue()) known = known || p.name == o || p.name.rfind(o + ".", 0) == 0;
    if (!known) {
      std::cerr << "shlo: unknown property '" << o << "' (see shlo prop --list)\n";
      throw CLI::RuntimeError(2);
    }
  }
  return out;
}

void list() {
  for (const auto& p : catalogue()) {
    std::printf("%-36s %s\n", p.name.c_str(), p.statement.c_str());
    if (!p.theorem.empty()) std::printf("%-36s   (Lean: %s)\n", "", p.theorem.c_str());
  }
}

struct Totals {
  int runs = 0, passed = 0, failed = 0;
  std::int64_t discarded = 0;
  double seconds = 0;
};

// Saves a failing case and says where; returns the folder (or why it was not saved).
std::string report_failure(const Property& p, const PropertyRun& r, const std::string& corpus, std::uint64_t seed) {
  std::string where;
  try {
    where = save_case(corpus, p, r, seed);
  } catch (const std::exception& e) {
    where = std::string("(not saved: ") + e.what() + ")";
  }
  std::fprintf(stderr, "FAIL %s: %s\n  saved to %s\n  replay: shlo replay %s\n  RapidCheck: RC_PARAMS=\"reproduce=%s\"\n", p.name.c_str(),
               r.detail.c_str(), where.c_str(), where.c_str(), r.reproduce.c_str());
  return where;
}

}  // namespace

void add_prop_commands(CLI::App& app) {
  {
    auto* cmd = app.add_subcommand("prop", "Run the property catalogue: text, skeleton, meaning, domains and the data-parallel\n"
                                           "theorems on random instances. Ends with a table; exits 1 on any failure, which is\n"
                                           "shrunk, saved under the corpus and replayable with `shlo replay`.");
    struct Opts {
      std::uint64_t seed = 1;
      int runs = 0;
      double time = 60;
      std::vector<std::string> only;
      bool list = false, as_json = false, coverage = false;
      std::string corpus = "corpus";
    };
    auto o = std::make_shared<Opts>();
    cmd->add_option("--seed", o->seed, "first RapidCheck seed")->capture_default_str();
    cmd->add_option("--runs", o->runs, "cases per property (default: as many as --time allows, at least 20)");
    cmd->add_option("--time", o->time, "time budget in seconds for the whole catalogue")->capture_default_str();
    cmd->add_option("--only", o->only, "properties (or families: text, skeleton, meaning, domains, theorem) to run");
    cmd->add_flag("--list", o->list, "list the properties and exit");
    cmd->add_option("--corpus", o->corpus, "where failures are saved")->capture_default_str();
    cmd->add_flag("--json", o->as_json, "print the table as JSON");
    cmd->add_flag("--coverage", o->coverage,
                  "after the table, what the cases drew: per op, the cases with each attribute value (padding, strides,\n"
                  "dilations, groups, permutations, dimensions, ...), and per SHlo constructor, the cases of each property\n"
                  "that contained it; 'never drawn' marks the gaps");
    cmd->callback([o]() {
      if (o->list) {
        list();
        return;
      }
      const auto props = selected(o->only);
      set_coverage(o->coverage);
      const double share = o->time / static_cast<double>(props.size());
      Totals total;
      json rows = json::array();
      if (!o->as_json)
        std::printf("%-36s %6s %7s %7s %10s %9s %9s\n", "property", "runs", "passed", "failed", "discarded", "time (s)", "cases/s");
      ProgressLine progress;
      for (std::size_t k = 0; k < props.size(); ++k) {
        const Property* p = props[k];
        progress.update([&] {
          return "[" + std::to_string(k + 1) + "/" + std::to_string(props.size()) + "] " + p->name + "  " +
                 std::to_string(static_cast<int>(progress.elapsed())) + " s";
        });
        // Batches of cases under successive seeds until the property's share of the time is
        // used, in a child process: a crash fails this property only.
        const int batch = o->runs > 0 ? o->runs : 20;
        const PropertyRun sum = run_property_for(*p, o->seed, batch, o->runs > 0 ? 0 : share);
        progress.clear();
        const std::string saved_to = sum.failed ? report_failure(*p, sum, o->corpus, sum.seed) : std::string();
        total.runs += sum.runs;
        total.passed += sum.passed;
        total.failed += sum.failed;
        total.discarded += sum.discarded;
        total.seconds += sum.seconds;
        const double rate = sum.seconds > 0 ? sum.runs / sum.seconds : 0;
        if (o->as_json)
          rows.push_back({{"property", p->name}, {"runs", sum.runs}, {"passed", sum.passed}, {"failed", sum.failed},
                          {"discarded", sum.discarded}, {"seconds", sum.seconds}, {"cases_per_second", rate}, {"saved_to", saved_to}});
        else
          std::printf("%-36s %6d %7d %7d %10lld %9.2f %9.1f\n", p->name.c_str(), sum.runs, sum.passed, sum.failed,
                      static_cast<long long>(sum.discarded), sum.seconds, rate);
        std::fflush(stdout);
      }
      if (o->as_json) {
        json out = {{"properties", rows}, {"failed", total.failed}};
        if (o->coverage) out["coverage"] = coverage_json();
        std::cout << out.dump(1) << "\n";
      } else {
        std::printf("%-36s %6d %7d %7d %10lld %9.2f\n", "total", total.runs, total.passed, total.failed,
                    static_cast<long long>(total.discarded), total.seconds);
        std::printf("%d passed, %d failed\n", total.passed, total.failed);
        if (o->coverage) std::printf("%s", coverage_report().c_str());
      }
      if (total.failed) throw CLI::RuntimeError(1);
    });
  }
  {
    auto* cmd = app.add_subcommand("fuzz", "A long campaign: every property, batch after batch under fresh seeds, for a time\n"
                                           "budget, with a live progress line. --shard K/N takes seeds K, K+N, K+2N, ... so that\n"
                                           "N machines split one campaign without overlap.");
    auto time = std::make_shared<double>(600);
    auto shard = std::make_shared<std::string>("0/1");
    auto corpus = std::make_shared<std::string>("corpus");
    auto batch = std::make_shared<int>(10);
    cmd->add_option("--time", *time, "seconds")->capture_default_str();
    cmd->add_option("--shard", *shard, "K/N: this machine's share of the seeds")->capture_default_str();
    cmd->add_option("--corpus", *corpus, "where failures are saved")->capture_default_str();
    cmd->add_option("--batch", *batch, "cases per property per seed")->capture_default_str();
    cmd->callback([time, shard, corpus, batch]() {
      std::uint64_t k = 0, n = 1;
      if (std::sscanf(shard->c_str(), "%lu/%lu", &k, &n) != 2 || n == 0 || k >= n) {
        std::cerr << "shlo fuzz: --shard expects K/N with 0 <= K < N, got '" << *shard << "'\n";
        throw CLI::RuntimeError(2);
      }
      const auto start = std::chrono::steady_clock::now();
      auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
      ProgressLine progress;  // a batch takes milliseconds: one line every few seconds in a log
      std::int64_t cases = 0, failures = 0;
      for (std::uint64_t seed = k; elapsed() < *time; seed += n) {
        for (const auto& p : catalogue()) {
          const PropertyRun r = run_property_isolated(p, seed, *batch);
          cases += r.runs;
          if (r.failed) {
            ++failures;
            progress.clear();
            report_failure(p, r, *corpus, seed);
          }
          progress.update([&] {
            char line[256];
            std::snprintf(line, sizeof line, "seed %lu  %lld cases  %.1f cases/s  %lld failures  %.0f/%.0f s",
                          static_cast<unsigned long>(seed), static_cast<long long>(cases), cases / std::max(elapsed(), 1e-9),
                          static_cast<long long>(failures), elapsed(), *time);
            return std::string(line);
          });
          if (elapsed() >= *time) break;
        }
      }
      progress.clear();
      std::printf("fuzz: %lld cases in %.0f s, %lld failures\n", static_cast<long long>(cases), elapsed(), static_cast<long long>(failures));
      if (failures) throw CLI::RuntimeError(1);
    });
  }
  {
    auto* cmd = app.add_subcommand("replay", "Re-run saved cases (folders under the corpus, or their case.json) and print each verdict.\n"
                                           "Exit 0: every case passes or is meaningless now (SKIP); 1: a case fails; 2: a case cannot be\n"
                                           "read (ERROR: not JSON, an unknown property, data not of the property's form).");
    auto paths = std::make_shared<std::vector<std::string>>();
    cmd->add_option("paths", *paths, "case folders, case.json files, or folders to search")->required();
    cmd->callback([paths]() {
      std::vector<std::string> cases;
      for (const auto& p : *paths) {
        std::error_code ec;  // a path that cannot be listed is replayed as given, and reported unreadable
        if (std::filesystem::is_directory(p, ec) && !std::filesystem::exists(std::filesystem::path(p) / "case.json", ec)) {
          for (std::filesystem::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
            if (it->path().filename() == "case.json") cases.push_back(it->path().string());
          if (ec) cases.push_back(p);
        } else {
          cases.push_back(p);
        }
      }
      std::sort(cases.begin(), cases.end());
      int passed = 0, skipped = 0, failed = 0, unreadable = 0;
      for (const auto& c : cases) {
        const Replay r = replay_case(c);  // never throws: one bad case does not stop the others
        const auto status = r.verdict.status;
        const char* label = r.unreadable ? "ERROR" : status == Verdict::Status::Pass ? "PASS" : status == Verdict::Status::Discard ? "SKIP" : "FAIL";
        std::printf("%-5s %-32s %s%s%s\n", label, r.property.c_str(), r.path.c_str(), r.verdict.detail.empty() ? "" : ": ",
                    r.verdict.detail.c_str());
        passed += !r.unreadable && status == Verdict::Status::Pass;
        skipped += !r.unreadable && status == Verdict::Status::Discard;
        failed += !r.unreadable && status == Verdict::Status::Fail;
        unreadable += r.unreadable;
      }
      std::printf("%zu cases: %d passed, %d skipped (meaningless now), %d failed, %d unreadable\n", cases.size(), passed, skipped,
                  failed, unreadable);
      if (unreadable) throw CLI::RuntimeError(2);  // the corpus itself is broken: an error, never a pass
      if (failed) throw CLI::RuntimeError(1);
    });
  }
}

}  // namespace shlo::cli
