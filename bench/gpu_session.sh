#!/usr/bin/env bash
# The checks that need a GPU, as one short run on a machine that has one (a few minutes).
# The machine has CUDA and JAX but not the project's build dependencies, so this runs the
# binaries bench/gpu_kit.sh packed here, and XLA through bench/xla_route.py:
#   1. cuda_device_test: the project's CUDA kernels on the device against their host path
#      (bit for bit) and the cuda profile's sound bound, 500 random op-level programs;
#   2. shlo prop --only cuda.kernels_within_bound (the property, on the device);
#   3. per printer program, input range and seed: `shlo run -d cuda` draws the inputs (the
#      same as `shlo run --random-inputs S` anywhere) and runs the kernels; XLA runs the
#      same text in its variants (default precision, HIGHEST, bf16 products);
#   4. timing: cifar8_train_step in -d cuda and -d f32 (all cores);
#   5. outputs too large to bring back (over 1.5 MB a case) are checked there with
#      `shlo check --json`; every output's sha256 is kept; the rest come back as files;
#   6. (only when named in STEPS) bench/threads.sh on cifar8_train_step in THREAD_DOMAINS
#      (default f64; interval:256 takes minutes a run), THREADS="1 2 4 8 16", on idle cores.
#   bench/gpu_session.sh KIT OUT        (KIT: from bench/gpu_kit.sh; OUT: where results go)
# STEPS (default "device_test prop cases xla timing checks") picks steps; FWD, TRAIN and
# RANGES the programs and input ranges of the cases; VARIANTS the XLA variants; CHECK_ONLY a
# pattern of the variants kept (cuda, xla_default, ...), CHECK_TIMEOUT a check's limit (40 s). bench/gpu_check.sh checks the rest here.
# Every step has its own time limit, so that the results are packed whatever happens.
set -uo pipefail
kit=$(cd "$1" && pwd)
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-/tmp/gpu_session}
rm -rf "$work" && mkdir -p "$work" "$out"
export LD_LIBRARY_PATH=$kit/lib
shlo=$kit/bin/shlo
steps=" ${STEPS:-device_test prop cases xla timing checks} "
step() { echo "== $* ($(date +%T), $SECONDS s)"; }
wanted() { [[ $steps == *" $1 "* ]]; }

step machine
nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
"$shlo" --version || { export LD_LIBRARY_PATH=$kit/lib:$kit/lib_cxx; "$shlo" --version; }

if wanted device_test; then
  step cuda_device_test
  timeout 150 "$kit/bin/cuda_device_test"; echo "exit $?"
fi

if wanted prop; then
  step "prop cuda.kernels_within_bound"
  timeout 60 "$shlo" prop --only cuda.kernels_within_bound --time 20 --seed 20261204 --corpus "$work/corpus"; echo "exit $?"
fi

if wanted threads; then
  step "threads: cifar8_train_step"
  [ -x /usr/bin/time ] || export TIMER=$kit/bin/time
  THREADS=${THREADS:-1 2 4 8 16} REPS=${REPS:-5} SHLO=$shlo timeout 240 bash "$root/bench/threads.sh" "$kit/programs/cifar8_train_step.mlir" ${THREAD_DOMAINS:-f64}
  echo "exit $?"
fi

wanted cases || { step done; exit 0; }
step "inputs and cuda outputs"
fwd=${FWD:-linear_fwd mlp_fwd cnn_fwd cifar_fwd cifar8_fwd cifar8_bn_fwd}
# cnn_train_step is left out by default: 14 MB of outputs a variant, too large to bring back and
# about a minute a check there (the profile search: up to three analyses).
train=${TRAIN:-linear_train_step mlp_train_step cifar8_train_step cifar8_mom_train_step cifar8_adam_train_step}
: >"$work/case_list"
for p in $fwd $train; do
  seeds="1 2"
  case " $train " in *" $p "*) seeds=1 ;; esac
  for range in ${RANGES:--1,1 -0.1,0.1 0,0.01}; do
    for seed in $seeds; do
      d=$work/cases/$p/r$range/s$seed
      if timeout 60 "$shlo" run "$kit/programs/$p.mlir" -d "${CUDA_DOMAIN:-cuda}" --random-inputs "$seed" --range "$range" --out "$d/cuda" >/dev/null; then
        echo "$kit/programs/$p.mlir $d/cuda/inputs $d" >>"$work/case_list"
        (cd "$d/cuda/inputs" && sha256sum *.npy >../../inputs.sha256)
      else
        echo "$p $range $seed: shlo run -d cuda failed"
      fi
    done
  done
done
wc -l <"$work/case_list"

if wanted xla; then
  step "XLA"
  XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1 timeout 200 python3 "$root/bench/xla_route.py" "$work/case_list" "$work/xla_log.txt"
  echo "exit $?"; tail -n 5 "$work/xla_log.txt"
fi

if wanted timing; then
  step timing
  for d in cuda f32; do
    timeout 40 "$shlo" run "$kit/programs/cifar8_train_step.mlir" -d $d --random-inputs 1 --range -0.1,0.1 --out "$work/timing_$d" --timing \
      >"$work/timing_$d.txt" 2>&1
    head -n 3 "$work/timing_$d.txt"
  done
fi

step "checks of large outputs, hashes"
while read -r program inputs d; do
  for v in "$d"/cuda "$d"/xla_*; do
    [ -d "$v" ] || continue
    case $(basename "$v") in ${CHECK_ONLY:-*}) ;; *) rm -f "$v"/result*.npy; continue ;; esac
    (cd "$v" && sha256sum result*.npy >"$v.sha256")
    size=$(du -sk --exclude=inputs "$v" | cut -f1)
    if wanted checks && [ "$size" -gt 1500 ]; then
      timeout "${CHECK_TIMEOUT:-40}" "$shlo" check "$program" -i "$inputs" -o "$v" --json >"$v.check.json" 2>/dev/null
      echo "$v: checked there, exit $?"
      rm -f "$v"/result*.npy
    fi
  done
done <"$work/case_list"

step pack
rm -rf "$work"/cases/*/*/*/cuda/inputs "$work"/timing_*/inputs "$work"/timing_*/result*
tar -C "$work" -czf "$work/results.tgz" cases $(cd "$work" && ls -d xla_log.txt timing_*.txt corpus 2>/dev/null)
split -b 15m -d "$work/results.tgz" "$out/results.tgz."
ls -la "$out"
step done
