#include "interp/memory.hpp"

#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <new>
#include <set>
#include <sstream>
#include <unordered_map>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace shlo {

namespace {

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) { return a > kSaturated - b ? kSaturated : a + b; }
std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t p = 0;
  return __builtin_mul_overflow(a, b, &p) ? kSaturated : p;
}

// Bytes of one value of type t: i1 elements are one byte, every other element one scalar.
std::uint64_t value_bytes(const TensorType& t, std::uint64_t bytes_per_scalar) {
  std::uint64_t n = 1;
  for (auto d : t.shape) n = saturating_mul(n, static_cast<std::uint64_t>(d));
  return saturating_mul(n, t.element == ElementType::I1 ? 1 : bytes_per_scalar);
}

}  // namespace

MemoryEstimate estimate_peak_memory(const Module& m, std::uint64_t bytes_per_scalar, int replicas) {
  const Function& f = m.function();
  const auto insts = instructions(f);
  const auto R = static_cast<std::uint64_t>(replicas < 1 ? 1 : replicas);
  std::unordered_map<std::string, std::size_t> last_use;
  for (std::size_t k = 0; k < insts.size(); ++k)
    for (const auto& name : insts[k]->operands) last_use[name] = k;
  const std::set<std::string> returned(f.return_values.begin(), f.return_values.end());

  struct Live {
    std::uint64_t bytes;
    std::string label;
  };
  std::unordered_map<std::string, Live> live;
  std::uint64_t total = 0;
  MemoryEstimate best;
  auto note_peak = [&](const Instruction* at) {
    if (total <= best.peak_bytes && best.peak_bytes != 0) return;
    best.peak_bytes = total;
    best.peak_at = at;
    best.largest_tensor_bytes = 0;
    for (const auto& [name, v] : live)
      if (v.bytes >= best.largest_tensor_bytes) {
        best.largest_tensor_bytes = v.bytes;
        best.largest_tensor = v.label;
      }
  };
  auto add = [&](const std::string& name, const TensorType& t) {
    const std::uint64_t b = saturating_mul(value_bytes(t, bytes_per_scalar), R);
    live[name] = {b, name + " : " + to_string(t)};
    total = saturating_add(total, b);
  };
  for (const auto& arg : f.arguments) add(arg.name, arg.type);
  note_peak(nullptr);
  for (std::size_t k = 0; k < insts.size(); ++k) {
    const Instruction& inst = *insts[k];
    add(inst.result, inst.result_type);  // operands are still live while the result is made
    note_peak(&inst);
    for (const auto& name : inst.operands) {
      if (last_use[name] != k || returned.count(name)) continue;
      auto it = live.find(name);
      if (it == live.end()) continue;
      total -= it->second.bytes;
      live.erase(it);
    }
  }
  return best;
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  std::ostringstream out;
  out.precision(u == 0 ? 0 : 1);
  out << std::fixed << v << " " << units[u];
  return out.str();
}

void check_memory(const Module& m, const std::string& domain, std::uint64_t bytes_per_scalar, int replicas,
                  std::uint64_t limit_bytes, const std::string& limit_source) {
  const MemoryEstimate e = estimate_peak_memory(m, bytes_per_scalar, replicas);
  if (e.peak_bytes <= limit_bytes) return;
  std::string where = m.file + ": ";
  if (e.peak_at)
    where = m.file + ":" + std::to_string(e.peak_at->location.line) + ":" + std::to_string(e.peak_at->location.column) + ": " +
            e.peak_at->result + " = stablehlo." + op_name(e.peak_at->op) + ": ";
  else
    where += "the inputs: ";
  const std::string estimate = e.peak_bytes == kSaturated ? "more than 16 EiB" : format_bytes(e.peak_bytes);
  throw MemoryLimitError(where + "the live tensors would take " + estimate + " in " + domain + " (" +
                         std::to_string(bytes_per_scalar) + " bytes per scalar, " + std::to_string(replicas) +
                         " replica(s); the largest is " + e.largest_tensor + ", " + format_bytes(e.largest_tensor_bytes) +
                         "), more than the " + format_bytes(limit_bytes) + " of " + limit_source +
                         "; nothing was run");
}

std::uint64_t available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return saturating_mul(kib, 1024);
  return 0;
}

std::uint64_t parse_memory_size(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 19) throw std::invalid_argument("expected a size such as 4G, 512M or 1000000, got '" + text + "'");
  const std::uint64_t value = std::stoull(text.substr(0, digits));
  const std::string suffix = text.substr(digits);
  std::uint64_t scale = 1;
  if (suffix == "K" || suffix == "KiB") scale = 1ull << 10;
  else if (suffix == "M" || suffix == "MiB") scale = 1ull << 20;
  else if (suffix == "G" || suffix == "GiB") scale = 1ull << 30;
  else if (suffix == "T" || suffix == "TiB") scale = 1ull << 40;
  else if (!suffix.empty() && suffix != "B")
    throw std::invalid_argument("expected a size such as 4G, 512M or 1000000 (K M G T: binary multiples), got '" + text + "'");
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(value, scale, &bytes)) throw std::invalid_argument("size '" + text + "' is too large");
  return bytes;
}

namespace {

void* gmp_allocate(std::size_t n) {
  void* p = std::malloc(n);
  if (!p) throw std::bad_alloc();
  return p;
}
void* gmp_reallocate(void* p, std::size_t, std::size_t n) {
  void* q = std::realloc(p, n);
  if (!q) throw std::bad_alloc();
  return q;
}
void gmp_free(void* p, std::size_t) { std::free(p); }

}  // namespace

void install_throwing_gmp_allocator() { mp_set_memory_functions(gmp_allocate, gmp_reallocate, gmp_free); }

void keep_freed_memory_for_reuse() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest: tensors up to 32 MiB come from the heap
  mallopt(M_TRIM_THRESHOLD, INT_MAX);   // and freed heap memory is never handed back
#endif
}

}  // namespace shlo
