# syntax=docker/dockerfile:1
#
# One image recipe for every backend workspace, chosen by the WORKSPACE build argument:
#   docker build -f infra/docker/service.Dockerfile --build-arg WORKSPACE=services/orders .
# WORKSPACE is one of services/auth, services/wallet, services/catalog, services/orders,
# services/payments, gateway, infra/supplier-sim. The build context is the repository root.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------- dependencies
# Only the manifests, so this layer is reused until a dependency changes.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json tsconfig*.json ./
COPY services/kit/package.json services/kit/
COPY services/auth/package.json services/auth/
COPY services/wallet/package.json services/wallet/
COPY services/catalog/package.json services/catalog/
COPY services/orders/package.json services/orders/
COPY services/payments/package.json services/payments/
COPY gateway/package.json gateway/
COPY infra/supplier-sim/package.json infra/supplier-sim/
COPY frontend/package.json frontend/
# Fixes to dependencies, applied by npm ci's postinstall (see infra/patches/README.md).
COPY infra/patches/ infra/patches/
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund

# ---------------------------------------------------------------- the SPA
# The gateway serves the built frontend (same origin as /api). This stage does not read
# WORKSPACE, so the service builds share one frontend build.
FROM deps AS web
COPY frontend/ frontend/
RUN npm run build -w frontend

# ---------------------------------------------------------------- build
FROM deps AS build
ARG WORKSPACE
RUN test -n "$WORKSPACE" || { echo "build with --build-arg WORKSPACE=services/<name>, gateway or infra/supplier-sim" >&2; exit 1; }
COPY services/ services/
COPY gateway/ gateway/
COPY infra/supplier-sim/ infra/supplier-sim/
# Project references: this also builds services/kit.
RUN npx tsc -b "$WORKSPACE"
RUN npm prune --omit=dev --no-audit --no-fund
# Gather what the process needs at run time into /out, keeping the repository layout so
# node_modules/@raseed/kit (a workspace symlink to ../../services/kit) still resolves.
RUN --mount=type=bind,from=web,source=/app/frontend/dist,target=/tmp/spa \
    set -eu; \
    mkdir -p /out; \
    cp -a package.json node_modules /out/; \
    for ws in services/kit "$WORKSPACE"; do \
      mkdir -p "/out/$ws"; \
      cp -a "$ws/package.json" "$ws/dist" "/out/$ws/"; \
      if [ -d "$ws/node_modules" ]; then cp -a "$ws/node_modules" "/out/$ws/"; fi; \
    done; \
    if [ "$WORKSPACE" = gateway ]; then mkdir -p /out/frontend && cp -a /tmp/spa /out/frontend/dist; fi

# ---------------------------------------------------------------- runtime
FROM ${NODE_IMAGE} AS runtime
ARG WORKSPACE
ENV NODE_ENV=production \
    WORKSPACE=${WORKSPACE}
COPY --from=build /out /app
WORKDIR /app/${WORKSPACE}
USER node
# PORT comes from the environment (docker-compose.yml sets it per service).
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
