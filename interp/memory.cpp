#include "interp/memory.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <limits>
#include <map>
#include <new>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ast/regions.hpp"
#include "interp/tensor.hpp"

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

namespace {

// The peaks of the functions of one module, each counting its arguments (live from its
// start), so that a call adds its callee's peak to the caller's live values: the callee's
// arguments are copies of the call's operands, as run_function_loop makes them.
class PeakEstimator {
 public:
  PeakEstimator(const Module& m, std::uint64_t bytes_per_scalar, std::uint64_t replicas)
      : m_(m), bytes_per_scalar_(bytes_per_scalar), replicas_(replicas) {}

  MemoryEstimate peak(const Function& f, bool entry) {
    auto known = done_.find(&f);
    if (known != done_.end()) return known->second;
    in_progress_.insert(&f);
    MemoryEstimate e = walk(f, entry);
    in_progress_.erase(&f);
    done_.emplace(&f, e);
    return e;
  }

 private:
  struct Live {
    std::uint64_t bytes;
    std::string label;
  };

  MemoryEstimate walk(const Function& f, bool entry) {
    // The last body item (instruction, call or check) that reads each value: it dies there.
    std::unordered_map<std::string, std::size_t> last_use;
    for (std::size_t j = 0; j < f.body.size(); ++j)
      for (const auto* name : operands_of(f.body[j])) last_use[*name] = j;
    const std::set<std::string> returned(f.return_values.begin(), f.return_values.end());
    const std::string where = entry ? "" : " in @" + f.name;

    std::unordered_map<std::string, Live> live;
    std::uint64_t total = 0;
    MemoryEstimate best;
    auto largest_live = [&](MemoryEstimate& e) {
      e.largest_tensor_bytes = 0;
      for (const auto& [name, v] : live)
        if (v.bytes >= e.largest_tensor_bytes) {
          e.largest_tensor_bytes = v.bytes;
          e.largest_tensor = v.label;
        }
    };
    auto note_peak = [&](const Instruction* at, const Call* via) {
      if (total <= best.peak_bytes && best.peak_bytes != 0) return;
      best.peak_bytes = total;
      best.peak_at = at;
      best.peak_call = via;
      largest_live(best);
    };
    auto add = [&](const std::string& name, const TensorType& t) {
      const std::uint64_t b = saturating_mul(value_bytes(t, bytes_per_scalar_), replicas_);
      live[name] = {b, name + " : " + to_string(t) + where};
      total = saturating_add(total, b);
    };
    auto free_dead = [&](std::size_t j) {
      for (const auto* name : operands_of(f.body[j])) {
        if (last_use[*name] != j || returned.count(*name)) continue;
        auto it = live.find(*name);
        if (it == live.end()) continue;
        total -= it->second.bytes;
        live.erase(it);
      }
    };

    for (const auto& arg : f.arguments) add(arg.name, arg.type);
    note_peak(nullptr, nullptr);
    for (std::size_t j = 0; j < f.body.size(); ++j) {
      if (const auto* inst = std::get_if<Instruction>(&f.body[j])) {
        // Operands are still live while the results are made (several for sort, while, ...).
        for (std::size_t r = 0; r < result_count(*inst); ++r) add(result_name(*inst, r), result_type(*inst, r));
        note_peak(inst, nullptr);
      } else if (const auto* call = std::get_if<Call>(&f.body[j])) {
        // While the callee runs, the caller's values stay live beside the callee's own peak. A
        // callee already on the way (a recursive call, refused by the run) adds nothing.
        const Function* callee = find_function(m_, call->callee);
        if (callee && !in_progress_.count(callee)) {
          const MemoryEstimate inner = peak(*callee, false);
          // interpreter.run_parallel runs the callee once per row of its grid, side by side.
          const std::uint64_t processes = call->programs.empty() ? 1 : call->programs.size();
          const std::uint64_t during = saturating_add(total, saturating_mul(inner.peak_bytes, processes));
          if (during > best.peak_bytes) {
            best.peak_bytes = during;
            best.peak_at = inner.peak_at;
            best.peak_call = call;
            largest_live(best);
            if (inner.largest_tensor_bytes >= best.largest_tensor_bytes) {
              best.largest_tensor_bytes = inner.largest_tensor_bytes;
              best.largest_tensor = inner.largest_tensor;
            }
          }
        }
        for (std::size_t r = 0; r < call->results.size() && r < call->result_types.size(); ++r)
          add(call->results[r], call->result_types[r]);
        note_peak(nullptr, call);
      }
      free_dead(j);  // a check reads values too: they die at their last reader
    }
    return best;
  }

  static std::vector<const std::string*> operands_of(const BodyItem& item) {
    std::vector<const std::string*> out;
    const std::vector<std::string>* names = nullptr;
    if (const auto* inst = std::get_if<Instruction>(&item)) names = &inst->operands;
    else if (const auto* call = std::get_if<Call>(&item)) names = &call->operands;
    else if (const auto* check = std::get_if<Check>(&item)) names = &check->operands;
    if (names)
      for (const auto& name : *names) out.push_back(&name);
    return out;
  }

  const Module& m_;
  std::uint64_t bytes_per_scalar_, replicas_;
  std::map<const Function*, MemoryEstimate> done_;
  std::set<const Function*> in_progress_;
};

}  // namespace

MemoryEstimate estimate_peak_memory(const Module& m, std::uint64_t bytes_per_scalar, int replicas) {
  const auto R = static_cast<std::uint64_t>(replicas < 1 ? 1 : replicas);
  return PeakEstimator(m, bytes_per_scalar, R).peak(m.function(), true);
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
  auto at = [&](Location l) { return m.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.column) + ": "; };
  std::string where;
  if (e.peak_call) {  // inside a callee (at one of its instructions), or at the call's results
    where = at(e.peak_call->location) + "call @" + e.peak_call->callee + ": ";
    if (e.peak_at)
      where += "at line " + std::to_string(e.peak_at->location.line) + " inside it (" + e.peak_at->result + " = stablehlo." +
               op_name(e.peak_at->op) + "), ";
  } else if (e.peak_at) {
    where = at(e.peak_at->location) + e.peak_at->result + " = stablehlo." + op_name(e.peak_at->op) + ": ";
  } else {
    where = m.file + ": the inputs: ";
  }
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
  enable_storage_pool();  // large tensors: whole huge pages, kept
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest: smaller blocks come from the heap
  mallopt(M_TRIM_THRESHOLD, INT_MAX);   // and freed heap memory is never handed back
#endif
}

void touch_heap_in_parallel(std::uint64_t bytes, const std::function<void()>& alongside) {
  constexpr std::size_t kChunk = std::size_t{16} << 20;  // a heap block: under glibc's 32 MiB mmap threshold
  constexpr std::size_t kShare = std::size_t{4} << 20;   // what a thread takes at a time (two huge pages)
  constexpr std::size_t kPage = 4096;
  // With the storage pool, one block of the whole size (the tensors take their blocks from it);
  // otherwise heap blocks, which merge when freed (nothing small between them).
  std::vector<std::pair<char*, std::size_t>> blocks;
  try {
    if (storage_pool_enabled()) {
      const auto size = static_cast<std::size_t>(std::max<std::uint64_t>(bytes, kHugePageBytes));
      blocks.emplace_back(static_cast<char*>(allocate_storage_bytes(size)), size);
    } else {
#ifdef __GLIBC__
      blocks.reserve(static_cast<std::size_t>(bytes / kChunk + 1));
      for (std::uint64_t done = 0; done < bytes; done += kChunk) blocks.emplace_back(static_cast<char*>(allocate_storage_bytes(kChunk)), kChunk);
#endif
    }
  } catch (const std::bad_alloc&) {
    // nothing more to prepare: the run reports its own shortage
  }
  std::vector<std::pair<char*, std::size_t>> shares;
  for (const auto& [block, size] : blocks)
    for (std::size_t at = 0; at < size; at += kShare) shares.emplace_back(block + at, std::min(kShare, size - at));
  const auto n = static_cast<std::int64_t>(shares.size());
  // Shares handed out in turn: the thread that runs `alongside` joins when it is done.
  std::atomic<std::int64_t> next{0};
  std::exception_ptr error;
#pragma omp parallel
  {
#ifdef _OPENMP
    const bool first = omp_get_thread_num() == 0;
#else
    const bool first = true;
#endif
    if (first && alongside) {
      try {
        alongside();
      } catch (...) {
        error = std::current_exception();
      }
    }
    for (std::int64_t i = next++; i < n; i = next++) {
      volatile char* share = shares[static_cast<std::size_t>(i)].first;
      for (std::size_t at = 0; at < shares[static_cast<std::size_t>(i)].second; at += kPage) share[at] = 0;
    }
  }
  for (const auto& [block, size] : blocks) free_storage_bytes(block, size);
  if (error) std::rethrow_exception(error);
}

}  // namespace shlo
