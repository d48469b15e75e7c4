// The verifiers' common ground: one instruction, its file, and located failures. The general
// checker (verify.cpp), the indexing ops' (verify_indexing.cpp) and the region ops'
// (verify_regions.cpp) derive from it, so every rule fails with the same located message.
#pragma once

#include <cstdint>
#include <string>

#include "ast/mlir_lexer.hpp"
#include "ast/program.hpp"

namespace shlo {

class InstructionChecker {
 public:
  InstructionChecker(const Instruction& inst, const std::string& file) : inst_(inst), file_(file) {}

  /// "stablehlo.OP: message", at the instruction's location.
  [[noreturn]] void fail(const std::string& message) const {
    throw ParseError(file_, inst_.location, std::string("stablehlo.") + op_name(inst_.op) + ": " + message);
  }
  void require(bool ok, const std::string& message) const {
    if (!ok) fail(message);
  }
  const TensorType& operand(std::size_t i) const { return inst_.operand_types.at(i); }
  std::int64_t rank(std::size_t i) const { return static_cast<std::int64_t>(operand(i).shape.size()); }

 protected:
  const Instruction& inst_;
  const std::string& file_;
};

}  // namespace shlo
