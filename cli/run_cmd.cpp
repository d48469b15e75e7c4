#include "cli/run_cmd.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <random>

#include "ast/mlir_parse.hpp"
#include "cli/files.hpp"
#include "interp/cuda/executor.hpp"
#include "interp/domain/domain_spec.hpp"
#include "interp/memory.hpp"
#include "interp/npy.hpp"
#include "interp/run.hpp"

namespace fs = std::filesystem;

namespace shlo::cli {

namespace {

struct RunArgs {
  std::string file, domain = "f32", inputs_dir, out_dir, range = "0,1", max_memory;
  int replicas = 1;
  std::int64_t seed = -1;
  bool profile = false;
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

// An .npy array as a value of the argument's type.
template <class D>
Value<D> to_value(const D& d, const NpyArray& a, const Argument& arg, const std::string& path, bool convert) {
  if (a.shape != arg.type.shape)
    usage_error(path + ": shape is " + shape_to_string(a.shape) + ", " + arg.name + " needs " + to_string(arg.type));
  if (arg.type.element == ElementType::I1) {
    if (a.dtype() != NpyDtype::Bool) usage_error(path + ": dtype is " + to_string(a.dtype()) + ", " + arg.name + " needs bool");
    return PredTensor(a.shape, std::get<std::vector<std::uint8_t>>(a.data));
  }
  // An f64 file for an f32 (or bf16) argument would feed values the type cannot hold: refused,
  // or with --convert-inputs rounded to float32 once (to nearest) as the argument's type says.
  const bool narrow = a.dtype() == NpyDtype::F64 && arg.type.element != ElementType::F64;
  if (narrow && !convert)
    usage_error(path + ": dtype is f64, " + arg.name + " needs " + to_string(arg.type.element) +
                " (--convert-inputs rounds f64 files to float32)");
  std::vector<typename D::Scalar> values;
  std::visit([&](const auto& v) {
    using E = typename std::decay_t<decltype(v)>::value_type;
    if constexpr (std::is_same_v<E, float> || std::is_same_v<E, double>) {
      values.reserve(v.size());
      try {
        for (auto x : v) values.push_back(d.from_double(narrow ? static_cast<double>(static_cast<float>(x)) : static_cast<double>(x)));
      } catch (const DomainError& e) {
        usage_error(path + ": " + e.what());
      }
    } else {
      usage_error(path + ": dtype is " + to_string(a.dtype()) + ", " + arg.name + " needs f32 or f64");
    }
  }, a.data);
  return Tensor<typename D::Scalar>(a.shape, std::move(values));
}

// Uniform float32-representable values in [lo, hi), deterministic in (seed, replica, argument).
NpyArray random_array(const Argument& arg, std::uint64_t seed, int replica, std::size_t index, double lo, double hi) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(replica), static_cast<std::uint32_t>(index)};
  std::mt19937_64 gen(seq);
  const std::int64_t n = num_elements(arg.type.shape);
  if (arg.type.element == ElementType::I1) {
    std::vector<std::uint8_t> v(static_cast<std::size_t>(n));
    for (auto& b : v) b = static_cast<std::uint8_t>(gen() & 1);
    return {arg.type.shape, v};
  }
  std::vector<float> v(static_cast<std::size_t>(n));
  const float top = std::nextafter(static_cast<float>(hi), -std::numeric_limits<float>::infinity());
  for (auto& x : v) {
    const double u = static_cast<double>(gen() >> 40) * 0x1p-24;  // 24 random bits in [0, 1)
    x = std::min(static_cast<float>(lo + (hi - lo) * u), top);
  }
  return {arg.type.shape, v};
}

std::string replica_dir(const std::string& base, int r, int replicas) {
  return replicas == 1 ? base : (fs::path(base) / ("r" + std::to_string(r))).string();
}

template <class D>
std::vector<std::vector<Value<D>>> load_inputs(const D& d, const Module& m, const RunArgs& args) {
  const Function& f = m.function;
  std::vector<std::vector<Value<D>>> inputs(static_cast<std::size_t>(args.replicas));
  double lo = 0, hi = 1;
  if (args.seed >= 0) {
    // Both numbers whole and finite: "0,1x" is refused, not read as 0,1.
    auto number = [&](const std::string& text, double& out) {
      char* end = nullptr;
      out = std::strtod(text.c_str(), &end);
      return !text.empty() && end == text.c_str() + text.size() && std::isfinite(out);
    };
    const auto comma = args.range.find(',');
    if (comma == std::string::npos || !number(args.range.substr(0, comma), lo) || !number(args.range.substr(comma + 1), hi))
      usage_error("--range expects LO,HI (two finite numbers), got '" + args.range + "'");
    if (!(lo < hi)) usage_error("--range needs LO < HI");
  }
  for (int r = 0; r < args.replicas; ++r) {
    for (std::size_t i = 0; i < f.arguments.size(); ++i) {
      const Argument& arg = f.arguments[i];
      const std::string file = arg.name.substr(1) + ".npy";
      NpyArray a;
      std::string path;
      if (args.seed >= 0) {
        a = random_array(arg, static_cast<std::uint64_t>(args.seed), r, i, lo, hi);
        if (!args.out_dir.empty()) {
          const fs::path dir = fs::path(replica_dir(args.out_dir, r, args.replicas)) / "inputs";
          make_folder(dir);
          path = (dir / file).string();
          save_npy(path, a);
        }
      } else {
        path = replica_input(args.inputs_dir, r, file);
        try {
          a = read_npy(path);
        } catch (const NpyError& e) {
          usage_error(std::string(e.what()) + " (input " + arg.name + ")");
        }
      }
      inputs[static_cast<std::size_t>(r)].push_back(to_value(d, a, arg, path.empty() ? arg.name : path, args.convert_inputs));
    }
  }
  return inputs;
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
      const auto& t = std::get<Tensor<typename D::Scalar>>(outs[i]);
      if constexpr (std::is_same_v<typename D::Scalar, float>) {
        save_npy(stem + ".npy", {t.shape, t.data});
      } else {
        std::vector<double> v;
        for (const auto& x : t.data) v.push_back(d.to_double(x));
        save_npy(stem + ".npy", {t.shape, v});
      }
      if constexpr (exact_text) {
        std::ofstream txt(stem + ".txt");
        txt << "# " << m.function.return_values[i] << " : " << to_string(m.function.return_types[i]) << " in " << d.name()
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
      const std::string name = m.function.return_values[i];
      if (const auto* p = std::get_if<PredTensor>(&outs[i])) {
        std::int64_t ones = 0;
        for (auto b : p->data) ones += b;
        std::printf("%-8d %-8s %-18s %14s %14s  (%lld true)\n", r, name.c_str(), shape_to_string(p->shape).c_str(), "i1", "",
                    static_cast<long long>(ones));
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

template <class D>
void print_profile(const RunResult<D>& result, double total) {
  std::printf("\n%-20s %8s %10s %12s %10s\n", "op", "count", "time (s)", "flops", "GFLOP/s");
  double flops = 0;
  for (const auto& [name, p] : result.profile) {
    std::printf("%-20s %8lld %10.3f %12.4g %10.3f\n", name.c_str(), static_cast<long long>(p.count), p.seconds, p.flops,
                p.seconds > 0 ? p.flops / p.seconds / 1e9 : 0.0);
    flops += p.flops;
  }
  std::printf("%-20s %8s %10.3f %12.4g %10.3f\n", "total", "", total, flops, total > 0 ? flops / total / 1e9 : 0.0);
  std::printf("peak live tensors: %.1f MiB (scalar storage)\n", static_cast<double>(result.peak_live_bytes) / (1 << 20));
}

// The time line, the summary table and the output files of a finished run.
template <class D>
void report(const D& d, const Module& m, const RunResult<D>& result, const RunArgs& args, const std::string& arithmetic,
            double seconds) {
  std::printf("%s: @%s in %s on %d replica(s): %.3f s\n", m.file.c_str(), m.function.name.c_str(), arithmetic.c_str(), args.replicas,
              seconds);
  print_summary(d, m, result, args);
  if (!args.out_dir.empty()) {
    write_outputs(d, m, result, args);
    std::printf("outputs written to %s\n", args.out_dir.c_str());
  }
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

template <class D>
void run_in(const D& d, const Module& m, const RunArgs& args) {
  refuse_if_too_large(m, d.name(), scalar_bytes(d), args);
  auto inputs = load_inputs(d, m, args);
  RunOptions options;
  options.replicas = args.replicas;
  const bool tty = isatty(2);
  double last_report = 0;
  bool reported = false;
  options.progress = [&](const RunProgress& p) {
    if (p.elapsed < 2.0 || p.elapsed - last_report < 0.5) return;
    last_report = p.elapsed;
    reported = true;
    std::fprintf(stderr, "%s[%zu/%zu] %s = stablehlo.%s  %.1f s%s", tty ? "\r" : "", p.done + 1, p.total, p.current->result.c_str(),
                 op_name(p.current->op), p.elapsed, tty ? "\033[K" : "\n");
  };
  const auto t0 = std::chrono::steady_clock::now();
  RunResult<D> result;
  try {
    result = run_program(m, d, std::move(inputs), options);
  } catch (const RunError& e) {
    if (reported && tty) std::fprintf(stderr, "\n");
    std::cerr << e.what() << "\n";
    throw CLI::RuntimeError(1);
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (reported && tty) std::fprintf(stderr, "\r\033[K");
  report(d, m, result, args, d.name(), total);
  if (args.profile) print_profile(result, total);
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
  auto inputs = load_inputs(d, m, args);
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
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run",
      "Run a program in one domain on R replicas.\n"
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
  cmd->add_option("--out,-o", args->out_dir, "folder for the outputs (and drawn inputs)");
  cmd->add_flag("--convert-inputs", args->convert_inputs,
                "accept f64 input files for f32 arguments, rounding each value to float32 once (refused otherwise)");
  cmd->add_flag("--profile", args->profile, "print count, time, flops and rate per op kind");
  cmd->add_option("--max-memory", args->max_memory,
                  "refuse (exit 2, before running) a program whose estimated peak of live tensors exceeds this "
                  "size (4G, 512M, bytes); default: the machine's available memory");
  cmd->callback([args]() {
    if (args->inputs_dir.empty() && args->seed < 0) usage_error("give --inputs DIR or --random-inputs SEED");
    Module m;
    try {
      m = parse_module_file(args->file);
    } catch (const ParseError& e) {
      std::cerr << e.what() << "\n";
      throw CLI::RuntimeError(1);
    }
    if (args->domain == "cuda" || args->domain == "cuda-host") return run_cuda(m, *args);
    AnyDomain domain;
    try {
      domain = parse_domain(args->domain);
    } catch (const DomainError& e) {
      usage_error(e.what());
    }
    with_domain(domain, [&](const auto& d) { run_in(d, m, *args); });
  });
}

}  // namespace shlo::cli
