#!/usr/bin/env bash
# Packs what bench/gpu_session.sh needs on a machine with a GPU that cannot build the project
# (no Boost, GMP, MPFR or MPFI headers there): this build's `shlo` and `cuda_device_test`
# (stripped), the shared libraries they load beyond the C and C++ runtimes, and the printer's
# programs the session runs. The build must have compiled the CUDA backend (nvcc found).
#   bench/gpu_kit.sh [BUILD_DIR] [KIT_DIR]      (default: build, .gpu)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
kit=${2:-$root/.gpu}
artifacts=${ARTIFACTS:-$root/../shared/artifacts/lean4-mlir}
[ "$(nm "$build/tests/cuda_device_test" | grep -c cudaGetDeviceCount)" -gt 0 ] ||
  { echo "gpu_kit.sh: $build has no CUDA backend (nvcc not found when it was configured)" >&2; exit 2; }
rm -rf "$kit"
mkdir -p "$kit/bin" "$kit/lib" "$kit/lib_cxx" "$kit/programs"
for b in shlo tests/cuda_device_test; do
  strip -o "$kit/bin/$(basename "$b")" "$build/$b"
done
cp /usr/bin/time "$kit/bin/time"  # GNU time, for bench/threads.sh there
# The C runtime and the loader come from the machine; libstdc++ and libgcc_s go in lib_cxx, used
# only if the machine's own are missing or older.
for lib in $(ldd "$build/shlo" "$build/tests/cuda_device_test" | awk '/=> \//{print $3}' | sort -u); do
  case $(basename "$lib") in
    libc.so.*|libm.so.*|ld-linux*|libpthread*|libdl.so*|librt.so*) ;;
    libstdc++*|libgcc_s*) cp -L "$lib" "$kit/lib_cxx/" ;;
    *) cp -L "$lib" "$kit/lib/" ;;
  esac
done
for p in ${PROGRAMS:-linear_fwd linear_train_step mlp_fwd mlp_train_step cnn_fwd cnn_train_step cifar_fwd cifar8_fwd \
                      cifar8_train_step cifar8_mom_train_step cifar8_adam_train_step cifar8_bn_fwd}; do
  cp "$artifacts/$p.mlir" "$kit/programs/"
done
du -sh "$kit"
