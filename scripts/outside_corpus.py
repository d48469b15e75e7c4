#!/usr/bin/env python3
"""Runs `shlo test` on a folder of test programs written by others (the StableHLO interpreter's
tests, JAX-generated test data) and measures them against issue 15's targets.

The programs stay outside the repository; see docs/mlir-test-corpus.md for where they live and
what the percentages count. Each file is cut at `// -----` as `shlo test` cuts it; every chunk is
one run, given to `shlo test` alone (its lines keep their numbers) and classified:

  PASS     every check held (exit 0)
  FAIL     a check failed (exit 1)
  REFUSED  exit 2 with a located message (file:line:column), for a run that uses an op, type or
           construct outside issue 15's set (the run is out of scope)
  BROKEN   anything else: an internal error, a crash, a timeout, an unlocated message, or a
           refusal (exit 2) of a run whose every op and type is in the set
  ACCEPTED an out-of-scope run that ran anyway (exit 0 or 1): listed, not counted

A run is out of scope when it names an element type outside the set (complex, i2/i4/ui2/ui4, f8
types, tf32 or quantized tensors), a dynamic dimension, an op outside the set (stablehlo.*, chlo.*,
interpreter.* other than run_parallel, other dialects), the WEAKORDER comparison,
check.expect_serialized_eq, all_reduce's replica_groups padded with -1 or in the mesh-axes form,
or a custom_call whose target is not a check. A file whose first line is `// RUN-DISABLED` is not run
by StableHLO itself: its runs are reported apart and left out of both percentages.

Percentages: PASS over the in-scope enabled runs (the 95 % target), PASS over all enabled runs
(no exclusions), and REFUSED over the out-of-scope enabled runs (the target is 100 %).
Exit status: 0 when no run is BROKEN, 1 otherwise, 2 on bad arguments.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import OrderedDict

# Issue 15's op set (docs/mlir-test-corpus.md, section 1): the ops run before it and those it adds.
OPS = set("""
abs add all_reduce and broadcast_in_dim compare concatenate constant convert convolution divide
dot_general exponential iota log logistic maximum minimum multiply negate or pad reduce
reduce_window reshape reverse rsqrt select select_and_scatter slice sqrt subtract tanh transpose
bitcast_convert case ceil clamp cosine dynamic_slice dynamic_update_slice exponential_minus_one
floor gather if log_plus_one not power remainder round_nearest_afz round_nearest_even scatter sign
sine sort while xor return custom_call
""".split())
ELEMENT_TYPES = {"i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "f16", "bf16", "f32", "f64"}
CHECK_OPS = {"expect_eq", "expect_eq_const", "expect_almost_eq", "expect_almost_eq_const", "expect_close"}
CHECK_TARGETS = {"check.expect_eq", "check.expect_close", "check.expect_almost_eq", "check.eq"}

MARKER = re.compile(r"^[ \t]*// -----[ \t\r]*$")
TENSOR = re.compile(r"tensor<([^<>]*(?:<[^<>]*>[^<>]*)*)>")
OP_NAME = re.compile(r'(?<![\w."@#])"?((?:stablehlo|chlo|interpreter|mhlo|sdy|check|tosa|arith|math|tensor|scf)\.[a-z_0-9]+)(?![\w.])"?(?!\s*=)')
CUSTOM_CALL = re.compile(r'custom_call\s*@([\w.]+)|call_target_name\s*=\s*"([^"]+)"')
LOCATED = re.compile(r"[^\s:]+:\d+:\d+: ")
INTERNAL = re.compile(r"internal error|std::|terminate called|Assertion|Segmentation|bad_variant|core dumped", re.I)


def split_runs(text):
    """The chunks of a file as `shlo test` cuts them: (first line, text with earlier lines blank)."""
    lines = text.split("\n")
    runs, begin = [], 0
    for i in range(len(lines) + 1):
        if i < len(lines) and not MARKER.match(lines[i]):
            continue
        body = lines[begin:i]
        if any(line.strip() for line in body):
            runs.append((begin + 1, "\n" * begin + "\n".join(body) + "\n"))
        begin = i + 1
    return runs


def strip_comments(text):
    return "\n".join(re.sub(r"//.*", "", line) for line in text.split("\n"))


def out_of_scope(text):
    """Why a run is outside issue 15's set ('' when it is inside)."""
    code = strip_comments(text)
    reasons = []
    for inner in TENSOR.findall(code):
        if "complex" in inner or "quant" in inner:
            reasons.append("element type %s" % ("complex" if "complex" in inner else "quantized"))
            continue
        parts = [p.strip() for p in inner.split(",")[0].split("x")]
        element = parts[-1]
        if "?" in parts[:-1]:
            reasons.append("dynamic shape tensor<%s>" % inner)
        elif element not in ELEMENT_TYPES:
            reasons.append("element type %s" % element)
    for op in OP_NAME.findall(code):
        dialect, name = op.split(".", 1)
        if dialect == "check" and name in CHECK_OPS:
            continue
        if dialect == "stablehlo" and name in OPS:
            continue
        if op == "interpreter.run_parallel":  # one column of one function (docs/mlir-forms.md 13.1)
            continue
        reasons.append("op %s" % op)
    for target in CUSTOM_CALL.findall(code):
        name = target[0] or target[1]
        if name not in CHECK_TARGETS:
            reasons.append("custom_call @%s" % name)
    if re.search(r"\bWEAKORDER\b", code):
        reasons.append("comparison type WEAKORDER")
    # all_reduce forms outside the spec: groups padded with -1 (C3), the mesh-axes form (no rule)
    if re.search(r"replica_groups\s*=\s*dense<[^>]*-1\b", code):
        reasons.append("replica_groups padded with -1")
    if "#stablehlo.replica_group_mesh_axes" in code:
        reasons.append("replica_groups in the mesh-axes form")
    return ", ".join(sorted(set(reasons)))


def float_types(text):
    return {e for e in ("f16", "bf16", "f32", "f64") if re.search(r"(?:x|<)%s>" % e, strip_comments(text))}


def choose_domain(text, requested):
    """`auto`: f64 for runs with f64 and without f32 values, else f32. StableHLO computes each op
    in its element type; until a domain does that, the one that holds the run's widest values
    exactly is taken (f64 holds f16 and bf16 values too)."""
    if requested != "auto":
        return requested
    floats = float_types(text)
    return "f64" if "f64" in floats and "f32" not in floats else "f32"


def run_one(shlo, path, first_line, text, domain, timeout):
    with tempfile.TemporaryDirectory() as scratch:
        # the run's own file under the original name, so that messages cite it
        target = os.path.join(scratch, os.path.basename(path))
        with open(target, "w") as f:
            f.write(text)
        try:
            done = subprocess.run([shlo, "test", "--domain", domain, target], capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, "timed out after %ss" % timeout
        output = (done.stdout + done.stderr).replace(scratch + os.sep, "")
        return done.returncode, output.strip()


def classify(rc, output, scope_reason):
    if rc is None:
        return "BROKEN"
    if INTERNAL.search(output) or rc not in (0, 1, 2):
        return "BROKEN"
    if scope_reason:
        if rc == 2:
            return "REFUSED" if LOCATED.search(output) else "BROKEN"
        return "ACCEPTED"
    return {0: "PASS", 1: "FAIL"}.get(rc, "BROKEN")


def family_of(name, by_prefix):
    stem = os.path.splitext(name)[0]
    if stem.startswith("interpret_"):
        stem = stem[len("interpret_"):]
    return stem.split("_")[0] if by_prefix else stem


def names_construct(output, reason):
    """Does a refusal name what is outside the set (the op, the type, the construct)?"""
    for part in reason.split(", "):
        word = part.split(" ")[-1].lstrip("@")
        if part.startswith("dynamic"):
            word = "?"
        if word in output or word.split(".")[-1] in output:
            return True
    return False


def first_message(output):
    for line in output.split("\n"):
        if line.startswith(("FAIL", "ERROR")) or "timed out" in line:
            return line[:220]
    return output.split("\n")[0][:220] if output else ""


def pct(a, b):
    return "%.1f %% (%d of %d)" % (100.0 * a / b, a, b) if b else "n/a (0 runs)"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", help="folder of .mlir test files (searched recursively)")
    parser.add_argument("--shlo", default="build/shlo", help="the shlo binary (default build/shlo)")
    parser.add_argument("--label", default="", help="the corpus revision, printed in the heading")
    parser.add_argument("--domain", default="auto",
                        help="shlo test --domain, or auto (f64 for runs with f64 and no f32 values, else f32)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per run (default 60)")
    parser.add_argument("--family", choices=["file", "prefix"], default="file",
                        help="group runs by file (interpreter tests) or by the name's first word (JAX test data)")
    parser.add_argument("--verbose", action="store_true", help="print every run, not only those that did not pass")
    args = parser.parse_args()
    if not os.path.isdir(args.folder):
        print("outside_corpus: not a folder: %s" % args.folder, file=sys.stderr)
        return 2
    if not os.access(args.shlo, os.X_OK):
        print("outside_corpus: not an executable: %s" % args.shlo, file=sys.stderr)
        return 2

    files = sorted(os.path.join(d, f) for d, _, names in os.walk(args.folder) for f in names if f.endswith(".mlir"))
    kinds = ["PASS", "FAIL", "REFUSED", "BROKEN", "ACCEPTED"]
    per_file, per_family = OrderedDict(), OrderedDict()
    totals = {"enabled": dict.fromkeys(kinds + ["in", "out", "fail16", "unnamed"], 0),
              "disabled": dict.fromkeys(kinds + ["in", "out", "fail16", "unnamed"], 0)}
    details = []
    for path in files:
        name = os.path.relpath(path, args.folder)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        disabled = text.startswith("// RUN-DISABLED")
        group = "disabled" if disabled else "enabled"
        row = dict.fromkeys(kinds + ["in", "out", "fail16", "runs"], 0)
        for first_line, chunk in split_runs(text):
            reason = out_of_scope(chunk)
            domain = choose_domain(chunk, args.domain)
            rc, output = run_one(args.shlo, path, first_line, chunk, domain, args.timeout)
            kind = classify(rc, output, reason)
            row["runs"] += 1
            row[kind] += 1
            row["out" if reason else "in"] += 1
            # a failed check on f16/bf16 values may be per-op rounding, which the f32 and f64
            # domains do not do: counted apart (an element-typed domain is to judge them)
            if kind == "FAIL" and float_types(chunk) & {"f16", "bf16"}:
                row["fail16"] += 1
            if kind == "REFUSED" and not names_construct(output, reason):
                totals[group]["unnamed"] += 1
                kind = "REFUSED (the message does not name %s)" % reason
            if kind != "PASS" or args.verbose:
                details.append("%-8s %s:%d [%s]%s\n         %s" % (kind, name, first_line, domain,
                                                                    " (out of scope: %s)" % reason if reason else "",
                                                                    first_message(output)))
        if disabled:
            row["disabled"] = True
        per_file[name] = row
        fam = per_family.setdefault(family_of(os.path.basename(name), args.family == "prefix"),
                                    dict.fromkeys(kinds + ["in", "out", "fail16", "runs", "files"], 0))
        fam["files"] += 1
        for k in kinds + ["in", "out", "fail16", "runs"]:
            fam[k] += row[k]
            if k != "runs":
                totals[group][k] += row[k]

    print("# %s%s" % (args.folder, " (%s)" % args.label if args.label else ""))
    print()
    header = "| %s | runs | in scope | PASS | FAIL | (f16/bf16) | REFUSED | BROKEN | ACCEPTED |"
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    print(header % "file")
    print(rule)
    for name, r in per_file.items():
        label = name + (" (RUN-DISABLED)" if r.get("disabled") else "")
        print("| %s | %d | %d | %d | %d | %d | %d | %d | %d |" % (label, r["runs"], r["in"], r["PASS"], r["FAIL"],
                                                                 r["fail16"], r["REFUSED"], r["BROKEN"], r["ACCEPTED"]))
    if args.family == "prefix":
        print()
        print(header % "family (files)")
        print(rule)
        for fam, r in per_family.items():
            print("| %s (%d) | %d | %d | %d | %d | %d | %d | %d | %d |" % (fam, r["files"], r["runs"], r["in"], r["PASS"],
                                                                          r["FAIL"], r["fail16"], r["REFUSED"], r["BROKEN"],
                                                                          r["ACCEPTED"]))
    for group in ("enabled", "disabled"):
        t = totals[group]
        runs = t["in"] + t["out"]
        if runs == 0:
            continue
        print()
        print("%s runs: %d (%d in scope, %d out of scope)" % (group.capitalize(), runs, t["in"], t["out"]))
        print("  PASS over in-scope runs:        %s" % pct(t["PASS"], t["in"]))
        print("  PASS over all runs:             %s" % pct(t["PASS"], runs))
        print("  REFUSED over out-of-scope runs: %s; %d of them without naming the construct" %
              (pct(t["REFUSED"], t["out"]), t["unnamed"]))
        print("  FAIL %d (of which f16/bf16 %d), BROKEN %d, ACCEPTED %d" % (t["FAIL"], t["fail16"], t["BROKEN"], t["ACCEPTED"]))
    if details:
        print()
        print("Runs that did not pass:" if not args.verbose else "Runs:")
        for line in details:
            print("  " + line)
    broken = totals["enabled"]["BROKEN"] + totals["disabled"]["BROKEN"]
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
