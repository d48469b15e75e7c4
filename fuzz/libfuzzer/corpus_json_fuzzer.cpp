// libFuzzer target: a saved corpus case (case.json) as `shlo replay` reads it: the JSON, the
// expression (expr_from_json) and, for an expression with values, the runnable module built
// from it (text_case), whose text is then parsed and verified. Any input may be rejected with
// ExprError, ParseError or DomainError (a message for the user); nothing may crash or throw
// anything else.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "ast/expr_json.hpp"
#include "fuzz/libfuzzer/scratch_file.hpp"
#include "ast/mlir_parse.hpp"
#include "oracle/text_case.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = shlo::fuzzing::write_scratch_file("json_fuzz", ".json", data, size);
  if (path.empty()) return 0;
  try {
    const nlohmann::json doc = shlo::parse_json_file(path);
    // A case file ({"instance": {"expr": ...}}), or a bare expression as `shlo den` reads it.
    const nlohmann::json* expr = &doc;
    if (doc.is_object() && doc.contains("instance") && doc["instance"].is_object() && doc["instance"].contains("expr"))
      expr = &doc["instance"]["expr"];
    const shlo::ExprPtr e = shlo::expr_from_json(*expr, "/expr");
    if (!e->has_values()) return 0;
    const shlo::TextCase tc = shlo::text_case(*e);
    (void)shlo::parse_module(tc.text, "case.mlir");
  } catch (const shlo::ExprError&) {
  } catch (const shlo::ParseError&) {
  } catch (const shlo::DomainError&) {
  }  // anything else (a JSON library exception, say) escapes: a finding, since its text is internal
  return 0;
}
