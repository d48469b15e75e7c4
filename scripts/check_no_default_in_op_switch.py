#!/usr/bin/env python3
"""Fails if a `switch` over an op (Op) or a constructor (Ctor) has a `default:` label.

Such a switch must name every enumerator, so that -Werror=switch stops the build when an op
or a constructor is added without its case (docs/design.md). A default silences the compiler.

A switch counts as one over ops or constructors when one of its own case labels names `Op::`
or `Ctor::` (or one of the SHLO_CASES_* label macros), or when its subject is `op`, `x.op`,
`x->op` or `x.spec->id`. Labels of a nested switch belong to that switch only.

usage: check_no_default_in_op_switch.py SOURCE_DIR
Before scanning it checks itself on snippets (the control): a default in an Op switch must be
found, defaults in other switches must not.
"""
import pathlib
import re
import sys

LAYERS = ["ast", "num", "interp", "oracle", "fuzz", "cli"]
SUFFIXES = {".cpp", ".hpp", ".inc", ".def", ".cu", ".cuh", ".h"}
OP_LABEL = re.compile(r"\bcase\s+(?:shlo::)?(?:Op|Ctor)::|\bSHLO_CASES_\w+")
OP_SUBJECT = re.compile(r"(?:^|[.>])(?:op|spec->id)\s*$|^\s*op\s*$")


def blank_comments_and_literals(text):
    """The text with comments, strings and character literals replaced by spaces (newlines kept)."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def matching(text, start, open_char, close_char):
    """The index of the bracket closing the one at `start`."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_char:
            depth += 1
        elif text[i] == close_char:
            depth -= 1
            if depth == 0:
                return i
    return len(text) - 1


def violations(text, name):
    """`name:line: ...` for each switch over ops or constructors with a default label."""
    code = blank_comments_and_literals(text)
    switches = []  # (subject, body start, body end, line)
    for m in re.finditer(r"\bswitch\s*\(", code):
        close = matching(code, m.end() - 1, "(", ")")
        brace = code.find("{", close)
        if brace < 0:
            continue
        switches.append((code[m.end():close], brace, matching(code, brace, "{", "}"), code.count("\n", 0, m.start()) + 1))

    def owner(pos):  # the innermost switch whose body holds pos
        inside = [k for k, (_, b, e, _) in enumerate(switches) if b < pos < e]
        return max(inside, key=lambda k: switches[k][1]) if inside else None

    over_ops, defaults = set(), {}
    for k, (subject, _, _, _) in enumerate(switches):
        if OP_SUBJECT.search(subject.strip()):
            over_ops.add(k)
    for m in OP_LABEL.finditer(code):
        k = owner(m.start())
        if k is not None:
            over_ops.add(k)
    for m in re.finditer(r"\bdefault\s*:", code):
        k = owner(m.start())
        if k is not None:
            defaults.setdefault(k, code.count("\n", 0, m.start()) + 1)
    return [f"{name}:{defaults[k]}: default: in the switch over ({switches[k][0].strip()}) at line {switches[k][3]}"
            for k in sorted(over_ops & defaults.keys())]


def self_test():
    flagged = """
      int f(Op op, int i) {
        switch (i) { case 0: break; default: break; }         // not over ops: allowed
        switch (op) {
          case Op::Add: { switch (i) { default: return 1; } }  // the nested default is the int switch's
          default: return 2;                                    // the one to find
        }
      }"""
    clean = """
      // switch (op) { default: }  (a comment)
      const char* s = "switch (op) { default: }";
      int g(Ctor c, char k) {
        switch (k) { case 'a': return 0; default: return 1; }
        switch (c) {
      #define SHLO_CTOR(ID) case Ctor::ID: return 2;
        }
      }"""
    by_subject = "void h(const Instruction& inst) { switch (inst.op) { SHLO_UNLISTED default: break; } }"
    found = violations(flagged, "flagged")
    ok = len(found) == 1 and ":6:" in found[0] and not violations(clean, "clean") and len(violations(by_subject, "s")) == 1
    if not ok:
        print("FAIL: the check's own control:", found, violations(clean, "clean"), violations(by_subject, "s"))
    return ok


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if not self_test():
        return 1
    root = pathlib.Path(sys.argv[1])
    found, scanned = [], 0
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file():
                scanned += 1
                found += violations(path.read_text(encoding="utf-8", errors="replace"), str(path.relative_to(root)))
    for line in found:
        print(line)
    if found:
        print(f"FAIL: {len(found)} switch(es) over ops or constructors with a default (name every case instead)")
        return 1
    print(f"ok: no default in a switch over ops or constructors ({scanned} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
