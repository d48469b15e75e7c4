// The attribute spellings of the ops we run (docs/mlir-forms.md §6, §7, §11): each value in
// every spelling MLIR and JAX print, read into the one Attributes field the binder and the
// verifier look at.
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "ast/indexing.hpp"
#include "ast/mlir_op_parse.hpp"

namespace shlo {

namespace {

constexpr int kMaxDenseNesting = 8;

bool is_alias_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' || c == '-';
}

std::string hex_bits(std::uint64_t bits, int digits) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "0x%0*llX", digits, static_cast<unsigned long long>(bits));
  return buffer;
}

std::uint64_t little_endian(const unsigned char* bytes, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | bytes[i];
  return v;
}

}  // namespace

std::size_t dense_storage_bytes(ElementType e) {
  switch (e) {
    case ElementType::F32: return 4;
    case ElementType::F64: return 8;
    case ElementType::BF16: return 2;
    case ElementType::I1: return 1;
    case ElementType::I64: return 8;
    case ElementType::F8E4M3FN: return 1;
    case ElementType::F16: return 2;
    case ElementType::I8: case ElementType::I16: case ElementType::I32:
    case ElementType::UI8: case ElementType::UI16: case ElementType::UI32: case ElementType::UI64:
      return static_cast<std::size_t>(bit_width(e) / 8);
  }
  return 0;
}

std::string dense_element_from_bytes(ElementType e, const unsigned char* bytes) {
  const std::size_t n = dense_storage_bytes(e);
  const std::uint64_t bits = little_endian(bytes, n);
  switch (e) {
    case ElementType::I1: return bits ? "true" : "false";
    case ElementType::I64: return std::to_string(static_cast<std::int64_t>(bits));
    case ElementType::I8: case ElementType::I16: case ElementType::I32: {
      const int shift = 64 - bit_width(e);  // sign-extend the low bit_width bits
      return std::to_string(static_cast<std::int64_t>(bits << shift) >> shift);
    }
    case ElementType::UI8: case ElementType::UI16: case ElementType::UI32: case ElementType::UI64:
      return std::to_string(bits);
    case ElementType::F32: case ElementType::F64: case ElementType::BF16: case ElementType::F8E4M3FN:
    case ElementType::F16:
      return hex_bits(bits, static_cast<int>(2 * n));  // the bit pattern, as MLIR prints non-finite values
  }
  return "";
}

bool parse_alias_definition(Lexer& lex, AttributeAliases& aliases) {
  lex.skip_space();
  if (lex.at_end()) return false;
  const std::size_t start = lex.offset();
  const char sigil = lex.text(start, start + 1)[0];
  if (sigil != '#' && sigil != '!') return false;
  const Location at = lex.location();
  lex.expect(std::string(1, sigil));
  const std::size_t name_start = lex.offset();
  std::size_t name_end = name_start;
  while (name_end < name_start + 256 && is_alias_char(lex.text(name_end, name_end + 1).empty() ? ' ' : lex.text(name_end, name_end + 1)[0]))
    ++name_end;
  if (name_end == name_start) lex.fail_expected("an alias name after '#'");
  const std::string name = std::string(1, sigil) + std::string(lex.text(name_start, name_end));
  lex.expect(name.substr(1));
  lex.expect("=", "'=' in the alias definition of " + name);
  const std::size_t value_start = lex.offset();
  lex.skip_space();  // also skips a location: `#loc3 = loc(...)` leaves nothing to keep
  const std::string_view skipped = lex.text(value_start, lex.offset());
  if (skipped.find("loc(") != std::string_view::npos) return true;
  const Location value_at = lex.location();
  const std::size_t from = lex.offset();
  lex.skip_balanced(/*to_line_end=*/true);
  if (lex.offset() == from) lex.fail_at(at, "alias " + name + " has no value");
  if (sigil == '#') {
    if (!aliases.by_name.emplace(name, AttributeAliases::Alias{std::string(lex.text(from, lex.offset())), value_at}).second)
      lex.fail_at(at, "alias " + name + " is defined twice");
  }
  return true;
}

template <class Read>
auto AttributeReader::through_alias(Read read) -> decltype(read()) {
  Lexer& l = lex();
  if (!l.peek("#") || l.peek("#stablehlo")) return read();
  const Location at = l.location();
  const std::size_t start = l.offset();
  l.expect("#");
  std::size_t end = l.offset();
  while (end < start + 257 && !l.text(end, end + 1).empty() && is_alias_char(l.text(end, end + 1)[0])) ++end;
  const std::string name(l.text(start, end));
  const auto* alias = aliases_ ? &aliases_->by_name : nullptr;
  auto it = alias ? alias->find(name) : decltype(alias->end()){};
  if (!alias || it == alias->end()) l.fail_at(at, "unknown attribute alias " + name);
  l.expect(name.substr(1));
  // Read the alias's text in place of the use, then continue after the use.
  Lexer inner(it->second.text, l.file(), it->second.location);
  std::swap(l, inner);
  auto value = read();
  const bool rest = !l.at_end() && (l.skip_space(), !l.at_end());
  std::swap(l, inner);
  if (rest) l.fail_at(at, "alias " + name + " holds more than one value");
  return value;
}

void AttributeReader::dictionary(OpSyntax& op) {
  Lexer& l = lex();
  if (l.accept("}")) return;
  do {
    l.skip_space();
    const Location at = l.location();
    std::string key;
    if (l.peek("\"")) key = l.string_literal("an attribute name");
    else key = l.identifier("an attribute name");
    if (l.accept("=")) value(op, key, at);
    // else a unit attribute ({use_global_device_ids}): nothing to read
  } while (l.accept(","));
  l.expect("}", "'}' or ',' in the attributes");
}

void AttributeReader::value(OpSyntax& op, const std::string& key, Location at) {
  Lexer& l = lex();
  Attributes& a = op.inst.attributes;
  const Op o = op.inst.op;
  auto take = [&](const char* name, Op for_op) {
    if (key != name || o != for_op) return false;
    if (!op.given.insert(name)) l.fail_at(at, "attribute '" + key + "' is given twice");
    return true;
  };
  auto take_any = [&](const char* name, std::initializer_list<Op> ops) {
    for (Op x : ops)
      if (take(name, x)) return true;
    return false;
  };
  if (take("value", Op::Constant)) {
    l.skip_space();
    const Location literal_at = l.location();
    a.literal = dense();
    l.expect(":", "':' and the literal's type");
    op.value_type = cx_.type();
    finish_dense(a.literal, *op.value_type, literal_at);
  } else if (take("iota_dimension", Op::Iota) || take_any("dimension", {Op::Concatenate, Op::Sort})) {
    a.dimension = integer();
  } else if (take("is_stable", Op::Sort)) {
    l.skip_space();
    if (l.accept("true")) a.is_stable = true;
    else if (l.accept("false")) a.is_stable = false;
    else l.fail_expected("true or false for is_stable");
  } else if (take("comparison_direction", Op::Compare)) {
    a.comparison_direction = enum_word("comparison_direction");
  } else if (take("compare_type", Op::Compare)) {
    a.compare_type = enum_word("comparison_type");
  } else if (take("broadcast_dimensions", Op::BroadcastInDim) || take("permutation", Op::Transpose) ||
             take_any("dimensions", {Op::Reverse, Op::Reduce})) {
    a.dimensions = int_list();
  } else if (take("start_indices", Op::Slice)) {
    a.start_indices = int_list();
  } else if (take("limit_indices", Op::Slice)) {
    a.limit_indices = int_list();
  } else if (take("strides", Op::Slice)) {
    a.strides = int_list();
  } else if (take("edge_padding_low", Op::Pad)) {
    a.edge_padding_low = int_list();
  } else if (take("edge_padding_high", Op::Pad)) {
    a.edge_padding_high = int_list();
  } else if (take("interior_padding", Op::Pad)) {
    a.interior_padding = int_list();
  } else if (take("dot_dimension_numbers", Op::DotGeneral)) {
    dot_dimension_numbers(a);
  } else if (take_any("precision_config", {Op::DotGeneral, Op::Convolution})) {
    a.precision_config = precision_list();
  } else if (take("dimension_numbers", Op::Convolution)) {
    conv_dimension_numbers_attribute(a.conv);
  } else if (take_any("window_strides", {Op::Convolution, Op::ReduceWindow, Op::SelectAndScatter})) {
    a.window_strides = int_list();
  } else if (take_any("padding", {Op::Convolution, Op::ReduceWindow, Op::SelectAndScatter})) {
    a.padding = pair_list();
  } else if (take("lhs_dilation", Op::Convolution)) {
    a.lhs_dilation = int_list();
  } else if (take("rhs_dilation", Op::Convolution)) {
    a.rhs_dilation = int_list();
  } else if (take("window_reversal", Op::Convolution)) {
    for (bool reversed : bool_list())
      if (reversed) l.fail_at(at, "a reversed convolution window (window_reversal true) is not supported");
  } else if (take("feature_group_count", Op::Convolution)) {
    a.feature_group_count = integer();
  } else if (take("batch_group_count", Op::Convolution)) {
    a.batch_group_count = integer();
  } else if (take_any("window_dimensions", {Op::ReduceWindow, Op::SelectAndScatter})) {
    a.window_dimensions = int_list();
  } else if (take("base_dilations", Op::ReduceWindow)) {
    a.base_dilations = int_list();
  } else if (take("window_dilations", Op::ReduceWindow)) {
    a.window_dilations = int_list();
  } else if (take("replica_groups", Op::AllReduce)) {
    // The mesh-axes form: the spec ("Replica groups") lists its fields (a mesh of named axes,
    // sub-axes by pre_size and size) but, unlike the four strategies after it, gives no rule
    // for the process groups it stands for, nor for how its device ids name processes.
    if (l.peek("#stablehlo.replica_group_mesh_axes"))
      l.fail_at(l.location(), "replica_groups in the mesh-axes form #stablehlo.replica_group_mesh_axes<...> is not supported: the spec names "
                    "ReplicaGroupMeshAxes and its fields but defines no rule for the groups it makes; write the groups as "
                    "dense<[[...], ...]> : tensor<GxNxi64>");
    a.replica_groups = int_matrix();
  } else if (take_any("slice_sizes", {Op::DynamicSlice, Op::Gather})) {
    a.slice_sizes = int_list();
  } else if (take("dimension_numbers", Op::Gather) || take("scatter_dimension_numbers", Op::Scatter)) {
    indexing_dimension_numbers(o, a.indexing);
  } else if (take_any("indices_are_sorted", {Op::Gather, Op::Scatter})) {
    a.indices_are_sorted = boolean();
  } else if (take("unique_indices", Op::Scatter)) {
    a.unique_indices = boolean();
  } else {
    // Metadata (mhlo.frontend_attributes, mhlo.sharding, ...), dot_general's algorithm, the
    // channel handle: nothing the oracle's semantics reads.
    l.skip_balanced();
  }
}

std::int64_t AttributeReader::integer() {
  return through_alias([&] {
    Lexer& l = lex();
    const std::int64_t v = l.integer();
    if (l.accept(":")) {
      const std::string t = l.identifier("the integer's type (i64, i32)");
      if (t != "i64" && t != "i32" && t != "i16" && t != "i8" && t != "ui64" && t != "ui32")
        l.fail_expected("an integer type (i64, i32)");
    }
    return v;
  });
}

std::vector<std::int64_t> AttributeReader::int_list() {
  return through_alias([&] {
    Lexer& l = lex();
    std::vector<std::int64_t> v;
    if (l.accept("[")) {
      if (l.accept("]")) return v;
      do v.push_back(l.integer()); while (l.accept(","));
      l.expect("]", "']' or ','");
      return v;
    }
    if (l.accept("array")) {
      l.expect("<");
      if (!l.accept("i64")) l.expect("i32", "the array's element type (i64)");
      if (l.accept(":")) {
        do v.push_back(l.integer()); while (l.accept(","));
      }
      l.expect(">", "'>' or ','");
      return v;
    }
    if (!l.peek("dense")) l.fail_expected("an integer list ([1, 2], array<i64: 1, 2> or dense<[1, 2]> : tensor<2xi64>)");
    l.skip_space();
    const Location at = l.location();
    DenseLiteral d = dense();
    l.expect(":", "':' and the attribute's type");
    const TensorType t = cx_.type();
    if (t.element != ElementType::I64 || t.shape.size() != 1)
      l.fail_at(at, "an integer list must have a rank-1 i64 type, found " + to_string(t));
    finish_dense(d, t, at);
    for (std::int64_t i = 0; i < t.shape[0]; ++i) {
      const std::string& e = d.elements[d.splat ? 0 : static_cast<std::size_t>(i)];
      char* end = nullptr;
      errno = 0;
      const long long x = std::strtoll(e.c_str(), &end, 10);
      if (e.empty() || *end != '\0' || errno == ERANGE) l.fail_at(at, "expected a 64-bit integer, found '" + e + "'");
      v.push_back(x);
    }
    return v;
  });
}

std::vector<bool> AttributeReader::bool_list() {
  return through_alias([&] {
    Lexer& l = lex();
    std::vector<bool> v;
    auto element = [&](const std::string& e, Location at) {
      if (e == "true" || e == "1") return true;
      if (e == "false" || e == "0") return false;
      l.fail_at(at, "expected true or false, found '" + e + "'");
    };
    auto read_elements = [&](const char* close) {
      if (l.accept(close)) return;
      do {
        l.skip_space();
        const Location at = l.location();
        v.push_back(element(l.literal("true or false"), at));
      } while (l.accept(","));
      l.expect(close, "the end of the list or ','");
    };
    if (l.accept("[")) {
      read_elements("]");
    } else if (l.accept("array")) {
      l.expect("<");
      l.expect("i1", "the array's element type (i1)");
      if (l.accept(":")) read_elements(">");
      else l.expect(">");
    } else {
      l.skip_space();
      const Location at = l.location();
      DenseLiteral d = dense();
      l.expect(":", "':' and the attribute's type");
      const TensorType t = cx_.type();
      if (t.element != ElementType::I1 || t.shape.size() != 1) l.fail_at(at, "expected a rank-1 i1 type, found " + to_string(t));
      finish_dense(d, t, at);
      for (std::int64_t i = 0; i < t.shape[0]; ++i) v.push_back(element(d.elements[d.splat ? 0 : static_cast<std::size_t>(i)], at));
    }
    return v;
  });
}

std::vector<std::vector<std::int64_t>> AttributeReader::int_matrix() {
  return through_alias([&] {
    Lexer& l = lex();
    l.skip_space();
    const Location at = l.location();
    std::vector<std::vector<std::int64_t>> rows;
    if (l.accept("[")) {  // [[0, 1], [1, 0]]
      if (l.accept("]")) return rows;
      do {
        l.expect("[", "a row '[...]'");
        rows.emplace_back();
        if (!l.accept("]")) {
          do rows.back().push_back(l.integer()); while (l.accept(","));
          l.expect("]", "']' or ','");
        }
      } while (l.accept(","));
      l.expect("]", "']' or ','");
      for (const auto& r : rows)
        if (r.size() != rows[0].size()) l.fail_at(at, "the rows of the list differ in length");
      return rows;
    }
    DenseLiteral d = dense();
    l.expect(":", "':' and the attribute's type");
    const TensorType t = cx_.type();
    if (t.element != ElementType::I64 || t.shape.size() != 2)
      l.fail_at(at, "expected a rank-2 tensor of i64, found " + to_string(t));
    finish_dense(d, t, at);
    if (!d.splat && d.list_shape != t.shape) l.fail_at(at, "the dense list does not have the shape of its type " + to_string(t));
    rows.resize(static_cast<std::size_t>(t.shape[0]));
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (std::int64_t j = 0; j < t.shape[1]; ++j) {
        const std::string& e = d.elements[d.splat ? 0 : i * static_cast<std::size_t>(t.shape[1]) + static_cast<std::size_t>(j)];
        char* end = nullptr;
        errno = 0;
        const long long x = std::strtoll(e.c_str(), &end, 10);
        if (e.empty() || *end != '\0' || errno == ERANGE) l.fail_at(at, "expected a 64-bit integer, found '" + e + "'");
        rows[i].push_back(x);
      }
    return rows;
  });
}

std::vector<std::pair<std::int64_t, std::int64_t>> AttributeReader::pair_list() {
  Lexer& l = lex();
  l.skip_space();
  const Location at = l.location();
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const auto& r : int_matrix()) {
    if (r.size() != 2) l.fail_at(at, "padding must be a list of [low, high] pairs");
    out.emplace_back(r[0], r[1]);
  }
  return out;
}

std::string AttributeReader::enum_word(const char* generic_name) {
  return through_alias([&] {
    Lexer& l = lex();
    if (!l.accept("#stablehlo")) return l.identifier(generic_name);
    l.expect("<", std::string("'#stablehlo<") + generic_name + " ...>'");
    const Location at = l.location();
    const std::string kind = l.identifier(generic_name);
    if (kind != generic_name) l.fail_at(at, std::string("expected #stablehlo<") + generic_name + " ...>, found #stablehlo<" + kind + " ...>");
    std::string word = l.identifier(generic_name);
    l.expect(">", "'>' closing the attribute");
    return word;
  });
}

std::vector<std::string> AttributeReader::precision_list() {
  return through_alias([&] {
    Lexer& l = lex();
    std::vector<std::string> v;
    l.expect("[", "a precision list [DEFAULT, DEFAULT]");
    if (l.accept("]")) return v;
    do {
      l.skip_space();
      const Location at = l.location();
      std::string p = enum_word("precision");
      if (p != "DEFAULT" && p != "HIGH" && p != "HIGHEST") l.fail_at(at, "unknown precision '" + p + "' (DEFAULT, HIGH, HIGHEST)");
      v.push_back(std::move(p));
    } while (l.accept(","));
    l.expect("]", "']' or ','");
    return v;
  });
}

void AttributeReader::dot_dimension_numbers(Attributes& a) {
  through_alias([&] {
    Lexer& l = lex();
    l.expect("#stablehlo.dot", "'#stablehlo.dot<...>'");
    l.expect("<");
    std::set<std::string> seen;
    if (!l.peek(">")) {
      do {
        l.skip_space();
        const Location at = l.location();
        const std::string field = l.identifier("a dot dimension field");
        l.expect("=");
        if (!seen.insert(field).second) l.fail_at(at, "'" + field + "' is given twice");
        if (field == "lhs_batching_dimensions") a.lhs_batching_dimensions = int_list();
        else if (field == "rhs_batching_dimensions") a.rhs_batching_dimensions = int_list();
        else if (field == "lhs_contracting_dimensions") a.lhs_contracting_dimensions = int_list();
        else if (field == "rhs_contracting_dimensions") a.rhs_contracting_dimensions = int_list();
        else l.fail_at(at, "unknown dot dimension field '" + field + "' (lhs_batching_dimensions, rhs_batching_dimensions, "
                           "lhs_contracting_dimensions, rhs_contracting_dimensions)");
      } while (l.accept(","));
    }
    l.expect(">", "'>' or ','");
    return 0;
  });
}

// [b, f, 0, 1] / [o, i, 0, 1]: letters name the roles, digits the spatial dims.
static void conv_side(Lexer& l, char first, char second, std::int64_t& first_dim, std::int64_t& second_dim,
                      std::vector<std::int64_t>& spatial) {
  l.expect("[", "convolution dimension numbers");
  std::map<std::int64_t, std::int64_t> by_spatial;
  bool seen_first = false, seen_second = false;
  std::int64_t pos = 0;
  do {
    l.skip_space();
    const Location at = l.location();
    if (l.accept(std::string(1, first))) {
      if (seen_first) l.fail_at(at, std::string("'") + first + "' appears twice");
      first_dim = pos;
      seen_first = true;
    } else if (l.accept(std::string(1, second))) {
      if (seen_second) l.fail_at(at, std::string("'") + second + "' appears twice");
      second_dim = pos;
      seen_second = true;
    } else {
      const std::int64_t s = l.integer(std::string("'") + first + "', '" + second + "' or a spatial dimension number");
      if (!by_spatial.emplace(s, pos).second) l.fail_at(at, "spatial dimension " + std::to_string(s) + " appears twice");
    }
    ++pos;
  } while (l.accept(","));
  l.expect("]", "']' or ','");
  if (!seen_first || !seen_second)
    l.fail_at(l.location(), std::string("dimension numbers need both '") + first + "' and '" + second + "'");
  spatial.clear();
  for (std::int64_t s = 0; s < static_cast<std::int64_t>(by_spatial.size()); ++s) {
    auto it = by_spatial.find(s);
    if (it == by_spatial.end()) l.fail_at(l.location(), "spatial dimensions must be numbered 0, 1, ... without gaps");
    spatial.push_back(it->second);
  }
}

void AttributeReader::conv_dimension_numbers(ConvDimensionNumbers& c) {
  Lexer& l = lex();
  conv_side(l, 'b', 'f', c.input_batch, c.input_feature, c.input_spatial);
  l.expect("x", "'x' between input and kernel dimension numbers");
  conv_side(l, 'o', 'i', c.kernel_output_feature, c.kernel_input_feature, c.kernel_spatial);
  l.expect("->", "'->' before the output dimension numbers");
  conv_side(l, 'b', 'f', c.output_batch, c.output_feature, c.output_spatial);
}

void AttributeReader::conv_dimension_numbers_attribute(ConvDimensionNumbers& c) {
  through_alias([&] {
    Lexer& l = lex();
    l.expect("#stablehlo.conv", "'#stablehlo.conv<...>'");
    l.expect("<");
    if (!l.accept("raw")) {
      conv_dimension_numbers(c);
      l.expect(">", "'>' closing #stablehlo.conv");
      return 0;
    }
    // The long form: every field by name, in any order.
    const std::map<std::string, std::int64_t*> scalars{
        {"input_batch_dimension", &c.input_batch},
        {"input_feature_dimension", &c.input_feature},
        {"kernel_input_feature_dimension", &c.kernel_input_feature},
        {"kernel_output_feature_dimension", &c.kernel_output_feature},
        {"output_batch_dimension", &c.output_batch},
        {"output_feature_dimension", &c.output_feature}};
    const std::map<std::string, std::vector<std::int64_t>*> lists{
        {"input_spatial_dimensions", &c.input_spatial},
        {"kernel_spatial_dimensions", &c.kernel_spatial},
        {"output_spatial_dimensions", &c.output_spatial}};
    std::set<std::string> seen;
    do {
      l.skip_space();
      const Location at = l.location();
      const std::string field = l.identifier("a convolution dimension field");
      l.expect("=");
      if (!seen.insert(field).second) l.fail_at(at, "'" + field + "' is given twice");
      if (auto s = scalars.find(field); s != scalars.end()) *s->second = l.integer();
      else if (auto v = lists.find(field); v != lists.end()) *v->second = int_list();
      else l.fail_at(at, "unknown convolution dimension field '" + field + "'");
    } while (l.accept(","));
    if (seen.size() != scalars.size() + lists.size())
      l.fail_at(l.location(), "#stablehlo.conv<raw ...> needs all nine dimension fields");
    l.expect(">", "'>' or ','");
    return 0;
  });
}

namespace {

// `(1.5, 2.5)` is an element of a complex tensor: named as such, not as a malformed literal.
void refuse_complex_literal(Lexer& l) {
  l.skip_space();
  if (l.peek("(")) l.fail_at(l.location(), "unsupported complex literal (re, im): complex element types are not run");
}

}  // namespace

DenseLiteral AttributeReader::dense() {
  Lexer& l = lex();
  l.expect("dense", "dense<...>");
  l.expect("<");
  DenseLiteral d;
  l.skip_space();
  const Location at = l.location();
  if (l.accept(">")) {  // dense<>: a tensor without elements
    d.splat = false;
    return d;
  }
  if (l.peek("\"")) {
    // Raw storage; expanded by finish_dense once the type is known.
    d.elements.push_back("\"" + l.string_literal("a hex string") + "\"");
  } else if (l.peek("[")) {
    d.splat = false;
    std::vector<std::int64_t> counts;
    dense_items(d, 0, counts);
    d.list_shape = counts;
    // Rows of equal length can still mix lists and literals ([[1, 2], 3]): the element count
    // must be the product of the nesting.
    std::size_t expected = 1;
    bool overflow = false;
    for (auto n : counts) overflow |= __builtin_mul_overflow(expected, static_cast<std::size_t>(n), &expected);
    if (overflow || d.elements.size() != expected)
      l.fail_at(at, "ragged dense literal: " + std::to_string(d.elements.size()) + " element(s) in a nesting of " +
                        std::to_string(expected));
  } else {
    refuse_complex_literal(l);
    d.elements.push_back(l.literal());
  }
  l.expect(">", "'>' closing dense<...>");
  return d;
}

void AttributeReader::dense_items(DenseLiteral& d, std::size_t depth, std::vector<std::int64_t>& counts) {
  Lexer& l = lex();
  if (depth > kMaxDenseNesting) l.fail_at(l.location(), "dense literal nested too deeply");
  if (!l.accept("[")) {
    refuse_complex_literal(l);
    d.elements.push_back(l.literal("a literal or '['"));
    return;
  }
  if (counts.size() <= depth) counts.resize(depth + 1, -1);
  std::int64_t n = 0;
  if (!l.peek("]")) {
    do {
      dense_items(d, depth + 1, counts);
      ++n;
    } while (l.accept(","));
  }
  l.expect("]", "']' or ','");
  if (counts[depth] >= 0 && counts[depth] != n)
    l.fail_at(l.location(), "ragged dense literal: rows of " + std::to_string(counts[depth]) + " and " + std::to_string(n) +
                                " elements");
  counts[depth] = n;
}

void AttributeReader::finish_dense(DenseLiteral& d, const TensorType& t, Location at) {
  Lexer& l = lex();
  std::size_t count = 1;
  for (auto n : t.shape) count *= static_cast<std::size_t>(n);  // the type parser bounded the product
  const bool hex = d.splat && !d.elements.empty() && d.elements[0].size() >= 2 && d.elements[0][0] == '"';
  if (!d.splat && d.elements.empty() && d.list_shape.empty()) {  // dense<>
    if (count != 0) l.fail_at(at, "dense<> is empty but " + to_string(t) + " has " + std::to_string(count) + " element(s)");
    d.list_shape = t.shape;
    return;
  }
  if (!hex) return;
  const std::string text = d.elements[0].substr(1, d.elements[0].size() - 2);
  if (text.size() < 2 || (text.compare(0, 2, "0x") != 0 && text.compare(0, 2, "0X") != 0) || text.size() % 2 != 0)
    l.fail_at(at, "a dense string must be hex bytes \"0x...\"");
  std::vector<unsigned char> bytes;
  for (std::size_t i = 2; i < text.size(); i += 2) {
    const char pair[3] = {text[i], text[i + 1], '\0'};
    if (!std::isxdigit(static_cast<unsigned char>(pair[0])) || !std::isxdigit(static_cast<unsigned char>(pair[1])))
      l.fail_at(at, "a dense string must be hex bytes \"0x...\"");
    bytes.push_back(static_cast<unsigned char>(std::strtoul(pair, nullptr, 16)));
  }
  const std::size_t width = dense_storage_bytes(t.element);
  if (width == 0) l.fail_at(at, "hex dense literals of " + to_string(t) + " are not read");
  d.elements.clear();
  // One byte for several i1 elements is packed bits, except 00 and FF, which read alike as a splat.
  const bool packed_byte = t.element == ElementType::I1 && bytes.size() == 1 && count > 1 && bytes[0] != 0 && bytes[0] != 0xFF;
  if (bytes.size() == width && !packed_byte) {  // one element: a splat
    d.elements.push_back(dense_element_from_bytes(t.element, bytes.data()));
    return;
  }
  d.splat = false;
  d.list_shape = t.shape;
  if (t.element == ElementType::I1 && bytes.size() == (count + 7) / 8 && (bytes.size() != count || packed_byte)) {
    // Packed booleans (older MLIR): element k is bit k % 8 of byte k / 8.
    for (std::size_t k = 0; k < count; ++k) d.elements.push_back((bytes[k / 8] >> (k % 8)) & 1 ? "true" : "false");
    return;
  }
  if (bytes.size() != count * width)
    l.fail_at(at, "the hex string holds " + std::to_string(bytes.size()) + " byte(s); " + to_string(t) + " needs " +
                      std::to_string(count * width) + " (or " + std::to_string(width) + " for a splat)");
  for (std::size_t k = 0; k < count; ++k) d.elements.push_back(dense_element_from_bytes(t.element, &bytes[k * width]));
}

// gather's `#stablehlo.gather<offset_dims = [1], ..., index_vector_dim = 1>` and scatter's
// `#stablehlo.scatter<update_window_dims = [1], ...>`: fields in any order, empty lists and
// index_vector_dim = 0 omitted (docs/mlir-forms.md §11).
void AttributeReader::indexing_dimension_numbers(Op op, IndexingDimensionNumbers& d) {
  through_alias([&] {
    Lexer& l = lex();
    const IndexingFieldNames& names = indexing_field_names(op);
    const std::string opening = op == Op::Scatter ? "#stablehlo.scatter" : "#stablehlo.gather";
    l.expect(opening, "'" + opening + "<...>'");
    l.expect("<");
    std::string known;
    for (const char* n : names.lists) known += std::string(n) + ", ";
    known += names.index_vector_dim;
    std::set<std::string> seen;
    if (!l.peek(">")) {
      do {
        l.skip_space();
        const Location at = l.location();
        const std::string field = l.identifier("a dimension numbers field");
        l.expect("=");
        if (!seen.insert(field).second) l.fail_at(at, "'" + field + "' is given twice");
        bool read = false;
        for (std::size_t i = 0; i < names.lists.size() && !read; ++i)
          if (field == names.lists[i]) indexing_list(d, i) = int_list(), read = true;
        if (!read && field == names.index_vector_dim) d.index_vector_dim = l.integer(), read = true;
        if (!read) l.fail_at(at, "unknown " + opening.substr(11) + " dimension numbers field '" + field + "' (" + known + ")");
      } while (l.accept(","));
    }
    l.expect(">", "'>' or ','");
    return 0;
  });
}

bool AttributeReader::boolean() {
  return through_alias([&] {
    Lexer& l = lex();
    if (l.accept("true")) return true;
    if (l.accept("false")) return false;
    l.fail_expected("true or false");
  });
}

}  // namespace shlo
