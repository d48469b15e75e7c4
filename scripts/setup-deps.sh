#!/usr/bin/env bash
# Installs the Debian 12 packages shlo-oracle needs, only those that are missing.
set -euo pipefail
packages=(build-essential cmake pkg-config
          xtensor-dev librapidcheck-dev catch2 libboost-dev libgmp-dev libmpfr-dev libmpfi-dev
          libcli11-dev nlohmann-json3-dev libbenchmark-dev
          libopenmpi-dev openmpi-bin
          clang libclang-rt-14-dev   # clang + libFuzzer: the fuzz/libfuzzer targets (fuzz_smoke test)
          python3-dev python3-numpy pybind11-dev)  # the Python module shlo_oracle (python/) and its test
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi
