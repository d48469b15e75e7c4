#include "oracle/check_dialect.hpp"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <type_traits>

#include "ast/mlir_parse.hpp"
#include "interp/domain/ieee_typed.hpp"
#include "interp/domain/rounding.hpp"
#include "interp/ops/integer.hpp"
#include "interp/ops/movement.hpp"
#include "interp/run.hpp"

namespace shlo {

std::vector<TestChunk> split_test_file(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  auto is_marker = [](const std::string& line) {
    const auto first = line.find_first_not_of(" \t\r");
    const auto last = line.find_last_not_of(" \t\r");
    return first != std::string::npos && line.substr(first, last - first + 1) == "// -----";
  };
  std::vector<TestChunk> chunks;
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= lines.size(); ++i) {
    if (i < lines.size() && !is_marker(lines[i])) continue;
    TestChunk c;
    c.first_line = static_cast<int>(begin) + 1;
    c.text.assign(begin, '\n');  // the lines before the chunk, blank
    for (std::size_t k = begin; k < i; ++k) c.text += lines[k] + "\n";
    bool blank = true;
    for (std::size_t k = begin; k < i; ++k) blank &= lines[k].find_first_not_of(" \t\r") == std::string::npos;
    if (!blank) chunks.push_back(std::move(c));
    begin = i + 1;
  }
  return chunks;
}

std::vector<std::size_t> test_functions(const Module& m) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < m.functions.size(); ++i)
    if (m.functions[i].name == "main") return {i};
  for (std::size_t i = 0; i < m.functions.size(); ++i)
    if (is_public(m.functions[i]) && m.functions[i].arguments.empty()) out.push_back(i);
  return out;
}

namespace {

std::string shortest(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  char buffer[64];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, x);
  return std::string(buffer, r.ptr);
}

std::string index_text(const Shape& shape, std::int64_t flat) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  std::string s = "[";
  for (std::size_t d = 0; d < index.size(); ++d) s += (d ? ", " : "") + std::to_string(index[d]);
  return s + "]";
}

// The value as a number of the element type: the reference interpreter computes in that type.
double round_to(ElementType t, double x) { return round_to_element_type(x, t); }

// Distance in units in the last place of the element type (StableHLO's Element.cpp): between
// the bit patterns of |a| and |b|, their sum when the signs differ.
std::uint64_t ulp_distance(ElementType t, double a, double b) {
  constexpr auto kFar = std::numeric_limits<std::uint64_t>::max();
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return kFar;
  if (a == b && std::signbit(a) == std::signbit(b)) return 0;
  if (std::isinf(a) || std::isinf(b)) return kFar;
  auto magnitude = [&](double x) -> std::uint64_t {
    if (t == ElementType::F64) return std::bit_cast<std::uint64_t>(std::fabs(x));
    if (t == ElementType::F16) return ops::detail::binary16_bits_nearest(std::fabs(x));
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(static_cast<float>(std::fabs(x)));
    return t == ElementType::BF16 ? bits >> 16 : bits;
  };
  const std::uint64_t ma = magnitude(a), mb = magnitude(b);
  if (std::signbit(a) != std::signbit(b)) return ma + mb;
  return ma > mb ? ma - mb : mb - ma;
}

// Does one float element pass? `why` gets the rule's figure for a failure.
bool element_passes(const Check& c, ElementType t, double got, double want, std::string& why) {
  switch (c.kind) {
    case CheckKind::Eq:
      // IEEE equality, as StableHLO's expect_eq: an expected NaN is never met.
      if (std::isnan(got) && std::isnan(want)) why = " (NaN never equals NaN under expect_eq)";
      return got == want;
    case CheckKind::AlmostEq: {
      if (got == want) return true;
      if (std::isnan(got) && std::isnan(want)) return true;
      if (std::isnan(got) || std::isnan(want) || std::isinf(got) || std::isinf(want)) return false;
      if (std::signbit(got) != std::signbit(want)) {
        why = " (signs differ)";
        return false;
      }
      const double diff = std::fabs(got - want);
      why = " (difference " + shortest(diff) + " > tolerance " + shortest(c.tolerance) + ")";
      return diff <= c.tolerance;
    }
    case CheckKind::Close: {
      const std::uint64_t ulps = ulp_distance(t, got, want);
      why = ulps == std::numeric_limits<std::uint64_t>::max()
                ? std::string(" (not comparable in ULP)")
                : " (" + std::to_string(ulps) + " ULP, allowed " + std::to_string(c.min_ulp) + " to " + std::to_string(c.max_ulp) + ")";
      return ulps >= static_cast<std::uint64_t>(c.min_ulp) && ulps <= static_cast<std::uint64_t>(c.max_ulp);
    }
  }
  return false;
}

template <class D>
constexpr bool kIeeeDomain = std::is_same_v<D, F32Domain> || std::is_same_v<D, F64Domain>;

struct Judgement {
  std::optional<std::string> mismatch;  // the first failing element
  std::size_t elements = 0, exact = 0;  // non-IEEE domains: how many expected values are the exact results
};

template <class D>
Judgement judge(const D& d, const Check& c, const Value<D>& got, const Value<D>& want) {
  using T = Tensor<typename D::Scalar>;
  Judgement j;
  const std::string where = check_name(c) + " at line " + std::to_string(c.location.line) + ": ";
  if (const auto* g = std::get_if<PredTensor>(&got)) {
    const auto& w = std::get<PredTensor>(want);
    for (std::int64_t i = 0; i < g->size(); ++i)
      if ((*g)[i] != w[i]) {
        j.mismatch = where + "index " + index_text(g->shape, i) + ", got " + ((*g)[i] ? "true" : "false") + ", expected " +
                     (w[i] ? "true" : "false");
        return j;
      }
    return j;
  }
  if (const auto* g = std::get_if<IntTensor>(&got)) {  // integers: equal bit patterns (they are exact)
    const auto* w = std::get_if<IntTensor>(&want);
    if (!w) throw std::runtime_error(where + "an integer value compared with a value of another kind");
    const IntegerDomain id(c.operand_types[0].element);
    for (std::int64_t i = 0; i < g->size(); ++i) {
      ++j.elements, ++j.exact;
      if ((*g)[i] != (*w)[i]) {
        j.mismatch = where + "index " + index_text(g->shape, i) + ", got " + ops::integer_value(id, (*g)[i]).str() +
                     ", expected " + ops::integer_value(id, (*w)[i]).str();
        return j;
      }
    }
    return j;
  }
  const auto* g = std::get_if<T>(&got);
  const auto* w = std::get_if<T>(&want);
  if (!g || !w) throw std::runtime_error(where + "values of this element type are not compared yet");
  const ElementType t = c.operand_types[0].element;
  for (std::int64_t i = 0; i < g->size(); ++i) {
    const double gv = round_to(t, d.to_double((*g)[i])), wv = round_to(t, d.to_double((*w)[i]));
    if constexpr (!kIeeeDomain<D>) {
      ++j.elements;
      if (d.compare(CompareDirection::EQ, (*g)[i], (*w)[i]) == Tri::True) ++j.exact;
    }
    std::string why;
    if (!element_passes(c, t, gv, wv, why)) {
      std::string got_text = shortest(gv);
      if constexpr (!kIeeeDomain<D>) got_text += " (in " + d.name() + ": " + d.to_string((*g)[i]) + ")";
      j.mismatch = where + "index " + index_text(g->shape, i) + ", got " + got_text + ", expected " + shortest(wv) + why;
      return j;
    }
  }
  return j;
}

// Checks inside a function that a test calls would not be judged: refuse them.
void refuse_nested_checks(const Module& m, const Function& f, int depth = 0) {
  if (depth > 64) return;  // recursion is reported by the run
  for (const auto& item : f.body)
    if (const auto* call = std::get_if<Call>(&item)) {
      const Function* callee = find_function(m, call->callee);
      if (!callee) continue;
      for (const auto& inner : callee->body)
        if (const auto* check = std::get_if<Check>(&inner))
          throw ParseError(m.file, check->location, check_name(*check) + " inside @" + callee->name +
                                                        ", which a test calls: checks are judged only in the test function itself");
      refuse_nested_checks(m, *callee, depth + 1);
    }
}

template <class D>
TestOutcome run_one(const D& d, Module m, std::size_t index) {
  TestOutcome out;
  m.entry = index;
  const Function& f = m.function();
  out.name = f.name;
  if (!f.arguments.empty()) {
    out.status = TestOutcome::Status::Error;
    out.detail = m.file + ":" + std::to_string(f.location.line) + ":" + std::to_string(f.location.column) + ": @" + f.name +
                 " takes arguments; a test function takes none";
    return out;
  }
  try {
    refuse_nested_checks(m, f);
    RunOptions options;
    options.keep_values = true;
    RunResult<D> run = run_program(m, d, {{}}, options);
    const auto& values = run.values.at(0);
    std::size_t elements = 0, exact = 0;
    for (const auto& item : f.body) {
      const auto* c = std::get_if<Check>(&item);
      if (!c) continue;
      const Value<D>& got = values.at(c->operands[0]);
      Value<D> literal;
      if (c->expected) {
        if (c->operand_types[0].element == ElementType::I1) literal = ops::pred_constant(*c->expected, c->operand_types[0]);
        else if (is_integer(c->operand_types[0].element)) literal = ops::int_constant(*c->expected, c->operand_types[0]);
        else literal = ops::constant(d, *c->expected, c->operand_types[0]);
      }
      const Value<D>& want = c->expected ? literal : values.at(c->operands[1]);
      Judgement j = judge(d, *c, got, want);
      if (j.mismatch) {
        out.status = TestOutcome::Status::Fail;
        out.detail = *j.mismatch;
        if constexpr (!kIeeeDomain<D>)
          if (j.exact < j.elements) out.detail += "; the expected value is not the exact result";
        return out;
      }
      elements += j.elements;
      exact += j.exact;
    }
    if constexpr (!kIeeeDomain<D>)
      if (elements > 0)
        out.detail = exact == elements ? "expected values are the exact results"
                                       : std::to_string(elements - exact) + " of " + std::to_string(elements) +
                                             " expected values are roundings of the exact results, not the exact results";
  } catch (const std::exception& e) {
    out.status = TestOutcome::Status::Error;
    out.detail = e.what();
  }
  return out;
}

}  // namespace

std::vector<TestOutcome> run_test_file(const std::string& text, const std::string& file, const AnyDomain& domain) {
  std::vector<TestOutcome> outcomes;
  for (const auto& chunk : split_test_file(text)) {
    Module m;
    try {
      m = parse_module(chunk.text, file);
    } catch (const std::exception& e) {
      outcomes.push_back({TestOutcome::Status::Error, "", e.what()});
      continue;
    }
    const auto tests = test_functions(m);
    if (tests.empty())
      outcomes.push_back({TestOutcome::Status::Error, "",
                          file + ":" + std::to_string(chunk.first_line) + ": no test function (main, or a public function without arguments)"});
    for (auto index : tests)
      outcomes.push_back(with_domain(domain, [&](const auto& d) { return run_one(d, m, index); }));
  }
  return outcomes;
}

}  // namespace shlo
