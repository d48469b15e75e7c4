#include "interp/program_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

namespace fs = std::filesystem;

namespace shlo {

std::string replica_file(const std::string& dir, int replica, const std::string& name) {
  const auto per_replica = fs::path(dir) / ("r" + std::to_string(replica)) / name;
  return fs::exists(per_replica) ? per_replica.string() : (fs::path(dir) / name).string();
}

std::string replica_input(const std::string& dir, int replica, const std::string& name) {
  const auto saved = fs::path(dir) / ("r" + std::to_string(replica)) / "inputs" / name;
  const std::string direct = replica_file(dir, replica, name);
  return !fs::exists(direct) && fs::exists(saved) ? saved.string() : direct;
}

namespace {

std::string file_name(const Argument& arg) { return arg.name.substr(1) + ".npy"; }

// The dtype and shape the argument's type asks for, checked before any conversion.
void check_array(NpyArray& a, const Argument& arg, const std::string& path, bool convert_f64) {
  if (a.shape != arg.type.shape)
    throw InputError(path + ": shape is " + shape_to_string(a.shape) + ", " + arg.name + " needs " + to_string(arg.type));
  const bool pred = arg.type.element == ElementType::I1;
  const bool ok = pred ? a.dtype() == NpyDtype::Bool : a.dtype() == NpyDtype::F32 || a.dtype() == NpyDtype::F64;
  if (!ok) throw InputError(path + ": dtype is " + to_string(a.dtype()) + ", " + arg.name + " needs " + (pred ? "bool" : "f32 or f64"));
  if (a.dtype() == NpyDtype::F64 && arg.type.element != ElementType::F64) {
    if (!convert_f64)
      throw InputError(path + ": dtype is f64, " + arg.name + " needs " + to_string(arg.type.element) +
                       " (--convert-inputs rounds f64 files to float32)");
    const auto& wide = std::get<std::vector<double>>(a.data);
    a.data = std::vector<float>(wide.begin(), wide.end());  // each value rounded to nearest float32 once
  }
}

}  // namespace

// The range first .. first+count-1 of `replicas`, checked.
InputArrays replica_range(int replicas, int first, int count) {
  if (count < 0) count = replicas - first;
  if (first < 0 || count < 0 || first + count > replicas)
    throw InputError("replicas " + std::to_string(first) + ".." + std::to_string(first + count - 1) + " of " + std::to_string(replicas));
  InputArrays in;
  in.arrays.resize(static_cast<std::size_t>(count));
  in.sources.resize(in.arrays.size());
  in.first = first;
  in.total = replicas;
  return in;
}

InputArrays read_inputs(const Function& f, const std::string& dir, int replicas, int first, int count, bool convert_f64) {
  InputArrays in = replica_range(replicas, first, count);
  for (std::size_t k = 0; k < in.arrays.size(); ++k) {
    const int r = first + static_cast<int>(k);
    for (const auto& arg : f.arguments) {
      const std::string path = replica_input(dir, r, file_name(arg));
      NpyArray a;
      try {
        a = read_npy(path);
      } catch (const NpyError& e) {
        throw InputError(std::string(e.what()) + " (input " + arg.name + " of replica " + std::to_string(r) + ")");
      }
      check_array(a, arg, path, convert_f64);
      in.arrays[k].push_back(std::move(a));
      in.sources[k].push_back(path);
    }
  }
  return in;
}

std::pair<double, double> parse_range(const std::string& text) {
  const auto comma = text.find(',');
  double lo = 0, hi = 0;
  try {
    if (comma == std::string::npos) throw std::invalid_argument("no comma");
    std::size_t used = 0;
    lo = std::stod(text.substr(0, comma), &used);
    if (used != comma) throw std::invalid_argument("trailing text");
    hi = std::stod(text.substr(comma + 1), &used);
    if (used != text.size() - comma - 1) throw std::invalid_argument("trailing text");
  } catch (const std::exception&) {
    throw InputError("--range expects LO,HI (two finite numbers), got '" + text + "'");
  }
  if (!std::isfinite(lo) || !std::isfinite(hi)) throw InputError("--range expects LO,HI (two finite numbers), got '" + text + "'");
  if (!(lo < hi)) throw InputError("--range needs LO < HI, got '" + text + "'");
  return {lo, hi};
}

NpyArray random_input(const TensorType& type, std::uint64_t seed, int replica, std::size_t index, double lo, double hi) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32), static_cast<std::uint32_t>(replica),
                    static_cast<std::uint32_t>(index)};
  std::mt19937_64 gen(seq);
  const auto n = static_cast<std::size_t>(num_elements(type.shape));
  if (type.element == ElementType::I1) {
    std::vector<std::uint8_t> v(n);
    for (auto& b : v) b = static_cast<std::uint8_t>(gen() & 1);
    return {type.shape, v};
  }
  std::vector<float> v(n);
  const float top = std::nextafter(static_cast<float>(hi), -std::numeric_limits<float>::infinity());
  for (auto& x : v) {
    const double u = static_cast<double>(gen() >> 40) * 0x1p-24;  // 24 random bits in [0, 1)
    x = std::min(static_cast<float>(lo + (hi - lo) * u), top);
  }
  return {type.shape, v};
}

InputArrays random_inputs(const Function& f, std::uint64_t seed, int replicas, double lo, double hi, int first, int count) {
  InputArrays in = replica_range(replicas, first, count);
  for (std::size_t k = 0; k < in.arrays.size(); ++k)
    for (std::size_t i = 0; i < f.arguments.size(); ++i) {
      in.arrays[k].push_back(random_input(f.arguments[i].type, seed, first + static_cast<int>(k), i, lo, hi));
      in.sources[k].push_back(f.arguments[i].name + " (drawn)");
    }
  return in;
}

void save_inputs(const Function& f, const InputArrays& in, const std::string& dir) {
  for (std::size_t k = 0; k < in.arrays.size(); ++k) {
    const int r = in.first + static_cast<int>(k);
    const fs::path base = in.total == 1 ? fs::path(dir) : fs::path(dir) / ("r" + std::to_string(r));
    std::error_code ec;
    fs::create_directories(base / "inputs", ec);
    if (ec || !fs::is_directory(base / "inputs", ec))
      throw InputError("--out: cannot create the folder " + (base / "inputs").string() + ": " +
                       (ec ? ec.message() : std::string("a file of that name exists")));
    for (std::size_t i = 0; i < f.arguments.size(); ++i) {
      try {
        write_npy((base / "inputs" / file_name(f.arguments[i])).string(), in.arrays[k][i]);
      } catch (const NpyError& e) {
        throw InputError(e.what());
      }
    }
  }
}

}  // namespace shlo
