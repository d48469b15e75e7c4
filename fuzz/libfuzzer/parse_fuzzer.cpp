// libFuzzer target: StableHLO text -> parse + verify -> print -> parse again.
// Any input may be rejected with a ParseError; nothing may crash, and a program that parses
// must print to text that parses to the same program and prints identically (a fixed point).
// SHLO_FUZZ_SHOW_ERRORS=1 prints each rejection's message: to check that a seed parses, or to
// see where a reproducer is refused (`parse_fuzzer FILE...` runs the given inputs once).
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>

#include "ast/mlir_parse.hpp"
#include "ast/mlir_print.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  shlo::Module m;
  try {
    m = shlo::parse_module(text, "fuzz.mlir");
  } catch (const shlo::ParseError& e) {
    static const bool show_errors = std::getenv("SHLO_FUZZ_SHOW_ERRORS") != nullptr;
    if (show_errors) std::fprintf(stderr, "rejected: %s\n", e.what());
    return 0;  // a located error: the expected answer to most inputs
  }
  const std::string printed = shlo::print_module(m);
  shlo::Module again;
  try {
    again = shlo::parse_module(printed, "printed.mlir");
  } catch (const shlo::ParseError& e) {
    std::fprintf(stderr, "the printed text does not parse: %s\n%s", e.what(), printed.c_str());
    std::abort();
  }
  if (!(again == m) || shlo::print_module(again) != printed) {
    std::fprintf(stderr, "print(parse(print(p))) differs from print(p):\n%s", printed.c_str());
    std::abort();
  }
  return 0;
}
