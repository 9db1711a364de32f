# One image, two entry points: the API (default) and the worker.
#   docker build -t flowport .
#   docker run -e TEMPORAL_ADDRESS=temporal:7233 -e SERVICE_API_AUTH_TOKEN=… -p 3001:3001 flowport
#   docker run -e TEMPORAL_ADDRESS=temporal:7233 flowport node worker/dist/main.js
# glibc base: Temporal's native worker bridge has no musl (Alpine) build.
# Every step below is run literally by test/production-image.test.ts (part of `npm test`).
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# The workspaces' manifests, which both stages install from.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /app
COPY package.json package-lock.json ./
COPY core/package.json core/
COPY worker/package.json worker/
COPY examples/package.json examples/
COPY client/package.json client/

FROM manifests AS build
RUN npm ci --no-audit --no-fund
COPY . .
# Compiles API, core, worker, client and examples, then prebundles the workflow code (worker/dist/workflow-bundle.js).
RUN npm run build

FROM manifests AS runtime
ENV NODE_ENV=production
# The worker skips webpack at start when this bundle matches its workflows (it rebundles otherwise).
ENV WORKFLOW_BUNDLE=/app/worker/dist/workflow-bundle.js
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force \
 && find node_modules/@temporalio/core-bridge/releases -mindepth 1 -maxdepth 1 ! -name "$(uname -m)-unknown-linux-gnu" -exec rm -rf {} +
COPY --from=build /app/dist ./dist
COPY --from=build /app/core/dist ./core/dist
COPY --from=build /app/worker/dist ./worker/dist
COPY --from=build /app/examples/dist ./examples/dist
# The `flowport` client commands (node dist/cli/flowport.js, or bin/flowport.js) use @flowport/client.
COPY --from=build /app/client/dist ./client/dist
COPY bin ./bin
# The run inspector's page (plugins/ui.ts looks for it beside dist/plugins/; off in production unless SERVICE_UI_ENABLED=true);
# esbuild (a production dependency) bundles @flowport/client from client/dist for it at the first request.
COPY ui ./dist/ui
# Local trace files (a copy of what the bucket holds, or the only one without a bucket) go where the
# `node` user can write: /app belongs to root. Each worker writes its own; replicas and workers
# share traces through the bucket (SERVICE_TRACE_S3_BUCKET), never through this directory.
ENV SERVICE_TRACE_DIR=/var/lib/flowport/traces
RUN mkdir -p /var/lib/flowport/traces && chown -R node:node /var/lib/flowport
USER node
EXPOSE 3001
# A young generation of at most 2 MiB per semi-space (V8's default is 16): the API's start-up
# fills the default one to its maximum, about 20 MiB more resident memory until V8 gives it back
# once idle; the smaller one costs no measurable throughput (docs/performance.md).
CMD ["node", "--max-semi-space-size=2", "dist/server.js"]
