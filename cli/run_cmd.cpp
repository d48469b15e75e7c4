#include "cli/run_cmd.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>

#include "ast/mlir_parse.hpp"
#include "cli/progress_line.hpp"
#include "interp/cuda/executor.hpp"
#include "interp/domain/domain_spec.hpp"
#include "interp/memory.hpp"
#include "interp/npy.hpp"
#include "interp/program_inputs.hpp"
#include "interp/run.hpp"
#ifdef SHLO_HAVE_MPI
#include "interp/mpi/mpi_exchange.hpp"
#endif
#include "oracle/dp_check.hpp"

namespace fs = std::filesystem;

namespace shlo::cli {

namespace {

struct RunArgs {
  std::string file, domain = "f32", inputs_dir, out_dir, range = "0,1", max_memory, function;
  int replicas = 1;
  int threads = 0;  // 0: every core
  std::int64_t seed = -1;
  bool timing = false;
  bool mpi = false;
  bool convert_inputs = false;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::cerr << "shlo run: " << message << "\n";
  throw CLI::RuntimeError(2);
}

// A folder for --out: an error names it and says why (never a library's exception text).
void make_folder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec)) usage_error("--out: cannot create the folder " + dir.string() + ": " +
                                                    (ec ? ec.message() : std::string("a file of that name exists")));
}

// write_npy with its error as a usage error (exit 2) naming the file.
void save_npy(const std::string& path, const NpyArray& a) {
  try {
    write_npy(path, a);
  } catch (const NpyError& e) {
    usage_error(e.what());
  }
}

std::string replica_dir(const std::string& base, int r, int replicas) {
  return replicas == 1 ? base : (fs::path(base) / ("r" + std::to_string(r))).string();
}

// The input arrays of replicas first .. first+count-1 (all of them by default), read or drawn
// (and then saved under OUT); none for a function without arguments.
InputArrays input_arrays(const Module& m, const RunArgs& args, int first = 0, int count = -1) {
  try {
    if (m.function().arguments.empty()) return {};
    if (args.seed < 0) return read_inputs(m.function(), args.inputs_dir, args.replicas, first, count, args.convert_inputs);
    const auto [lo, hi] = parse_range(args.range);
    InputArrays in = random_inputs(m.function(), static_cast<std::uint64_t>(args.seed), args.replicas, lo, hi, first, count);
    if (!args.out_dir.empty()) save_inputs(m.function(), in, args.out_dir);
    return in;
  } catch (const InputError& e) {
    usage_error(e.what());
  }
}

// Those arrays as domain values.
template <class D>
std::vector<std::vector<Value<D>>> input_values(const D& d, const Module& m, const RunArgs& args, const InputArrays& in,
                                                int first = 0, int count = -1) {
  if (m.function().arguments.empty()) {  // nothing to read or draw
    const int replicas = count < 0 ? args.replicas - first : count;
    return std::vector<std::vector<Value<D>>>(static_cast<std::size_t>(replicas));
  }
  try {
    return npy_values(d, m.function(), in);
  } catch (const InputError& e) {
    usage_error(e.what());
  }
}

template <class D>
std::vector<std::vector<Value<D>>> load_inputs(const D& d, const Module& m, const RunArgs& args, int first = 0, int count = -1) {
  return input_values(d, m, args, input_arrays(m, args, first, count), first, count);
}

template <class D>
void write_outputs(const D& d, const Module& m, const RunResult<D>& result, const RunArgs& args) {
  constexpr bool exact_text = !std::is_floating_point_v<typename D::Scalar>;
  for (int r = 0; r < args.replicas; ++r) {
    const fs::path dir = replica_dir(args.out_dir, r, args.replicas);
    make_folder(dir);
    const auto& outs = result.outputs[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < outs.size(); ++i) {
      const std::string stem = (dir / ("result" + std::to_string(i))).string();
      if (const auto* p = std::get_if<PredTensor>(&outs[i])) {
        save_npy(stem + ".npy", {p->shape, p->data});
        continue;
      }
      if (const auto* n = std::get_if<IntTensor>(&outs[i])) {  // integers: .npy of their element type, and exact text
        const ElementType element = m.function().return_types[i].element;
        const bool is_signed = is_signed_integer(element);
        save_npy(stem + ".npy", npy_of_integers(n->shape, n->data, element));
        std::ofstream txt(stem + ".txt");
        for (auto x : n->data) txt << (is_signed ? std::to_string(static_cast<std::int64_t>(x)) : std::to_string(x)) << "\n";
        continue;
      }
      const auto& t = std::get<Tensor<typename D::Scalar>>(outs[i]);
      if constexpr (std::is_same_v<typename D::Scalar, float>) {
        save_npy(stem + ".npy", {t.shape, std::vector<float>(t.data.begin(), t.data.end())});
      } else {
        std::vector<double> v;
        for (const auto& x : t.data) v.push_back(d.to_double(x));
        save_npy(stem + ".npy", {t.shape, v});
      }
      if constexpr (exact_text) {
        std::ofstream txt(stem + ".txt");
        txt << "# " << m.function().return_values[i] << " : " << to_string(m.function().return_types[i]) << " in " << d.name()
            << ", row-major, one element per line\n";
        for (const auto& x : t.data) txt << d.to_string(x) << "\n";
        if (!txt) usage_error(stem + ".txt: cannot write file");
      }
    }
  }
}

template <class D>
void print_summary(const D& d, const Module& m, const RunResult<D>& result, const RunArgs& args) {
  const bool interval = std::is_same_v<D, IntervalDomain>;
  std::printf("%-8s %-8s %-18s %14s %14s%s\n", "replica", "result", "shape", "min", "max", interval ? "  widest enclosure" : "");
  for (int r = 0; r < args.replicas; ++r) {
    const auto& outs = result.outputs[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < outs.size(); ++i) {
      const std::string name = m.function().return_values[i];
      if (const auto* p = std::get_if<PredTensor>(&outs[i])) {
        std::int64_t ones = 0;
        for (auto b : p->data) ones += b;
        std::printf("%-8d %-8s %-18s %14s %14s  (%lld true)\n", r, name.c_str(), shape_to_string(p->shape).c_str(), "i1", "",
                    static_cast<long long>(ones));
        continue;
      }
      if (const auto* n = std::get_if<IntTensor>(&outs[i])) {
        const ElementType e = m.function().return_types[i].element;
        auto value = [&](std::uint64_t x) { return is_signed_integer(e) ? std::to_string(static_cast<std::int64_t>(x)) : std::to_string(x); };
        auto less = [&](std::uint64_t x, std::uint64_t y) {
          return is_signed_integer(e) ? static_cast<std::int64_t>(x) < static_cast<std::int64_t>(y) : x < y;
        };
        const auto [lo, hi] = std::minmax_element(n->data.begin(), n->data.end(), less);
        std::printf("%-8d %-8s %-18s %14s %14s  (%s)\n", r, name.c_str(), shape_to_string(n->shape).c_str(),
                    n->data.empty() ? "" : value(*lo).c_str(), n->data.empty() ? "" : value(*hi).c_str(), to_string(e));
        continue;
      }
      const auto& t = std::get<Tensor<typename D::Scalar>>(outs[i]);
      double lo = std::numeric_limits<double>::infinity(), hi = -lo, widest = 0;
      std::int64_t nan = 0, inf = 0;
      for (const auto& x : t.data) {
        const double v = d.to_double(x);
        if (std::isnan(v)) {
          ++nan;
          continue;
        }
        inf += std::isinf(v);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        if constexpr (std::is_same_v<D, IntervalDomain>) widest = std::max(widest, IntervalDomain::width(x));
      }
      std::printf("%-8d %-8s %-18s %14.7g %14.7g", r, name.c_str(), shape_to_string(t.shape).c_str(), lo, hi);
      if (interval) std::printf("  %.3g", widest);
      if (nan || inf) std::printf("  (%lld NaN, %lld infinite)", static_cast<long long>(nan), static_cast<long long>(inf));
      std::printf("\n");
    }
  }
}

// The instructions that took longest, where they are written: a benchmark's first question is
// which op (not which op kind) to look at. serial as in print_timing's table.
void print_slowest_instructions(std::vector<InstructionTime> spent, const Module& m) {
  constexpr std::size_t kShown = 10;
  if (spent.empty()) return;
  const std::size_t shown = std::min(kShown, spent.size());
  std::partial_sort(spent.begin(), spent.begin() + static_cast<std::ptrdiff_t>(shown), spent.end(),
                    [](const InstructionTime& a, const InstructionTime& b) { return a.seconds > b.seconds; });
  std::printf("slowest %zu of %zu instructions run:\n", shown, spent.size());
  std::printf("  %-28s %-20s %-22s %10s %10s\n", "where", "op", "result shape", "time (s)", "serial (s)");
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& t = spent[i];
    const std::string where = m.file + ":" + std::to_string(t.location.line) + ":" + std::to_string(t.location.column);
    std::printf("  %-28s %-20s %-22s %10.3f %10.3f\n", where.c_str(), op_name(t.op), shape_to_string(t.shape).c_str(), t.seconds,
                t.cpu_seconds - t.split_seconds);
  }
}

// Wall time of the steps around the ops, for --timing: what no thread count speeds up unless the
// step itself splits (the heap touch does).
struct Phases {
  double parse = 0, heap_touch = 0, inputs = 0, outputs = 0;  // the inputs: drawn or read alongside the touch, then converted
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class D>
void print_timing(const RunResult<D>& result, const Module& m, double total, const Phases& phases) {
  // serial: CPU time outside loops that split over the threads (SplitWork); meaningful with --threads 1.
  std::printf("\n%-20s %8s %10s %12s %10s %10s\n", "op", "count", "time (s)", "flops", "GFLOP/s", "serial (s)");
  double flops = 0, split = 0;
  for (const auto& [name, p] : result.profile) {
    std::printf("%-20s %8lld %10.3f %12.4g %10.3f %10.3f\n", name.c_str(), static_cast<long long>(p.count), p.seconds, p.flops,
                p.seconds > 0 ? p.flops / p.seconds / 1e9 : 0.0, p.cpu_seconds - p.split_seconds);
    flops += p.flops;
    split += p.split_seconds;
  }
  std::printf("%-20s %8s %10.3f %12.4g %10.3f\n", "total", "", total, flops, total > 0 ? flops / total / 1e9 : 0.0);
  std::printf("peak live tensors: %.1f MiB (scalar storage)\n", static_cast<double>(result.peak_live_bytes) / (1 << 20));
  std::printf("wall time: parse %.3f s, heap touch %.3f s (inputs drawn or read alongside), inputs %.3f s in all, ops %.3f s, "
              "outputs %.3f s\n", phases.parse, phases.heap_touch, phases.inputs, total, phases.outputs);
  // The whole process so far (parsing, inputs, outputs written), user and system time.
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  const double cpu = secs(usage.ru_utime) + secs(usage.ru_stime);
  std::printf("process CPU %.3f s, of it in split loops %.3f s: serial fraction %.1f%% (with --threads 1)\n", cpu, split,
              cpu > 0 ? 100 * (cpu - split) / cpu : 0.0);
  print_slowest_instructions(result.instructions, m);
}

// The time line, the summary table and the output files of a finished run; returns the seconds
// spent writing the files.
template <class D>
double report(const D& d, const Module& m, const RunResult<D>& result, const RunArgs& args, const std::string& arithmetic,
              double seconds) {
  std::printf("%s: @%s in %s on %d replica(s): %.3f s\n", m.file.c_str(), m.function().name.c_str(), arithmetic.c_str(), args.replicas,
              seconds);
  print_summary(d, m, result, args);
  if (args.out_dir.empty()) return 0;
  const auto t0 = std::chrono::steady_clock::now();
  write_outputs(d, m, result, args);
  std::printf("outputs written to %s\n", args.out_dir.c_str());
  return seconds_since(t0);
}

// Refuses, before anything is allocated, a program whose live tensors would not fit in
// --max-memory (default: the memory the machine has available now).
void refuse_if_too_large(const Module& m, const std::string& domain, std::uint64_t bytes_per_scalar, const RunArgs& args) {
  std::uint64_t limit = 0;
  std::string source;
  if (!args.max_memory.empty()) {
    try {
      limit = parse_memory_size(args.max_memory);
    } catch (const std::invalid_argument& e) {
      usage_error(std::string("--max-memory: ") + e.what());
    }
    source = "--max-memory";
  } else {
    limit = available_memory();
    source = "the machine's available memory (--max-memory sets the limit)";
    if (limit == 0) return;  // unknown: no estimate to compare with
  }
  try {
    check_memory(m, domain, bytes_per_scalar, args.replicas, limit, source);
  } catch (const MemoryLimitError& e) {
    usage_error(e.what());
  }
}

// A float run first touches the heap it is about to need (the estimated peak of live tensors,
// at most 1 GiB) on every thread at once, on huge pages where the kernel gives them: the run
// then reuses those pages (keep_freed_memory_for_reuse) instead of faulting each one in as a
// new tensor is first written (on a virtual machine, 4 KiB faults were a third of a short f64
// run on one thread). An interval run does the same for its tensors' headers, which come from
// the same pool (interp/tensor.hpp, kStorageFromPool); their limbs are small heap blocks that
// the threads allocate. `alongside` (the inputs drawn or read) runs on this thread meanwhile,
// then it touches too.
template <class D>
void touch_heap_first(const D& d, const Module& m, const RunArgs& args, const std::function<void()>& alongside = {}) {
  using S = typename D::Scalar;
  if constexpr (kStorageFromPool<S>) {
    (void)d;
    const int replicas_here = args.mpi ? 1 : args.replicas;  // under --mpi, this process holds one replica
    const std::uint64_t peak = estimate_peak_memory(m, sizeof(S), replicas_here).peak_bytes;
    touch_heap_in_parallel(std::min<std::uint64_t>(peak, std::uint64_t{1} << 30), alongside);
  } else {
    (void)d, (void)m, (void)args;
    if (alongside) alongside();
  }
}

#ifdef SHLO_HAVE_MPI
// Replica r on MPI rank r (under mpirun -np R): rank 0 gathers every replica's outputs and
// reports them as the in-process run does.
template <class D>
void run_mpi(const D& d, const Module& m, RunArgs args) {
  const mpi::Session session;
  if (args.replicas != 1 && args.replicas != session.size()) {
    if (session.rank() == 0)
      std::cerr << "shlo run: --replicas " << args.replicas << " but mpirun started " << session.size() << " ranks (one per replica)\n";
    throw CLI::RuntimeError(2);  // every rank leaves here, before any exchange: MPI finalises
  }
  args.replicas = session.size();
  try {
    auto inputs = load_inputs(d, m, args, session.rank(), 1);
    mpi::Exchange<D> exchange(d, session);
    const auto t0 = std::chrono::steady_clock::now();
    RunResult<D> result = run_program(m, d, std::move(inputs), RunOptions{}, exchange);
    result.outputs = exchange.gather_at_root(result.outputs[0]);
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (session.rank() == 0) report(d, m, result, args, d.name() + " (MPI ranks)", total);
  } catch (const RunError& e) {
    std::cerr << "rank " << session.rank() << ": " << e.what() << "\n";
    session.abort(1);
  } catch (const CLI::RuntimeError& e) {
    session.abort(e.get_exit_code());
  }
}
#endif

}  // namespace

std::string run_progress_text(const RunProgress& p) {
  char line[256];
  std::snprintf(line, sizeof line, "[%zu/%zu] %s = stablehlo.%s  %.1f s", p.done + 1, p.total, p.current->result.c_str(),
                op_name(p.current->op), p.elapsed);
  return line;
}

namespace {

template <class D>
void run_in(const D& d, const Module& m, const RunArgs& args, Phases phases) {
  refuse_if_too_large(m, d.name(), scalar_bytes(d), args);
#ifdef SHLO_HAVE_MPI
  if (args.mpi) {
    touch_heap_first(d, m, args);
    return run_mpi(d, m, args);
  }
#endif
  // The inputs are drawn (or read) while the other threads touch the heap, then converted by
  // all of them into the touched memory.
  const auto step = std::chrono::steady_clock::now();
  InputArrays arrays;
  touch_heap_first(d, m, args, [&] {
    arrays = input_arrays(m, args);
    phases.inputs = seconds_since(step);
  });
  phases.heap_touch = seconds_since(step);
  auto inputs = input_values(d, m, args, arrays);
  arrays = InputArrays();
  phases.inputs += seconds_since(step) - phases.heap_touch;
  RunOptions options;
  options.replicas = args.replicas;
  // Quiet for the first 2 s: a small program prints no progress at all.
  ProgressLine progress(stderr, {.redraw = 0.5, .log_every = 5.0, .delay = 2.0});
  options.progress = [&](const RunProgress& p) {
    progress.update([&] { return run_progress_text(p); });
  };
  const auto t0 = std::chrono::steady_clock::now();
  RunResult<D> result;
  try {
    result = run_program(m, d, std::move(inputs), options);
  } catch (const RunError& e) {
    progress.clear();
    std::cerr << e.what() << "\n";
    throw CLI::RuntimeError(1);
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  progress.clear();
  phases.outputs = report(d, m, result, args, d.name(), total);
  if (args.timing) print_timing(result, m, total, phases);
}

// float32 on the CUDA kernels: on the device ("cuda") or their host path ("cuda-host").
void run_cuda(const Module& m, const RunArgs& args) {
  std::unique_ptr<cuda::Backend> backend;
  if (args.domain == "cuda-host") {
    backend = cuda::make_host_backend();
  } else {
    std::string why;
    backend = cuda::make_device_backend(why);
    if (!backend) usage_error("--domain cuda: " + why + " (--domain cuda-host runs the same kernels on the CPU)");
  }
  const F32Domain d;
  refuse_if_too_large(m, "f32", sizeof(float), args);
  InputArrays arrays;
  touch_heap_first(d, m, args, [&] { arrays = input_arrays(m, args); });
  auto inputs = input_values(d, m, args, arrays);
  arrays = InputArrays();
  RunResult<F32Domain> result;
  double seconds = 0;
  try {
    auto run = cuda::run_on_backend(m, *backend, inputs, args.replicas);
    result.outputs = std::move(run.outputs);
    seconds = run.seconds;
  } catch (const RunError& e) {
    std::cerr << e.what() << "\n";
    throw CLI::RuntimeError(1);
  } catch (const std::exception& e) {
    std::cerr << "shlo run: " << backend->name() << ": " << e.what() << "\n";
    throw CLI::RuntimeError(1);
  }
  report(d, m, result, args, "f32 (" + backend->name() + ")", seconds);
  if (args.timing)  // not ignored in silence: the kernels are not timed one by one
    std::cout << "\n--timing: the CUDA backends do not time ops one by one; the run above, " << seconds
              << " s, is every upload, kernel, allocation and download, synchronised\n";
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run",
      "Run a program in one domain on R replicas.\n"
      "The function run: --function NAME, else @main, else the only public function, else the only\n"
      "function. A function without arguments needs no inputs.\n"
      "Inputs: DIR/<arg>.npy (the argument name without %), or DIR/r<k>/<arg>.npy per replica; or\n"
      "--random-inputs SEED: float32 values uniform in [LO,HI), different per replica, saved to\n"
      "OUT/inputs/ (OUT/r<k>/inputs/) so another run or a check can use them.\n"
      "Outputs: OUT/result<i>.npy (OUT/r<k>/... per replica); exact, interval and mpfr runs also\n"
      "write result<i>.txt with the exact values or enclosures.");
  cmd->add_option("file", args->file, "the .mlir file")->required();
  cmd->add_option("--domain,-d", args->domain, std::string("arithmetic: ") + kDomainForms +
                      "; or cuda (float32 kernels on the GPU; exit 2 without one), cuda-host (the same kernels on the CPU)")->capture_default_str();
  cmd->add_option("--replicas,-r", args->replicas, "number of replicas R (all_reduce groups must partition 0..R-1)")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  auto* in = cmd->add_option("--inputs,-i", args->inputs_dir, "folder of input .npy files");
  auto* rnd = cmd->add_option("--random-inputs", args->seed, "draw inputs from this seed instead")->check(CLI::NonNegativeNumber);
  cmd->add_option("--range", args->range, "LO,HI for --random-inputs")->capture_default_str()->needs(rnd);
  in->excludes(rnd);
  cmd->add_option("--function,-f", args->function, "the function to run (default: @main, else the only public one)");
  cmd->add_option("--out,-o", args->out_dir, "folder for the outputs (and drawn inputs)");
  cmd->add_flag("--timing", args->timing, "print count, time, flops, rate and serial time per op kind, the wall time of parsing, heap touch, inputs, ops and output files, the serial fraction, and the ten slowest instructions with their file:line:column (shlo check --profile is the accuracy profile); on -d cuda and cuda-host, the total only");
  cmd->add_option("--threads", args->threads, "threads that large ops split their output elements over (default: every core; "
                                              "results are the same for any count)")->check(CLI::Range(1, 4096));
  cmd->add_flag("--mpi", args->mpi, "under mpirun -np R: replica r on rank r, all_reduce across the ranks (results the same bit "
                                    "for bit as -r R in one process); rank 0 reports and writes every replica's outputs");
  cmd->add_flag("--convert-inputs", args->convert_inputs,
                "accept f64 input files for f32 arguments, rounding each value to float32 once (refused otherwise)");
  cmd->add_option("--max-memory", args->max_memory,
                  "refuse (exit 2, before running) a program whose estimated peak of live tensors exceeds this "
                  "size (4G, 512M, bytes); default: the machine's available memory");
  cmd->callback([args]() {
    Module m;
    Phases phases;
    const auto parse_start = std::chrono::steady_clock::now();
    try {
      m = parse_module_file(args->file);
      phases.parse = seconds_since(parse_start);
    } catch (const ParseError& e) {
      std::cerr << e.what() << "\n";
      throw CLI::RuntimeError(1);
    }
    try {
      select_entry(m, args->function);
    } catch (const std::invalid_argument& e) {
      usage_error(e.what());
    }
    if (args->inputs_dir.empty() && args->seed < 0 && !m.function().arguments.empty())
      usage_error("@" + m.function().name + " takes arguments: give --inputs DIR or --random-inputs SEED");
    if (args->threads > 0) set_thread_count(args->threads);
#ifndef SHLO_HAVE_MPI
    if (args->mpi) usage_error("--mpi: this shlo was built without MPI (install libopenmpi-dev and rebuild)");
#endif
    if (args->mpi && (args->domain == "cuda" || args->domain == "cuda-host")) usage_error("--mpi runs the CPU domains, not " + args->domain);
    if (args->domain == "cuda" || args->domain == "cuda-host") return run_cuda(m, *args);
    AnyDomain domain;
    try {
      domain = parse_domain(args->domain);
    } catch (const DomainError& e) {
      usage_error(e.what());
    }
    with_domain(domain, [&](const auto& d) { run_in(d, m, *args, phases); });
  });
}

}  // namespace shlo::cli
