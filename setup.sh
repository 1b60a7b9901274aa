#!/usr/bin/env bash
# ParityLab set-up: installs what is missing (Debian packages only), builds, then runs.
#
#   ./setup.sh run     install + build the two programs + the main job: the desktop app with the `quick` study on
#                      Fashion-MNIST, or on a machine without a display the same study headless with
#                      paritylab-cli and its report (out/quick.db, out/quick-report.csv, out/charts/).
#   ./setup.sh test    install + build + the whole test suite (ctest). This is what CI runs.
#   ./setup.sh build   install + build only.
#   ./setup.sh deps    install only (add --dev for screenshot and reference-checking tools).
#
# Safe to run twice: installed packages and an existing build are reused.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

BUILD_DIR=${PARITYLAB_BUILD_DIR:-build}
JOBS=${PARITYLAB_JOBS:-$(nproc)}

packages=(
  build-essential cmake pkg-config ccache
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev qt6-svg-dev libqt6svg6
  libopenblas-dev libdnnl-dev libeigen3-dev libopencv-dev libboost-math-dev
  nlohmann-json3-dev libcli11-dev libsqlite3-dev zlib1g-dev libprotobuf-dev protobuf-compiler
  libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  openmpi-bin libopenmpi-dev
  dataset-fashion-mnist
  fortunes
)
dev_packages=(xvfb xauth imagemagick python3-scipy python3-numpy python3-statsmodels clang-format clang-tidy)

install_packages() {
  local wanted=("${packages[@]}")
  [[ "${1:-}" == "--dev" ]] && wanted+=("${dev_packages[@]}")
  local missing=()
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    echo "setup: all ${#wanted[@]} Debian packages present"
    return
  fi
  echo "setup: installing ${missing[*]}"
  local sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# build [TARGET...]: everything (tests and benchmarks too), or only the targets named.
build() {
  if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
    cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
  fi
  local targets=()
  (($# > 0)) && targets=(--target "$@")
  cmake --build "$BUILD_DIR" -j "$JOBS" "${targets[@]}"
}

run_main_job() {
  mkdir -p out
  if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
    exec "$BUILD_DIR/app/paritylab" --study resources/studies/quick.json
  fi
  echo "setup: no display; running the quick study headless"
  "$BUILD_DIR/app/paritylab-cli" run resources/studies/quick.json --db out/quick.db --resume
  "$BUILD_DIR/app/paritylab-cli" report out/quick.db --csv out/quick-report.csv --charts out/charts
  echo "setup: report in out/quick-report.csv, charts in out/charts/"
}

case "${1:-}" in
  deps) install_packages "${2:-}" ;;
  build) install_packages; build ;;
  run) install_packages; build paritylab paritylab-cli; run_main_job ;;  # the two programs only
  test)
    install_packages
    build
    QT_QPA_PLATFORM=offscreen ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"
    ;;
  *)
    sed -n '2,13p' "$0"
    exit 2
    ;;
esac
