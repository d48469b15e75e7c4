// One progress line for the long-running commands (shlo run, check, prop, fuzz). On a terminal
// it redraws one line in place (at most every `redraw` seconds); into a log (stderr not a
// terminal) it writes at most one full line every `log_every` seconds, so an hour of fuzzing
// leaves hundreds of lines in a log, not millions. Header-only so that tests can drive it with
// their own clock and terminal flag.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

namespace shlo::cli {

class ProgressLine {
 public:
  struct Options {
    double redraw = 0.2;      // seconds between redraws on a terminal
    double log_every = 5.0;   // seconds between lines in a log
    double delay = 0;         // show nothing before this many seconds (short runs stay quiet)
  };
  using Clock = std::function<double()>;  // seconds since some fixed point

  explicit ProgressLine(std::FILE* out = stderr) : ProgressLine(out, Options{}) {}
  ProgressLine(std::FILE* out, Options options, Clock clock = steady_seconds, int terminal = -1)
      : out_(out), options_(options), clock_(std::move(clock)),
        terminal_(terminal >= 0 ? terminal != 0 : isatty(fileno(out)) != 0), start_(clock_()) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() { clear(); }

  /// Seconds since the line was made.
  double elapsed() const { return clock_() - start_; }

  /// Shows `text` if its time has come; `text` is built only then.
  void update(const std::function<std::string()>& text) {
    const double now = elapsed();
    if (now < options_.delay) return;
    if (shown_any_ && now - last_ < (terminal_ ? options_.redraw : options_.log_every)) return;
    last_ = now;
    shown_any_ = true;
    if (terminal_) {
      std::fprintf(out_, "\r%s\033[K", text().c_str());
      on_screen_ = true;
    } else {
      std::fprintf(out_, "%s\n", text().c_str());
    }
    std::fflush(out_);
  }
  void update(const std::string& text) {
    update([&] { return text; });
  }

  /// Before printing something else: erase the line from the terminal (nothing in a log). The
  /// next update draws it again at once.
  void clear() {
    if (on_screen_) {
      std::fprintf(out_, "\r\033[K");
      std::fflush(out_);
      on_screen_ = false;
      shown_any_ = false;
    }
  }

  bool terminal() const { return terminal_; }

 private:
  static double steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }

  std::FILE* out_;
  Options options_;
  Clock clock_;
  bool terminal_;
  double start_;
  double last_ = 0;
  bool shown_any_ = false, on_screen_ = false;
};

}  // namespace shlo::cli
