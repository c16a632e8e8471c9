#!/usr/bin/env bash
# Starts the compiled binary from a temporary directory on an empty data dir, checks /health,
# stops it with SIGTERM and expects a clean exit. Usage: scripts/smoke.sh dist/vigil
set -euo pipefail
bin=$(realpath "${1:-dist/vigil}")
work=$(mktemp -d)
port=$(( 20000 + RANDOM % 20000 ))
cd "$work"
VIGIL_PORT=$port VIGIL_HOST=127.0.0.1 VIGIL_DATA_DIR="$work/data" "$bin" serve >"$work/log" 2>&1 &
pid=$!
for _ in $(seq 1 50); do
  if curl -fsS "http://127.0.0.1:$port/health" >"$work/health" 2>/dev/null; then break; fi
  sleep 0.1
done
cat "$work/health"; echo
grep -q '"status":"ok"' "$work/health"
"$bin" healthcheck --port "$port" --host 127.0.0.1
kill -TERM "$pid"
wait "$pid"
echo "smoke: ok"
rm -rf "$work"
