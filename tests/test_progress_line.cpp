// The progress line of the long-running commands (cli/progress_line.hpp), driven by a fake
// clock: a terminal gets redraws in place, a log at most one line per interval.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "cli/progress_line.hpp"

namespace {

std::string contents(std::FILE* f) {
  std::rewind(f);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) s += static_cast<char>(c);
  return s;
}

// 1024 updates, one every 1/128 s of fake time (8 s in all: binary fractions, so the times are
// exact), into a log or a terminal.
std::string updates(bool terminal, shlo::cli::ProgressLine::Options options) {
  std::FILE* f = std::tmpfile();
  double now = 0;
  {
    shlo::cli::ProgressLine line(f, options, [&] { return now; }, terminal ? 1 : 0);
    for (int i = 0; i < 1024; ++i, now = i / 128.0) line.update("case " + std::to_string(i));
  }
  std::string s = contents(f);
  std::fclose(f);
  return s;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("progress line: into a log, one line every log_every seconds", "[progress]") {
  const std::string log = updates(false, {.redraw = 0.25, .log_every = 4.0, .delay = 0});
  // Lines at t = 0 and t = 4 (the last update, at 7.99 s, is 3.99 s after it): 2 of 1024.
  CHECK(log == "case 0\ncase 512\n");
  CHECK(count(log, "\r") == 0);  // no terminal codes in a log
  // The control: with log_every = 0 every update is a line.
  CHECK(count(updates(false, {.redraw = 0.25, .log_every = 0, .delay = 0}), "\n") == 1024);
}

TEST_CASE("progress line: on a terminal, redrawn in place and erased at the end", "[progress]") {
  const std::string tty = updates(true, {.redraw = 0.25, .log_every = 4.0, .delay = 0});
  CHECK(count(tty, "\n") == 0);
  // Redraws at 0, 0.25, ..., 7.75 s (32), then the erase at the end: 33 carriage returns.
  CHECK(count(tty, "\r") == 33);
  CHECK(tty.find("\rcase 1023") == std::string::npos);  // drawn at 7.75 s: case 992, not the last
  CHECK(tty.find("\rcase 992\033[K") != std::string::npos);
  CHECK(tty.substr(tty.size() - 4) == "\r\033[K");
}

TEST_CASE("progress line: nothing before the delay", "[progress]") {
  CHECK(updates(false, {.redraw = 0.25, .log_every = 4.0, .delay = 20.0}).empty());
  CHECK(updates(false, {.redraw = 0.25, .log_every = 4.0, .delay = 2.0}) == "case 256\ncase 768\n");
}
