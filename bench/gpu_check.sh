#!/usr/bin/env bash
# The second half of bench/gpu_session.sh, run here: checks the float32 outputs that the GPU
# machine brought back (its results.tgz.* unpacked into RESULTS). For each case it draws the
# same inputs again (`shlo run --random-inputs S` is the same everywhere; the inputs' sha256
# from there must match), then per variant (cuda: the project's kernels on the GPU; xla_default,
# xla_highest, xla_bf16: XLA on the GPU) runs `shlo check --json` (profile ieee, and the wider
# profiles the outputs fit), or reads the check made there for outputs too large to bring back.
# The cuda variant is also compared bit for bit with the same kernels' host path here.
# One row per check: verdict, worst error over the statistical and sound bounds, the profiles
# the outputs fit, and (cuda) how many output elements differ from the host path.
#   bench/gpu_check.sh RESULTS [BUILD_DIR]      PROGRAMS="mlp_fwd ..." SEEDS=1 for some of the cases
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
results=$(cd "$1" && pwd)
build=${2:-$root/build}
artifacts=${ARTIFACTS:-$root/../shared/artifacts/lean4-mlir}
python=${PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summary() {
  "$python" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["verdict"].replace(" ", "_"), "%.3g" % (d["worst_error_over_statistical_bound"] or 0), "%.3g" % (d["worst_error_over_bound"] or 0),
      ",".join(d["consistent_profiles"]) or "-")' "$1"
}
same_hashes() {  # the .npy files of a folder against a sha256sum listing (in any order)
  cmp -s <(cd "$1" && sha256sum *.npy | sort -k2) <(sort -k2 "$2")
}
differs() {  # elements of the result<i>.npy files of two folders that differ bit for bit
  "$python" "$root/bench/npy_differ.py" "$1" "$2"
}
printf "%-22s %-10s %4s  %-11s %-10s %10s %10s  %-15s %s\n" program range seed variant verdict "stat ratio" "sound ratio" profiles "differ from host path"
for case in $(for p in ${PROGRAMS:-$(ls "$results/cases")}; do ls -d "$results/cases/$p"/r*/s${SEEDS:-*} 2>/dev/null; done); do
  p=$(basename "$(dirname "$(dirname "$case")")")
  range=$(basename "$(dirname "$case")"); range=${range#r}
  seed=$(basename "$case"); seed=${seed#s}
  d=$work/$p-$range-$seed
  "$build/shlo" run "$artifacts/$p.mlir" -d cuda-host --random-inputs "$seed" --range "$range" --out "$d" >/dev/null
  same_hashes "$d/inputs" "$case/inputs.sha256" ||
    { echo "gpu_check.sh: $p $range $seed: the inputs drawn here differ from the GPU machine's" >&2; exit 1; }
  for v in "$case"/cuda "$case"/xla_*; do
    [ -d "$v" ] || continue
    variant=$(basename "$v")
    n=-
    if [ "$variant" = cuda ]; then
      same_hashes "$d" "$v.sha256" && n=0 || n=some
      [ -f "$v/result0.npy" ] && n=$(differs "$d" "$v")
    fi
    if [ -f "$v.check.json" ] && [ ! -s "$v.check.json" ] && [ ! -f "$v/result0.npy" ]; then
      printf "%-22s %-10s %4s  %-11s %-10s %10s %10s  %-15s %s\n" "$p" "[$range)" "$seed" "$variant" "-" "-" "-" "-" \
        "$n (not checked: the check there ran past its time limit)"
      continue
    elif [ -f "$v.check.json" ]; then
      json=$v.check.json; where=" (checked there)"
    else
      set +e
      "$build/shlo" check "$artifacts/$p.mlir" -i "$d/inputs" -o "$v" --json >"$work/check.json" 2>/dev/null
      rc=$?
      set -e
      [ $rc -le 4 ] && [ $rc -ne 2 ] || { echo "gpu_check.sh: shlo check failed ($rc) on $p $range $seed $variant" >&2; exit 1; }
      json=$work/check.json; where=
    fi
    read -r verdict stat sound profiles < <(summary "$json")
    printf "%-22s %-10s %4s  %-11s %-10s %10s %10s  %-15s %s\n" "$p" "[$range)" "$seed" "$variant" "$verdict" "$stat" "$sound" "$profiles" "$n$where"
  done
done
