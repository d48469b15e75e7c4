// The op-level StableHLO program: a module of functions of SSA instructions, as the Lean
// printer writes it (one function) or as MLIR and JAX print it (several, with calls and checks) (see SHLO_SEMANTICS.md section 2 and the StableHLO spec).
//
// Small plain structs, no behaviour: parsing (mlir_parse), verification (verify), printing
// (mlir_print) and execution (interp/run) are separate visitors over them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace shlo {

/// Where something was written. Locations never take part in equality: parse(print(p)) == p.
struct Location {
  int line = 0;
  int column = 0;
  bool operator==(const Location&) const { return true; }
};

enum class ElementType { F32, F64, BF16, I1, I64, F8E4M3FN, I8, I16, I32, UI8, UI16, UI32, UI64, F16 };
const char* to_string(ElementType t);  // "f32", "f64", "bf16", "i1", "i64", "f8E4M3FN", "ui8", "f16", ...
/// The element type spelled `name` as MLIR writes it ("i32", "ui8", "f16"), if any.
std::optional<ElementType> element_type_from_name(const std::string& name);
/// "f32, f64, ..." for messages that list what a type reader accepts.
const char* element_type_names();
bool is_float(ElementType t);
/// i8 ... i64 and ui8 ... ui64 (not i1, which is the boolean type).
bool is_integer(ElementType t);
bool is_signed_integer(ElementType t);
bool is_unsigned_integer(ElementType t);
/// Bits of one element: 1 for i1, 8 ... 64.
int bit_width(ElementType t);

struct TensorType {
  std::vector<std::int64_t> shape;  // empty: rank 0
  ElementType element = ElementType::F32;
  bool operator==(const TensorType&) const = default;
};
/// "tensor<128x10xf32>", "tensor<f32>".
std::string to_string(const TensorType& t);
/// "tensor<2xf32>, tensor<f32>": a list of types, as the printer writes `(T, ...)` and messages cite it.
std::string type_list(const std::vector<TensorType>& types);
/// "[1, 2, 3]": a list of integers, as the printer writes `dims = [...]` and messages cite it.
std::string integer_list(const std::vector<std::int64_t>& values);

/// The ops of the subset, named as the spec names them.
enum class Op {
  // elementwise
  Add, Subtract, Multiply, Divide, Maximum, Minimum, And, Or,
  Negate, Abs, Exponential, Log, Sqrt, Rsqrt, Tanh, Logistic,
  Compare, Select, Convert,
  // data movement
  Constant, Iota, BroadcastInDim, Reshape, Transpose, Reverse, Slice, Pad, Concatenate,
  // contractions and reductions
  DotGeneral, Convolution, Reduce, ReduceWindow, SelectAndScatter, AllReduce,
  // issue 15: integer/boolean and rounding elementwise ops, transcendental ops, clamp, bitcast
  Not, Xor, Power, Remainder, Sign, Floor, Ceil, RoundNearestEven, RoundNearestAfz, Sine, Cosine, LogPlusOne,
  ExponentialMinusOne, Clamp, BitcastConvert,
  // issue 15: ops whose regions run as programs (interp/region_exec.hpp)
  Sort, While, If, Case,
  // issue 15: indexing ops (interp/ops/indexing.hpp) and shifts
  DynamicSlice, DynamicUpdateSlice, Gather, Scatter, ShiftLeft, ShiftRightArithmetic, ShiftRightLogical,
};
/// The case labels of the ops after AllReduce, for switches that treat them all alike
/// (-Werror=switch wants every enumerator named).
#define SHLO_CASES_INTEGER_AND_MATH_OPS                                                                           \
  case Op::Not: case Op::Xor: case Op::Power: case Op::Remainder: case Op::Sign: case Op::Floor: case Op::Ceil:   \
  case Op::RoundNearestEven: case Op::RoundNearestAfz: case Op::Sine: case Op::Cosine: case Op::LogPlusOne:       \
  case Op::ExponentialMinusOne: case Op::Clamp: case Op::BitcastConvert: case Op::Sort: case Op::While:     \
  case Op::If: case Op::Case: SHLO_CASES_INDEXING_OPS
/// The indexing ops and shifts (also among SHLO_CASES_INTEGER_AND_MATH_OPS).
#define SHLO_CASES_INDEXING_OPS                                                                                   \
  case Op::DynamicSlice: case Op::DynamicUpdateSlice: case Op::Gather: case Op::Scatter: case Op::ShiftLeft:      \
  case Op::ShiftRightArithmetic: case Op::ShiftRightLogical
/// "add", "dot_general", ... (the name after "stablehlo.").
const char* op_name(Op op);
/// The op named `name` (without "stablehlo."), if any.
std::optional<Op> op_from_name(const std::string& name);
bool is_unary_elementwise(Op op);
bool is_binary_elementwise(Op op);

/// `dense<...>`: one literal (a splat) or a nested list, each element kept verbatim as written
/// ("0.00078125", "1.0e-05", "0xFF800000") so that printing reproduces the text.
struct DenseLiteral {
  std::vector<std::string> elements;  // row-major; one element when splat
  std::vector<std::int64_t> list_shape;  // the nesting of a list ([] for a splat)
  bool splat = true;
  bool operator==(const DenseLiteral&) const = default;
};

/// Convolution dimension numbers, `[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]`.
struct ConvDimensionNumbers {
  std::int64_t input_batch = 0, input_feature = 1;
  std::vector<std::int64_t> input_spatial;
  std::int64_t kernel_input_feature = 1, kernel_output_feature = 0;
  std::vector<std::int64_t> kernel_spatial;
  std::int64_t output_batch = 0, output_feature = 1;
  std::vector<std::int64_t> output_spatial;
  bool operator==(const ConvDimensionNumbers&) const = default;
};

/// gather's dimension numbers (spec gather I3-I8). scatter's are their peers under other names
/// (spec scatter I4-I9): update_window_dims = offset_dims, inserted_window_dims =
/// collapsed_slice_dims, input_batching_dims = operand_batching_dims,
/// scatter_indices_batching_dims = start_indices_batching_dims, scatter_dims_to_operand_dims =
/// start_index_map; one record serves both, and the printer and parser spell the names.
struct IndexingDimensionNumbers {
  std::vector<std::int64_t> offset_dims, collapsed_slice_dims, operand_batching_dims, start_indices_batching_dims,
      start_index_map;
  std::int64_t index_vector_dim = 0;
  bool operator==(const IndexingDimensionNumbers&) const = default;
};

struct Instruction;

/// A region: `^bb0(%pa: tensor<f32>, %pb: tensor<f32>): ... stablehlo.return %pm : tensor<f32>`
/// (no `^bb0` label when it takes no arguments: the branches of if and case). Its names live in
/// their own scope (the printer repeats %pa %pb in every region); its body may also read the
/// values of the enclosing scopes (captures, ast/regions.hpp).
struct Region {
  std::vector<std::pair<std::string, TensorType>> arguments;
  std::vector<Instruction> body;
  std::vector<std::string> results;
  std::vector<TensorType> result_types;
  Location location;
  bool operator==(const Region&) const;
};

/// Attributes of an instruction. One flat record; which fields an op uses is listed here, and
/// every other field keeps its default.
struct Attributes {
  DenseLiteral literal;                        // constant
  std::vector<std::int64_t> dimensions;        // broadcast_in_dim, transpose, reverse, reduce
  std::int64_t dimension = 0;                  // concatenate, iota
  std::string comparison_direction;            // compare: EQ NE LT LE GT GE
  std::string compare_type;                    // compare: FLOAT TOTALORDER SIGNED UNSIGNED, "" when not written
  std::vector<std::int64_t> lhs_batching_dimensions, rhs_batching_dimensions;    // dot_general
  std::vector<std::int64_t> lhs_contracting_dimensions, rhs_contracting_dimensions;
  std::vector<std::string> precision_config;   // dot_general: [DEFAULT, DEFAULT] when printed
  std::vector<std::int64_t> start_indices, limit_indices, strides;  // slice
  std::vector<std::int64_t> edge_padding_low, edge_padding_high, interior_padding;  // pad
  ConvDimensionNumbers conv;                   // convolution
  std::vector<std::int64_t> window_strides;    // convolution, reduce_window, select_and_scatter
  std::vector<std::pair<std::int64_t, std::int64_t>> padding;  // ditto (low, high per dim)
  std::vector<std::int64_t> lhs_dilation, rhs_dilation;        // convolution
  std::int64_t feature_group_count = 1, batch_group_count = 1; // convolution
  std::vector<std::int64_t> window_dimensions;                 // reduce_window, select_and_scatter
  std::vector<std::int64_t> base_dilations, window_dilations;  // reduce_window
  std::vector<std::vector<std::int64_t>> replica_groups;       // all_reduce
  std::optional<Op> reduce_body;               // reduce's pretty form: `applies stablehlo.add`
  bool is_stable = false;                      // sort (its dimension is `dimension`, -1 when not written)
  std::vector<std::int64_t> slice_sizes;       // dynamic_slice, gather
  IndexingDimensionNumbers indexing;           // gather, scatter (scatter's names: see the struct)
  bool indices_are_sorted = false;             // gather, scatter (a promise the interpreter ignores)
  bool unique_indices = false;                 // scatter (likewise)
  bool operator==(const Attributes&) const = default;
};

struct Instruction {
  Op op = Op::Add;
  std::string result;                 // "%v3"
  std::vector<std::string> operands;  // "%v1", "%x", ...
  std::vector<TensorType> operand_types;  // as printed, or the operands' types where the form prints none
  TensorType result_type;
  Attributes attributes;
  std::vector<Region> regions;        // reduce_window: 1, select_and_scatter: 2, all_reduce: 1, scatter: 1
  Location location;
  /// An op with several results (`%r:2 = stablehlo.reduce ...`): every result's type, named
  /// %r#0, %r#1, ... (ast/regions.hpp); result_type is the first. Empty for one result.
  std::vector<TensorType> result_types;
  /// Several results written as a list (`%a, %b = "stablehlo.sort"(...)`): their names, used as
  /// written (result is the first). Empty for `%r:N` and for one result.
  std::vector<std::string> results;
  bool operator==(const Instruction&) const = default;
};

/// A full-line `//` comment in the function body, kept verbatim (without the indentation).
struct Comment {
  std::string text;  // "// ── linear train step ... ──"
  bool operator==(const Comment&) const = default;
};

/// `%r = call @f(%a, %b) : (T, T) -> R` (also `func.call`, `%r:2 = call ...`, `%a, %b = call ...`):
/// runs function @f on the operands. A call has any number of results; each is named as its
/// uses write it: "%r" for a single result, "%r#0", "%r#1" for a pack `%r:2`, or the names of a
/// list `%a, %b`.
struct Call {
  std::vector<std::string> results;
  std::string callee;                 // without '@'
  std::vector<std::string> operands;
  std::vector<TensorType> operand_types;
  std::vector<TensorType> result_types;
  bool func_prefix = false;           // written `func.call`
  /// `"interpreter.run_parallel"(...) {programs = [[@f], [@g]]}` (docs/mlir-forms.md section 13.1):
  /// the grid of functions, [replica][partition], run as one process each; operands and results
  /// are every process's in turn, replica-major. Empty for a call; callee is then programs[0][0].
  std::vector<std::vector<std::string>> programs;
  Location location;
  bool operator==(const Call&) const = default;
};

/// The check dialect of StableHLO's interpreter tests (docs/mlir-forms.md section 13): an op
/// with no results that compares a computed value with an expected one.
enum class CheckKind {
  Eq,        // every element equal (floats by IEEE equality)
  AlmostEq,  // |got - want| <= tolerance per element, signs equal (absolute tolerance)
  Close,     // min_ulp <= ULP distance <= max_ulp per element
};
struct Check {
  CheckKind kind = CheckKind::Eq;
  bool custom_call = false;           // written `stablehlo.custom_call @check.expect_...(...)`
  bool legacy_eq = false;             // written `@check.eq` (older JAX test data): Eq on integers, AlmostEq on floats
  std::vector<std::string> operands;  // got, then want (unless `expected` holds the literal)
  std::vector<TensorType> operand_types;
  std::optional<DenseLiteral> expected;  // the `_const` forms: want as a literal of operand_types[0]
  double tolerance = 1e-4;            // AlmostEq (custom call: 1e-3)
  std::int64_t min_ulp = 0, max_ulp = 1;  // Close (custom call: 0 and 3)
  Location location;
  bool operator==(const Check&) const = default;
};
/// "check.expect_eq_const", "stablehlo.custom_call @check.expect_close", ... as printed.
std::string check_name(const Check& c);

using BodyItem = std::variant<Instruction, Comment, Call, Check>;

struct Argument {
  std::string name;
  TensorType type;
  std::string attributes;  // `{mhlo.sharding = "..."}` kept raw ("" when none)
  Location location;
  bool operator==(const Argument&) const = default;
};

struct Function {
  std::string name;  // without '@'
  std::string visibility;  // "public", "private" or "" (not written: public)
  std::vector<Argument> arguments;
  std::vector<TensorType> result_types;
  std::vector<std::string> result_attributes;  // raw `{jax.result_info = ""}` per result ("" when none)
  bool parenthesized_results = false;  // "-> (T1, T2)" rather than "-> T" (or no arrow for no results)
  std::string attributes;  // `attributes {...}` after the results, kept raw ("" when none)
  std::vector<BodyItem> body;
  std::vector<std::string> return_values;
  std::vector<TensorType> return_types;
  bool func_return = false;  // written `func.return`
  Location return_location;
  Location location;
  bool operator==(const Function&) const = default;
};
bool is_public(const Function& f);

struct Module {
  std::string name;        // without '@'; empty for `module {` and for bare functions
  std::string attributes;  // `attributes {...}` kept raw ("" when none)
  bool implicit = false;   // bare functions without a `module` line
  std::vector<Function> functions;
  std::size_t entry = 0;   // the function a run starts from (select_entry); not part of equality
  std::string file;        // where it was read from, for messages
  /// The entry function: the only function of the Lean printer's programs.
  const Function& function() const { return functions.at(entry); }
  Function& function() { return functions.at(entry); }
  bool operator==(const Module& o) const {
    return name == o.name && attributes == o.attributes && implicit == o.implicit && functions == o.functions;
  }
};

/// The function named `name`, if any.
const Function* find_function(const Module& m, const std::string& name);
/// Makes `name` the entry function; with an empty name: `main`, else the only public
/// function, else the only function. Throws std::invalid_argument naming the functions when
/// there is no such function or the choice is ambiguous.
void select_entry(Module& m, const std::string& name = "");

/// The instructions of the function body, in order, without the comments.
std::vector<const Instruction*> instructions(const Function& f);

}  // namespace shlo
