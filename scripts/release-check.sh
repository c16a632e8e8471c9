#!/usr/bin/env bash
# Runs a release executable for another architecture under qemu user emulation (Debian:
# qemu-user-static, and libc6-arm64-cross for the arm64 C library): `agent --once` must print a
# sample the hub accepts (scripts/check-sample.ts), then `serve` must answer /health; SIGTERM stops it.
#   scripts/release-check.sh dist/release/vigil-linux-arm64
set -euo pipefail
bin=${1:-dist/release/vigil-linux-arm64}
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
if [ -z "$qemu" ]; then
  echo "release-check: qemu-aarch64 not found (apt-get install qemu-user-static)" >&2
  exit 1
fi
# the executable links glibc dynamically: qemu finds the arm64 loader and libc here
sysroot=/usr/aarch64-linux-gnu
if [ ! -e "$sysroot/lib/ld-linux-aarch64.so.1" ]; then
  echo "release-check: no arm64 C library in $sysroot (apt-get install libc6-arm64-cross)" >&2
  exit 1
fi
export QEMU_LD_PREFIX=$sysroot
# the collector reads this machine's /proc and /sys through the emulated executable
once_started=$(date +%s)
"$qemu" "$bin" agent --once | bun "$(dirname "$0")/check-sample.ts"
echo "release-check: $(basename "$bin") agent --once under $(basename "$qemu"): $(( $(date +%s) - once_started )) s"
data=$(mktemp -d)
port=$(( 20000 + RANDOM % 20000 ))
log="$data/serve.log"
started=$(date +%s)
VIGIL_DATA_DIR="$data/data" VIGIL_HOST=127.0.0.1 VIGIL_PORT=$port VIGIL_LOG_FORMAT=json \
  "$qemu" "$bin" serve >"$log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT
# emulated, the start takes seconds instead of a fraction of one
for _ in $(seq 1 240); do
  if body=$(curl -fsS "http://127.0.0.1:$port/health" 2>/dev/null); then
    echo "release-check: $(basename "$bin") under $(basename "$qemu") answered /health after $(( $(date +%s) - started )) s: $body"
    "$qemu" "$bin" --version
    kill -TERM "$pid"
    wait "$pid"
    trap - EXIT
    rm -rf "$data"
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then break; fi
  sleep 0.5
done
echo "release-check: $bin did not answer /health; its output:" >&2
cat "$log" >&2
exit 1
