// A hand-written lexer for the StableHLO text the printer writes. It lexes on demand (the
// parser says what it expects next), tracks line and column, and turns every mismatch into a
// ParseError naming file, line, column, what was expected and what was found.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "ast/program.hpp"

namespace shlo {

class ParseError : public std::runtime_error {
 public:
  ParseError(const std::string& file, Location where, const std::string& message);
  Location where;
};

class Lexer {
 public:
  Lexer(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}
  /// A lexer over `text` that reports positions as if it began at `start` (an alias's value,
  /// read where the alias is used, cites the alias definition).
  Lexer(std::string_view text, std::string file, Location start)
      : text_(text), file_(std::move(file)), line_(start.line), column_(start.column) {}

  const std::string& file() const { return file_; }
  Location location() const { return {line_, column_}; }
  bool at_end() const { return pos_ >= text_.size(); }

  /// Skips spaces, tabs, line breaks, `//` comments and MLIR locations `loc(...)` (which
  /// carry no meaning for the oracle; they may follow any op, argument, function or module).
  void skip_space();
  /// The same as skip_space (kept for the callers that say they expect comments).
  void skip_space_and_comments() { skip_space(); }
  /// Skips what skip_space skips except a whole-line comment (a `//` with only blanks before
  /// it on its line), and says whether one is next: the function body keeps those as Comment
  /// items so that the Lean printer's text prints back byte for byte.
  bool line_comment_next();
  /// Consumes a string literal "..." and returns its value: escapes \" \\ \n \t and two
  /// hex digits (\22) decoded.
  std::string string_literal(std::string_view what = "a string literal");
  /// Skips one attribute value whose syntax the oracle does not read: balanced (), [], {},
  /// <> and strings, up to a ',' '}' '>' or ')' at depth 0 (not consumed), or with
  /// `to_line_end` also up to the end of the line at depth 0 (top-level alias definitions).
  void skip_balanced(bool to_line_end = false);
  /// The offset of the next character; text(from, to) is the source between two offsets.
  std::size_t offset() const { return pos_; }
  std::string_view text(std::size_t from, std::size_t to) const { return text_.substr(from, to - from); }
  /// After skipping space: does the text continue with `s`?
  bool peek(std::string_view s);
  /// After skipping space: consumes `s` if it is next.
  bool accept(std::string_view s);
  /// After skipping space: consumes `s` or fails with "expected `what` (s)".
  void expect(std::string_view s, std::string_view what = {});
  /// Consumes an identifier: [A-Za-z_][A-Za-z0-9_.$]*.
  std::string identifier(std::string_view what = "an identifier");
  /// Consumes an SSA name: '%' followed by [A-Za-z0-9_.$-]+.
  std::string ssa_name(std::string_view what = "an SSA value name (%name)");
  /// Consumes a (possibly negative) decimal integer that fits in 64 bits.
  std::int64_t integer(std::string_view what = "an integer");
  /// Consumes a scalar literal as written: decimal or exponent form, hex bit pattern,
  /// inf/nan, true/false.
  std::string literal(std::string_view what = "a literal");
  /// After skipping space: consumes a bracketed group that opens here (`{...}`, `(...)`,
  /// `[...]`, `<...>`, with nested groups and "strings" inside) and returns its text verbatim:
  /// for metadata kept raw (argument and result attribute dictionaries).
  std::string balanced(std::string_view what);
  /// The rest of the current line (without the line break), consumed.
  std::string rest_of_line();

  /// Throws "expected <what>, found '<next token>'" at the current position.
  [[noreturn]] void fail_expected(std::string_view what);
  /// Throws `message` at `where`.
  [[noreturn]] void fail_at(Location where, const std::string& message) const;

 private:
  char current() const { return at_end() ? '\0' : text_[pos_]; }
  void advance(std::size_t n = 1);
  void skip_blanks();
  bool at_location_keyword() const;
  void skip_location();
  bool whole_line_comment_next() const;
  std::string found();

  std::string_view text_;
  std::string file_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace shlo
