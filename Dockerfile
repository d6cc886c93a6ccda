# One image per service, from one build:
#   docker build --target game-service -t playstack/game-service .
#   docker build --target observability-service -t playstack/observability-service .
# compose.yaml builds and runs both with PostgreSQL and Redis. docs/operations.md says more.
ARG NODE_VERSION=24

# Build: install everything, compile the services and the dashboard, then drop what only the
# build and the tests need.
FROM node:${NODE_VERSION}-bookworm-slim AS build
# better-sqlite3 12 (for Node.js 20 only: NODE_VERSION=20) compiles from source at install (the
# postinstall, scripts/install-sqlite.mjs); the 13 that Node.js 22.14 and later use comes prebuilt.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/server-kit/package.json packages/server-kit/
COPY packages/game-client/package.json packages/game-client/
COPY packages/game-service/package.json packages/game-service/
COPY packages/observability-web/package.json packages/observability-web/
COPY packages/observability-service/package.json packages/observability-service/
COPY scripts/install-sqlite.mjs scripts/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.base.json ./
COPY scripts/ scripts/
COPY packages/ packages/
COPY docs/protocol-v1.schema.json docs/
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf packages/*/src packages/*/test packages/*/dist/.tsbuildinfo packages/observability-web/public

# Run: the built packages and their production dependencies, as the unprivileged `node` user.
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ARG GIT_COMMIT=unknown
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    DATA_DIR=/data \
    GIT_COMMIT=${GIT_COMMIT}
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules/ node_modules/
COPY --from=build /app/packages/ packages/
COPY --from=build /app/docs/ docs/
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
# The service is PID 1 and handles SIGTERM itself (finishes requests in flight, closes its
# database, exits 0); it starts no processes of its own, so it has no zombies to reap. Give it
# longer than SHUTDOWN_TIMEOUT_MS (10 s) before the runtime sends SIGKILL: `docker stop -t 15`,
# compose's stop_grace_period.
STOPSIGNAL SIGTERM

FROM runtime AS observability-service
# HTTP (dashboard, API, OTLP/HTTP) and OTLP/gRPC.
EXPOSE 8081 4317
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.OBSERVABILITY_PORT || 8081}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--max-semi-space-size=64", "packages/observability-service/dist/main.js"]

FROM runtime AS game-service
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.GAME_PORT || 8080}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--max-semi-space-size=64", "packages/game-service/dist/main.js"]
