#include "ast/mlir_print.hpp"

#include "ast/indexing.hpp"

#include <charconv>
#include <sstream>

namespace shlo {

namespace {

std::string join(const std::vector<std::int64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}
std::string i64_array(const std::vector<std::int64_t>& v) {
  return v.empty() ? "array<i64>" : "array<i64: " + join(v) + ">";
}
std::string pairs(const std::vector<std::pair<std::int64_t, std::int64_t>>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i ? ", [" : "[") + std::to_string(v[i].first) + ", " + std::to_string(v[i].second) + "]";
  return s + "]";
}
std::string dense_pairs(const std::vector<std::pair<std::int64_t, std::int64_t>>& v) {
  return "dense<" + pairs(v) + "> : tensor<" + std::to_string(v.size()) + "x2xi64>";
}

std::string names(const std::vector<std::string>& ns) {
  std::string s;
  for (std::size_t i = 0; i < ns.size(); ++i) s += (i ? ", " : "") + ns[i];
  return s;
}
std::string functional(const Instruction& inst) {
  const std::string results = inst.result_types.empty() ? to_string(inst.result_type) : "(" + type_list(inst.result_types) + ")";
  return " : (" + type_list(inst.operand_types) + ") -> " + results;
}

// The labels of one side of convolution dimension numbers: [b, f, 0, 1].
std::string conv_side(std::size_t rank, std::int64_t first, char first_label, std::int64_t second, char second_label,
                      const std::vector<std::int64_t>& spatial) {
  std::vector<std::string> labels(rank, "?");
  labels[static_cast<std::size_t>(first)] = std::string(1, first_label);
  labels[static_cast<std::size_t>(second)] = std::string(1, second_label);
  for (std::size_t s = 0; s < spatial.size(); ++s) labels[static_cast<std::size_t>(spatial[s])] = std::to_string(s);
  std::string out = "[";
  for (std::size_t i = 0; i < rank; ++i) out += (i ? ", " : "") + labels[i];
  return out + "]";
}

void print_dense_items(const DenseLiteral& d, std::size_t depth, std::size_t& next, std::string& out) {
  if (depth == d.list_shape.size()) {
    out += d.elements.at(next++);
    return;
  }
  out += "[";
  for (std::int64_t i = 0; i < d.list_shape[depth]; ++i) {
    if (i) out += ", ";
    print_dense_items(d, depth + 1, next, out);
  }
  out += "]";
}

// A region block. The all-reduce block is indented like its op (SHLO_SEMANTICS.md 2.5);
// the others one level deeper.
void print_region(const Region& r, int indent, std::ostringstream& out) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (!r.arguments.empty()) {  // the branches of if and case have no label
    out << pad << "^bb0(";
    for (std::size_t i = 0; i < r.arguments.size(); ++i)
      out << (i ? ", " : "") << r.arguments[i].first << ": " << to_string(r.arguments[i].second);
    out << "):\n";
  }
  for (const auto& inst : r.body) out << print_instruction(inst, indent + 2);
  out << pad << "  stablehlo.return " << names(r.results) << " : " << type_list(r.result_types) << "\n";
}

// `"stablehlo.OP"(%a, ...) ({ region }, ...) {attributes} : (T...) -> R`: the generic form, for
// the ops with regions other than the Lean printer's (reduce with a body, sort, while, if, case).
void print_generic_with_regions(const Instruction& inst, int indent, const std::string& attributes, std::ostringstream& out) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  out << "\"stablehlo." << op_name(inst.op) << "\"(" << names(inst.operands) << ") (";
  for (std::size_t i = 0; i < inst.regions.size(); ++i) {
    out << (i ? ", {\n" : "{\n");
    print_region(inst.regions[i], indent + 2, out);
    out << pad << "}";
  }
  out << ")";
  if (!attributes.empty()) out << " {" << attributes << "}";
  out << functional(inst);
}

// `#stablehlo.gather<...>` / `#stablehlo.scatter<...>`, MLIR's way: empty lists and
// index_vector_dim = 0 left out.
std::string indexing_attribute(Op op, const IndexingDimensionNumbers& d) {
  const IndexingFieldNames& n = indexing_field_names(op);
  std::vector<std::string> fields;
  for (std::size_t i = 0; i < n.lists.size(); ++i)
    if (!indexing_list(d, i).empty()) fields.push_back(std::string(n.lists[i]) + " = " + integer_list(indexing_list(d, i)));
  if (d.index_vector_dim != 0) fields.push_back(std::string(n.index_vector_dim) + " = " + std::to_string(d.index_vector_dim));
  return std::string(op == Op::Scatter ? "#stablehlo.scatter<" : "#stablehlo.gather<") + names(fields) + ">";
}

const char* boolean(bool b) { return b ? "true" : "false"; }

}  // namespace

std::string print_dense(const DenseLiteral& d) {
  if (d.splat) return d.elements.at(0);
  std::string out;
  std::size_t next = 0;
  print_dense_items(d, 0, next, out);
  return out;
}

std::string print_instruction(const Instruction& inst, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  const auto& a = inst.attributes;
  const auto& ops = inst.operands;
  std::ostringstream out;
  if (!inst.results.empty()) out << pad << names(inst.results) << " = ";  // `%a, %b = ...`
  else out << pad << inst.result << (inst.result_types.empty() ? "" : ":" + std::to_string(inst.result_types.size())) << " = ";
  const std::string op = std::string("stablehlo.") + op_name(inst.op);
  if (is_unary_elementwise(inst.op)) {
    out << op << " " << ops[0] << " : " << to_string(inst.result_type) << "\n";
    return out.str();
  }
  if (is_binary_elementwise(inst.op)) {
    out << op << " " << ops[0] << ", " << ops[1] << " : " << to_string(inst.result_type) << "\n";
    return out.str();
  }
  switch (inst.op) {
    case Op::Constant:
      out << op << " dense<" << print_dense(a.literal) << "> : " << to_string(inst.result_type);
      break;
    case Op::Iota:
      out << op << " dim = " << a.dimension << " : " << to_string(inst.result_type);
      break;
    case Op::Compare:
      out << op << " " << a.comparison_direction << ", " << ops[0] << ", " << ops[1];
      if (!a.compare_type.empty()) out << ", " << a.compare_type;
      out << functional(inst);
      break;
    case Op::Select:
      out << op << " " << names(ops) << " : " << to_string(inst.operand_types[0]) << ", " << to_string(inst.result_type);
      break;
    case Op::BroadcastInDim:
    case Op::Transpose:
      out << op << " " << ops[0] << ", dims = " << integer_list(a.dimensions) << functional(inst);
      break;
    case Op::Reverse:
      out << op << " " << ops[0] << ", dims = " << integer_list(a.dimensions) << " : " << to_string(inst.result_type);
      break;
    case Op::Reshape:
    case Op::Convert:
      out << op << " " << ops[0] << functional(inst);
      break;
    case Op::Slice: {
      out << op << " " << ops[0] << " [";
      for (std::size_t i = 0; i < a.start_indices.size(); ++i) {
        out << (i ? ", " : "") << a.start_indices[i] << ":" << a.limit_indices[i];
        if (a.strides[i] != 1) out << ":" << a.strides[i];
      }
      out << "]" << functional(inst);
      break;
    }
    case Op::Pad:
      out << op << " " << ops[0] << ", " << ops[1] << ", low = " << integer_list(a.edge_padding_low) << ", high = "
          << integer_list(a.edge_padding_high) << ", interior = " << integer_list(a.interior_padding) << functional(inst);
      break;
    case Op::Concatenate:
      out << op << " " << names(ops) << ", dim = " << a.dimension << functional(inst);
      break;
    case Op::DotGeneral:
      out << op << " " << ops[0] << ", " << ops[1] << ", ";
      if (!a.lhs_batching_dimensions.empty() || !a.rhs_batching_dimensions.empty())
        out << "batching_dims = " << integer_list(a.lhs_batching_dimensions) << " x " << integer_list(a.rhs_batching_dimensions) << ", ";
      out << "contracting_dims = " << integer_list(a.lhs_contracting_dimensions) << " x " << integer_list(a.rhs_contracting_dimensions);
      if (!a.precision_config.empty()) {
        out << ", precision = [";
        for (std::size_t i = 0; i < a.precision_config.size(); ++i) out << (i ? ", " : "") << a.precision_config[i];
        out << "]";
      }
      out << functional(inst);
      break;
    case Op::Reduce:
      if (!a.reduce_body) {
        print_generic_with_regions(inst, indent, "dimensions = " + i64_array(a.dimensions), out);
        break;
      }
      out << op << "(" << ops[0] << " init: " << ops[1] << ") applies stablehlo." << op_name(*a.reduce_body)
          << " across dimensions = " << integer_list(a.dimensions) << functional(inst);
      break;
    case Op::Sort:
      print_generic_with_regions(inst, indent,
                                 "dimension = " + std::to_string(a.dimension) + " : i64, is_stable = " + (a.is_stable ? "true" : "false"),
                                 out);
      break;
    case Op::While: case Op::If: case Op::Case:
      print_generic_with_regions(inst, indent, "", out);
      break;
    case Op::Convolution: {
      const auto& c = a.conv;
      const std::size_t rank = inst.operand_types[0].shape.size();
      out << op << "(" << ops[0] << ", " << ops[1] << ")\n"
          << pad << "  dim_numbers = " << conv_side(rank, c.input_batch, 'b', c.input_feature, 'f', c.input_spatial) << "x"
          << conv_side(rank, c.kernel_output_feature, 'o', c.kernel_input_feature, 'i', c.kernel_spatial) << "->"
          << conv_side(rank, c.output_batch, 'b', c.output_feature, 'f', c.output_spatial) << ",\n"
          << pad << "  window = {stride = " << integer_list(a.window_strides) << ", pad = " << pairs(a.padding)
          << ", lhs_dilate = " << integer_list(a.lhs_dilation) << ", rhs_dilate = " << integer_list(a.rhs_dilation) << "}\n"
          << pad << "  {batch_group_count = " << a.batch_group_count << " : i64, feature_group_count = " << a.feature_group_count
          << " : i64";
      for (std::size_t i = 0; i < a.precision_config.size(); ++i)
        out << (i ? ", " : ", precision_config = [") << "#stablehlo<precision " << a.precision_config[i] << ">"
            << (i + 1 == a.precision_config.size() ? "]" : "");
      out << "}" << functional(inst);
      break;
    }
    case Op::ReduceWindow:
    case Op::SelectAndScatter:
    case Op::AllReduce: {
      out << "\"" << op << "\"(" << names(ops) << ") (";
      const bool all_reduce = inst.op == Op::AllReduce;
      for (std::size_t i = 0; i < inst.regions.size(); ++i) {
        out << (i ? ", {\n" : "{\n");
        print_region(inst.regions[i], all_reduce ? indent : indent + 2, out);
        out << pad << "}";
      }
      out << ") ";
      if (all_reduce) {
        const auto& g = a.replica_groups;
        DenseLiteral d{{}, {static_cast<std::int64_t>(g.size()), static_cast<std::int64_t>(g[0].size())}, false};
        for (const auto& row : g)
          for (auto r : row) d.elements.push_back(std::to_string(r));
        out << "{ replica_groups = dense<" << print_dense(d) << "> : tensor<" << g.size() << "x" << g[0].size() << "xi64> }";
      } else {
        std::vector<std::string> attrs;
        attrs.push_back("window_dimensions = " + i64_array(a.window_dimensions));
        if (!a.window_strides.empty()) attrs.push_back("window_strides = " + i64_array(a.window_strides));
        if (!a.base_dilations.empty()) attrs.push_back("base_dilations = " + i64_array(a.base_dilations));
        if (!a.window_dilations.empty()) attrs.push_back("window_dilations = " + i64_array(a.window_dilations));
        if (!a.padding.empty()) attrs.push_back("padding = " + dense_pairs(a.padding));
        out << "{" << names(attrs) << "}";
      }
      out << functional(inst);
      break;
    }
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log:
    case Op::BitcastConvert:
      out << op << " " << ops[0] << functional(inst);
      break;
    case Op::Clamp:
      out << op << " " << names(ops);
      if (inst.operand_types[0] == inst.result_type && inst.operand_types[2] == inst.result_type) out << " : " << to_string(inst.result_type);
      else out << functional(inst);
      break;
    case Op::DynamicSlice:
      out << op << " " << names(ops) << ", sizes = " << integer_list(a.slice_sizes) << functional(inst);
      break;
    case Op::DynamicUpdateSlice:
      out << op << " " << names(ops) << functional(inst);
      break;
    case Op::Gather:  // no pretty form: MLIR's generic form with properties
      out << "\"" << op << "\"(" << names(ops) << ") <{dimension_numbers = " << indexing_attribute(inst.op, a.indexing)
          << ", indices_are_sorted = " << boolean(a.indices_are_sorted) << ", slice_sizes = " << i64_array(a.slice_sizes) << "}>"
          << functional(inst);
      break;
    case Op::Scatter:
      out << "\"" << op << "\"(" << names(ops) << ") <{indices_are_sorted = " << boolean(a.indices_are_sorted)
          << ", scatter_dimension_numbers = " << indexing_attribute(inst.op, a.indexing)
          << ", unique_indices = " << boolean(a.unique_indices) << "}> ({\n";
      print_region(inst.regions.at(0), indent + 2, out);
      out << pad << "})" << functional(inst);
      break;
    case Op::ShiftLeft: case Op::ShiftRightArithmetic: case Op::ShiftRightLogical:
    case Op::Sqrt: case Op::Rsqrt: case Op::Tanh: case Op::Logistic:
    case Op::Not: case Op::Xor: case Op::Power: case Op::Remainder: case Op::Sign: case Op::Floor: case Op::Ceil:
    case Op::RoundNearestEven: case Op::RoundNearestAfz: case Op::Sine: case Op::Cosine: case Op::LogPlusOne:
    case Op::ExponentialMinusOne:
      out << "// unprintable op " << op;
  }
  out << "\n";
  return out.str();
}

namespace {

// `%r`, `%r:2` (a pack, used as %r#0 %r#1) and lists of them: a call's results as written.
std::string result_definitions(const std::vector<std::string>& results) {
  std::string s;
  for (std::size_t i = 0; i < results.size();) {
    const auto hash = results[i].find('#');
    std::size_t n = 1;
    if (hash != std::string::npos)
      while (i + n < results.size() && results[i + n].compare(0, hash + 1, results[i], 0, hash + 1) == 0) ++n;
    s += (i ? ", " : "") + (hash == std::string::npos ? results[i] : results[i].substr(0, hash) + ":" + std::to_string(n));
    i += n;
  }
  return s;
}

std::string print_call(const Call& c) {
  std::string s = "    ";
  if (!c.results.empty()) s += result_definitions(c.results) + " = ";
  if (!c.programs.empty()) {
    std::string grid;
    for (std::size_t r = 0; r < c.programs.size(); ++r) {
      grid += r ? ", [" : "[";
      for (std::size_t p = 0; p < c.programs[r].size(); ++p) grid += (p ? ", @" : "@") + c.programs[r][p];
      grid += "]";
    }
    s += "\"interpreter.run_parallel\"(" + names(c.operands) + ") {programs = [" + grid + "]} : (" + type_list(c.operand_types) + ") -> ";
    return s + "(" + type_list(c.result_types) + ")\n";
  }
  s += std::string(c.func_prefix ? "func.call" : "call") + " @" + c.callee + "(" + names(c.operands) + ") : (" + type_list(c.operand_types) +
       ") -> ";
  s += c.result_types.size() == 1 ? to_string(c.result_types[0]) : "(" + type_list(c.result_types) + ")";
  return s + "\n";
}

// The shortest decimal that reads back as the same double.
std::string shortest(double x) {
  char buffer[64];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, x);
  std::string s(buffer, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string print_check(const Check& c) {
  std::string s = "    " + check_name(c);
  if (c.custom_call)
    return s + "(" + names(c.operands) + ") {has_side_effect = true} : (" + type_list(c.operand_types) + ") -> ()\n";
  s += " " + c.operands[0] + ", " + (c.expected ? "dense<" + print_dense(*c.expected) + ">" : c.operands[1]);
  if (c.kind == CheckKind::AlmostEq) s += ", tolerance = " + shortest(c.tolerance);
  if (c.kind == CheckKind::Close) {
    s += ", max_ulp_difference = " + std::to_string(c.max_ulp);
    if (c.min_ulp != 0) s += ", min_ulp_difference = " + std::to_string(c.min_ulp);
    return s + " : " + to_string(c.operand_types[0]) + ", " + to_string(c.operand_types[1]) + "\n";
  }
  return s + " : " + to_string(c.operand_types[0]) + "\n";
}

// The Lean printer's function layout, with MLIR's visibility, attribute dictionaries and
// result-less forms where a function has them.
void print_function(const Function& f, std::ostringstream& out) {
  out << "  func.func " << (f.visibility.empty() ? "" : f.visibility + " ") << "@" << f.name << "(";
  for (std::size_t i = 0; i < f.arguments.size(); ++i) {
    const auto& a = f.arguments[i];
    out << (i ? ", " : "") << a.name << ": " << to_string(a.type) << (a.attributes.empty() ? "" : " " + a.attributes);
  }
  out << ")";
  bool result_attributes = false;
  for (const auto& a : f.result_attributes) result_attributes |= !a.empty();
  if (f.parenthesized_results || result_attributes || f.result_types.size() != 1) {
    if (!f.result_types.empty() || f.parenthesized_results) {
      out << " -> (";
      for (std::size_t i = 0; i < f.result_types.size(); ++i) {
        const std::string attributes = i < f.result_attributes.size() ? f.result_attributes[i] : "";
        out << (i ? ", " : "") << to_string(f.result_types[i]) << (attributes.empty() ? "" : " " + attributes);
      }
      out << ")";
    }
  } else {
    out << " -> " << to_string(f.result_types[0]);
  }
  if (!f.attributes.empty()) out << " attributes " << f.attributes;
  out << " {\n";
  for (const auto& item : f.body) {
    if (const auto* c = std::get_if<Comment>(&item)) out << "    " << c->text << "\n";
    else if (const auto* call = std::get_if<Call>(&item)) out << print_call(*call);
    else if (const auto* check = std::get_if<Check>(&item)) out << print_check(*check);
    else out << print_instruction(std::get<Instruction>(item));
  }
  out << "    " << (f.func_return ? "func.return" : "return");
  if (!f.return_values.empty()) out << " " << names(f.return_values) << " : " << type_list(f.return_types);
  out << "\n  }\n";
}

}  // namespace

std::string print_module(const Module& m) {
  std::ostringstream out;
  if (!m.implicit) {
    out << "module" << (m.name.empty() ? "" : " @" + m.name) << (m.attributes.empty() ? "" : " attributes " + m.attributes) << " {\n";
  }
  for (const auto& f : m.functions) print_function(f, out);
  if (!m.implicit) out << "}\n";
  return out.str();
}

}  // namespace shlo
