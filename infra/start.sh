#!/usr/bin/env bash
# npm start: installs what is missing, brings the local infrastructure up, builds, and
# runs the supplier simulator, the five services and the gateway (which serves the
# storefront) until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
source infra/lib.sh
# The local store: development defaults (secrets, the first admin's password) apply only when
# NODE_ENV says so; unset, every process requires real ones. Every process listens on loopback.
export NODE_ENV="${NODE_ENV:-development}"

ensure_dependencies
step "infrastructure"
bash infra/infra.sh up
step "build"
npx tsc -b
npm run build -w frontend --silent

logs="${RASEED_DATA:-$HOME/.local/share/raseed}/logs"
mkdir -p "$logs"
pids=()
stop() {
  trap - INT TERM EXIT
  step "stopping"
  kill -TERM "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
}
trap stop INT TERM EXIT

port="${GATEWAY_PORT:-8080}"
step "starting the services"
# The services' default SUPPLIER_URL is the simulator on 4100; a real supplier's URL replaces it.
if [ -z "${SUPPLIER_URL:-}" ]; then
  env -u PORT node infra/supplier-sim/dist/main.js >>"$logs/supplier-sim.log" 2>&1 &
  pids+=($!)
  echo "  supplier-sim (log: $logs/supplier-sim.log)"
  for _ in $(seq 1 40); do
    curl -fs http://127.0.0.1:4100/healthz >/dev/null 2>&1 && break
    sleep 0.25
  done
fi
for app in services/auth services/wallet services/catalog services/orders services/payments gateway; do
  name=$(basename "$app")
  # Each service listens on its own default port; the gateway on $port.
  if [ "$name" = gateway ]; then app_port=$port; else app_port=; fi
  env -u PORT ${app_port:+PORT=$app_port} node "$app/dist/main.js" >>"$logs/$name.log" 2>&1 &
  pids+=($!)
  echo "  $name (log: $logs/$name.log)"
done

healthy() { curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; }
for _ in $(seq 1 120); do
  healthy && break
  for pid in "${pids[@]}"; do
    kill -0 "$pid" 2>/dev/null || { echo "a service stopped during start; see the logs in $logs" >&2; exit 1; }
  done
  sleep 0.5
done
healthy || { echo "the store did not become healthy; see $logs" >&2; exit 1; }

cat <<MSG

Raseed is running at http://localhost:$port   (Ctrl-C stops it)

The first admin is created from ADMIN_EMAIL and ADMIN_PASSWORD when no admin exists yet:
  ADMIN_EMAIL=${ADMIN_EMAIL:-admin@raseed.local (default)}
  ADMIN_PASSWORD=${ADMIN_PASSWORD:+(from your environment)}${ADMIN_PASSWORD:-raseed-admin-password (default; set your own before the first start)}
E-mails (password resets) are caught at http://127.0.0.1:1080
MSG
# Ctrl-C reaches the services too; each stops gracefully and exits 0.
code=0
wait -n "${pids[@]}" || code=$?
if [ "$code" -ne 0 ]; then
  echo "a service stopped unexpectedly (exit code $code); see the logs in $logs" >&2
  exit 1
fi
