#!/usr/bin/env python3
"""A data-parallel pair from one printed train step, by the printer's own rules.

  dp_pair.py SHLO IN.mlir --batch B --replicas R --dp DP.mlir --full FULL.mlir

reads IN.mlir (a train step as the Lean printer writes it, one optimizer node per parameter that
takes the parameter's gradient as an operand: Adam, momentum) back into a render (`shlo lift`) and
writes two programs through `shlo emit`:

* FULL.mlir: the same step (and function name) on a batch of R * B examples;
* DP.mlir: the step on B examples per replica, each parameter's gradient replaced by the mean of
  the R replicas' gradients (an allReduceMeanF node named after the parameter, whose value the
  optimizer nodes then read), as the printer writes cifar8_adamdp_train_step.mlir.

`shlo dp-check DP.mlir FULL.mlir -r R` then checks the data-parallel theorem on the pair.

The two rules are the printer's, checked on its own files (tests/dp_family_test.sh): the data-parallel
rule turns cifar8_adam_train_step.mlir into cifar8_adamdp_train_step.mlir and the batch rule turns it
into cifar8_adam256_train_step.mlir, byte for byte. The batch rule changes the render's batch, the
leading dimension of the arguments that are not parameters or optimizer state and that some node reads
(the examples and their labels), the mean's scale 1/batch (a scaleF node) and the report-only loss lines written verbatim;
batches are powers of two, so that 1/batch prints exactly.
"""
import argparse
import copy
import json
import re
import subprocess
import sys
import tempfile

GRADIENT_READERS = ("thetaName", "mName", "vName")  # optimizer nodes name their parameter or state


def lift(shlo, path):
    out = subprocess.run([shlo, "lift", path], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def emit(shlo, doc, path):
    with tempfile.NamedTemporaryFile("w", suffix=".json") as render:
        json.dump(doc, render)
        render.flush()
        subprocess.run([shlo, "emit", render.name, "-o", path], check=True)


def walk(expr):
    yield expr
    for child in expr.get("children", []):
        yield from walk(child)


def optimizer_names(render):
    """Every argument an optimizer node names (parameters and their state)."""
    names = set()
    for item in render["items"]:
        for node in walk(item["expr"]) if "expr" in item else ():
            for key, value in node.get("strings", {}).items():
                if key in GRADIENT_READERS:
                    names.add(value)
    return names


def referenced_names(render):
    """Every name a node or a verbatim line reads: an argument outside it is only passed through to
    the results (the momentum step's first moments) and keeps its type."""
    names = set()
    for item in render["items"]:
        if "line" in item:
            names.update(re.findall(r"%[A-Za-z0-9_]+", item["line"].split("=", 1)[-1]))
        for node in walk(item["expr"]) if "expr" in item else ():
            names.update(node.get("strings", {}).values())
    return names


def gradients(render):
    """{gradient value name: (parameter name, its shape ds, element count)} from the optimizer nodes
    whose one operand is the gradient and which name the parameter (thetaName)."""
    found = {}
    for item in render["items"]:
        expr = item.get("expr")
        if not expr or "thetaName" not in expr.get("strings", {}):
            continue
        operands = [c for c in expr.get("children", []) if c["constructor"] == "operand"]
        if len(operands) != 1:
            sys.exit(f"dp_pair: {expr['constructor']} for {expr['strings']['thetaName']} has no single gradient operand")
        found[operands[0]["strings"]["name"]] = (expr["strings"]["thetaName"], expr["ds"], expr["nats"]["n"])
    if not found:
        sys.exit("dp_pair: no optimizer node names a parameter and reads its gradient (an SGD step fuses them: not supported)")
    return found


def data_parallel(doc, replicas, name):
    """The render with every parameter gradient all-reduced to the replicas' mean."""
    doc = copy.deepcopy(doc)
    render = doc["render"]
    render["name"] = name
    grads = gradients(render)
    counters = [(item["counter"], item) for item in render["items"] if "counter" in item]
    renamed = {}
    for value, (theta, ds, n) in grads.items():
        m = re.fullmatch(r"%v(\d+)", value)
        if not m:
            sys.exit(f"dp_pair: the gradient of {theta} is {value}, not a node's value")
        # The node that defines %vK is the one with the largest counter <= K.
        owner = max((c for c in counters if c[0] <= int(m.group(1))), key=lambda c: c[0])[1]
        t = theta.lstrip("%")
        owner["expr"] = {"R": replicas, "children": [copy.deepcopy(owner["expr"]) for _ in range(replicas)],
                         "constructor": "allReduceMeanF", "ds": ds, "nats": {"n": n}, "strings": {"t": t}}
        renamed[value] = "%armean" + t
    for item in render["items"]:
        if "expr" in item and item["expr"]["constructor"] != "allReduceMeanF":
            for node in walk(item["expr"]):
                if node["constructor"] == "operand" and node["strings"]["name"] in renamed:
                    node["strings"]["name"] = renamed[node["strings"]["name"]]
    return doc


def scale_text(x):
    return repr(x)  # a power of two's reciprocal prints exactly, e.g. 0.0078125


def rebatch(doc, batch):
    """The render on another batch (the printer's batch rule; see the module's text). The function keeps
    its name, as the printer's cifar8_adam256_train_step.mlir does."""
    doc = copy.deepcopy(doc)
    render = doc["render"]
    old = render["batch"]
    for b in (old, batch):
        if b <= 0 or b & (b - 1):
            sys.exit(f"dp_pair: batch {b} is not a power of two")
    render["batch"] = batch
    state = optimizer_names(render)
    read = referenced_names(render)
    for arg in render["arguments"]:
        if arg[0] not in state and arg[0] in read:
            arg[1] = re.sub(rf"^tensor<{old}x", f"tensor<{batch}x", arg[1])
    for item in render["items"]:
        if "line" in item:
            line = re.sub(rf"tensor<{old}(x|xf32>)", rf"tensor<{batch}\1", item["line"])
            item["line"] = line.replace(f"dense<{old}.0>", f"dense<{batch}.0>")
        for node in walk(item["expr"]) if "expr" in item else ():
            if node["constructor"] == "scaleF" and node["strings"].get("sStr") == scale_text(1 / old):
                node["strings"]["sStr"] = scale_text(1 / batch)
    return doc


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("shlo")
    p.add_argument("program")
    p.add_argument("--batch", type=int, required=True, help="examples per replica (a power of two)")
    p.add_argument("--replicas", type=int, required=True)
    p.add_argument("--dp", required=True)
    p.add_argument("--full", required=True)
    a = p.parse_args()
    doc = lift(a.shlo, a.program)
    base = doc["render"]["name"].removesuffix("_train_step")
    emit(a.shlo, rebatch(doc, a.batch * a.replicas), a.full)
    emit(a.shlo, data_parallel(rebatch(doc, a.batch), a.replicas, f"{base}dp_train_step"), a.dp)


if __name__ == "__main__":
    main()
