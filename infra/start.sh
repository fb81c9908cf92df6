#!/usr/bin/env bash
# npm start: installs what is missing, brings the local infrastructure up, builds, and
# runs the supplier simulator, the five services (one or more instances each) and the
# gateway (which serves the storefront) until Ctrl-C.
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

step "starting the store"
# Each service with RASEED_INSTANCES instances (RASEED_INSTANCES_ORDERS=3 for one service), on
# loopback ports of their own, behind the gateway on $GATEWAY_PORT (8080): see infra/cluster.
exec node --import tsx infra/cluster/start.ts
