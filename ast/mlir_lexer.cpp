#include "ast/mlir_lexer.hpp"

#include <cctype>
#include <limits>

namespace shlo {

namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
}
bool is_name_char(char c) { return is_ident_char(c) || c == '-'; }

}  // namespace

ParseError::ParseError(const std::string& file, Location w, const std::string& message)
    : std::runtime_error(file + ":" + std::to_string(w.line) + ":" + std::to_string(w.column) + ": " + message),
      where(w) {}

void Lexer::advance(std::size_t n) {
  for (std::size_t i = 0; i < n && pos_ < text_.size(); ++i, ++pos_) {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
  }
}

void Lexer::skip_blanks() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++column_;
    } else {
      return;
    }
    ++pos_;
  }
}

// `loc(` at the start of a token (not the tail of a longer name).
bool Lexer::at_location_keyword() const {
  if (text_.compare(pos_, 4, "loc(") != 0) return false;
  return pos_ == 0 || !is_name_char(text_[pos_ - 1]);
}

// loc(...): balanced parentheses, strings skipped whole (a file name may hold ')').
void Lexer::skip_location() {
  const Location at = location();
  advance(3);
  int depth = 0;
  do {
    if (at_end()) fail_at(at, "unterminated location loc(...)");
    if (current() == '"') {
      string_literal();
      continue;
    }
    if (current() == '(') ++depth;
    if (current() == ')') --depth;
    advance();
  } while (depth > 0);
}

bool Lexer::whole_line_comment_next() const {
  if (text_.compare(pos_, 2, "//") != 0) return false;
  for (std::size_t p = pos_; p > 0 && text_[p - 1] != '\n'; --p)
    if (text_[p - 1] != ' ' && text_[p - 1] != '\t') return false;
  return true;
}

// Hot: every peek and accept starts here, so the tests are single characters.
void Lexer::skip_space() {
  for (;;) {
    skip_blanks();
    const char c = current();
    if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (!at_end() && current() != '\n') advance();
    } else if (c == 'l' && at_location_keyword()) {
      skip_location();
    } else {
      return;
    }
  }
}

bool Lexer::line_comment_next() {
  for (;;) {
    skip_blanks();
    if (whole_line_comment_next()) return true;
    if (text_.compare(pos_, 2, "//") == 0) {
      while (!at_end() && current() != '\n') advance();
    } else if (current() == 'l' && at_location_keyword()) {
      skip_location();
    } else {
      return false;
    }
  }
}

std::string Lexer::string_literal(std::string_view what) {
  if (current() != '"') skip_space();
  if (current() != '"') fail_expected(what);
  const Location at = location();
  advance();
  std::string value;
  for (;;) {
    if (at_end() || current() == '\n') fail_at(at, "unterminated string literal");
    const char c = current();
    advance();
    if (c == '"') return value;
    if (c != '\\') {
      value += c;
      continue;
    }
    const char e = current();
    if (e == '"' || e == '\\') value += e;
    else if (e == 'n') value += '\n';
    else if (e == 't') value += '\t';
    else if (std::isxdigit(static_cast<unsigned char>(e)) && pos_ + 1 < text_.size() &&
             std::isxdigit(static_cast<unsigned char>(text_[pos_ + 1]))) {
      value += static_cast<char>(std::stoi(std::string(text_.substr(pos_, 2)), nullptr, 16));
      advance();
    } else {
      fail_at(location(), "unknown escape in string literal");
    }
    advance();
  }
}

void Lexer::skip_balanced(bool to_line_end) {
  skip_space();
  const Location at = location();
  std::string closers;  // the brackets open at this point, innermost last
  for (;;) {
    if (to_line_end && closers.empty()) {
      std::size_t p = pos_;
      while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\r')) ++p;
      if (p >= text_.size() || text_[p] == '\n') return;
    }
    skip_space();
    if (at_end()) fail_at(at, "unterminated attribute value");
    const char c = current();
    if (c == '"') {
      string_literal();
      continue;
    }
    if (c == '-' && text_.compare(pos_, 2, "->") == 0) {  // a function type's arrow, not a closing '>'
      advance(2);
      continue;
    }
    if (closers.empty() && (c == ',' || c == '}' || c == '>' || c == ')' || c == ']')) return;
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (closers.size() >= 64) fail_at(at, "attribute value nested too deeply");
      closers += c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '>';
    } else if (!closers.empty() && c == closers.back()) {
      closers.pop_back();
    } else if (c == ')' || c == ']' || c == '}' || c == '>') {
      fail_at(location(), std::string("unbalanced '") + c + "' in attribute value");
    }
    advance();
  }
}

bool Lexer::peek(std::string_view s) {
  skip_space();
  return text_.substr(pos_, s.size()) == s;
}

bool Lexer::accept(std::string_view s) {
  if (!peek(s)) return false;
  advance(s.size());
  return true;
}

void Lexer::expect(std::string_view s, std::string_view what) {
  if (accept(s)) return;
  std::string w = "'" + std::string(s) + "'";
  if (!what.empty()) w = std::string(what) + " " + w;
  fail_expected(w);
}

std::string Lexer::identifier(std::string_view what) {
  skip_space();
  if (!is_ident_start(current())) fail_expected(what);
  const std::size_t start = pos_;
  while (!at_end() && is_ident_char(current())) advance();
  return std::string(text_.substr(start, pos_ - start));
}

std::string Lexer::ssa_name(std::string_view what) {
  skip_space();
  if (current() != '%' || pos_ + 1 >= text_.size() || !is_name_char(text_[pos_ + 1])) fail_expected(what);
  const std::size_t start = pos_;
  advance();
  while (!at_end() && is_name_char(current())) advance();
  return std::string(text_.substr(start, pos_ - start));
}

std::string Lexer::balanced(std::string_view what) {
  skip_space();
  const Location at = location();
  const std::size_t start = pos_;
  std::string open;  // the closers still expected, innermost last
  auto closer = [](char c) { return c == '{' ? '}' : c == '(' ? ')' : c == '[' ? ']' : c == '<' ? '>' : '\0'; };
  if (!closer(current())) fail_expected(what);
  do {
    const char c = current();
    if (at_end()) fail_at(at, std::string("unclosed ") + std::string(what));
    if (c == '"') {  // a string: brackets inside do not count; \" does not close it
      advance();
      while (!at_end() && current() != '"') advance(current() == '\\' ? 2 : 1);
      if (at_end()) fail_at(at, "unterminated string in " + std::string(what));
    } else if (closer(c)) {
      open.push_back(closer(c));
    } else if (c == '>' && text_.substr(pos_ - 1, 1) == "-") {
      // the '>' of a '->' inside a type is not a closer
    } else if (c == open.back()) {
      open.pop_back();
    } else if (c == '}' || c == ')' || c == ']') {
      fail_at(location(), std::string("unbalanced '") + c + "' in " + std::string(what));
    }
    advance();
  } while (!open.empty());
  return std::string(text_.substr(start, pos_ - start));
}

std::int64_t Lexer::integer(std::string_view what) {
  skip_space();
  const Location at = location();
  bool negative = false;
  std::size_t p = pos_;
  if (p < text_.size() && text_[p] == '-') {
    negative = true;
    ++p;
  }
  if (p >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[p]))) fail_expected(what);
  advance(p - pos_);
  unsigned long long value = 0;
  while (!at_end() && std::isdigit(static_cast<unsigned char>(current()))) {
    const unsigned digit = static_cast<unsigned>(current() - '0');
    if (value > (static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max()) - digit) / 10)
      fail_at(at, "integer does not fit in 64 bits");
    value = value * 10 + digit;
    advance();
  }
  return negative ? -static_cast<std::int64_t>(value) : static_cast<std::int64_t>(value);
}

std::string Lexer::literal(std::string_view what) {
  skip_space();
  const std::size_t start = pos_;
  auto take_while = [&](auto pred) {
    while (!at_end() && pred(current())) advance();
  };
  if (text_.substr(pos_, 2) == "0x" || text_.substr(pos_, 2) == "0X") {
    advance(2);
    const std::size_t digits = pos_;
    take_while([](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
    if (pos_ == digits) fail_expected("hex digits after 0x");
    return std::string(text_.substr(start, pos_ - start));
  }
  for (std::string_view word : {"true", "false", "inf", "-inf", "nan"}) {
    if (text_.substr(pos_, word.size()) == word && !is_ident_char(text_.size() > pos_ + word.size() ? text_[pos_ + word.size()] : ' ')) {
      advance(word.size());
      return std::string(word);
    }
  }
  std::size_t p = pos_;
  if (p < text_.size() && (text_[p] == '-' || text_[p] == '+')) ++p;
  if (p >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[p]))) fail_expected(what);
  advance(p - pos_);
  take_while([](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
  if (current() == '.') {
    advance();
    take_while([](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
  }
  if (current() == 'e' || current() == 'E') {
    advance();
    if (current() == '-' || current() == '+') advance();
    const std::size_t exp_digits = pos_;
    take_while([](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
    if (pos_ == exp_digits) fail_expected("exponent digits");
  }
  return std::string(text_.substr(start, pos_ - start));
}

std::string Lexer::rest_of_line() {
  const std::size_t start = pos_;
  while (!at_end() && current() != '\n') advance();
  std::string line(text_.substr(start, pos_ - start));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string Lexer::found() {
  skip_space();
  if (at_end()) return "end of file";
  std::size_t end = pos_;
  if (is_name_char(current()) || current() == '%' || current() == '"') {
    ++end;
    while (end < text_.size() && end - pos_ < 40 && (is_name_char(text_[end]) || text_[end] == '"')) ++end;
  } else {
    ++end;
  }
  return "'" + std::string(text_.substr(pos_, end - pos_)) + "'";
}

void Lexer::fail_expected(std::string_view what) {
  const std::string f = found();
  throw ParseError(file_, location(), "expected " + std::string(what) + ", found " + f);
}

void Lexer::fail_at(Location where, const std::string& message) const { throw ParseError(file_, where, message); }

}  // namespace shlo
