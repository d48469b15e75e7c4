#!/usr/bin/env python3
"""Float32 outputs of the printer's programs computed by XLA on a GPU, for `shlo check`.

XLA is the compiler that JAX and most StableHLO users run their text through; nothing here
imports the project. Each program's text is compiled as it stands (only the function renamed
to @main, as XLA's entry must be) in up to three variants:

  default  the text as printed: every dot_general says precision = [DEFAULT, DEFAULT] and every
           convolution says nothing, so XLA may use TF32 on a GPU that has it;
  highest  every dot_general and convolution asks for precision HIGHEST (float32 products);
  bf16     every dot_general asks for the algorithm with bf16 operands and a float32
           accumulation (only programs without convolutions: a convolution has no algorithm).

  xla_route.py CASES OUT_LOG
  CASES: one line per case, "PROGRAM.mlir INPUTS OUT": INPUTS holds <arg>.npy as
  `shlo run --random-inputs S --out D` writes them (D/inputs); the outputs of variant V go to
  OUT/xla_V/result<i>.npy. A program is compiled once per variant for all its cases.
  OUT_LOG gets one line per compile and run, and the optimized HLO's matrix-product and
  convolution calls (how XLA chose to compute them).
"""
import os
import re
import sys
import time

import numpy as np


def arg_names(text):
    header = re.search(r"func\.func\s+(?:public\s+)?@\w+\((.*?)\)\s*->", text, re.S)
    return re.findall(r"%([\w.$-]+)\s*:", header.group(1))


def variant_text(text, variant):
    text = re.sub(r"func\.func\s+(public\s+)?@\w+\(", "func.func @main(", text, count=1)
    if variant == "default":
        return text
    dots = len(re.findall(r"stablehlo\.dot_general", text))
    convs = len(re.findall(r"stablehlo\.convolution", text))
    if variant == "highest":
        text, n = re.subn(r"precision = \[DEFAULT, DEFAULT\]", "precision = [HIGHEST, HIGHEST]", text)
        if n != dots:
            raise ValueError(f"{n} of {dots} dot_general precisions rewritten")
        text, n = re.subn(r"(feature_group_count = \d+ : i64)\}",
                          r"\1, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]}", text)
        if n != convs:
            raise ValueError(f"{n} of {convs} convolution precisions rewritten")
        return text
    if variant == "bf16":
        if convs:
            raise ValueError("a convolution has no bf16 algorithm")
        algo = ("algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, "
                "lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, "
                "allow_imprecise_accumulation = false>")
        text, n = re.subn(r"precision = \[DEFAULT, DEFAULT\]", "precision = [DEFAULT, DEFAULT], " + algo, text)
        if n != dots:
            raise ValueError(f"{n} of {dots} dot_general algorithms inserted")
        return text
    raise ValueError(variant)


class Xla:
    def __init__(self):
        import jax
        from jax._src import xla_bridge
        from jax._src.interpreters import mlir as jmlir
        from jax._src.lib import xla_client
        from jax._src.lib.mlir import ir

        self.jax, self.jmlir, self.xc, self.ir = jax, jmlir, xla_client, ir
        self.backend = xla_bridge.get_backend("cuda")
        self.device = self.backend.local_devices()[0]

    def compile(self, text):
        """The jaxlib client's compile entry has changed between releases: try each form."""
        devices = self.xc.DeviceList((self.device,))
        options = self.xc.CompileOptions()
        with self.jmlir.make_ir_context(), self.ir.Location.unknown():
            module = self.ir.Module.parse(text)  # a text error is reported here, with its line
            bytecode = self.jmlir.module_to_bytecode(module)
            tries = [lambda: self.backend.compile_and_load(module, devices, options),
                     lambda: self.backend.compile_and_load(bytecode, devices, options),
                     lambda: self.backend.compile_and_load(text, devices, options),
                     lambda: self.backend.compile(bytecode, compile_options=options)]
            errors = []
            for attempt in tries:
                try:
                    return attempt()
                except (TypeError, AttributeError) as e:
                    errors.append(str(e).splitlines()[0][:200])
            raise RuntimeError("no compile entry took the module: " + " | ".join(errors))

    def run(self, exe, args):
        arrays = [self.jax.device_put(a, self.device) for a in args]
        try:
            result = exe.execute_sharded(arrays)
            outs = [shards[0] for shards in result.disassemble_into_single_device_arrays()]
        except AttributeError:
            outs = exe.execute(arrays)
        return [np.asarray(o) for o in outs]

    @staticmethod
    def calls(exe):
        """The optimized HLO's library calls and fusions that compute products."""
        try:
            hlo = "\n".join(m.to_string() for m in exe.hlo_modules())
        except Exception as e:  # only a report
            return f"(no HLO: {e})"
        keep = [l.strip()[:400] for l in hlo.splitlines()
                if re.search(r"custom_call_target=|__triton|kind=kCustom|algorithm|operand_precision", l)]
        return "\n".join(keep[:40])


def main():
    cases_file, log_path = sys.argv[1], sys.argv[2]
    variants = os.environ.get("VARIANTS", "default highest bf16").split()
    by_program = {}
    for line in open(cases_file):
        if line.strip():
            program, inputs, out = line.split()
            by_program.setdefault(program, []).append((inputs, out))
    xla = Xla()
    with open(log_path, "a") as log:
        log.write(f"device: {xla.device.device_kind}; jax {xla.jax.__version__}\n")
        for program, cases in by_program.items():
            text = open(program).read()
            names = arg_names(text)
            for variant in variants:
                name = os.path.basename(program)
                try:
                    t0 = time.time()
                    exe = xla.compile(variant_text(text, variant))
                    log.write(f"{name} {variant}: compiled in {time.time() - t0:.1f} s\n{xla.calls(exe)}\n")
                except Exception as e:
                    log.write(f"{name} {variant}: not compiled: {str(e).splitlines()[0][:300]}\n")
                    log.flush()
                    continue
                for inputs, out in cases:
                    try:
                        args = [np.load(os.path.join(inputs, n + ".npy")) for n in names]
                        t0 = time.time()
                        outs = xla.run(exe, args)
                    except Exception as e:
                        log.write(f"  {out} {variant}: not run: {str(e).splitlines()[0][:300]}\n")
                        continue
                    d = os.path.join(out, "xla_" + variant)
                    os.makedirs(d, exist_ok=True)
                    for i, o in enumerate(outs):
                        np.save(os.path.join(d, f"result{i}.npy"), o)
                    log.write(f"  {out} {variant}: {len(outs)} outputs in {time.time() - t0:.3f} s\n")
                log.flush()


if __name__ == "__main__":
    main()
