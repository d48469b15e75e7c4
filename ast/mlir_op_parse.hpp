// Internal to the parser (ast/mlir_parse*.cpp, ast/mlir_attributes.cpp): the op level.
//
// Every op, written in its pretty form (`stablehlo.transpose %x, dims = [1, 0] : ...`) or in
// MLIR's generic form (`"stablehlo.transpose"(%x) <{permutation = array<i64: 1, 0>}> : ...`),
// is first read into one OpSyntax record; one binder turns the record into an Instruction and
// runs the verifier. The two syntaxes therefore share every check (docs/mlir-ops-plan.md §8).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ast/mlir_lexer.hpp"
#include "ast/program.hpp"

namespace shlo {

/// What the op reader needs from the enclosing parser: its types, its scopes and its regions.
class OpParseContext {
 public:
  virtual ~OpParseContext() = default;
  virtual Lexer& lexer() = 0;
  /// `tensor<...>`.
  virtual TensorType type() = 0;
  /// An operand's name as defined in scope: `%x`, or `%r#1` for one result of a call.
  virtual std::string operand(std::string_view what) = 0;
  /// The type of value `name`, used at `at` (fails if it is not defined).
  virtual TensorType value_type(const std::string& name, Location at) = 0;
  /// A region `{ ^bb0(...): ... stablehlo.return ... }` (or without the label when it takes no
  /// arguments) in its own scope.
  virtual Region region() = 0;
  /// A region whose block arguments were declared before it (reduce's `reducer(...)`, while's
  /// `(%arg = %init)`): `{ ... stablehlo.return ... }` without a label.
  virtual Region region_with(const std::vector<std::pair<std::string, TensorType>>& arguments) = 0;
  /// How many regions enclose the op being read (the reader bounds the nesting).
  virtual int& region_depth() = 0;
};

/// Attribute aliases defined at the top level of a file: `#name = <attribute>`.
struct AttributeAliases {
  struct Alias {
    std::string text;   // the attribute as written
    Location location;  // where the definition's value starts
  };
  std::map<std::string, Alias> by_name;  // "#name" -> value
};

/// At the top level: reads one alias definition (`#loc3 = loc(...)`, `#name = <attribute>`,
/// `!name = <type>`) if one is next, and returns whether it did. Location aliases are
/// dropped; attribute aliases are kept in `aliases` for their later uses.
bool parse_alias_definition(Lexer& lex, AttributeAliases& aliases);

/// The generic names of the attributes an op was written with. A few per op, compared as
/// views of the reader's string literals: a set of strings would allocate on every op.
class AttributeNames {
 public:
  /// False if `name` (a string literal) was already there.
  bool insert(std::string_view name) {
    if (count(name)) return false;
    names_.push_back(name);
    return true;
  }
  bool count(std::string_view name) const {
    for (auto n : names_)
      if (n == name) return true;
    return false;
  }

 private:
  std::vector<std::string_view> names_;
};

/// Regions inside regions (a while in a case branch, ...): the limit keeps the recursive
/// descent far from the stack's end on hostile input.
inline constexpr int kMaxRegionNesting = 32;

/// One op as written, in either syntax, before binding.
struct OpSyntax {
  std::string name;                 // "stablehlo.transpose"
  Location op_location;             // of the op name
  Instruction inst;                 // op, operands and their defined types, attributes, regions
  AttributeNames given;             // the attributes read, by their generic names
  bool functional_type = false;     // `: (T...) -> R` written (else `: T` or select's `: P, T`)
  std::vector<TensorType> written_operand_types;  // when functional_type
  std::vector<TensorType> written_result_types;
  std::optional<TensorType> value_type;  // constant: the type written after its literal
};

/// Reads one op after `%name =` (the instruction starts at `at`), binds and verifies it.
/// `aliases` may be null.
Instruction parse_op(OpParseContext& cx, Location at, const AttributeAliases* aliases);

// ---- attribute spellings (ast/mlir_attributes.cpp) ----

/// Reads the attribute values of ops; every spelling MLIR and JAX print of one attribute
/// lands in the same Attributes field.
class AttributeReader {
 public:
  AttributeReader(OpParseContext& cx, const AttributeAliases* aliases) : cx_(cx), aliases_(aliases) {}

  /// `{name = value, ...}` or `<{...}>` (the opening already consumed up to and including
  /// '{'): reads each value by its generic name into `op`, skips unknown ones.
  void dictionary(OpSyntax& op);
  /// One value of the attribute `key` (generic name) of `op`.
  void value(OpSyntax& op, const std::string& key, Location at);

  // Values, each in every spelling.
  std::vector<std::int64_t> int_list();    // [1, 2], array<i64: 1, 2>, dense<[1, 2]> : tensor<2xi64>
  std::vector<bool> bool_list();           // [false, true], array<i1: ...>, dense<false> : tensor<2xi1>
  std::vector<std::pair<std::int64_t, std::int64_t>> pair_list();  // [[0, 1], ...] or dense<...> : tensor<Nx2xi64>
  std::vector<std::vector<std::int64_t>> int_matrix();             // dense<[[0, 1]]> : tensor<1x2xi64>
  std::int64_t integer();                  // 1, 1 : i64
  std::string enum_word(const char* generic_name);  // GT, #stablehlo<comparison_direction GT>
  std::vector<std::string> precision_list();  // [DEFAULT, HIGH] or [#stablehlo<precision DEFAULT>, ...]
  void conv_dimension_numbers(ConvDimensionNumbers& c);  // [b, 0, 1, f]x[...]->[...]
  void conv_dimension_numbers_attribute(ConvDimensionNumbers& c);  // #stablehlo.conv<...> (compact or raw)
  void dot_dimension_numbers(Attributes& a);  // #stablehlo.dot<...>
  /// #stablehlo.gather<...> (op gather) or #stablehlo.scatter<...> (op scatter); absent fields
  /// are empty lists and index_vector_dim 0 (ast/mlir_attributes_indexing.cpp).
  void indexing_dimension_numbers(Op op, IndexingDimensionNumbers& d);
  bool boolean();                          // true, false
  /// `dense<...>` (every form): the literal; the hex string form is expanded by its type.
  DenseLiteral dense();
  /// Checks `d` against `t` and expands a hex string (kept as one element "\"0x...\"").
  void finish_dense(DenseLiteral& d, const TensorType& t, Location at);

 private:
  Lexer& lex() { return cx_.lexer(); }
  void dense_items(DenseLiteral& d, std::size_t depth, std::vector<std::int64_t>& counts);
  // When the value at hand is an alias `#name`, reads it from the alias's text with `read`.
  template <class Read>
  auto through_alias(Read read) -> decltype(read());

  OpParseContext& cx_;
  const AttributeAliases* aliases_;
};

/// The raw little-endian storage of one element of type `e` (dense<"0x...">): its byte
/// width, and its text as a literal the domains read (hex bit pattern, decimal, true/false).
/// Returns 0 / "" for a type it does not decode. The one place to extend for new types.
std::size_t dense_storage_bytes(ElementType e);
std::string dense_element_from_bytes(ElementType e, const unsigned char* bytes);

}  // namespace shlo
