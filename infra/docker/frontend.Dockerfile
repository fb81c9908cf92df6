# syntax=docker/dockerfile:1
#
# The React SPA built by Vite and served by nginx, which forwards /api/ and /external/
# to the gateway (infra/docker/nginx.conf). The build context is the repository root:
#   docker build -f infra/docker/frontend.Dockerfile .

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------- build
# The same manifest layers as service.Dockerfile, so the two share the npm ci cache.
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

FROM deps AS web
COPY frontend/ frontend/
RUN npm run build -w frontend

# ---------------------------------------------------------------- runtime
FROM nginx:1.27-alpine AS runtime
COPY infra/docker/nginx.conf /etc/nginx/templates/default.conf.template
COPY --from=web /app/frontend/dist /usr/share/nginx/html
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=5 \
  CMD ["wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8080/healthz"]
