// The printer's templates (SHLO_SEMANTICS.md 2.5 notation), read once from the constructor
// rows (ast/ctors/*.def), and
// the two things done with them: expansion (the printer) and matching against printed
// instructions (the lifter). One representation serves both, so the lifter recognises exactly
// the text the printer writes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace shlo {

struct TemplatePiece {
  enum class Kind {
    Literal,   // text
    Fresh,     // $k
    Operand,   // $r $a $b $s $e
    Field,     // {name}
    Nat,       // #name, #(expr)
    Dims,      // #dims(ds): "0, 1, ..., k-1"
    Replicas,  // #replicas(R): "0, 1, ..., R-1"
    Type,      // T[...], I1[...], BF16[...]
  };
  Kind kind = Kind::Literal;
  std::string text;                 // literal text, field name, nat expression, operand letter
  int index = 0;                    // fresh index
  std::string element;              // type: "f32", "i1", "bf16"
  std::vector<std::string> dims;    // type: dimension expressions, or {"ds"}
};

/// One instruction of a template (its first line and any continuation or region lines).
struct TemplateChunk {
  std::vector<TemplatePiece> pieces;
};

struct Template {
  std::string name;
  std::vector<TemplateChunk> chunks;
  int fresh_count = 0;
  std::vector<char> operands;  // operand letters in order of first appearance
  bool comment = false;        // every line is a comment: no instruction, no result of its own
};

/// The template of the row named `name` (its `text`); throws if unknown.
const Template& get_template(const std::string& name);

struct CtorSpec;
/// Whether the printer writes the row as a comment line and no instruction (patchEmbedBack,
/// whose Lean printer arm is missing): the node's text computes nothing and leaves its operand
/// as the value, so the text properties do not apply to it and the lifter never recovers it.
bool printed_as_comment(const CtorSpec& c);
/// Whether the row's text prints the shape parameter `nat` (by the template's name for it, or
/// through the pads pH, pW derived from kH, kW), so that the lifter reads its value from the text;
/// the lifter sets a parameter the text does not print to 0.
bool template_prints(const CtorSpec& c, const std::string& nat);

/// Values for the placeholders.
struct TemplateEnv {
  std::map<std::string, std::int64_t> nats;  // including B; pH and pW are derived if absent
  std::map<std::string, std::string> strings;
  std::vector<std::int64_t> ds;
  std::vector<std::string> fresh;
  std::map<char, std::string> operands;
};

std::string expand(const Template& t, const TemplateEnv& env);

/// Matching: binds placeholders to what the printed text holds. Expressions that are not a
/// single name are checked once everything is bound (finish_match).
struct TemplateMatch {
  TemplateEnv env;
  bool has_ds = false;
  std::vector<std::pair<std::string, std::int64_t>> deferred;  // expression == value
};

/// Matches one chunk against the printed text of one instruction; false if it does not fit.
bool match_chunk(const TemplateChunk& chunk, std::string_view text, TemplateMatch& m);
/// Solves names printed only inside expressions (one unknown at a time: "tk" from "tk+1"), then
/// checks the deferred expressions and the derived pads (pH = (kH-1)/2).
bool finish_match(TemplateMatch& m);

/// Evaluates a nat expression ("ic*h*w", "R-1", "(tk+1)*D") over nats; pH/pW derived from kH/kW.
bool eval_nat(const std::string& expr, const std::map<std::string, std::int64_t>& nats, std::int64_t& out);

}  // namespace shlo
