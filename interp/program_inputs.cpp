#include "interp/program_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <sstream>

#include "interp/ops/integer.hpp"  // binary16_value

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
  const ElementType e = arg.type.element;
  if (!npy_dtype_fits(a.dtype(), e))
    throw InputError(path + ": dtype is " + to_string(a.dtype()) + ", " + arg.name + " is " + to_string(arg.type) + " and needs " +
                     to_string(npy_dtype_of(e)) + (is_float(e) ? " (or f32)" : " (no conversion between integer types)"));
  if (a.dtype() == NpyDtype::F64 && arg.type.element != ElementType::F64) {
    if (!convert_f64)
      throw InputError(path + ": dtype is f64, " + arg.name + " needs " + to_string(arg.type.element) +
                       " (--convert-inputs rounds f64 files to float32)");
    const auto& wide = std::get<std::vector<double>>(a.data);
    a.data = std::vector<float>(wide.begin(), wide.end());  // each value rounded to nearest float32 once
  }
}

// A bf16 bit pattern's value: the upper half of a float32 (exact in a double).
double bf16_value(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float f = 0;
  std::memcpy(&f, &wide, sizeof f);
  return f;
}

// An integer dtype's C++ element type and the array of `bits` in it.
template <class T>
NpyArray integers_in(const Shape& shape, const std::vector<std::uint64_t>& bits) {
  std::vector<T> v;
  v.reserve(bits.size());
  for (auto b : bits) v.push_back(static_cast<T>(b));  // keeps the low bits: the pattern of the element
  return NpyArray{shape, std::move(v)};
}

}  // namespace

NpyDtype npy_dtype_of(ElementType e) {
  switch (e) {
    case ElementType::I1: return NpyDtype::Bool;
    case ElementType::I8: return NpyDtype::I8;
    case ElementType::I16: return NpyDtype::I16;
    case ElementType::I32: return NpyDtype::I32;
    case ElementType::I64: return NpyDtype::I64;
    case ElementType::UI8: return NpyDtype::U8;
    case ElementType::UI16: return NpyDtype::U16;
    case ElementType::UI32: return NpyDtype::U32;
    case ElementType::UI64: return NpyDtype::U64;
    case ElementType::F16: return NpyDtype::F16;
    case ElementType::BF16: return NpyDtype::BF16;
    case ElementType::F64: return NpyDtype::F64;
    case ElementType::F32: case ElementType::F8E4M3FN: return NpyDtype::F32;
  }
  return NpyDtype::F32;  // not an enumerator
}

bool npy_dtype_fits(NpyDtype d, ElementType e) {
  if (d == npy_dtype_of(e)) return true;
  return is_float(e) && (d == NpyDtype::F32 || d == NpyDtype::F64);
}

std::vector<std::uint64_t> npy_integer_bits(const NpyArray& a) {
  return std::visit([&](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    std::vector<std::uint64_t> bits;
    if constexpr (std::is_same_v<T, NpyU8>) {
      for (auto x : v) bits.push_back(static_cast<std::uint8_t>(x));
    } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, std::uint8_t>) {  // uint8_t: bool
      bits.reserve(v.size());
      // Through the 64-bit type of T's signedness: sign- or zero-extension.
      for (auto x : v) bits.push_back(static_cast<std::uint64_t>(static_cast<std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>(x)));
    } else {
      throw InputError(std::string("an array of ") + to_string(a.dtype()) + " holds no integers");
    }
    return bits;
  }, a.data);
}

NpyArray npy_of_integers(const Shape& shape, const std::vector<std::uint64_t>& bits, ElementType e) {
  switch (npy_dtype_of(e)) {
    case NpyDtype::I8: return integers_in<std::int8_t>(shape, bits);
    case NpyDtype::I16: return integers_in<std::int16_t>(shape, bits);
    case NpyDtype::I32: return integers_in<std::int32_t>(shape, bits);
    case NpyDtype::I64: return integers_in<std::int64_t>(shape, bits);
    case NpyDtype::U8: return integers_in<NpyU8>(shape, bits);
    case NpyDtype::U16: return integers_in<std::uint16_t>(shape, bits);
    case NpyDtype::U32: return integers_in<std::uint32_t>(shape, bits);
    case NpyDtype::U64: return integers_in<std::uint64_t>(shape, bits);
    case NpyDtype::F32: case NpyDtype::F64: case NpyDtype::Bool: case NpyDtype::F16: case NpyDtype::BF16: break;
  }
  throw InputError(std::string(to_string(e)) + " is not an integer type");
}

std::vector<double> npy_float_values(const NpyArray& a) {
  return std::visit([&](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    std::vector<double> out;
    out.reserve(v.size());
    if constexpr (std::is_floating_point_v<T>) {
      for (auto x : v) out.push_back(static_cast<double>(x));
    } else if constexpr (std::is_same_v<T, NpyF16Bits>) {
      for (auto x : v) out.push_back(ops::detail::binary16_value(static_cast<std::uint16_t>(x)));
    } else if constexpr (std::is_same_v<T, NpyBF16Bits>) {
      for (auto x : v) out.push_back(bf16_value(static_cast<std::uint16_t>(x)));
    } else {
      throw InputError(std::string("an array of ") + to_string(a.dtype()) + " holds no floats");
    }
    return out;
  }, a.data);
}

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
  if (is_integer(type.element)) {
    // [ceil(lo), floor(hi)] within the type's range, in long double (exact for 64-bit bounds).
    const int width = bit_width(type.element);
    const bool is_signed = is_signed_integer(type.element);
    const long double type_min = is_signed ? -std::ldexp(1.0L, width - 1) : 0.0L;
    const long double type_max = is_signed ? std::ldexp(1.0L, width - 1) - 1 : std::ldexp(1.0L, width) - 1;
    const long double low = std::max(std::ceil(static_cast<long double>(lo)), type_min);
    const long double high = std::min(std::floor(static_cast<long double>(hi)), type_max);
    if (low > high) {
      std::ostringstream range;  // as the user wrote it (shortest form)
      range << lo << "," << hi;
      throw InputError("--range " + range.str() + " holds no integer of " + to_string(type.element) +
                       " (its values are " + std::to_string(static_cast<long long>(std::max(type_min, -0x1p63L))) + " .. " +
                       std::to_string(static_cast<unsigned long long>(type_max)) + ")");
    }
    // span - 1 fits in 64 bits; a draw is low + (64 random bits mod span), the same on every platform.
    const std::uint64_t span_minus_one = static_cast<std::uint64_t>(high - low);
    std::vector<std::uint64_t> bits(n);
    for (auto& b : bits) {
      const std::uint64_t r = gen();
      const std::uint64_t offset = span_minus_one == ~std::uint64_t{0} ? r : r % (span_minus_one + 1);
      const std::uint64_t base = low < 0 ? static_cast<std::uint64_t>(static_cast<std::int64_t>(low)) : static_cast<std::uint64_t>(low);
      b = base + offset;  // modulo 2^64: the element's pattern, sign-extended for a signed type
    }
    return npy_of_integers(type.shape, bits, type.element);
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
  const std::size_t arguments = f.arguments.size();
  for (std::size_t k = 0; k < in.arrays.size(); ++k) {
    in.arrays[k].resize(arguments);
    for (std::size_t i = 0; i < arguments; ++i) in.sources[k].push_back(f.arguments[i].name + " (drawn)");
  }
  // Each array has its own generator, so the threads draw them in any order (one at a time: a
  // generator's stream is sequential); an error is the first array's in replica-major order.
  const auto total = static_cast<std::int64_t>(in.arrays.size() * arguments);
  parallel_for_elements({total}, total, [&](std::int64_t j) {
    const auto k = static_cast<std::size_t>(j) / arguments, i = static_cast<std::size_t>(j) % arguments;
    in.arrays[k][i] = random_input(f.arguments[i].type, seed, first + static_cast<int>(k), i, lo, hi);
  }, 2);
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
