#!/usr/bin/env bash
# Hostile input to the shlo command: every case is a reproducer of a crash, a hang, an internal
# message or a silent acceptance that the command once had. Each must end in a clean, named
# error with the documented exit status (1: the program is wrong; 2: bad input or options).
# Usage: cli_hardening_test.sh SHLO CORPUS_DIR
set -u
shlo=$1
corpus=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check_timeout=60  # a hang is a failure, not a stall
source "$(dirname "$0")/check_lib.sh"
says() {  # says NAME FILE TEXT: the message must contain TEXT
  grep -qF -- "$3" "$tmp/$2" || { echo "FAIL $1: expected '$3' in $2:"; head -c 2000 "$tmp/$2"; echo; fails=$((fails + 1)); }
}
no_internal_text() {  # messages a user must never see
  if grep -qE "std::|stoull|stoll|json\.exception|filesystem error|basic_string|bad_alloc|what\(\)" "$tmp/out" "$tmp/err"; then
    echo "FAIL $1: internal text:"; cat "$tmp/err"; fails=$((fails + 1))
  fi
}
program() {  # program FILE SIGNATURE RESULT_TYPE BODY_LINES... : a module around the body
  local file=$1 sig=$2 result=$3
  shift 3
  { echo "module @m {"; echo "  func.func @f($sig) -> $result {"; printf '    %s\n' "$@"; echo "  }"; echo "}"; } >"$tmp/$file"
}

# --- shape arithmetic: every product and sum is checked -------------------------------------
program reshape.mlir "%x: tensor<4xf32>" "tensor<4x4611686018427387905xf32>" \
  "%v0 = stablehlo.reshape %x : (tensor<4xf32>) -> tensor<4x4611686018427387905xf32>" \
  "return %v0 : tensor<4x4611686018427387905xf32>"
check "reshape whose element count wraps to 4" 1 "$shlo" parse "$tmp/reshape.mlir"
says "reshape overflow located" err "reshape.mlir:2:47:"
says "reshape overflow message" err "more elements than a 64-bit count holds"
program pad.mlir "%x: tensor<2xf32>, %z: tensor<f32>" "tensor<1xf32>" \
  "%v0 = stablehlo.pad %x, %z, low = [0], high = [0], interior = [9223372036854775807] : (tensor<2xf32>, tensor<f32>) -> tensor<1xf32>" \
  "return %v0 : tensor<1xf32>"
check "pad with interior INT64_MAX" 1 "$shlo" parse "$tmp/pad.mlir"
says "pad overflow" err "pad.mlir:3:5: stablehlo.pad: the padded size of dimension 0 does not fit in 64 bits"
program concat.mlir "%x: tensor<4611686018427387904xf32>" "tensor<0xf32>" \
  "%v0 = stablehlo.concatenate %x, %x, dim = 0 : (tensor<4611686018427387904xf32>, tensor<4611686018427387904xf32>) -> tensor<0xf32>" \
  "return %v0 : tensor<0xf32>"
check "concatenate whose size wraps" 1 "$shlo" parse "$tmp/concat.mlir"
says "concatenate overflow" err "stablehlo.concatenate: the concatenated size does not fit in 64 bits"
program rw.mlir "%x: tensor<4xf32>, %z: tensor<f32>" "tensor<1xf32>" \
  '%v0 = "stablehlo.reduce_window"(%x, %z) ({' \
  '^bb0(%a: tensor<f32>, %b: tensor<f32>):' \
  '  %c = stablehlo.add %a, %b : tensor<f32>' \
  '  stablehlo.return %c : tensor<f32>' \
  '}) {window_dimensions = array<i64: 2>, padding = dense<[[9223372036854775807, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>, tensor<f32>) -> tensor<1xf32>' \
  "return %v0 : tensor<1xf32>"
check "reduce_window padding that wraps" 1 "$shlo" parse "$tmp/rw.mlir"
says "window padding overflow" err "stablehlo.reduce_window: the padded size of dimension 0 does not fit in 64 bits"
sed 's/padding = dense<\[\[9223372036854775807, 1\]\]> : tensor<1x2xi64>/window_dilations = array<i64: 9223372036854775807>/' "$tmp/rw.mlir" >"$tmp/rwd.mlir"
check "reduce_window dilation that wraps" 1 "$shlo" parse "$tmp/rwd.mlir"
says "window dilation overflow" err "the dilated window of dimension 0 does not fit in 64 bits"
# A stride near INT64_MAX once overflowed (l - s + stride - 1); the slice is one element.
program slice.mlir "%x: tensor<3xf32>" "tensor<1xf32>" \
  "%v0 = stablehlo.slice %x [1:3:9223372036854775807] : (tensor<3xf32>) -> tensor<1xf32>" "return %v0 : tensor<1xf32>"
check "slice with a huge stride verifies" 0 "$shlo" run "$tmp/slice.mlir" -d exact --random-inputs 1 --out "$tmp/slice"
check "slice input" 0 "$shlo" run "$tmp/slice.mlir" -d exact --inputs "$tmp/slice/inputs" --out "$tmp/slice2"

# --- parser ----------------------------------------------------------------------------------
program groups.mlir "%x: tensor<2xf32>" "tensor<2xf32>" \
  '%v0 = "stablehlo.all_reduce"(%x) ({' \
  '^bb0(%a: tensor<f32>, %b: tensor<f32>):' \
  '  %c = stablehlo.add %a, %b : tensor<f32>' \
  '  stablehlo.return %c : tensor<f32>' \
  '}) {replica_groups = dense<[[], 5]> : tensor<2x0xi64>} : (tensor<2xf32>) -> tensor<2xf32>' \
  "return %v0 : tensor<2xf32>"
check "replica_groups [[], 5] (once SIGFPE)" 1 "$shlo" parse "$tmp/groups.mlir"
says "ragged groups" err "groups.mlir:7:32: ragged dense literal: 1 element(s) in a nesting of 0"
# 5000 region ops, each inside the last one's region (once a stack overflow)
{
  echo 'module @m {'; echo '  func.func @f(%a: tensor<f32>) -> tensor<f32> {'
  for ((i = 0; i < 5000; i++)); do echo '%v = "stablehlo.all_reduce"(%a) ({ ^bb0(%a: tensor<f32>, %b: tensor<f32>):'; done
  echo 'return %v : tensor<f32>'; echo '}'; echo '}'
} >"$tmp/deep.mlir"
check "5000 nested regions" 1 "$shlo" parse "$tmp/deep.mlir"
says "nesting limit" err "deep.mlir:35:6: regions nested more than 32 deep"
program cmp.mlir "%p: tensor<2xi1>, %q: tensor<2xi1>" "tensor<2xi1>" \
  "%v0 = stablehlo.compare EQ, %p, %q : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>" "return %v0 : tensor<2xi1>"
check "compare of i1 (once std::get, now runs)" 0 "$shlo" run "$tmp/cmp.mlir" -d f32 --random-inputs 1
no_internal_text "compare of i1"
program tanh.mlir "%p: tensor<2xi1>" "tensor<2xi1>" "%v0 = stablehlo.tanh %p : tensor<2xi1>" "return %v0 : tensor<2xi1>"
check "tanh of i1" 1 "$shlo" run "$tmp/tanh.mlir" -d f32 --random-inputs 1
says "tanh of i1" err "tanh.mlir:3:5: stablehlo.tanh: the element type of operand %p must be float"
no_internal_text "tanh of i1"
program hex.mlir "" "tensor<f32>" "%v0 = stablehlo.constant dense<0x123456789ABCDEF0123> : tensor<f32>" "return %v0 : tensor<f32>"
check "over-long hex literal (once stoull)" 1 "$shlo" run "$tmp/hex.mlir" -d f32 --random-inputs 1
says "hex literal" err "hex literal '0x123456789ABCDEF0123' has more than the 8 digits of f32"
no_internal_text "hex literal"
program ragged.mlir "" "tensor<2x2xf32>" "%v0 = stablehlo.constant dense<[[1.0, 2.0], 3.0]> : tensor<2x2xf32>" "return %v0 : tensor<2x2xf32>"
check "ragged dense literal that once parsed" 1 "$shlo" run "$tmp/ragged.mlir" -d f32 --random-inputs 1
says "ragged literal" err "ragged.mlir:3:36: ragged dense literal: 3 element(s) in a nesting of 4"
no_internal_text "ragged literal"
check "missing program file" 1 "$shlo" parse "$tmp/nowhere.mlir"
says "errno reason" err "nowhere.mlir:0:0: cannot open file: No such file or directory"
check "a folder as program file" 1 "$shlo" run "$tmp" --random-inputs 1
says "folder as program" err "not a regular file"

# --- options ---------------------------------------------------------------------------------
program add.mlir "%x: tensor<2xf32>, %y: tensor<2xf32>" "tensor<2xf32>" \
  "%v0 = stablehlo.add %x, %y : tensor<2xf32>" "return %v0 : tensor<2xf32>"
check "-r 0 refused" 2 "$shlo" run "$tmp/add.mlir" -r 0 --random-inputs 1
check "--range 0,1x refused" 2 "$shlo" run "$tmp/add.mlir" --random-inputs 1 --range 0,1x
says "--range message" err "--range expects LO,HI (two finite numbers), got '0,1x'"
check "--range 0,inf refused" 2 "$shlo" run "$tmp/add.mlir" --random-inputs 1 --range 0,inf
check "--random-inputs -1 refused" 2 "$shlo" run "$tmp/add.mlir" --random-inputs -1
check "--max-memory 12Q refused" 2 "$shlo" run "$tmp/add.mlir" --random-inputs 1 --max-memory 12Q
check "interval:1048576 refused" 2 "$shlo" run "$tmp/add.mlir" -d interval:1048576 --random-inputs 1
says "precision bound" err "precision must be a number of bits from 2 to 16384"
: >"$tmp/plainfile"
check "--out under a file" 2 "$shlo" run "$tmp/add.mlir" --random-inputs 1 --out "$tmp/plainfile/sub"
says "--out message" err "--out: cannot create the folder $tmp/plainfile/sub"
no_internal_text "--out under a file"

# --- .npy inputs -----------------------------------------------------------------------------
check "f64 outputs to reuse as inputs" 0 "$shlo" run "$tmp/add.mlir" -d f64 --random-inputs 2 --out "$tmp/f64"
mkdir -p "$tmp/f64in" && cp "$tmp/f64/result0.npy" "$tmp/f64in/x.npy" && cp "$tmp/f64/result0.npy" "$tmp/f64in/y.npy"
check "an f64 file for an f32 argument is refused" 2 "$shlo" run "$tmp/add.mlir" -d exact --inputs "$tmp/f64in"
says "f64 for f32" err "x.npy: dtype is f64, %x needs f32 (--convert-inputs rounds f64 files to float32)"
check "... converted on request" 0 "$shlo" run "$tmp/add.mlir" -d exact --inputs "$tmp/f64in" --convert-inputs
check "shlo check refuses an f64 input for an f32 argument" 2 "$shlo" check "$tmp/add.mlir" --inputs "$tmp/f64in" --outputs "$tmp/f64"
says "check f64 input" err "x.npy: dtype is f64, %x needs f32"
mkdir -p "$tmp/fifo" && cp "$tmp/f64/inputs/y.npy" "$tmp/fifo/y.npy" && mkfifo "$tmp/fifo/x.npy"
check "a FIFO as input is refused, not waited on" 2 "$shlo" run "$tmp/add.mlir" --inputs "$tmp/fifo"
says "FIFO" err "x.npy: not a regular file"

# --- resources -------------------------------------------------------------------------------
program big_arg.mlir "%x: tensor<100000x100000xf32>" "tensor<100000x100000xf32>" \
  "%v0 = stablehlo.negate %x : tensor<100000x100000xf32>" "return %v0 : tensor<100000x100000xf32>"
check "a 40 GB argument is refused before running" 2 "$shlo" run "$tmp/big_arg.mlir" --random-inputs 1 --max-memory 8G
says "estimate named" err "big_arg.mlir:3:5: %v0 = stablehlo.negate: the live tensors would take 74.5 GiB in f32"
says "tensor named" err "tensor<100000x100000xf32>"
no_internal_text "big argument"
program big_bcast.mlir "%x: tensor<f32>" "tensor<f32>" \
  "%v0 = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<100000x100000xf32>" \
  "%v1 = stablehlo.reduce(%v0 init: %x) applies stablehlo.add across dimensions = [0, 1] : (tensor<100000x100000xf32>, tensor<f32>) -> tensor<f32>" \
  "return %v1 : tensor<f32>"
check "a 40 GB broadcast is refused" 2 "$shlo" run "$tmp/big_bcast.mlir" -d f32 --random-inputs 1
says "peak named" err "big_bcast.mlir:4:5: %v1 = stablehlo.reduce: the live tensors would take 37.3 GiB in f32"
says "broadcast named" err "the largest is %v0 : tensor<100000x100000xf32>, 37.3 GiB"
program big_const.mlir "" "tensor<100000x100000xf32>" "%v0 = stablehlo.constant dense<0.0> : tensor<100000x100000xf32>" \
  "return %v0 : tensor<100000x100000xf32>"
check "a 40 GB constant is refused" 2 "$shlo" run "$tmp/big_const.mlir" -d f32 --random-inputs 1 --max-memory 1G
program mid.mlir "%x: tensor<1000x1000xf32>" "tensor<1000x1000xf32>" \
  "%v0 = stablehlo.exponential %x : tensor<1000x1000xf32>" "return %v0 : tensor<1000x1000xf32>"
check "limbs counted: interval:4096 of a 1000x1000 tensor exceeds 1G" 2 "$shlo" run "$tmp/mid.mlir" -d interval:4096 --random-inputs 1 --max-memory 1G
says "interval estimate" err "in interval:4096 (1120 bytes per scalar"
check "... and fits in f32" 0 "$shlo" run "$tmp/mid.mlir" -d f32 --random-inputs 1 --max-memory 1G

# --- replay: one bad case never stops the others; unreadable is exit 2 ------------------------
good="$corpus/domains.mpfr_in_interval/918975193"
mkdir -p "$tmp/corpus/good" "$tmp/corpus/p0" "$tmp/corpus/nodata" "$tmp/corpus/notjson" "$tmp/corpus/deep"
cp "$good/case.json" "$tmp/corpus/good/case.json"
sed 's/"precision": 24/"precision": 0/' "$good/case.json" >"$tmp/corpus/p0/case.json"
grep -v '"precision": 24' "$good/case.json" >"$tmp/corpus/nodata/case.json"
echo '{"property": ' >"$tmp/corpus/notjson/case.json"
{ printf '{"property": "domains.mpfr_in_interval", "instance": {"expr": '
  for ((i = 0; i < 7000; i++)); do printf '{"constructor": "sub", "children": ['; done
  for ((i = 0; i < 7000; i++)); do printf ']}'; done
  printf ', "data": {"precision": 24}}}\n'; } >"$tmp/corpus/deep/case.json"
check "good case alone" 0 "$shlo" replay "$tmp/corpus/good"
check "corrupted corpus is exit 2" 2 "$shlo" replay "$tmp/corpus"
says "good case still replayed" out "SKIP  domains.mpfr_in_interval         $tmp/corpus/good/case.json"
says "precision 0" out "ERROR domains.mpfr_in_interval         $tmp/corpus/p0/case.json: unreadable case: /instance/data/precision: expected a number of bits from 2 to 16384, found 0"
says "missing data" out "$tmp/corpus/nodata/case.json: unreadable case: /instance/data: missing \"precision\""
says "not JSON" out "$tmp/corpus/notjson/case.json: unreadable case: $tmp/corpus/notjson/case.json:2:1: syntax error"
says "deep expression" out "$tmp/corpus/deep/case.json: unreadable case: $tmp/corpus/deep/case.json: JSON nested more than 416 deep"
says "summary" out "5 cases: 0 passed, 1 skipped (meaningless now), 0 failed, 4 unreadable"
no_internal_text "replay"

[ "$fails" = 0 ] && echo "cli hardening: all passed" || echo "cli hardening: $fails failed"
[ "$fails" = 0 ]
