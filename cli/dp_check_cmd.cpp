#include "cli/dp_check_cmd.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "ast/mlir_parse.hpp"
#include "interp/program_inputs.hpp"
#include "interp/run.hpp"
#include "oracle/dp_check.hpp"
#ifdef SHLO_HAVE_MPI
#include "interp/mpi/mpi_exchange.hpp"
#endif

namespace shlo::cli {

namespace {

struct DpCheckArgs {
  std::string dp_file, full_file, domain = "f32", inputs_dir, range = "0,1", outputs_dp, outputs_full;
  std::vector<std::string> report_only;
  int replicas = 2;
  int threads = 0;  // 0: every core
  std::int64_t seed = -1;
  bool json = false;
  bool mpi = false;
};

[[noreturn]] void bad_input(const std::string& message) {
  std::cerr << "shlo dp-check: " << message << "\n";
  throw CLI::RuntimeError(2);
}

Module parse(const std::string& file) {
  try {
    Module m = parse_module_file(file);
    require_single_function(m, "shlo dp-check");
    return m;
  } catch (const ParseError& e) {
    bad_input(e.what());
  }
}

NpyArray load(const std::string& path, const std::string& what) {
  try {
    return read_npy(path);
  } catch (const NpyError& e) {
    bad_input(std::string(e.what()) + " (" + what + ")");
  }
}

// FULL's inputs: DIR/<argument>.npy, or drawn from the seed.
std::vector<NpyArray> full_inputs(const Module& full, const DpCheckArgs& args) {
  double lo = 0, hi = 1;
  if (args.seed >= 0 && std::sscanf(args.range.c_str(), "%lf,%lf", &lo, &hi) != 2)
    bad_input("--range expects LO,HI (two numbers), got '" + args.range + "'");
  if (!(lo < hi)) bad_input("--range needs LO < HI");
  std::vector<NpyArray> out;
  const auto& f = full.function();
  for (std::size_t i = 0; i < f.arguments.size(); ++i) {
    const Argument& a = f.arguments[i];
    if (args.seed >= 0) {
      out.push_back(random_input(a.type, static_cast<std::uint64_t>(args.seed), 0, i, lo, hi));
      continue;
    }
    const std::string path = replica_file(args.inputs_dir, 0, a.name.substr(1) + ".npy");
    NpyArray x = load(path, "input " + a.name + " of " + full.file);
    if (x.shape != a.type.shape) bad_input(path + ": shape is " + shape_to_string(x.shape) + ", " + a.name + " needs " + to_string(a.type));
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<NpyArray> load_outputs(const Module& m, const std::string& dir, int replica, const std::string& what) {
  std::vector<NpyArray> out;
  for (std::size_t i = 0; i < m.function().return_values.size(); ++i) {
    const std::string path = replica_file(dir, replica, "result" + std::to_string(i) + ".npy");
    NpyArray a = load(path, what + " output " + m.function().return_values[i]);
    if (a.shape != m.function().return_types[i].shape)
      bad_input(path + ": shape is " + shape_to_string(a.shape) + ", " + m.function().return_values[i] + " is " +
                to_string(m.function().return_types[i]));
    out.push_back(std::move(a));
  }
  return out;
}

#ifdef SHLO_HAVE_MPI
// DP's replica r on MPI rank r; every rank receives every replica's outputs, so every rank
// reaches the same verdict (rank 0 prints it).
class MpiRunner final : public ReplicaRunner {
 public:
  explicit MpiRunner(const mpi::Session& session) : session_(session) {}
  Values<ExactDomain> run(const Module& m, const ExactDomain& d, Values<ExactDomain> in) override { return on_ranks(m, d, std::move(in)); }
  Values<IntervalDomain> run(const Module& m, const IntervalDomain& d, Values<IntervalDomain> in) override {
    return on_ranks(m, d, std::move(in));
  }
  Values<F64Domain> run(const Module& m, const F64Domain& d, Values<F64Domain> in) override { return on_ranks(m, d, std::move(in)); }
  Values<F32Domain> run(const Module& m, const F32Domain& d, Values<F32Domain> in) override { return on_ranks(m, d, std::move(in)); }
  Values<BoundDomain> run(const Module& m, const BoundDomain& d, Values<BoundDomain> in) override { return on_ranks(m, d, std::move(in)); }

 private:
  template <class D>
  Values<D> on_ranks(const Module& m, const D& d, Values<D> in) {
    mpi::Exchange<D> exchange(d, session_);
    Values<D> mine;
    mine.push_back(std::move(in.at(static_cast<std::size_t>(session_.rank()))));
    auto result = run_program(m, d, std::move(mine), RunOptions{}, exchange);
    return exchange.gather_everywhere(result.outputs[0]);
  }
  const mpi::Session& session_;
};
#endif

void run_dp_check(const DpCheckArgs& args) {
  if (args.inputs_dir.empty() == (args.seed < 0)) bad_input("give --inputs DIR or --random-inputs SEED");
  if (args.outputs_dp.empty() != args.outputs_full.empty()) bad_input("--outputs-dp and --outputs-full go together");
  if (args.threads > 0) set_thread_count(args.threads);
  AnyDomain domain;
  try {
    domain = parse_domain(args.domain);
  } catch (const DomainError& e) {
    bad_input(e.what());
  }
  const Module dp = parse(args.dp_file), full = parse(args.full_file);
  DpReport report;
  bool printer = true;  // the process that prints (rank 0 under MPI)
  DpCheckOptions options;
#ifdef SHLO_HAVE_MPI
  std::optional<mpi::Session> session;
  std::optional<MpiRunner> runner;
  if (args.mpi) {
    session.emplace();
    if (session->size() != args.replicas) {
      if (session->rank() == 0)
        std::cerr << "shlo dp-check: -r " << args.replicas << " but mpirun started " << session->size() << " ranks (one per replica)\n";
      throw CLI::RuntimeError(2);  // every rank leaves here, before any exchange: MPI finalises
    }
    printer = session->rank() == 0;
    runner.emplace(*session);
    options.dp_runner = &*runner;
  }
#else
  if (args.mpi) bad_input("--mpi: this shlo was built without MPI (install libopenmpi-dev and rebuild)");
#endif
  const bool tty = printer && isatty(2);
  bool shown = false;
  options.progress = [&](const std::string& phase) {
    if (!tty) return;
    shown = true;
    std::fprintf(stderr, "\r%s ...\033[K", phase.c_str());
  };
  try {
    const DpPlan plan = plan_dp_check(dp, full, args.replicas, args.report_only);
    const auto inputs = full_inputs(full, args);
    if (!args.outputs_dp.empty()) {
      options.dp_outputs.emplace();
      for (int r = 0; r < args.replicas; ++r) options.dp_outputs->push_back(load_outputs(dp, args.outputs_dp, r, "DP replica " + std::to_string(r)));
      options.full_outputs = load_outputs(full, args.outputs_full, 0, "FULL");
    }
    report = dp_check(dp, full, plan, domain, inputs, options);
  } catch (const DpCheckError& e) {
    if (shown) std::fprintf(stderr, "\r\033[K");
    bad_input(e.what());
  } catch (const RunError& e) {
    if (shown) std::fprintf(stderr, "\r\033[K");
#ifdef SHLO_HAVE_MPI
    if (session) {  // the other ranks may be waiting in an all_reduce
      std::cerr << "shlo dp-check: rank " << session->rank() << ": a program cannot run: " << e.what() << "\n";
      session->abort(2);
    }
#endif
    bad_input(std::string("a program cannot run: ") + e.what());
  }
  if (shown) std::fprintf(stderr, "\r\033[K");
  if (printer) std::cout << (args.json ? format_json(report) : format_table(report));
  if (!report.pass()) throw CLI::RuntimeError(1);
}

}  // namespace

void add_dp_check_command(CLI::App& app) {
  auto args = std::make_shared<DpCheckArgs>();
  auto* cmd = app.add_subcommand(
      "dp-check",
      "The data-parallel theorem on a program pair: DP on R replicas, each given a contiguous shard of\n"
      "the batch (replica r gets rows r*N .. r*N+N-1), against FULL on the whole batch.\n"
      "Arguments are matched by name: one whose leading dimension is R times smaller in DP is sharded,\n"
      "every other must have the same type in both. Outputs are matched by position; an output of DP\n"
      "that varies per replica (depends on the shard other than through an all_reduce over every\n"
      "replica, like a per-replica loss) is report-only, as is one named with --report-only.\n"
      "Verdicts: exact: equal; interval:P: the enclosures intersect; f32/f64 (or float outputs given\n"
      "with --outputs-dp/--outputs-full, as shlo run writes them): |dp - full| within the sum of the\n"
      "two sound float32 bounds of shlo check, and the exact enclosures intersect.\n"
      "Inputs: FULL's arguments, INPUTS/<arg>.npy, or drawn with --random-inputs.\n"
      "Exit 0: all PASS; 1: some FAIL; 2: bad input (the file or argument is named).");
  cmd->add_option("dp", args->dp_file, "the data-parallel .mlir file")->required();
  cmd->add_option("full", args->full_file, "the full-batch .mlir file")->required();
  cmd->add_option("--replicas,-r", args->replicas, "number of replicas R of DP")->capture_default_str()->check(CLI::Range(1, 4096));
  auto* in = cmd->add_option("--inputs,-i", args->inputs_dir, "folder of FULL's input .npy files");
  auto* rnd = cmd->add_option("--random-inputs", args->seed, "draw FULL's inputs from this seed instead")->check(CLI::NonNegativeNumber);
  cmd->add_option("--range", args->range, "LO,HI for --random-inputs")->capture_default_str()->needs(rnd);
  in->excludes(rnd);
  cmd->add_option("--domain,-d", args->domain, std::string("arithmetic: ") + kDomainForms + " (mpfr has no verdict)")->capture_default_str();
  cmd->add_option("--outputs-dp", args->outputs_dp, "DP's float outputs computed elsewhere (DIR/r<k>/result<i>.npy)");
  cmd->add_option("--outputs-full", args->outputs_full, "FULL's float outputs computed elsewhere (DIR/result<i>.npy)");
  cmd->add_option("--report-only", args->report_only, "outputs (names) to report without a verdict");
  cmd->add_option("--threads", args->threads, "threads that large ops split their output elements over (default: every core)")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--json", args->json, "print the report as JSON");
  cmd->add_flag("--mpi", args->mpi, "under mpirun -np R: DP's replica r on rank r (shlo run --mpi); rank 0 prints the report");
  cmd->callback([args]() { run_dp_check(*args); });
}

}  // namespace shlo::cli
