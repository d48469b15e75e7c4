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
void check_array(const NpyArray& a, const Argument& arg, const std::string& path) {
  if (a.shape != arg.type.shape)
    throw InputError(path + ": shape is " + shape_to_string(a.shape) + ", " + arg.name + " needs " + to_string(arg.type));
  const bool pred = arg.type.element == ElementType::I1;
  const bool ok = pred ? a.dtype() == NpyDtype::Bool : a.dtype() == NpyDtype::F32 || a.dtype() == NpyDtype::F64;
  if (!ok) throw InputError(path + ": dtype is " + to_string(a.dtype()) + ", " + arg.name + " needs " + (pred ? "bool" : "f32 or f64"));
}

}  // namespace

InputArrays read_inputs(const Function& f, const std::string& dir, int replicas) {
  InputArrays in;
  in.arrays.resize(static_cast<std::size_t>(replicas));
  in.sources.resize(in.arrays.size());
  for (int r = 0; r < replicas; ++r)
    for (const auto& arg : f.arguments) {
      const std::string path = replica_input(dir, r, file_name(arg));
      NpyArray a;
      try {
        a = read_npy(path);
      } catch (const NpyError& e) {
        throw InputError(std::string(e.what()) + " (input " + arg.name + " of replica " + std::to_string(r) + ")");
      }
      check_array(a, arg, path);
      in.arrays[static_cast<std::size_t>(r)].push_back(std::move(a));
      in.sources[static_cast<std::size_t>(r)].push_back(path);
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
    throw InputError("--range expects LO,HI (two numbers), got '" + text + "'");
  }
  if (!(lo < hi)) throw InputError("--range needs LO < HI, got '" + text + "'");
  return {lo, hi};
}

InputArrays random_inputs(const Function& f, std::uint64_t seed, int replicas, double lo, double hi) {
  InputArrays in;
  in.arrays.resize(static_cast<std::size_t>(replicas));
  in.sources.resize(in.arrays.size());
  const float top = std::nextafter(static_cast<float>(hi), -std::numeric_limits<float>::infinity());
  for (int r = 0; r < replicas; ++r)
    for (std::size_t i = 0; i < f.arguments.size(); ++i) {
      const Argument& arg = f.arguments[i];
      std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32), static_cast<std::uint32_t>(r),
                        static_cast<std::uint32_t>(i)};
      std::mt19937_64 gen(seq);
      const auto n = static_cast<std::size_t>(num_elements(arg.type.shape));
      NpyArray a;
      if (arg.type.element == ElementType::I1) {
        std::vector<std::uint8_t> v(n);
        for (auto& b : v) b = static_cast<std::uint8_t>(gen() & 1);
        a = {arg.type.shape, v};
      } else {
        std::vector<float> v(n);
        for (auto& x : v) {
          const double u = static_cast<double>(gen() >> 40) * 0x1p-24;  // 24 random bits in [0, 1)
          x = std::min(static_cast<float>(lo + (hi - lo) * u), top);
        }
        a = {arg.type.shape, v};
      }
      in.arrays[static_cast<std::size_t>(r)].push_back(std::move(a));
      in.sources[static_cast<std::size_t>(r)].push_back(arg.name + " (drawn)");
    }
  return in;
}

void save_inputs(const Function& f, const InputArrays& in, const std::string& dir) {
  for (std::size_t r = 0; r < in.arrays.size(); ++r) {
    const fs::path base = in.arrays.size() == 1 ? fs::path(dir) : fs::path(dir) / ("r" + std::to_string(r));
    fs::create_directories(base / "inputs");
    for (std::size_t i = 0; i < f.arguments.size(); ++i) write_npy((base / "inputs" / file_name(f.arguments[i])).string(), in.arrays[r][i]);
  }
}

}  // namespace shlo
